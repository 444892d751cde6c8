#pragma once
// Saving and loading grown models.
//
// A grown model is written as a plain Hugging Face folder whenever it is expressible in its
// family's architecture (Grow on every layer → larger intermediate size, depth expansion →
// more layers, LoRA → merged weights, Freeze/full/EWC → unchanged shapes), so that any tool
// loads it. Otherwise as a GrowBench checkpoint folder:
//   growbench.json     {"format": "growbench-checkpoint", "version": 1,
//                       "base_config": {config.json of the base model},
//                       "plan": {the resolved GrowthPlan}, "growbench_version": "..."}
//   model.safetensors  every parameter under its registered (internal) name
//   tokenizer files    copied from the base model's folder
// which GrowBench reloads exactly: base config → modules → plan applied structurally →
// every tensor from the file (missing and unexpected names are errors).

#include <string>

#include "grow/growth.h"
#include "model/hf_io.h"

namespace gb::grow {

enum class SaveFormat { Auto, HuggingFace, GrowBench };

struct SavedModel {
  std::string folder;
  SaveFormat format = SaveFormat::Auto;  // the format actually written
  std::string reason;  // why a GrowBench checkpoint was written instead of a plain one
};

// Writes `model` (grown from a base of `base_config` by `plan`, or plain when plan is null).
SavedModel save_model(CausalLMImpl& model, const ModelConfig& base_config, const GrowthPlan* plan,
                      const std::string& out_dir, const std::string& tokenizer_source,
                      SaveFormat format = SaveFormat::Auto);

// Loads a Hugging Face folder or a GrowBench checkpoint folder. For a GrowBench checkpoint,
// `config` is the base config and `plan` the applied plan (JSON null for plain folders).
LoadedModel load_model(const std::string& folder, const LoadOptions& options = {});

// True when `folder` holds a GrowBench checkpoint (growbench.json).
bool is_growbench_checkpoint(const std::string& folder);

}  // namespace gb::grow
