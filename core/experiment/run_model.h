#pragma once
// The model of a stored run at one of its checkpoints, rebuilt the way a resume rebuilds it:
// the run's base model (its folder, or its preset, built when absent), the checkpoint's
// resolved plan (explicit layers: no probes) applied with the run's seed, and the trainable
// tensors of the checkpoint copied in. Frozen values that the plan derives from the base
// (Grow's scaled copies, SCALE's SVD inits) are recomputed exactly as the run computed them.

#include <cstdint>
#include <string>

#include "experiment/spec.h"
#include "grow/growth.h"
#include "model/hf_io.h"
#include "store/store.h"

namespace gb::experiment {

struct RunModel {
  ExperimentSpec spec;        // the run's resolved spec
  std::string base_folder;    // the base model's folder
  LoadedModel model;          // grown, with the checkpoint's trainable tensors
  grow::GrowthResult growth;  // the plan as applied
  int64_t step = 0;           // the checkpoint's step
  int64_t run_id = 0;
  std::string checkpoint;  // the checkpoint's folder
};

// The base model folder of a spec: its path, or its preset's folder (built if absent).
std::string spec_base_folder(const ExperimentSpec& spec, const std::string& cache_dir = {});

// The run's model at `checkpoint` (one of store.checkpoints(run_id)). Throws naming the run
// and the folder when the checkpoint is missing or does not fit the plan.
RunModel load_run_model(store::Store& store, int64_t run_id,
                        const store::CheckpointInfo& checkpoint, const std::string& cache_dir = {});

// The run's base model with its plan applied as at step 0 (before any training), for
// comparisons against the run's checkpoints. The plan comes from `checkpoint` (resolved).
RunModel load_run_initial_model(store::Store& store, int64_t run_id,
                                const store::CheckpointInfo& checkpoint,
                                const std::string& cache_dir = {});

// For commands that take `--run ID --db DB` in place of MODEL (export, eval): run `run_id` of
// the store at `db_path` at its latest checkpoint, loaded with `options` (device, dtype), in
// eval mode with every parameter frozen. Errors name the run and say what is missing (no
// checkpoint yet, a moved base model, a tensor of the plan absent from the checkpoint, ...).
RunModel load_latest_run_model(const std::string& db_path, int64_t run_id,
                               const LoadOptions& options, const std::string& cache_dir = {});

}  // namespace gb::experiment
