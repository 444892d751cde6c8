// Full fine-tuning: every parameter trains. The baseline every comparison needs.
#include "grow/growth.h"
#include "grow/variant.h"
#include "grow/variants/common.h"

namespace gb::grow {
namespace {

VariantModule full_module() {
  VariantModule m;
  m.id = Variant::Full;
  m.name = GB_TR("GrowPlanner", "Full fine-tuning");
  m.paper = "baseline (every paper's FFT row)";
  m.description = GB_TR("GrowPlanner", "Every parameter trains. The baseline that forgets most.");
  m.exportable_hf = true;
  m.export_note = "unchanged shapes: a plain Hugging Face folder";
  m.make = [] { return std::make_unique<FullParams>(); };
  m.apply = apply_full;
  m.estimate = [](const VariantParams& vp, const ModelConfig& c) {
    VariantEstimate e = estimate_all_trainable(vp, c);
    e.embedding_gradient_copies = true;  // measured here (experiment/estimate.cpp)
    return e;
  };
  return m;
}

}  // namespace
GB_REGISTER_VARIANT(full_module);
}  // namespace gb::grow
