// SCALE: width upscaling. Every linear W becomes [[W, W12], [W21, W22]]; with W12 = 0 in
// every layer the original stream is the base model's bit for bit. Preserve keeps W12 zero
// and frozen, Adapt trains it above L_fp, Route picks per token between the two
// (scale-upscaled-continual-learning.txt §3).
#include <algorithm>

#include <fmt/format.h>

#include "grow/growth.h"
#include "grow/variant.h"
#include "util/error.h"

namespace gb::grow {
namespace {

const std::vector<std::string> kInits = {"zero", "random", "svd"};

VariantModule scale_module() {
  using T = ParamSpec::Type;
  VariantModule m;
  m.id = Variant::Scale;
  m.name = GB_TR("GrowPlanner", "SCALE (width upscaling)");
  m.paper = "scale-upscaled-continual-learning.txt §3 (Preserve, Adapt, Route)";
  m.description = GB_TR(
      "GrowPlanner",
      "Every linear W becomes [[W, W12], [W21, W22]]; with W12 = 0 in every layer the original "
      "stream is the base model's bit for bit.");
  m.exportable_hf = false;
  m.export_note = "split norms and per-block freezing: a GrowBench checkpoint";
  m.make = [] { return std::make_unique<ScaleParams>(); };
  {
    auto& s = m.param("mode", &ScaleParams::mode, T::Choice);
    s.choices = {"preserve", "adapt", "route"};
    s.choice_labels = {GB_TR("GrowPlanner", "Preserve"), GB_TR("GrowPlanner", "Adapt"),
                       GB_TR("GrowPlanner", "Route")};
    s.label = GB_TR("GrowPlanner", "Mode");
    s.help = GB_TR(
        "GrowPlanner",
        "Preserve: W12 “initialized to 0 and kept frozen”, original weights frozen. Adapt: W12 "
        "zero-initialised and trainable above L_fp. Route: per token, “if Z_preserve and "
        "Z_adapt agree (high cosine similarity), we route to SCALE-Preserve; otherwise we route "
        "to SCALE-Adapt”.");
  }
  {
    auto& s = m.param("d_up", &ScaleParams::d_up, T::Int);
    s.min = 1;
    s.max = 1e6;
    s.unit = "hidden units";
    s.label = GB_TR("GrowPlanner", "Added hidden width d_up");
    // Whole kv groups of heads; half the hidden size is a sensible start.
    s.model_hint = [](const ModelConfig& c) {
      const int64_t unit = c.head_dim * std::max<int64_t>(1, c.kv_groups());
      ParamSpec::ModelHint h;
      if (unit <= 0) return h;
      h.step = static_cast<double>(unit);
      h.value = std::max<int64_t>(unit, (c.hidden_size / 2 / unit) * unit);
      return h;
    };
    s.help = GB_TR(
        "GrowPlanner",
        "A multiple of head_dim · (heads / kv heads), so whole kv groups of heads are added.");
  }
  {
    auto& s = m.param("p_up", &ScaleParams::p_up, T::Int);
    s.min = 0;
    s.max = 1e7;
    s.unit = "MLP units";
    s.label = GB_TR("GrowPlanner", "Added MLP width p_up");
    s.model_hint = [](const ModelConfig& c) {
      ParamSpec::ModelHint h;
      h.value = c.intermediate_size / 2;
      return h;
    };
    s.help = GB_TR("GrowPlanner", "Added MLP inner width.");
  }
  {
    auto& s = m.param("l_fp", &ScaleParams::l_fp, T::Int);
    s.min = 0;
    s.max = 1000;
    s.unit = "layers";
    s.label = GB_TR("GrowPlanner", "L_fp");
    s.help = GB_TR(
        "GrowPlanner",
        "The lowest L_fp layers keep W12 zero and frozen; “forgetting increases exponentially "
        "with decreasing L_fp”.");
    s.when_key = "mode";
    s.when_values = {"adapt", "route"};
    s.when_hint = "preserve freezes W12 everywhere";
  }
  {
    auto& s = m.param("collaboration", &ScaleParams::collaboration, T::Choice);
    s.choices = {"all", "attention", "ffn"};
    s.choice_labels = {GB_TR("GrowPlanner", "All linears"), GB_TR("GrowPlanner", "Attention only"),
                       GB_TR("GrowPlanner", "FFN only")};
    s.label = GB_TR("GrowPlanner", "Collaborating modules");
    s.help = GB_TR("GrowPlanner",
                   "Where W12 trains above L_fp: every linear, attention (q, k, v, o) only "
                   "(“MHA as the preferred collaborative module”) or the FFN (gate, up, down) "
                   "only, the module ablation of §3.3.");
    s.when_key = "mode";
    s.when_values = {"adapt", "route"};
  }
  {
    auto& s = m.param("attention_only", &ScaleParams::attention_only, T::Bool);
    s.label = GB_TR("GrowPlanner", "Collaboration in attention only");
    s.help = GB_TR("GrowPlanner",
                   "Earlier name of collaboration = attention (kept so that earlier plans load).");
    s.when_key = "mode";
    s.when_values = {"adapt", "route"};
    s.hidden = true;
  }
  {
    auto& s = m.param("tau", &ScaleParams::tau, T::Number);
    s.min = -1;
    s.max = 1;
    s.step = 0.05;
    s.label = GB_TR("GrowPlanner", "Route threshold τ");
    s.help =
        GB_TR("GrowPlanner", "Threshold on cos(Z_p, Z_a); “we fix τ = 0.5 as a robust default”.");
    s.when_key = "mode";
    s.when_values = {"route"};
  }
  {
    // One key for the pair (W21, W22): "svd,zero" and so on.
    ParamSpec s;
    s.name = "init";
    s.type = T::Choice;
    for (const auto& a : kInits) {
      for (const auto& b : kInits) s.choices.push_back(a + "," + b);
    }
    // In the order of the choices (kInits × kInits).
    s.choice_labels = {
        GB_TR("GrowPlanner", "(0, 0)"),           GB_TR("GrowPlanner", "(0, random)"),
        GB_TR("GrowPlanner", "(0, SVD)"),         GB_TR("GrowPlanner", "(random, 0)"),
        GB_TR("GrowPlanner", "(random, random)"), GB_TR("GrowPlanner", "(random, SVD)"),
        GB_TR("GrowPlanner", "(SVD, 0)"),         GB_TR("GrowPlanner", "(SVD, random)"),
        GB_TR("GrowPlanner", "(SVD, SVD)")};
    s.label = GB_TR("GrowPlanner", "W21, W22 initialisation");
    s.help = GB_TR(
        "GrowPlanner",
        "Initialisation of the new rows: zero, random, or SVD (the top singular directions of "
        "W). Default (SVD, 0).");
    s.read = [](const VariantParams& vp) -> nlohmann::json {
      return static_cast<const ScaleParams&>(vp).init();
    };
    s.write = [](VariantParams& vp, const nlohmann::json& j) {
      auto& p = static_cast<ScaleParams&>(vp);
      const std::string v = j.get<std::string>();
      const auto comma = v.find(',');
      p.init_w21 = v.substr(0, comma);
      p.init_w22 = v.substr(comma + 1);
    };
    s.check = [](const nlohmann::json& v, const std::string& ctx) {
      const std::string x = v.get<std::string>();
      const auto comma = x.find(',');
      if (comma == std::string::npos) {
        fail(
            "{}: 'init' must be \"W21,W22\" with each zero, random or svd (e.g. \"svd,zero\"), "
            "found '{}' (variant 'scale')",
            ctx, x);
      }
      for (const auto& part : {x.substr(0, comma), x.substr(comma + 1)}) {
        if (std::find(kInits.begin(), kInits.end(), part) == kInits.end()) {
          fail("{}: 'init' part '{}' must be zero, random or svd (variant 'scale')", ctx, part);
        }
      }
    };
    s.default_value = ScaleParams().init();
    m.params.push_back(std::move(s));
  }
  m.validate = [](VariantParams& vp, const nlohmann::json& raw, const std::string& ctx) {
    auto& p = static_cast<ScaleParams&>(vp);
    if (!p.attention_only) return;
    if (raw.contains("collaboration") && p.collaboration != "attention" &&
        p.collaboration != "all") {
      fail(
          "{}: 'attention_only' contradicts 'collaboration': '{}' (attention_only is the "
          "earlier name of collaboration = attention; give only 'collaboration')",
          ctx, p.collaboration);
    }
    // The earlier key becomes the current one, so the stored plan names it once.
    p.collaboration = "attention";
    p.attention_only = false;
  };
  m.validate_model = [](const VariantParams& vp, const ModelConfig& c, const std::string& ctx) {
    const auto& p = static_cast<const ScaleParams&>(vp);
    const int64_t group = c.head_dim * c.kv_groups();
    if (p.d_up % group != 0) {
      fail(
          "{}: 'd_up' = {} must be a multiple of head_dim x (heads / kv heads) = {} x {} = {}, so "
          "that whole kv groups of heads are added",
          ctx, p.d_up, c.head_dim, c.kv_groups(), group);
    }
    if (p.l_fp > c.num_layers) {
      fail("{}: 'l_fp' = {} exceeds the number of layers ({})", ctx, p.l_fp, c.num_layers);
    }
    // GPT-2's learned position embedding is widened like the token embedding (P_up, new
    // columns initialised like E_up), so SCALE works on every family.
  };
  m.label = [](const VariantParams& vp) {
    const auto& p = static_cast<const ScaleParams&>(vp);
    return fmt::format("/{} d_up={} p_up={}", p.mode, p.d_up, p.p_up);
  };
  m.apply = apply_scale;
  m.estimate = [](const VariantParams& vp, const ModelConfig& c) {
    const auto& p = static_cast<const ScaleParams&>(vp);
    VariantEstimate e;
    const int64_t L = c.num_layers, d = c.hidden_size, f = c.intermediate_size, dh = c.head_dim;
    const int64_t groups = std::max<int64_t>(1, c.kv_groups());
    if (p.d_up <= 0 || dh <= 0 || p.d_up % (dh * groups) != 0) {
      fail("d_up must be a positive multiple of head_dim × (heads / kv heads)");
    }
    ModelConfig g = c;
    g.hidden_size = d + p.d_up;
    g.intermediate_size = f + p.p_up;
    g.num_heads = c.num_heads + p.d_up / dh;
    g.num_kv_heads = c.num_kv_heads + p.d_up / (dh * groups);
    // W12 blocks (original outputs ← new inputs) exist only where the new part collaborates
    // (Adapt and Route at layers >= L_fp, attention only if asked); Preserve has none. Every
    // block that exists trains; the original weights stay frozen.
    const int64_t qd = c.num_heads * dh, kvd = c.num_kv_heads * dh;
    const int64_t w12_attn = qd * p.d_up + 2 * kvd * p.d_up + d * p.d_up;
    const int64_t w12_mlp = (c.gated_mlp ? 2 : 1) * f * p.d_up + d * p.p_up;
    const int64_t collab = p.mode == "preserve" ? 0 : std::max<int64_t>(0, L - p.l_fp);
    const std::string where = p.effective_collaboration();
    const int64_t w12 = collab * (where == "attention" ? w12_attn
                                  : where == "ffn"     ? w12_mlp
                                                       : w12_attn + w12_mlp);
    e.added = g.param_count() - c.param_count() - L * (w12_attn + w12_mlp) + w12;
    if (c.qk_norm) e.added += 2 * dh * L;  // the new heads' own q/k norm weights
    e.trainable = e.added;
    e.function_preserving = p.mode != "route";
    e.layers_touched = static_cast<int>(L);
    e.note =
        GB_TR("PlanEstimate",
              "SCALE counts follow the operator's block structure; the exact numbers come from "
              "“Check preservation”.");
    return e;
  };
  return m;
}

}  // namespace
GB_REGISTER_VARIANT(scale_module);
}  // namespace gb::grow
