#pragma once
// The form rows of a growth variant's parameters, for both forms that edit a plan: the
// experiment editor's plan form (PlanForm, experimenteditor.h) and the Grow planner
// (growplanner.h). One SpecField per offered parameter of a VariantModule
// (core/grow/variant.h), built from the key the spec schema declares for it
// (grow::to_schema_key), its texts translated (context "GrowPlanner"), with what a model
// changes (its ParamSpec::model_hint: starting value, maximum, step; the units it lacks,
// disabled in a string list). The callers lay the fields out and bind them to their JSON.

#include <QString>

#include <vector>

#include "specfields.h"

namespace gb {
struct ModelConfig;
}

namespace gb::grow {
struct ParamSpec;
class VariantModule;
}  // namespace gb::grow

namespace gb::gui {

struct VariantFormOptions {
  // Optional: the editor's (a key may be absent); Value: the planner's (spin boxes, check
  // boxes, always a value).
  SpecField::Mode mode = SpecField::Mode::Optional;
  // The model the plan is for (its hints and units); nullptr: the declaration alone.
  const ModelConfig* config = nullptr;
  // Whether the Layers and Plan parameters get fields (the planner has a layers row of its
  // own and no plan field).
  bool layersAndPlans = true;
  // Appended to the help of a key whose default depends on the other keys
  // (ParamSpec::default_for); "" appends nothing.
  QString dependentDefaultNote;
};

struct VariantRow {
  const grow::ParamSpec* spec = nullptr;  // the module's declaration (it outlives the row)
  SpecField* field = nullptr;             // new, without a parent
};

// The key a parameter's field edits: the spec schema's (grow::to_schema_key), its label,
// help and choice labels translated.
schema::Key variantKey(const grow::ParamSpec& spec, const QString& dependentDefaultNote = {});
// What `config` changes of how the parameter is offered (nullptr: only the declared step).
SpecField::Hint variantHint(const grow::ParamSpec& spec, const ModelConfig* config);
// The fields of `module`'s parameters in declaration order; hidden ones have none.
std::vector<VariantRow> variantFields(const grow::VariantModule& module,
                                      const VariantFormOptions& options);

}  // namespace gb::gui
