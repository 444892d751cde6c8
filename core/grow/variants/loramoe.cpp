// LoRAMoE: banks of K LoRA experts beside each linear of the selected MLPs (or beside the
// whole MLP), each with a top-k router over whole tokens (the LoRAMoE baseline of
// mh-moe-multi-head-routing.txt §4, placed as its appendix A.3.4 says).
#include "grow/growth.h"
#include "grow/variants/common.h"

namespace gb::grow {
namespace {

VariantModule loramoe_module() {
  VariantModule m;
  m.id = Variant::LoraMoe;
  m.name = GB_TR("GrowPlanner", "LoRAMoE");
  m.paper = "mh-moe-multi-head-routing.txt §4 (LoRAMoE baseline), A.3.4 (placement)";
  m.description =
      GB_TR("GrowPlanner",
            "Banks of K LoRA experts beside each linear of the selected MLPs (gate, up, "
            "down), each with a top-k router over whole tokens.");
  m.exportable_hf = false;
  m.export_note = "routed expert branches: a GrowBench checkpoint";
  m.make = [] { return std::make_unique<MoeParams>(); };
  add_moe_params(m, false);
  m.apply = apply_moe;
  return m;
}

}  // namespace
GB_REGISTER_VARIANT(loramoe_module);
}  // namespace gb::grow
