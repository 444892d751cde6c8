#include "variantform.h"

#include <algorithm>

#include "grow/plan_schema.h"
#include "grow/variant.h"
#include "guiutil.h"
#include "model/units.h"

namespace gb::gui {

namespace {
using Spec = gb::grow::ParamSpec;
}  // namespace

schema::Key variantKey(const Spec& spec, const QString& dependentDefaultNote) {
  schema::Key k = displayed(grow::to_schema_key(spec), "GrowPlanner");
  if (spec.default_for && !dependentDefaultNote.isEmpty()) {
    k.help += (k.help.empty() ? "" : " ") + ss(dependentDefaultNote);
  }
  return k;
}

SpecField::Hint variantHint(const Spec& spec, const ModelConfig* config) {
  SpecField::Hint hint;
  hint.step = spec.step;
  if (!config) return hint;
  if (spec.model_hint) {
    const Spec::ModelHint h = spec.model_hint(*config);
    hint.value = h.value;
    hint.max = h.max;
    if (h.step) hint.step = h.step;
  }
  if (spec.type == Spec::Type::StringList) {
    // Units of other families than the model's (such as gate on a non-gated MLP).
    const std::vector<std::string> units = gb::units::names_of(*config);
    for (const std::string& item : spec.choices) {
      if (gb::units::find(item) && std::find(units.begin(), units.end(), item) == units.end()) {
        hint.disabled << qs(item);
      }
    }
  }
  return hint;
}

std::vector<VariantRow> variantFields(const grow::VariantModule& module,
                                      const VariantFormOptions& options) {
  std::vector<VariantRow> rows;
  for (const Spec& s : module.params) {
    if (s.hidden) continue;
    if (!options.layersAndPlans && (s.type == Spec::Type::Layers || s.type == Spec::Type::Plan)) {
      continue;
    }
    rows.push_back({&s, new SpecField(variantKey(s, options.dependentDefaultNote), options.mode,
                                      variantHint(s, options.config))});
  }
  return rows;
}

}  // namespace gb::gui
