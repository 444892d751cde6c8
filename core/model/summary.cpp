#include "model/summary.h"

#include <set>

#include <fmt/format.h>
#include <torch/torch.h>

#include "model/modules.h"
#include "model/runtime.h"

namespace gb {

namespace {

TensorSummary tensor_summary(const std::string& name, const torch::Tensor& t) {
  TensorSummary s;
  s.name = name;
  s.shape = t.sizes().vec();
  s.numel = t.numel();
  s.trainable = t.requires_grad();
  s.dtype = dtype_name(t.scalar_type());
  return s;
}

std::string unit_kind(const std::shared_ptr<torch::nn::Module>& m) {
  if (auto l = std::dynamic_pointer_cast<LinearUnitImpl>(m)) return l->kind();
  if (auto n = std::dynamic_pointer_cast<NormUnitImpl>(m)) return n->kind();
  if (auto b = std::dynamic_pointer_cast<BranchImpl>(m)) return b->kind();
  return m->name();
}

std::string fmt_shape(const std::vector<int64_t>& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "x" : "") + std::to_string(s[i]);
  return out;
}

std::string human(int64_t n) {
  if (n >= 1000000000) return fmt::format("{:.2f}B", n / 1e9);
  if (n >= 1000000) return fmt::format("{:.2f}M", n / 1e6);
  if (n >= 1000) return fmt::format("{:.1f}K", n / 1e3);
  return std::to_string(n);
}

}  // namespace

ModelSummary summarize(CausalLMImpl& model) {
  const ModelConfig& c = model.config;
  ModelSummary s;
  s.model_type = c.model_type;
  s.architecture = c.architecture;
  s.family = family_name(c.family);
  s.vocab_size = c.vocab_size;
  s.hidden_size = c.hidden_size;
  s.intermediate_size = c.intermediate_size;
  s.num_layers = model.num_layers();
  s.num_heads = c.num_heads;
  s.num_kv_heads = c.num_kv_heads;
  s.head_dim = c.head_dim;
  s.max_positions = c.max_positions;
  s.tied_embeddings = c.tie_embeddings;
  s.norm = c.norm == NormKind::LayerNorm ? "LayerNorm"
           : c.norm == NormKind::RMSNorm ? "RMSNorm"
                                         : "RMSNorm(1+w)";
  s.activation = activation_name(c.activation);
  if (!c.rotary) {
    s.rope = "learned positions";
  } else {
    s.rope = fmt::format("RoPE theta={} dim={}", c.rope_theta, c.rotary_dim());
    if (c.rope_scaling.type != "default") {
      s.rope += fmt::format(" scaling={} x{}", c.rope_scaling.type, c.rope_scaling.factor);
    }
  }
  s.config = c.raw;
  std::set<std::string> in_layers;
  for (int64_t l = 0; l < model.num_layers(); ++l) {
    auto layer = model.layer(l);
    LayerSummary ls;
    ls.index = l;
    ls.attention = layer->self_attn->sliding
                       ? fmt::format("sliding({})", layer->self_attn->sliding_window)
                       : "full";
    auto add_unit = [&](const std::string& name, const std::shared_ptr<torch::nn::Module>& m,
                        const std::string& path) {
      UnitSummary u;
      u.name = name;
      u.kind = unit_kind(m);
      u.path = path;
      for (const auto& p : m->named_parameters(true)) {
        std::string full = fmt::format("model.layers.{}.{}.{}", l, path, p.key());
        u.tensors.push_back(tensor_summary(full, p.value()));
        u.params += p.value().numel();
        in_layers.insert(full);
      }
      ls.params += u.params;
      ls.units.push_back(std::move(u));
    };
    for (const auto& u : layer->units()) add_unit(u.name, u.module, u.path);
    for (const auto& [name, branch] : layer->branches()) add_unit(name, branch, name);
    s.layers.push_back(std::move(ls));
  }
  for (const auto& p : model.named_parameters(true)) {
    s.params += p.value().numel();
    if (p.value().requires_grad()) s.trainable_params += p.value().numel();
    if (!in_layers.count(p.key())) s.outer.push_back(tensor_summary(p.key(), p.value()));
  }
  return s;
}

nlohmann::json to_json(const ModelSummary& s) {
  using J = nlohmann::json;
  auto tensor = [](const TensorSummary& t) {
    return J{{"name", t.name},
             {"shape", t.shape},
             {"params", t.numel},
             {"trainable", t.trainable},
             {"dtype", t.dtype}};
  };
  J layers = J::array();
  for (const auto& l : s.layers) {
    J units = J::array();
    for (const auto& u : l.units) {
      J ts = J::array();
      for (const auto& t : u.tensors) ts.push_back(tensor(t));
      units.push_back({{"name", u.name},
                       {"kind", u.kind},
                       {"path", u.path},
                       {"params", u.params},
                       {"tensors", ts}});
    }
    layers.push_back(
        {{"index", l.index}, {"attention", l.attention}, {"params", l.params}, {"units", units}});
  }
  J outer = J::array();
  for (const auto& t : s.outer) outer.push_back(tensor(t));
  return J{{"model_type", s.model_type},
           {"architecture", s.architecture},
           {"family", s.family},
           {"vocab_size", s.vocab_size},
           {"hidden_size", s.hidden_size},
           {"intermediate_size", s.intermediate_size},
           {"num_layers", s.num_layers},
           {"num_heads", s.num_heads},
           {"num_kv_heads", s.num_kv_heads},
           {"head_dim", s.head_dim},
           {"max_positions", s.max_positions},
           {"tied_embeddings", s.tied_embeddings},
           {"norm", s.norm},
           {"activation", s.activation},
           {"positions", s.rope},
           {"parameters", s.params},
           {"trainable_parameters", s.trainable_params},
           {"outer", outer},
           {"layers", layers}};
}

std::string to_text(const ModelSummary& s) {
  std::string out;
  out += fmt::format("{} ({}), {} parameters ({})\n", s.model_type,
                     s.architecture.empty() ? s.family : s.architecture, s.params, human(s.params));
  out += fmt::format("  vocab {}  hidden {}  mlp {}  layers {}  heads {}/{} kv  head_dim {}\n",
                     s.vocab_size, s.hidden_size, s.intermediate_size, s.num_layers, s.num_heads,
                     s.num_kv_heads, s.head_dim);
  out += fmt::format("  norm {}  activation {}  {}  max positions {}  embeddings {}\n", s.norm,
                     s.activation, s.rope, s.max_positions, s.tied_embeddings ? "tied" : "untied");
  if (s.trainable_params != s.params) {
    out += fmt::format("  trainable {} ({:.2f}%)\n", s.trainable_params,
                       100.0 * s.trainable_params / std::max<int64_t>(1, s.params));
  }
  out += "\n";
  for (const auto& t : s.outer) {
    out += fmt::format("  {:<44} {:>14} {:>12}\n", t.name, fmt_shape(t.shape), t.numel);
  }
  for (const auto& l : s.layers) {
    out += fmt::format("\nlayer {:<3} {:<12} {:>12} params\n", l.index, l.attention, l.params);
    out += fmt::format("  {:<16} {:<18} {:<28} {:>12}\n", "unit", "kind", "shapes", "params");
    for (const auto& u : l.units) {
      std::string shapes;
      for (const auto& t : u.tensors) shapes += (shapes.empty() ? "" : " ") + fmt_shape(t.shape);
      out += fmt::format("  {:<16} {:<18} {:<28} {:>12}\n", u.name, u.kind, shapes, u.params);
    }
  }
  return out;
}

}  // namespace gb
