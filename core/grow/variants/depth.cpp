// Depth expansion: copies of layers inserted right after them with zeroed output
// projections, so each starts as the identity; only the new blocks train. LLaMA-Pro inserts
// P blocks uniformly; ADEPT copies the least important layers for general competence
// (adept-adaptive-expansion.txt §3.1). Stage 2's unit-wise learning rates (§3.2) are part
// of the plan (unit_lr, t_update, unit_importance, unit_norm); the variant's before_step
// hook assigns them while the run trains (grow/adept_stage2.h, grow/run_hooks.h). The
// "in-place" style is ADEPT without stage 1 as the paper's ablation states it (§4.3):
// stage 2 on the chosen original layers, nothing added.
#include <fmt/format.h>

#include "grow/adept_stage2.h"
#include "grow/growth.h"
#include "grow/variant.h"
#include "util/error.h"
#include "util/metrics.h"

namespace gb::grow {
namespace {

// ADEPT stage 2 while the run trains (grow/adept_stage2.h): before the step that follows
// every t_update steps, the importance of the stage-2 layers' units on the general probe
// set, and each unit's optimizer group at s_U times the scheduled rate.
void assign_unit_rates(const VariantParams& vp, RunContext& run) {
  const auto& d = static_cast<const DepthParams&>(vp);
  if (!d.unit_lr || !unit_rates_due(run.steps_done(), d.t_update)) return;
  const auto& layers = run.growth().unit_lr_layers;
  if (layers.empty()) return;
  const UnitNorm norm = parse_unit_norm(d.unit_norm);
  // Recorded with the step of the assignment, so that a report can show the importance
  // each recomputation chose the rates from.
  const auto probe = run.probe_units(
      d.unit_importance, {{"adept_step", run.steps_done()}, {"unit_norm", d.unit_norm}});
  int64_t assigned = 0;
  for (const auto& r : unit_rates(probe, layers, norm)) {
    if (!run.set_lr_scale(r.group, r.scale)) continue;  // e.g. a norm the plan keeps frozen
    run.metric(metrics::adept_lr_scale_key(r.group), r.scale);
    ++assigned;
  }
  run.info(fmt::format(
      "ADEPT unit learning rates updated at step {} ({} units, {} importance, min-max over {})",
      run.steps_done(), assigned, d.unit_importance,
      norm == UnitNorm::Kind ? "each kind" : "all units"));
}

// Specs of earlier versions set stage 2 in a top-level "adept" section ({"unit_lr",
// "t_update", "method"}); it now belongs to the plan. The section's keys are defaults for
// the ADEPT plans (styles "adept" and its ablation "in-place") that do not set them, never
// for LLaMA-Pro.
nlohmann::json adept_section_defaults(const nlohmann::json& spec, const nlohmann::json& plan) {
  const auto a = spec.find("adept");
  if (a == spec.end() || !a->is_object()) return plan;
  const auto style = plan.find("style");
  if (style == plan.end() || !style->is_string() || (*style != "adept" && *style != "in-place")) {
    return plan;
  }
  nlohmann::json out = plan;
  for (const auto& [from, to] : {std::pair<const char*, const char*>{"unit_lr", "unit_lr"},
                                 {"t_update", "t_update"},
                                 {"method", "unit_importance"}}) {
    if (a->contains(from) && !out.contains(to)) out[to] = (*a)[from];
  }
  return out;
}

VariantModule depth_module() {
  using T = ParamSpec::Type;
  VariantModule m;
  m.id = Variant::Depth;
  m.name = GB_TR("GrowPlanner", "Depth expansion (LLaMA-Pro, ADEPT)");
  m.paper = "adept-adaptive-expansion.txt §3.1–3.2 (ADEPT stages 1 and 2; LLaMA-Pro baseline)";
  m.description =
      GB_TR("GrowPlanner",
            "Copies of layers inserted right after them with zeroed output projections, so each "
            "starts as the identity; only new blocks train. In place: no copies, the chosen "
            "layers train.");
  m.exportable_hf = true;
  m.export_note = "a plain Hugging Face folder with more layers";
  m.make = [] { return std::make_unique<DepthParams>(); };
  {
    auto& s = m.param("style", &DepthParams::style, T::Choice);
    s.choices = {"llama-pro", "adept", "in-place"};
    s.choice_labels = {GB_TR("GrowPlanner", "LLaMA-Pro (uniform)"), GB_TR("GrowPlanner", "ADEPT"),
                       GB_TR("GrowPlanner", "In place (ADEPT without stage 1)")};
    s.label = GB_TR("GrowPlanner", "Style");
    s.help =
        GB_TR("GrowPlanner",
              "LLaMA-Pro inserts P blocks uniformly, after every L/P layers. ADEPT copies “the k "
              "least-important ones for general competence”. In place copies nothing: the "
              "chosen layers themselves train, with unit-wise rates (ADEPT without stage 1).");
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
                   "ADEPT: the layers copied (a list or a selection policy; not \"all\"). In "
                   "place: the layers that train.");
    s.when_key = "style";
    s.when_values = {"adept", "in-place"};
    s.when_hint =
        "LLaMA-Pro inserts blocks uniformly; give 'count', not 'layers' (use style \"adept\" "
        "or \"in-place\" to choose layers)";
  }
  {
    auto& s = m.param("unit_lr", &DepthParams::unit_lr, T::Bool);
    s.label = GB_TR("GrowPlanner", "Unit-wise learning rates (stage 2)");
    s.help = GB_TR("GrowPlanner",
                   "ADEPT stage 2: every unit U of a new block (in place: of a chosen layer) "
                   "trains with lr_U = 2·(1 − Î_U)·lr, Î_U its importance min-max normalised "
                   "over those units. On by default for ADEPT (off: ADEPT without stage 2) and "
                   "in place, off for LLaMA-Pro (on: LLaMA-Pro placement with stage 2).");
    s.default_for = [](const nlohmann::json& values) {
      const std::string style = values.value("style", std::string());
      return nlohmann::json(style == "adept" || style == "in-place");
    };
  }
  {
    auto& s = m.param("t_update", &DepthParams::t_update, T::Int);
    s.min = 1;
    s.max = 1e9;
    s.unit = "steps";
    s.label = GB_TR("GrowPlanner", "Update interval T_update");
    s.help = GB_TR("GrowPlanner",
                   "Training steps between assignments of the unit rates (stage 2): the first "
                   "after T_update steps, never at step 0 (the base rate until then).");
  }
  {
    auto& s = m.param("unit_importance", &DepthParams::unit_importance, T::Choice);
    s.choices = {"taylor-code", "taylor", "taylor-abs", "fisher"};
    s.choice_labels = {GB_TR("GrowPlanner", "Taylor |θ|·mean|∂L_b/∂θ| (ADEPT's code)"),
                       GB_TR("GrowPlanner", "Taylor θ·∂L/∂θ (the paper's text)"),
                       GB_TR("GrowPlanner", "Taylor |θ·∂L/∂θ|"), GB_TR("GrowPlanner", "Fisher")};
    s.label = GB_TR("GrowPlanner", "Unit importance");
    s.help = GB_TR("GrowPlanner",
                   "The importance I_U of stage 2, measured on the general probe set. The "
                   "paper's signed θ·∂L/∂θ cancels: q and k (v and o, up and down) come out "
                   "identical.");
  }
  {
    auto& s = m.param("unit_norm", &DepthParams::unit_norm, T::Choice);
    s.choices = {"all", "kind"};
    s.choice_labels = {GB_TR("GrowPlanner", "Over all units (ADEPT's code)"),
                       GB_TR("GrowPlanner", "Per kind (norms apart from matrices)")};
    s.label = GB_TR("GrowPlanner", "Normalise importance");
    s.help = GB_TR("GrowPlanner",
                   "Stage 2's min-max normalisation: over all the units, or norms and matrices "
                   "apart (a norm's importance is 100× or more a matrix's).");
  }
  m.validate = [](VariantParams& vp, const nlohmann::json& raw, const std::string& ctx) {
    const auto& p = static_cast<const DepthParams&>(vp);
    if (p.style == "in-place" && !raw.contains("layers")) {
      fail("{}: the in-place style needs 'layers' (a list or a policy: the layers that train)",
           ctx);
    }
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
    // The ablations: ADEPT without stage 2, LLaMA-Pro placement with stage 2; in place
    // (ADEPT without stage 1) without stage 2 trains the chosen layers at one rate.
    if ((p.style == "adept" || p.style == "in-place") && !p.unit_lr) s += " no-unit-lr";
    if (p.style == "llama-pro" && p.unit_lr) s += " +unit-lr";
    return s;
  };
  m.apply = apply_depth;
  m.spec_defaults = adept_section_defaults;
  m.run.before_step = assign_unit_rates;
  m.estimate = [](const VariantParams& vp, const ModelConfig& c) {
    const auto& p = static_cast<const DepthParams&>(vp);
    VariantEstimate e;
    e.layers_touched = p.style == "llama-pro"
                           ? static_cast<int>(p.count)
                           : estimate_layer_count(p.layers, c.num_layers, &e.note);
    const int64_t per_layer = layer_param_count(c);
    e.trainable = e.layers_touched * per_layer;
    e.added = p.style == "in-place" ? 0 : e.trainable;  // in place: nothing is added
    // Training keeps the added layers' activations as the base layers' (none in place).
    if (per_layer > 0) e.added_layers = (e.added + per_layer / 2) / per_layer;
    // In place only the chosen base layers train: no graph below the lowest of them.
    if (p.style == "in-place") e.graph_from_layer = estimate_lowest_layer(p.layers);
    return e;
  };
  return m;
}

}  // namespace
GB_REGISTER_VARIANT(depth_module);
}  // namespace gb::grow
