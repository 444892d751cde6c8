#pragma once
// The timing pilot of `growbench-cli run SPEC --dry-run`: how long each run of a spec will
// take, measured rather than guessed.
//
// For each plan of the spec, the first of its runs (its resolved spec, sweep values
// included) is run for two optimizer steps per phase with an evaluation after every step,
// into a scratch store in a temporary folder that is removed afterwards (nothing is written
// to the user's store). From that pilot run:
//   step_s   the seconds of one optimizer step (training tokens / the run's training
//            throughput, perf/tokens_per_s);
//   eval_s   the seconds of one interval evaluation (perf/eval_s at the steps between the
//            first and the last, validation sets and tasks only);
//   ends_s   the evaluations at step 0 and at the end together (they add the held-out test
//            sets);
//   setup_s  everything else: loading, growing, the plan's probes, task-matrix rows of a
//            sequence, checkpoints.
// A run's estimate is setup_s + ends_s + steps · step_s + E · eval_s, with steps its total
// optimizer steps and E its interval evaluations (every eval.interval steps before the last).
// The experiment's preparation (a preset built, corpora tokenised) is measured once, before
// the first pilot, and reported apart: later runs find it cached.

#include <cstdint>
#include <string>
#include <vector>

#include "experiment/expand.h"
#include "experiment/runner.h"
#include "experiment/spec.h"

namespace gb::experiment {

struct PlanTiming {
  std::string plan;  // the plan's label
  double setup_s = 0, step_s = 0, eval_s = 0, ends_s = 0;
  double pilot_s = 0;           // wall time of the pilot run itself
  int64_t tokens_per_step = 0;  // training tokens of one pilot step (step_s is per these)
};

struct PilotResult {
  double prepare_s = 0;             // preset and corpora, once (0 when cached)
  std::vector<PlanTiming> plans;    // one per plan of the spec, in spec order
  std::vector<double> run_seconds;  // one per run of `runs`
  double total_s() const;           // prepare_s + every run
  // prepare_s + the time `jobs` workers take for the runs in order (`run --jobs`: each run
  // goes to the first worker free), assuming a worker runs as fast as one run alone.
  double wall_s(int64_t jobs) const;
};

// The number of optimizer steps of a run's spec (every phase of a sequence) and of its
// interval evaluations (the runner evaluates at step 0, every eval.interval steps before the
// last, and at the last).
int64_t total_steps(const ExperimentSpec& spec);
int64_t interval_evaluations(const ExperimentSpec& spec);

// A run's estimate from its plan's pilot: setup_s + ends_s + steps · step_s (scaled by the
// run's tokens per step against the pilot's) + E · eval_s.
double estimate_seconds(const PlanTiming& timing, const ExperimentSpec& run);

// `base_dir` resolves the relative paths of the runs' specs (the spec file's folder);
// `options` gives the cache folder and the progress callback (db_path and workspace are
// replaced by the scratch ones).
PilotResult timing_pilot(const ExperimentSpec& spec, const std::vector<ExpandedRun>& runs,
                         const std::string& base_dir, const RunnerOptions& options);

}  // namespace gb::experiment
