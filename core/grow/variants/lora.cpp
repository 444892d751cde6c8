// LoRA: W x + (alpha / r) · B A x on the target projections, W frozen, B = 0 at
// initialisation (the parameter-efficient baseline of every paper's comparison).
#include <fmt/format.h>

#include "grow/growth.h"
#include "grow/variant.h"
#include "model/units.h"
#include "util/error.h"

namespace gb::grow {
namespace {

VariantModule lora_module() {
  using T = ParamSpec::Type;
  VariantModule m;
  m.id = Variant::Lora;
  m.name = GB_TR("GrowPlanner", "LoRA");
  m.paper = "neutral-residues-adapters.txt §5 (LoRA baseline; Hu et al. 2021)";
  m.description =
      GB_TR("GrowPlanner",
            "Low-rank adapters W x + (alpha/r)·B A x on the target projections, W frozen, B = 0 at "
            "initialisation.");
  m.exportable_hf = true;
  m.export_note = "merged into the base weights: a plain Hugging Face folder";
  m.make = [] { return std::make_unique<LoraParams>(); };
  {
    auto& s = m.param("rank", &LoraParams::rank, T::Int);
    s.min = 1;
    s.max = 4096;
    s.label = GB_TR("GrowPlanner", "Rank r");
    s.help =
        GB_TR("GrowPlanner",
              "Rank of A (r × in) and B (out × r); r · (in + out) trainable parameters per target "
              "and layer.");
  }
  {
    auto& s = m.param("alpha", &LoraParams::alpha, T::Number);
    s.min = 1e-9;
    s.max = 1e9;
    s.label = GB_TR("GrowPlanner", "Alpha");
    s.help = GB_TR("GrowPlanner",
                   "Scale numerator: the update B A x is scaled by alpha / r (default 2 · rank).");
  }
  {
    auto& s = m.param("targets", &LoraParams::targets, T::StringList);
    s.choices = units::linear_names();
    s.unit = "LoRA target";
    s.label = GB_TR("GrowPlanner", "Targets");
    s.help = GB_TR(
        "GrowPlanner",
        "Projections that get adapters; gate exists only on gated MLPs (Llama, Qwen, Gemma).");
  }
  {
    auto& s = m.param("layers", &LoraParams::layers, T::Layers);
    s.label = GB_TR("GrowPlanner", "Layers");
    s.help = GB_TR("GrowPlanner",
                   "Layers that get adapters: \"all\", a list of indices or a selection policy.");
  }
  m.validate = [](VariantParams& vp, const nlohmann::json& raw, const std::string& ctx) {
    auto& p = static_cast<LoraParams&>(vp);
    if (!raw.contains("alpha")) p.alpha = 2.0 * static_cast<double>(p.rank);
    if (p.targets.empty()) fail("{}: 'targets' must name at least one unit", ctx);
    for (size_t i = 0; i < p.targets.size(); ++i) {
      for (size_t j = 0; j < i; ++j) {
        if (p.targets[i] == p.targets[j]) {
          fail("{}: 'targets' names '{}' twice", ctx, p.targets[i]);
        }
      }
    }
  };
  m.validate_model = [](const VariantParams& vp, const ModelConfig& c, const std::string& ctx) {
    for (const auto& t : static_cast<const LoraParams&>(vp).targets) {
      if (t == "gate" && !c.gated_mlp) {
        fail("{}: LoRA target 'gate': {} has no gated MLP (its MLP is up → down)", ctx,
             c.model_type);
      }
    }
  };
  m.label = [](const VariantParams& vp) {
    return fmt::format(" r={}", static_cast<const LoraParams&>(vp).rank);
  };
  m.apply = apply_lora;
  m.estimate = [](const VariantParams& vp, const ModelConfig& c) {
    const auto& p = static_cast<const LoraParams&>(vp);
    VariantEstimate e;
    e.layers_touched = estimate_layer_count(p.layers, c.num_layers, &e.note);
    int64_t per = 0;
    for (const auto& t : p.targets) {
      auto [in, out] = unit_shape(c, t);
      per += p.rank * (in + out);
    }
    e.added = e.trainable = per * e.layers_touched;
    return e;
  };
  return m;
}

}  // namespace
GB_REGISTER_VARIANT(lora_module);
}  // namespace gb::grow
