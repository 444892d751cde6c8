#include "model/config.h"

#include <cmath>

#include "util/error.h"
#include "util/json.h"

namespace gb {
namespace {

using Json = nlohmann::json;

Activation parse_activation(const std::string& name, const std::string& ctx) {
  if (name == "silu" || name == "swish") return Activation::SiLU;
  if (name == "gelu_pytorch_tanh" || name == "gelu_new" || name == "gelu_fast" ||
      name == "gelu_tanh")
    return Activation::GeluTanh;
  if (name == "gelu") return Activation::GeluErf;
  if (name == "quick_gelu") return Activation::QuickGelu;
  if (name == "relu") return Activation::Relu;
  fail(
      "{}: unsupported activation '{}' (supported: silu, gelu, gelu_new, gelu_pytorch_tanh, "
      "gelu_fast, quick_gelu, relu)",
      ctx, name);
}

template <typename T>
T req(const Json& j, const char* key, const std::string& ctx) {
  return gb::json::get<T>(j, key, ctx);
}
template <typename T>
T opt(const Json& j, const char* key, const T& fallback, const std::string& ctx) {
  return gb::json::get_or<T>(j, key, fallback, ctx);
}

std::optional<int64_t> token_id(const Json& j, const char* key, const std::string& ctx) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (it->is_array()) {  // e.g. Llama 3.1 lists several eos ids; the first is the main one
    if (it->empty()) return std::nullopt;
    if (!(*it)[0].is_number_integer()) fail("{}: '{}' must hold integers", ctx, key);
    return (*it)[0].get<int64_t>();
  }
  return req<int64_t>(j, key, ctx);
}

RopeScaling parse_rope_scaling(const Json& j, const std::string& ctx) {
  RopeScaling rs;
  auto it = j.find("rope_scaling");
  if (it == j.end() || it->is_null()) return rs;
  const Json& r = *it;
  if (!r.is_object()) fail("{}: 'rope_scaling' must be an object or null", ctx);
  std::string type = r.contains("rope_type")
                         ? req<std::string>(r, "rope_type", ctx + ".rope_scaling")
                         : opt<std::string>(r, "type", "default", ctx + ".rope_scaling");
  std::string c = ctx + ".rope_scaling";
  if (type == "default") return rs;
  if (type == "linear") {
    rs.type = type;
    rs.factor = req<double>(r, "factor", c);
  } else if (type == "llama3") {
    rs.type = type;
    rs.factor = req<double>(r, "factor", c);
    rs.low_freq_factor = req<double>(r, "low_freq_factor", c);
    rs.high_freq_factor = req<double>(r, "high_freq_factor", c);
    rs.original_max_position = req<int64_t>(r, "original_max_position_embeddings", c);
  } else {
    fail("{}: rope_scaling type '{}' is not supported (supported: default, linear, llama3)", ctx,
         type);
  }
  if (!(rs.factor > 0)) fail("{}: rope_scaling factor must be positive", ctx);
  return rs;
}

// Qwen2/Qwen3 style: layer_types, or use_sliding_window with max_window_layers.
void parse_qwen_layer_types(const Json& j, ModelConfig& c, const std::string& ctx) {
  c.layer_types.assign(c.num_layers, AttentionKind::Full);
  if (j.contains("layer_types") && !j["layer_types"].is_null()) {
    auto types = req<std::vector<std::string>>(j, "layer_types", ctx);
    if (static_cast<int64_t>(types.size()) != c.num_layers) {
      fail("{}: 'layer_types' has {} entries, expected num_hidden_layers = {}", ctx, types.size(),
           c.num_layers);
    }
    for (size_t i = 0; i < types.size(); ++i) {
      if (types[i] == "sliding_attention") {
        c.layer_types[i] = AttentionKind::Sliding;
      } else if (types[i] != "full_attention") {
        fail("{}: layer_types[{}] = '{}' is not supported", ctx, i, types[i]);
      }
    }
  } else if (opt<bool>(j, "use_sliding_window", false, ctx)) {
    int64_t first = opt<int64_t>(j, "max_window_layers", 0, ctx);
    for (int64_t l = first; l < c.num_layers; ++l) c.layer_types[l] = AttentionKind::Sliding;
  }
  bool any_sliding = false;
  for (auto t : c.layer_types) any_sliding |= t == AttentionKind::Sliding;
  if (any_sliding) {
    c.sliding_window = req<int64_t>(j, "sliding_window", ctx);
    if (c.sliding_window <= 0) fail("{}: 'sliding_window' must be positive", ctx);
  }
}

void parse_llama_like(const Json& j, ModelConfig& c, const std::string& ctx) {
  c.vocab_size = req<int64_t>(j, "vocab_size", ctx);
  c.hidden_size = req<int64_t>(j, "hidden_size", ctx);
  c.intermediate_size = req<int64_t>(j, "intermediate_size", ctx);
  c.num_layers = req<int64_t>(j, "num_hidden_layers", ctx);
  c.num_heads = req<int64_t>(j, "num_attention_heads", ctx);
  c.num_kv_heads = opt<int64_t>(j, "num_key_value_heads", c.num_heads, ctx);
  c.head_dim = opt<int64_t>(j, "head_dim", c.num_heads > 0 ? c.hidden_size / c.num_heads : 0, ctx);
  c.max_positions = opt<int64_t>(j, "max_position_embeddings", 2048, ctx);
  c.norm_eps = opt<double>(j, "rms_norm_eps", 1e-6, ctx);
  c.rope_theta = opt<double>(j, "rope_theta", 10000.0, ctx);
  c.rope_scaling = parse_rope_scaling(j, ctx);
  c.tie_embeddings = opt<bool>(j, "tie_word_embeddings", false, ctx);
  c.activation = parse_activation(opt<std::string>(j, "hidden_act", "silu", ctx), ctx);
  c.gated_mlp = true;
  c.layer_types.assign(c.num_layers, AttentionKind::Full);
}

}  // namespace

const char* family_name(Family family) {
  switch (family) {
    case Family::Llama:
      return "llama";
    case Family::Qwen2:
      return "qwen2";
    case Family::Qwen3:
      return "qwen3";
    case Family::Gemma:
      return "gemma";
    case Family::Gemma3:
      return "gemma3_text";
    case Family::GptNeoX:
      return "gpt_neox";
    case Family::Gpt2:
      return "gpt2";
  }
  return "?";
}

const char* activation_name(Activation act) {
  switch (act) {
    case Activation::SiLU:
      return "silu";
    case Activation::GeluTanh:
      return "gelu_tanh";
    case Activation::GeluErf:
      return "gelu";
    case Activation::QuickGelu:
      return "quick_gelu";
    case Activation::Relu:
      return "relu";
  }
  return "?";
}

std::vector<std::string> supported_model_types() {
  return {"llama", "qwen2", "qwen3", "gemma", "gemma3_text", "gpt_neox", "gpt2"};
}

int64_t ModelConfig::rotary_dim() const {
  if (!rotary) return 0;
  return static_cast<int64_t>(static_cast<double>(head_dim) * rotary_pct);
}

double ModelConfig::embed_scale() const {
  if (!scale_embeddings) return 1.0;
  return static_cast<double>(static_cast<float>(std::sqrt(static_cast<double>(hidden_size))));
}

int64_t ModelConfig::param_count() const {
  const int64_t d = hidden_size, p = intermediate_size, hd = head_dim;
  const int64_t qd = num_heads * hd, kvd = num_kv_heads * hd;
  int64_t norm_params = norm == NormKind::LayerNorm ? 2 * d : d;
  int64_t n = vocab_size * d;
  if (learned_positions) n += max_positions * d;
  int64_t layer = d * qd + 2 * d * kvd + qd * d;
  if (qkv_bias) layer += qd + 2 * kvd;
  if (o_bias) layer += d;
  layer += (gated_mlp ? 3 : 2) * d * p;
  if (mlp_bias) layer += (gated_mlp ? 2 * p : p) + d;
  layer += 2 * norm_params;
  if (sandwich_norms) layer += 2 * norm_params;
  if (qk_norm) layer += 2 * hd;
  n += num_layers * layer + norm_params;
  if (!tie_embeddings) n += vocab_size * d;
  return n;
}

ModelConfig parse_config(const nlohmann::json& j, const std::string& source) {
  const std::string& ctx = source;
  if (!j.is_object()) fail("{}: expected a JSON object, found {}", ctx, gb::json::type_name(j));
  ModelConfig c;
  c.raw = j;
  c.model_type = req<std::string>(j, "model_type", ctx);
  if (j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty() &&
      j["architectures"][0].is_string()) {
    c.architecture = j["architectures"][0].get<std::string>();
  }
  const std::string& mt = c.model_type;
  if (mt == "llama" || mt == "qwen2" || mt == "qwen3") {
    c.family = mt == "llama" ? Family::Llama : mt == "qwen2" ? Family::Qwen2 : Family::Qwen3;
    parse_llama_like(j, c, ctx);
    c.norm = NormKind::RMSNorm;
    if (c.family == Family::Llama) {
      bool bias = opt<bool>(j, "attention_bias", false, ctx);
      c.qkv_bias = c.o_bias = bias;
      c.mlp_bias = opt<bool>(j, "mlp_bias", false, ctx);
      c.layer_types.assign(c.num_layers, AttentionKind::Full);
    } else if (c.family == Family::Qwen2) {
      c.qkv_bias = true;
      c.o_bias = false;
      parse_qwen_layer_types(j, c, ctx);
    } else {
      c.qkv_bias = c.o_bias = opt<bool>(j, "attention_bias", false, ctx);
      c.qk_norm = true;
      parse_qwen_layer_types(j, c, ctx);
    }
  } else if (mt == "gemma") {
    c.family = Family::Gemma;
    parse_llama_like(j, c, ctx);
    std::string act = j.contains("hidden_activation") && !j["hidden_activation"].is_null()
                          ? req<std::string>(j, "hidden_activation", ctx)
                          : std::string("gelu_pytorch_tanh");
    c.activation = parse_activation(act, ctx);
    c.norm = NormKind::RMSNormOnePlus;
    c.qkv_bias = c.o_bias = opt<bool>(j, "attention_bias", false, ctx);
    c.tie_embeddings = opt<bool>(j, "tie_word_embeddings", true, ctx);
    c.scale_embeddings = true;
  } else if (mt == "gemma3_text") {
    c.family = Family::Gemma3;
    parse_llama_like(j, c, ctx);
    c.activation =
        parse_activation(opt<std::string>(j, "hidden_activation", "gelu_pytorch_tanh", ctx), ctx);
    c.norm = NormKind::RMSNormOnePlus;
    c.qkv_bias = c.o_bias = opt<bool>(j, "attention_bias", false, ctx);
    c.tie_embeddings = opt<bool>(j, "tie_word_embeddings", true, ctx);
    c.scale_embeddings = true;
    c.qk_norm = true;
    c.sandwich_norms = true;
    c.rope_local_theta = opt<double>(j, "rope_local_base_freq", 10000.0, ctx);
    double qpas = opt<double>(j, "query_pre_attn_scalar", static_cast<double>(c.head_dim), ctx);
    if (!(qpas > 0)) fail("{}: 'query_pre_attn_scalar' must be positive", ctx);
    c.attn_scale = 1.0 / std::sqrt(qpas);
    if (auto v = gb::json::get_opt<double>(j, "attn_logit_softcapping", ctx)) c.attn_softcap = v;
    if (auto v = gb::json::get_opt<double>(j, "final_logit_softcapping", ctx)) c.final_softcap = v;
    c.sliding_window = req<int64_t>(j, "sliding_window", ctx);
    c.layer_types.assign(c.num_layers, AttentionKind::Full);
    if (j.contains("layer_types") && !j["layer_types"].is_null()) {
      auto types = req<std::vector<std::string>>(j, "layer_types", ctx);
      if (static_cast<int64_t>(types.size()) != c.num_layers) {
        fail("{}: 'layer_types' has {} entries, expected num_hidden_layers = {}", ctx, types.size(),
             c.num_layers);
      }
      for (size_t i = 0; i < types.size(); ++i) {
        if (types[i] == "sliding_attention") {
          c.layer_types[i] = AttentionKind::Sliding;
        } else if (types[i] != "full_attention") {
          fail("{}: layer_types[{}] = '{}' is not supported", ctx, i, types[i]);
        }
      }
    } else {
      int64_t pattern = opt<int64_t>(j, "sliding_window_pattern", 6, ctx);
      if (pattern <= 0) fail("{}: 'sliding_window_pattern' must be positive", ctx);
      for (int64_t l = 0; l < c.num_layers; ++l) {
        if ((l + 1) % pattern != 0) c.layer_types[l] = AttentionKind::Sliding;
      }
    }
  } else if (mt == "gpt_neox") {
    c.family = Family::GptNeoX;
    c.vocab_size = req<int64_t>(j, "vocab_size", ctx);
    c.hidden_size = req<int64_t>(j, "hidden_size", ctx);
    c.intermediate_size = req<int64_t>(j, "intermediate_size", ctx);
    c.num_layers = req<int64_t>(j, "num_hidden_layers", ctx);
    c.num_heads = req<int64_t>(j, "num_attention_heads", ctx);
    c.num_kv_heads = c.num_heads;
    c.head_dim = c.num_heads > 0 ? c.hidden_size / c.num_heads : 0;
    c.max_positions = opt<int64_t>(j, "max_position_embeddings", 2048, ctx);
    c.norm = NormKind::LayerNorm;
    c.norm_eps = opt<double>(j, "layer_norm_eps", 1e-5, ctx);
    c.activation = parse_activation(opt<std::string>(j, "hidden_act", "gelu", ctx), ctx);
    c.gated_mlp = false;
    c.qkv_bias = c.o_bias = opt<bool>(j, "attention_bias", true, ctx);
    c.mlp_bias = true;
    c.parallel_residual = opt<bool>(j, "use_parallel_residual", true, ctx);
    c.rotary_pct = j.contains("rotary_pct") ? req<double>(j, "rotary_pct", ctx)
                                            : opt<double>(j, "partial_rotary_factor", 1.0, ctx);
    c.rope_theta = j.contains("rotary_emb_base") ? req<double>(j, "rotary_emb_base", ctx)
                                                 : opt<double>(j, "rope_theta", 10000.0, ctx);
    c.rope_scaling = parse_rope_scaling(j, ctx);
    c.tie_embeddings = opt<bool>(j, "tie_word_embeddings", false, ctx);
    c.layer_types.assign(c.num_layers, AttentionKind::Full);
  } else if (mt == "gpt2") {
    c.family = Family::Gpt2;
    c.vocab_size = req<int64_t>(j, "vocab_size", ctx);
    c.hidden_size = req<int64_t>(j, "n_embd", ctx);
    c.num_layers = req<int64_t>(j, "n_layer", ctx);
    c.num_heads = req<int64_t>(j, "n_head", ctx);
    c.num_kv_heads = c.num_heads;
    c.head_dim = c.num_heads > 0 ? c.hidden_size / c.num_heads : 0;
    c.intermediate_size = opt<int64_t>(j, "n_inner", 4 * c.hidden_size, ctx);
    c.max_positions = req<int64_t>(j, "n_positions", ctx);
    c.norm = NormKind::LayerNorm;
    c.norm_eps = opt<double>(j, "layer_norm_epsilon", 1e-5, ctx);
    c.activation =
        parse_activation(opt<std::string>(j, "activation_function", "gelu_new", ctx), ctx);
    c.gated_mlp = false;
    c.qkv_bias = c.o_bias = c.mlp_bias = true;
    c.rotary = false;
    c.rotary_pct = 0.0;
    c.learned_positions = true;
    c.tie_embeddings = opt<bool>(j, "tie_word_embeddings", true, ctx);
    if (opt<bool>(j, "scale_attn_by_inverse_layer_idx", false, ctx)) {
      fail("{}: GPT-2 option 'scale_attn_by_inverse_layer_idx' = true is not supported", ctx);
    }
    if (opt<bool>(j, "add_cross_attention", false, ctx)) {
      fail("{}: GPT-2 option 'add_cross_attention' = true is not supported", ctx);
    }
    if (!opt<bool>(j, "scale_attn_weights", true, ctx)) c.attn_scale = 1.0;
    c.layer_types.assign(c.num_layers, AttentionKind::Full);
  } else {
    std::string list;
    for (const auto& t : supported_model_types()) list += (list.empty() ? "" : ", ") + t;
    fail("{}: unsupported model_type '{}' (supported: {}){}", ctx, mt, list,
         mt == "gemma3" ? "; for Gemma 3 use the text-only model (model_type gemma3_text, "
                          "Gemma3ForCausalLM)"
                        : "");
  }
  if (c.attn_scale == 0.0 && c.head_dim > 0) c.attn_scale = 1.0 / std::sqrt(double(c.head_dim));
  c.bos_token_id = token_id(j, "bos_token_id", ctx);
  c.eos_token_id = token_id(j, "eos_token_id", ctx);
  c.pad_token_id = token_id(j, "pad_token_id", ctx);
  validate(c, source);
  return c;
}

void validate(const ModelConfig& c, const std::string& source) {
  auto positive = [&](int64_t v, const char* name) {
    if (v <= 0) fail("{}: '{}' must be positive, found {}", source, name, v);
  };
  positive(c.vocab_size, "vocab_size");
  positive(c.hidden_size, "hidden_size");
  positive(c.intermediate_size, "intermediate_size");
  positive(c.num_layers, "num_hidden_layers");
  positive(c.num_heads, "num_attention_heads");
  positive(c.num_kv_heads, "num_key_value_heads");
  positive(c.head_dim, "head_dim");
  positive(c.max_positions, "max_position_embeddings");
  if (c.num_heads % c.num_kv_heads != 0) {
    fail("{}: num_attention_heads ({}) must be a multiple of num_key_value_heads ({})", source,
         c.num_heads, c.num_kv_heads);
  }
  if ((c.family == Family::Gpt2 || c.family == Family::GptNeoX) &&
      c.hidden_size % c.num_heads != 0) {
    fail("{}: hidden size {} is not divisible by the {} heads", source, c.hidden_size, c.num_heads);
  }
  if (c.rotary) {
    int64_t rd = c.rotary_dim();
    if (rd <= 0 || rd % 2 != 0 || rd > c.head_dim) {
      fail(
          "{}: rotary dimension {} (head_dim {} x rotary fraction {}) must be even and in "
          "(0, head_dim]",
          source, rd, c.head_dim, c.rotary_pct);
    }
  }
  if (!(c.norm_eps > 0)) fail("{}: norm epsilon must be positive", source);
  if (static_cast<int64_t>(c.layer_types.size()) != c.num_layers) {
    fail("{}: {} layer types for {} layers", source, c.layer_types.size(), c.num_layers);
  }
}

ModelConfig load_config(const std::string& path) {
  return parse_config(gb::json::parse_file(path), path);
}

nlohmann::json to_hf_json(const ModelConfig& c) {
  Json j = c.raw;
  j["model_type"] = c.model_type;
  j["vocab_size"] = c.vocab_size;
  if (c.family == Family::Gpt2) {
    j["n_embd"] = c.hidden_size;
    j["n_layer"] = c.num_layers;
    j["n_head"] = c.num_heads;
    j["n_inner"] = c.intermediate_size;
  } else {
    j["hidden_size"] = c.hidden_size;
    j["intermediate_size"] = c.intermediate_size;
    j["num_hidden_layers"] = c.num_layers;
    j["num_attention_heads"] = c.num_heads;
    if (c.family != Family::GptNeoX) {
      j["num_key_value_heads"] = c.num_kv_heads;
      j["head_dim"] = c.head_dim;
    }
  }
  // Layer types change when layers are inserted (depth expansion): write them explicitly
  // where the family has them, and keep the older keys consistent where possible.
  bool any_sliding = false;
  for (auto t : c.layer_types) any_sliding |= t == AttentionKind::Sliding;
  if (c.family == Family::Gemma3 || any_sliding || j.contains("layer_types")) {
    Json types = Json::array();
    for (auto t : c.layer_types) {
      types.push_back(t == AttentionKind::Sliding ? "sliding_attention" : "full_attention");
    }
    j["layer_types"] = types;
    if (c.family == Family::Gemma3 && j.contains("sliding_window_pattern")) {
      int64_t pattern = j["sliding_window_pattern"].get<int64_t>();
      bool matches = true;
      for (int64_t l = 0; l < c.num_layers; ++l) {
        bool sliding = (l + 1) % pattern != 0;
        matches &= sliding == (c.layer_types[l] == AttentionKind::Sliding);
      }
      if (!matches) j.erase("sliding_window_pattern");
    }
    if ((c.family == Family::Qwen2 || c.family == Family::Qwen3) && any_sliding) {
      j["use_sliding_window"] = true;
    }
  }
  return j;
}

}  // namespace gb
