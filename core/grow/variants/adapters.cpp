// Parallel adapters: the neutral-residues block without a gate and without the local loss
// (the vanilla adapter baseline of neutral-residues-adapters.txt §4).
#include "grow/adapters.h"
#include "grow/growth.h"
#include "grow/variants/common.h"

namespace gb::grow {
namespace {

VariantModule adapters_module() {
  VariantModule m;
  m.id = Variant::Adapters;
  m.name = GB_TR("GrowPlanner", "Parallel adapters");
  m.paper = "neutral-residues-adapters.txt §4 (vanilla adapter baseline)";
  m.description =
      GB_TR("GrowPlanner", "The neutral-residues block without a gate and without the local loss.");
  m.exportable_hf = false;
  m.export_note = "an adapter branch per layer: a GrowBench checkpoint";
  m.make = [] {
    auto p = std::make_unique<AdapterParams>();
    p->gate = "none";
    p->alpha = 0.0;
    return p;
  };
  add_adapter_params(m, false);
  m.apply = apply_adapters;
  m.estimate = [](const VariantParams& vp, const ModelConfig& c) {
    return estimate_adapters(static_cast<const AdapterParams&>(vp), c, false);
  };
  return m;
}

}  // namespace
GB_REGISTER_VARIANT(adapters_module);
}  // namespace gb::grow
