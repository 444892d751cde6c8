// Neutral residues: a gated adapter beside each selected MLP whose gate learns to output
// zero on original-domain data, trained with an ℓ1 local loss on those batches
// (neutral-residues-adapters.txt §3; the sigmoid gate is the explicit selector of §3.2).
#include "grow/adapters.h"
#include "grow/growth.h"
#include "grow/variants/common.h"

namespace gb::grow {
namespace {

VariantModule neutral_residues_module() {
  VariantModule m;
  m.id = Variant::NeutralResidues;
  m.name = GB_TR("GrowPlanner", "Neutral residues (gated adapters)");
  m.paper = "neutral-residues-adapters.txt §3 (ELU gate, local ℓ1 loss; sigmoid selector)";
  m.description =
      GB_TR("GrowPlanner",
            "A gated adapter beside each selected MLP whose gate learns to output zero on "
            "original-domain data (ℓ1 local loss).");
  m.exportable_hf = false;
  m.export_note = "an adapter branch per layer: a GrowBench checkpoint";
  m.make = [] { return std::make_unique<AdapterParams>(); };
  add_adapter_params(m, true);
  m.label = [](const VariantParams& vp) {
    return "/" + static_cast<const AdapterParams&>(vp).gate;
  };
  m.apply = apply_adapters;
  m.estimate = [](const VariantParams& vp, const ModelConfig& c) {
    return estimate_adapters(static_cast<const AdapterParams&>(vp), c, true);
  };
  // The local loss applies on original-domain batches only: without replay it never does.
  m.run.warnings = [](const VariantParams&, const RunFacts& f) {
    std::vector<std::string> w;
    if (f.replay <= 0 && !f.resumed) {
      w.push_back(
          "neutral residues without replay (p = 0): no original-domain batches, so the local "
          "loss never applies (the paper's ablation; the paper uses p = 0.1)");
    }
    return w;
  };
  return m;
}

}  // namespace
GB_REGISTER_VARIANT(neutral_residues_module);
}  // namespace gb::grow
