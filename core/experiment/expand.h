#pragma once
// Seeds and sweeps: one experiment spec → the list of runs it stands for.
//
//   "seeds": [0, 1, 2]              at the top level or in a plan: one run per seed. The seed of
//                                   a run ("run_seed" of its resolved spec) sets the data order
//                                   and the initial values of new parameters; the spec's "seed"
//                                   keeps the base model, the data splits and the probe sets
//                                   fixed across the runs.
//   "sweep": {"train.lr": [1e-4, 3e-4], "replay": [0, 0.1], "rank": [4, 8]}
//                                   at the top level or in a plan: train.* keys (every train key
//                                   but seq_len and batch_tokens, which shape the evaluation
//                                   sets) and plan parameters by their schema names (nested
//                                   ones dotted, "ewc.lambda"). A plan's own sweep replaces the
//                                   top-level one for that plan; a top-level plan key applies
//                                   only to the plans whose variant has that parameter.
//   "sweep_mode": "grid" (default)  the cartesian product, keys in sorted order, values in the
//                                   given order; or "random" with "samples": N, each value drawn
//                                   uniformly from a list, or from {"log_uniform": [a, b]} /
//                                   {"uniform": [a, b]}, by a generator seeded with the spec's
//                                   seed and the plan's index (the same draws on every machine).
//
// The order is deterministic: plans in spec order, then grid points (or samples), then seeds.
// Every run's resolved spec holds exactly one plan, its swept values written into the plan and
// "train", and "run_seed"; it has no seeds or sweep, so resuming a run re-reads it as is.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/spec.h"

namespace gb::experiment {

struct ExpandedRun {
  std::string name;       // "<spec name>: <plan label> [train.lr=0.001] seed=1"
  size_t plan_index = 0;  // into ExperimentSpec::plans
  uint64_t seed = 0;      // the run seed
  nlohmann::json swept;   // the swept keys and their values at this run ({} when none)
  nlohmann::json spec;    // the run's resolved spec (one plan, no seeds or sweep)
  // The same spec parsed once (typed.raw == spec): what the runner, the estimates and the
  // pilot use. `spec` is its text for the store (provenance, and what a resume re-reads).
  ExperimentSpec typed;
  // The resolved hyper-parameters flattened for the store: "seed", "plan" (its label),
  // "variant", "plan.<key>" and "train.<key>".
  std::map<std::string, nlohmann::json> params;
};

// The runs of `spec`; errors name the key ("spec.sweep['train.seq_len']: ...").
std::vector<ExpandedRun> expand_runs(const ExperimentSpec& spec);

// A stable hash of the spec as given (hex, 16 digits): the runs of one spec share it.
std::string spec_hash(const ExperimentSpec& spec);

// The train keys a sweep may set (without the "train." prefix), e.g. for the GUI's sweep
// editor.
const std::vector<std::string>& sweepable_train_keys();

// The keys a plan JSON may carry for the expansion (removed before the plan is parsed):
// seeds, sweep, sweep_mode, samples, and the plan's own fixed "train" overrides and "comment".
const std::vector<std::string>& expansion_keys();

}  // namespace gb::experiment
