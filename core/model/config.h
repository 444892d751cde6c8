#pragma once
// Model configuration parsed from a Hugging Face config.json, for every supported family.
// No LibTorch here. Unknown model types and unsupported options are errors naming them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gb {

enum class Family { Llama, Qwen2, Qwen3, Gemma, Gemma3, GptNeoX, Gpt2 };
enum class NormKind { RMSNorm, RMSNormOnePlus, LayerNorm };
enum class Activation { SiLU, GeluTanh, GeluErf, QuickGelu, Relu };
enum class AttentionKind { Full, Sliding };

const char* family_name(Family family);  // "llama", "qwen2", ... (the HF model_type)
const char* activation_name(Activation act);
std::vector<std::string> supported_model_types();

struct RopeScaling {
  std::string type = "default";  // "default", "linear", "llama3"
  double factor = 1.0;
  double low_freq_factor = 1.0;
  double high_freq_factor = 4.0;
  int64_t original_max_position = 8192;
};

struct ModelConfig {
  Family family = Family::Llama;
  std::string model_type;    // as in config.json
  std::string architecture;  // e.g. "LlamaForCausalLM"

  int64_t vocab_size = 0;
  int64_t hidden_size = 0;
  int64_t intermediate_size = 0;
  int64_t num_layers = 0;
  int64_t num_heads = 0;
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t max_positions = 0;

  NormKind norm = NormKind::RMSNorm;
  double norm_eps = 1e-6;
  Activation activation = Activation::SiLU;
  bool gated_mlp = true;
  bool qkv_bias = false;
  bool o_bias = false;
  bool mlp_bias = false;
  bool qk_norm = false;  // per-head RMSNorm of q and k before RoPE (Qwen3, Gemma 3)
  bool tie_embeddings = false;
  bool scale_embeddings = false;   // multiply embeddings by sqrt(hidden) (Gemma)
  bool learned_positions = false;  // GPT-2
  bool parallel_residual = false;  // GPT-NeoX
  bool sandwich_norms = false;     // Gemma 3: post-attention, pre/post feed-forward norms

  bool rotary = true;
  double rope_theta = 10000.0;
  double rope_local_theta = 10000.0;  // sliding layers of Gemma 3
  RopeScaling rope_scaling;
  double rotary_pct = 1.0;  // fraction of head_dim that is rotated (GPT-NeoX)

  double attn_scale = 0.0;  // multiplier of q·k; 1/sqrt(head_dim) unless set
  std::optional<double> attn_softcap;
  std::optional<double> final_softcap;
  int64_t sliding_window = 0;
  std::vector<AttentionKind> layer_types;  // one per layer

  std::optional<int64_t> bos_token_id;
  std::optional<int64_t> eos_token_id;
  std::optional<int64_t> pad_token_id;

  nlohmann::json raw;  // the config.json it came from, written back (updated) on export

  int64_t rotary_dim() const;  // int(head_dim * rotary_pct)
  int64_t kv_groups() const { return num_heads / num_kv_heads; }
  double embed_scale() const;   // sqrt(hidden) rounded to float32, or 1
  int64_t param_count() const;  // of the plain architecture described by this config
};

// Parses config.json contents. `source` names the file in errors.
ModelConfig parse_config(const nlohmann::json& j, const std::string& source);
ModelConfig load_config(const std::string& config_json_path);

// The config.json to write for `config` (its raw JSON with the sizes updated).
nlohmann::json to_hf_json(const ModelConfig& config);

// Checks internal consistency (positive sizes, heads divide, ...); throws naming the field.
void validate(const ModelConfig& config, const std::string& source);

}  // namespace gb
