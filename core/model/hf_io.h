#pragma once
// Hugging Face model folders: staged, validated loading (config → modules → tensors, every
// expected name and shape checked) and export of a complete folder (config.json,
// model.safetensors, tokenizer files copied) that loads back bit-exactly.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

#include "model/config.h"
#include "model/modules.h"

namespace gb {

struct LoadOptions {
  c10::Device device = c10::Device(c10::kCPU);
  c10::ScalarType dtype = c10::kFloat;
  // Refuse weights holding NaN or Inf (check_finite_weights); off: `--no-check`, for huge
  // models where one pass over the weights costs too much.
  bool check_finite = true;
};

struct LoadedModel {
  ModelConfig config;
  CausalLM model{nullptr};
  std::string folder;
  std::string tokenizer_file;  // tokenizer.json next to the weights, or empty
  // For a GrowBench checkpoint (grow/checkpoint.h): the resolved plan applied to the base
  // model described by `config`; null for a plain Hugging Face folder.
  nlohmann::json plan;
};

// Loads a Hugging Face folder: config.json, then model.safetensors or a sharded index.
LoadedModel load_hf_model(const std::string& folder, const LoadOptions& options = {});

// Builds a model for `config` and fills every parameter from the checkpoint folder.
CausalLM build_from_checkpoint(const ModelConfig& config, const std::string& folder,
                               const LoadOptions& options);

// Whether `model` (possibly grown) can be written as a plain checkpoint of its family;
// `reason` says why not.
bool is_hf_expressible(CausalLMImpl& model, std::string* reason = nullptr);

// Fails, naming the folder and the tensor, when a weight holds NaN or Inf (checked on every
// load: one pass over the weights).
void check_finite_weights(CausalLMImpl& model, const std::string& folder);

// The config of the plain architecture `model` now has (layers, MLP size, layer types).
ModelConfig plain_config(CausalLMImpl& model);

// Writes `out_dir` as a Hugging Face folder. Throws when the model is not expressible in
// its family's architecture. Tokenizer and generation files are copied from
// `tokenizer_source` (a folder; may be empty).
void export_hf(CausalLMImpl& model, const std::string& out_dir,
               const std::string& tokenizer_source);

// The tokenizer-related files of a folder that an export copies.
std::vector<std::string> tokenizer_files(const std::string& folder);
std::string find_tokenizer(const std::string& folder);  // path of tokenizer.json or ""

}  // namespace gb
