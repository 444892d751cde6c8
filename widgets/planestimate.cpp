#include "planestimate.h"

#include <QCoreApplication>

#include <algorithm>

#include "grow/plan.h"
#include "grow/variant.h"

namespace gb::gui {

PlanEstimate estimatePlan(const gb::ModelConfig& c, const nlohmann::json& plan) {
  PlanEstimate e;
  e.baseParams = c.param_count();
  try {
    gb::grow::GrowthPlan p = gb::grow::parse_plan(plan);
    const gb::grow::VariantModule& m = gb::grow::variant_module(p.variant);
    if (m.resolve) m.resolve(*p.params.get(), c, "plan");
    const gb::grow::VariantEstimate v = m.estimate(*p.params.get(), c);
    if (v.layers_touched < 0) {
      e.error =
          QCoreApplication::translate("PlanEstimate", "Cannot tell which layers the plan selects.");
      return e;
    }
    e.addedParams = v.added;
    e.totalParams = e.baseParams + v.added;
    e.trainableParams = std::max<qint64>(0, v.trainable);
    e.activatedParams = v.activated < 0 ? e.trainableParams : v.activated;
    e.layersTouched = v.layers_touched;
    e.functionPreserving = v.function_preserving;
    e.note =
        v.note.empty() ? QString() : QCoreApplication::translate("PlanEstimate", v.note.c_str());
    e.ok = true;
  } catch (const std::exception& ex) {
    e.error = QString::fromUtf8(ex.what());
  }
  return e;
}

}  // namespace gb::gui
