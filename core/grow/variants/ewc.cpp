// EWC: full fine-tuning plus λ/2 · Σ F_i (θ_i − θ*_i)², F the diagonal Fisher of the base
// model on the original domain (the regularisation baseline of the papers' comparisons).
#include <fmt/format.h>

#include "grow/growth.h"
#include "grow/variant.h"
#include "grow/variants/common.h"

namespace gb::grow {
namespace {

VariantModule ewc_module() {
  using T = ParamSpec::Type;
  VariantModule m;
  m.id = Variant::Ewc;
  m.name = GB_TR("GrowPlanner", "EWC");
  m.paper = "mh-moe-multi-head-routing.txt §4 (EWC baseline; Kirkpatrick et al. 2017)";
  m.description =
      GB_TR("GrowPlanner",
            "Full fine-tuning plus λ/2 · Σ F_i (θ_i − θ*_i)² with the diagonal Fisher of the base "
            "model on the original domain.");
  m.exportable_hf = true;
  m.export_note = "unchanged shapes: a plain Hugging Face folder";
  m.no_check_reason = GB_TR("GrowPlanner",
                            "EWC changes no weights at initialisation (its penalty needs the "
                            "Fisher of a probe): nothing to check.");
  m.make = [] { return std::make_unique<EwcParams>(); };
  {
    auto& s = m.param("lambda", &EwcParams::lambda, T::Number);
    s.min = 0;
    s.max = 1e12;
    s.step = 0.1;
    s.label = GB_TR("GrowPlanner", "λ");
    s.help = GB_TR("GrowPlanner", "Strength of the penalty λ/2 · Σ F_i (θ_i − θ*_i)².");
  }
  m.label = [](const VariantParams& vp) {
    return fmt::format(" lambda={}", static_cast<const EwcParams&>(vp).lambda);
  };
  m.apply = apply_ewc;
  // The penalty's Fisher: the base model's on the general probe set, before growing. A
  // finished run's weights are full fine-tuning's (the penalty only shapes training).
  m.run.needs_base_fisher = true;
  m.run.weights_as = Variant::Full;
  m.estimate = estimate_all_trainable;
  return m;
}

}  // namespace
GB_REGISTER_VARIANT(ewc_module);
}  // namespace gb::grow
