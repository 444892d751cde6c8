#pragma once
// The model of a stored run at a checkpoint, for commands that take `--run ID --db DB` in
// place of MODEL (export, eval): the run's base model (its spec's folder, or the preset it
// was built from), the checkpoint's resolved plan applied with the run's seed (so that new
// frozen parameters get the values the run started from), then the trained tensors of the
// checkpoint (trainable.safetensors) copied in by name.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "model/hf_io.h"

namespace gb::experiment {

struct RunModel {
  LoadedModel loaded;   // the grown, trained model; `loaded.folder` is the base folder
  nlohmann::json plan;  // the resolved plan (GrowthPlan JSON)
  int64_t run_id = 0;
  int64_t step = 0;         // of the checkpoint
  std::string checkpoint;   // its folder
  std::string base_folder;  // the base model's folder
};

// Loads run `run_id` of the store `db_path` at its latest checkpoint. `cache_dir` locates
// built presets (default: the default cache). Errors name the run and say what is missing
// (no checkpoint yet, a moved base model, ...).
RunModel load_run_model(const std::string& db_path, int64_t run_id, const LoadOptions& options,
                        const std::string& cache_dir = {});

}  // namespace gb::experiment
