// MH-MoE: the input of each MLP linear (or the MLP's input, beside the MLP) is split into H
// heads, each with its own router and private bank of LoRA experts; the head outputs are
// summed (mh-moe-multi-head-routing.txt §3, eq. 12-16; placement A.3.4).
#include "grow/growth.h"
#include "grow/variants/common.h"

namespace gb::grow {
namespace {

VariantModule mh_moe_module() {
  VariantModule m;
  m.id = Variant::MhMoe;
  m.name = GB_TR("GrowPlanner", "MH-MoE (multi-head routing)");
  m.paper = "mh-moe-multi-head-routing.txt §3 (head-wise routing, eq. 13–14)";
  m.description =
      GB_TR("GrowPlanner",
            "The input of each MLP linear is split into H heads, each with its own router and "
            "expert bank; the heads' outputs are summed.");
  m.exportable_hf = false;
  m.export_note = "routed expert branches: a GrowBench checkpoint";
  m.make = [] {
    auto p = std::make_unique<MoeParams>();
    p->heads = 4;
    p->top_k = 1;
    return p;
  };
  add_moe_params(m, true);
  m.apply = apply_moe;
  return m;
}

}  // namespace
GB_REGISTER_VARIANT(mh_moe_module);
}  // namespace gb::grow
