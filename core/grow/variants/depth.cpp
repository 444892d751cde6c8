// Depth expansion: copies of layers inserted right after them with zeroed output
// projections, so each starts as the identity; only the new blocks train. LLaMA-Pro inserts
// P blocks uniformly; ADEPT copies the least important layers for general competence
// (adept-adaptive-expansion.txt §3.1). Stage 2's unit-wise learning rates (§3.2) are part
// of the plan (unit_lr, t_update, unit_importance); the runner applies them.
#include <fmt/format.h>

#include "grow/growth.h"
#include "grow/variant.h"
#include "util/error.h"

namespace gb::grow {
namespace {

VariantModule depth_module() {
  using T = ParamSpec::Type;
  VariantModule m;
  m.id = Variant::Depth;
  m.name = GB_TR("GrowPlanner", "Depth expansion (LLaMA-Pro, ADEPT)");
  m.paper = "adept-adaptive-expansion.txt §3.1–3.2 (ADEPT stages 1 and 2; LLaMA-Pro baseline)";
  m.description =
      GB_TR("GrowPlanner",
            "Copies of layers inserted right after them with zeroed output projections, so each "
            "starts as the identity; only new blocks train.");
  m.exportable_hf = true;
  m.export_note = "a plain Hugging Face folder with more layers";
  m.make = [] { return std::make_unique<DepthParams>(); };
  {
    auto& s = m.param("style", &DepthParams::style, T::Choice);
    s.choices = {"llama-pro", "adept"};
    s.choice_labels = {GB_TR("GrowPlanner", "LLaMA-Pro (uniform)"), GB_TR("GrowPlanner", "ADEPT")};
    s.label = GB_TR("GrowPlanner", "Style");
    s.help =
        GB_TR("GrowPlanner",
              "LLaMA-Pro inserts P blocks uniformly, after every L/P layers. ADEPT copies “the k "
              "least-important ones for general competence”.");
  }
  {
    auto& s = m.param("count", &DepthParams::count, T::Int);
    s.min = 1;
    s.max = 1000;
    s.unit = "blocks";
    s.label = GB_TR("GrowPlanner", "Blocks P");
    s.help = GB_TR("GrowPlanner", "Number of blocks LLaMA-Pro inserts.");
    s.when_key = "style";
    s.when_values = {"llama-pro"};
    s.when_hint = "ADEPT copies the chosen 'layers'; 'count' is for llama-pro";
  }
  {
    auto& s = m.param("layers", &DepthParams::layers, T::Layers);
    s.label = GB_TR("GrowPlanner", "Layers");
    s.help = GB_TR("GrowPlanner",
                   "ADEPT: the layers copied (a list or a selection policy; not \"all\").");
    s.when_key = "style";
    s.when_values = {"adept"};
    s.when_hint =
        "LLaMA-Pro inserts blocks uniformly; give 'count', not 'layers' (use style \"adept\" "
        "to choose layers)";
  }
  {
    auto& s = m.param("unit_lr", &DepthParams::unit_lr, T::Bool);
    s.label = GB_TR("GrowPlanner", "Unit-wise learning rates (stage 2)");
    s.help = GB_TR("GrowPlanner",
                   "ADEPT stage 2: every unit U of a new block trains with lr_U = 2·(1 − Î_U)·lr, "
                   "Î_U its importance min-max normalised over the new units. On by default for "
                   "ADEPT (off: ADEPT without stage 2), off for LLaMA-Pro (on: ADEPT without "
                   "stage 1).");
    s.default_for = [](const nlohmann::json& values) {
      return nlohmann::json(values.value("style", std::string()) == "adept");
    };
  }
  {
    auto& s = m.param("t_update", &DepthParams::t_update, T::Int);
    s.min = 1;
    s.max = 1e9;
    s.unit = "steps";
    s.label = GB_TR("GrowPlanner", "Update interval T_update");
    s.help =
        GB_TR("GrowPlanner", "Steps between recomputations of the unit importance Î_U (stage 2).");
  }
  {
    auto& s = m.param("unit_importance", &DepthParams::unit_importance, T::Choice);
    s.choices = {"taylor", "taylor-abs", "fisher"};
    s.choice_labels = {GB_TR("GrowPlanner", "Taylor θ·∂L/∂θ (the paper's)"),
                       GB_TR("GrowPlanner", "Taylor |θ·∂L/∂θ|"), GB_TR("GrowPlanner", "Fisher")};
    s.label = GB_TR("GrowPlanner", "Unit importance");
    s.help =
        GB_TR("GrowPlanner", "The importance Î_U of stage 2, measured on the general probe set.");
  }
  m.validate = [](VariantParams& vp, const nlohmann::json& raw, const std::string& ctx) {
    const auto& p = static_cast<const DepthParams&>(vp);
    if (p.style != "adept") return;
    if (!raw.contains("layers")) fail("{}: ADEPT needs 'layers' (a list or a policy)", ctx);
    if (p.layers.kind == LayerSelection::Kind::All) {
      fail(
          "{}: ADEPT copies chosen layers; \"all\" would double the model (give a list or a "
          "policy such as {{\"policy\":\"least-important\",\"k\":2}})",
          ctx);
    }
  };
  m.validate_model = [](const VariantParams& vp, const ModelConfig& c, const std::string& ctx) {
    const auto& p = static_cast<const DepthParams&>(vp);
    if (p.style == "llama-pro" && p.count > c.num_layers) {
      fail(
          "{}: LLaMA-Pro inserts one block after every L/P layers; 'count' = {} exceeds the {} "
          "layers",
          ctx, p.count, c.num_layers);
    }
  };
  m.label = [](const VariantParams& vp) {
    const auto& p = static_cast<const DepthParams&>(vp);
    std::string s = "/" + p.style;
    if (p.style == "llama-pro") s += fmt::format(" P={}", p.count);
    // The ablations: ADEPT without stage 2, LLaMA-Pro placement with stage 2.
    if (p.style == "adept" && !p.unit_lr) s += " no-unit-lr";
    if (p.style == "llama-pro" && p.unit_lr) s += " +unit-lr";
    return s;
  };
  m.apply = apply_depth;
  m.estimate = [](const VariantParams& vp, const ModelConfig& c) {
    const auto& p = static_cast<const DepthParams&>(vp);
    VariantEstimate e;
    e.layers_touched = p.style == "llama-pro"
                           ? static_cast<int>(p.count)
                           : estimate_layer_count(p.layers, c.num_layers, &e.note);
    e.added = e.trainable = e.layers_touched * layer_param_count(c);
    return e;
  };
  return m;
}

}  // namespace
GB_REGISTER_VARIANT(depth_module);
}  // namespace gb::grow
