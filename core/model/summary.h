#pragma once
// A torch-free description of a model's architecture: what `growbench-cli inspect` prints
// and the GUI's architecture tree shows (layers → units with shapes and parameter counts).

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gb {

class CausalLMImpl;

struct TensorSummary {
  std::string name;  // registered name, e.g. model.layers.0.mlp.up_proj.weight
  std::vector<int64_t> shape;
  int64_t numel = 0;
  bool trainable = true;
  std::string dtype;
};

struct UnitSummary {
  std::string name;  // q, k, v, o, gate, up, down, input_norm, ... or a branch name
  std::string kind;  // Linear, LoRA r=8, RMSNorm, ...
  std::string path;  // module path inside the layer
  std::vector<TensorSummary> tensors;
  int64_t params = 0;
};

struct LayerSummary {
  int64_t index = 0;
  std::string attention;  // "full" or "sliding(W)"
  std::vector<UnitSummary> units;
  int64_t params = 0;
};

struct ModelSummary {
  std::string model_type, architecture, family;
  int64_t vocab_size = 0, hidden_size = 0, intermediate_size = 0, num_layers = 0;
  int64_t num_heads = 0, num_kv_heads = 0, head_dim = 0, max_positions = 0;
  bool tied_embeddings = false;
  std::string norm, activation, rope;
  std::vector<TensorSummary> outer;  // embeddings, final norm, head
  std::vector<LayerSummary> layers;
  int64_t params = 0, trainable_params = 0;
  nlohmann::json config;  // config.json as loaded
};

ModelSummary summarize(CausalLMImpl& model);
nlohmann::json to_json(const ModelSummary& summary);
std::string to_text(const ModelSummary& summary);  // human-readable table

}  // namespace gb
