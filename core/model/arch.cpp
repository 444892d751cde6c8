#include "model/arch.h"

#include <fmt/format.h>

#include "model/units.h"
#include "util/error.h"

namespace gb::arch {

namespace names {
std::string layer_prefix(int64_t layer) {
  return fmt::format("model.layers.{}.", layer);
}
const char* const kEmbed = "model.embed_tokens.weight";
const char* const kPositions = "model.embed_positions.weight";
const char* const kFinalNormW = "model.norm.weight";
const char* const kFinalNormB = "model.norm.bias";
const char* const kLmHead = "lm_head.weight";

std::string unit_path(const std::string& unit) {
  return units::path(unit);
}
}  // namespace names

namespace {

void add(std::vector<TensorMap>& v, std::string hf, std::vector<int64_t> shape, Transform t,
         std::vector<std::string> internal) {
  v.push_back({std::move(hf), std::move(shape), t, std::move(internal)});
}

void llama_like(const ModelConfig& c, std::vector<TensorMap>& v) {
  const int64_t d = c.hidden_size, p = c.intermediate_size, hd = c.head_dim;
  const int64_t qd = c.num_heads * hd, kvd = c.num_kv_heads * hd;
  const bool ln = c.norm == NormKind::LayerNorm;
  auto same = [&](const std::string& name, std::vector<int64_t> shape) {
    add(v, name, std::move(shape), Transform::Identity, {name});
  };
  same(names::kEmbed, {c.vocab_size, d});
  for (int64_t l = 0; l < c.num_layers; ++l) {
    const std::string pre = names::layer_prefix(l);
    auto norm = [&](const std::string& module, int64_t features) {
      same(pre + module + ".weight", {features});
      if (ln) same(pre + module + ".bias", {features});
    };
    norm("input_layernorm", d);
    same(pre + "self_attn.q_proj.weight", {qd, d});
    same(pre + "self_attn.k_proj.weight", {kvd, d});
    same(pre + "self_attn.v_proj.weight", {kvd, d});
    if (c.qkv_bias) {
      same(pre + "self_attn.q_proj.bias", {qd});
      same(pre + "self_attn.k_proj.bias", {kvd});
      same(pre + "self_attn.v_proj.bias", {kvd});
    }
    same(pre + "self_attn.o_proj.weight", {d, qd});
    if (c.o_bias) same(pre + "self_attn.o_proj.bias", {d});
    if (c.qk_norm) {
      norm("self_attn.q_norm", hd);
      norm("self_attn.k_norm", hd);
    }
    norm("post_attention_layernorm", d);
    if (c.sandwich_norms) {
      norm("pre_feedforward_layernorm", d);
      norm("post_feedforward_layernorm", d);
    }
    if (c.gated_mlp) same(pre + "mlp.gate_proj.weight", {p, d});
    same(pre + "mlp.up_proj.weight", {p, d});
    same(pre + "mlp.down_proj.weight", {d, p});
    if (c.mlp_bias) {
      if (c.gated_mlp) same(pre + "mlp.gate_proj.bias", {p});
      same(pre + "mlp.up_proj.bias", {p});
      same(pre + "mlp.down_proj.bias", {d});
    }
  }
  same(names::kFinalNormW, {d});
  if (ln) same(names::kFinalNormB, {d});
  if (!c.tie_embeddings) same(names::kLmHead, {c.vocab_size, d});
}

void gpt2(const ModelConfig& c, std::vector<TensorMap>& v) {
  const int64_t d = c.hidden_size, p = c.intermediate_size;
  add(v, "transformer.wte.weight", {c.vocab_size, d}, Transform::Identity, {names::kEmbed});
  add(v, "transformer.wpe.weight", {c.max_positions, d}, Transform::Identity, {names::kPositions});
  for (int64_t l = 0; l < c.num_layers; ++l) {
    const std::string h = fmt::format("transformer.h.{}.", l);
    const std::string pre = names::layer_prefix(l);
    auto id = [&](const std::string& hf, std::vector<int64_t> shape, const std::string& in) {
      add(v, h + hf, std::move(shape), Transform::Identity, {pre + in});
    };
    auto tr = [&](const std::string& hf, std::vector<int64_t> shape, const std::string& in) {
      add(v, h + hf, std::move(shape), Transform::Transpose, {pre + in});
    };
    id("ln_1.weight", {d}, "input_layernorm.weight");
    id("ln_1.bias", {d}, "input_layernorm.bias");
    add(v, h + "attn.c_attn.weight", {d, 3 * d}, Transform::SplitQkvGpt2,
        {pre + "self_attn.q_proj.weight", pre + "self_attn.k_proj.weight",
         pre + "self_attn.v_proj.weight"});
    add(v, h + "attn.c_attn.bias", {3 * d}, Transform::SplitQkvGpt2,
        {pre + "self_attn.q_proj.bias", pre + "self_attn.k_proj.bias",
         pre + "self_attn.v_proj.bias"});
    tr("attn.c_proj.weight", {d, d}, "self_attn.o_proj.weight");
    id("attn.c_proj.bias", {d}, "self_attn.o_proj.bias");
    id("ln_2.weight", {d}, "post_attention_layernorm.weight");
    id("ln_2.bias", {d}, "post_attention_layernorm.bias");
    tr("mlp.c_fc.weight", {d, p}, "mlp.up_proj.weight");
    id("mlp.c_fc.bias", {p}, "mlp.up_proj.bias");
    tr("mlp.c_proj.weight", {p, d}, "mlp.down_proj.weight");
    id("mlp.c_proj.bias", {d}, "mlp.down_proj.bias");
  }
  add(v, "transformer.ln_f.weight", {d}, Transform::Identity, {names::kFinalNormW});
  add(v, "transformer.ln_f.bias", {d}, Transform::Identity, {names::kFinalNormB});
  if (!c.tie_embeddings) {
    add(v, "lm_head.weight", {c.vocab_size, d}, Transform::Identity, {names::kLmHead});
  }
}

void neox(const ModelConfig& c, std::vector<TensorMap>& v) {
  const int64_t d = c.hidden_size, p = c.intermediate_size;
  add(v, "gpt_neox.embed_in.weight", {c.vocab_size, d}, Transform::Identity, {names::kEmbed});
  for (int64_t l = 0; l < c.num_layers; ++l) {
    const std::string h = fmt::format("gpt_neox.layers.{}.", l);
    const std::string pre = names::layer_prefix(l);
    auto id = [&](const std::string& hf, std::vector<int64_t> shape, const std::string& in) {
      add(v, h + hf, std::move(shape), Transform::Identity, {pre + in});
    };
    id("input_layernorm.weight", {d}, "input_layernorm.weight");
    id("input_layernorm.bias", {d}, "input_layernorm.bias");
    id("post_attention_layernorm.weight", {d}, "post_attention_layernorm.weight");
    id("post_attention_layernorm.bias", {d}, "post_attention_layernorm.bias");
    add(v, h + "attention.query_key_value.weight", {3 * d, d}, Transform::SplitQkvNeoX,
        {pre + "self_attn.q_proj.weight", pre + "self_attn.k_proj.weight",
         pre + "self_attn.v_proj.weight"});
    if (c.qkv_bias) {
      add(v, h + "attention.query_key_value.bias", {3 * d}, Transform::SplitQkvNeoX,
          {pre + "self_attn.q_proj.bias", pre + "self_attn.k_proj.bias",
           pre + "self_attn.v_proj.bias"});
    }
    id("attention.dense.weight", {d, d}, "self_attn.o_proj.weight");
    if (c.o_bias) id("attention.dense.bias", {d}, "self_attn.o_proj.bias");
    id("mlp.dense_h_to_4h.weight", {p, d}, "mlp.up_proj.weight");
    id("mlp.dense_h_to_4h.bias", {p}, "mlp.up_proj.bias");
    id("mlp.dense_4h_to_h.weight", {d, p}, "mlp.down_proj.weight");
    id("mlp.dense_4h_to_h.bias", {d}, "mlp.down_proj.bias");
  }
  add(v, "gpt_neox.final_layer_norm.weight", {d}, Transform::Identity, {names::kFinalNormW});
  add(v, "gpt_neox.final_layer_norm.bias", {d}, Transform::Identity, {names::kFinalNormB});
  if (!c.tie_embeddings) {
    add(v, "embed_out.weight", {c.vocab_size, d}, Transform::Identity, {names::kLmHead});
  }
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::vector<TensorMap> hf_tensors(const ModelConfig& c) {
  std::vector<TensorMap> v;
  switch (c.family) {
    case Family::Gpt2:
      gpt2(c, v);
      break;
    case Family::GptNeoX:
      neox(c, v);
      break;
    default:
      llama_like(c, v);
      break;
  }
  return v;
}

bool is_ignorable(const std::string& n, const ModelConfig& c) {
  if (ends_with(n, ".rotary_emb.inv_freq")) return true;
  if (c.family == Family::Gpt2 && (ends_with(n, ".attn.bias") || ends_with(n, ".attn.masked_bias")))
    return true;
  if (c.family == Family::GptNeoX &&
      (ends_with(n, ".attention.bias") || ends_with(n, ".attention.masked_bias")))
    return true;
  // Tied models sometimes store the (identical) head anyway.
  if (c.tie_embeddings && (n == "lm_head.weight" || n == "embed_out.weight")) return true;
  return false;
}

std::vector<std::string> aliases(const std::string& hf_name, const ModelConfig& c) {
  std::vector<std::string> out;
  if (c.family == Family::Gpt2 && hf_name.rfind("transformer.", 0) == 0) {
    out.push_back(hf_name.substr(12));  // original OpenAI GPT-2 files omit the prefix
  }
  return out;
}

std::string final_norm_module(Family family) {
  switch (family) {
    case Family::Gpt2:
      return "transformer.ln_f";
    case Family::GptNeoX:
      return "gpt_neox.final_layer_norm";
    default:
      return "model.norm";
  }
}

}  // namespace gb::arch
