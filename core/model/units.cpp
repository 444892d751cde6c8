#include "model/units.h"

#include "util/error.h"

namespace gb::units {

namespace {
bool always(const ModelConfig&) {
  return true;
}
bool gated(const ModelConfig& c) {
  return c.gated_mlp;
}
bool qk_norm(const ModelConfig& c) {
  return c.qk_norm;
}
bool sandwich(const ModelConfig& c) {
  return c.sandwich_norms;
}
}  // namespace

const std::vector<UnitInfo>& all() {
  static const std::vector<UnitInfo> u = {
      {"q", "self_attn.q_proj", Kind::Linear, "query projection", always},
      {"k", "self_attn.k_proj", Kind::Linear, "key projection", always},
      {"v", "self_attn.v_proj", Kind::Linear, "value projection", always},
      {"o", "self_attn.o_proj", Kind::Linear, "attention output projection", always},
      {"q_norm", "self_attn.q_norm", Kind::Norm, "per-head query norm", qk_norm},
      {"k_norm", "self_attn.k_norm", Kind::Norm, "per-head key norm", qk_norm},
      {"gate", "mlp.gate_proj", Kind::Linear, "MLP gate projection", gated},
      {"up", "mlp.up_proj", Kind::Linear, "MLP up projection", always},
      {"down", "mlp.down_proj", Kind::Linear, "MLP down projection", always},
      {"input_norm", "input_layernorm", Kind::Norm, "norm before attention", always},
      {"post_attn_norm", "post_attention_layernorm", Kind::Norm,
       "norm after attention (before the MLP, or Gemma 3's sandwich norm)", always},
      {"pre_ffn_norm", "pre_feedforward_layernorm", Kind::Norm, "norm before the MLP (Gemma 3)",
       sandwich},
      {"post_ffn_norm", "post_feedforward_layernorm", Kind::Norm, "norm after the MLP (Gemma 3)",
       sandwich},
  };
  return u;
}

std::vector<const UnitInfo*> of(const ModelConfig& config) {
  std::vector<const UnitInfo*> v;
  for (const auto& u : all()) {
    if (u.exists(config)) v.push_back(&u);
  }
  return v;
}

std::vector<std::string> names_of(const ModelConfig& config) {
  std::vector<std::string> v;
  for (const UnitInfo* u : of(config)) v.emplace_back(u->name);
  return v;
}

std::vector<std::string> linear_names() {
  std::vector<std::string> v;
  for (const auto& u : all()) {
    if (u.kind == Kind::Linear) v.emplace_back(u.name);
  }
  return v;
}

const UnitInfo* find(const std::string& name) {
  for (const auto& u : all()) {
    if (name == u.name) return &u;
  }
  return nullptr;
}

const UnitInfo* of_path(const std::string& p) {
  for (const auto& u : all()) {
    const std::string prefix = std::string(u.path) + ".";
    if (p.rfind(prefix, 0) == 0) return &u;
  }
  return nullptr;
}

std::string path(const std::string& name) {
  if (const UnitInfo* u = find(name)) return u->path;
  fail("unknown unit '{}'", name);
}

}  // namespace gb::units
