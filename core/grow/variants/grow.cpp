// Grow, don't overwrite: k-fold MLP width replication. The up (and gate) projection is
// concatenated k times and each copy of the down projection scaled by 1/k, so the grown
// model computes the same function for any k (grow-dont-overwrite.txt §3).
#include <fmt/format.h>

#include "grow/growth.h"
#include "grow/variant.h"

namespace gb::grow {
namespace {

VariantModule grow_module() {
  using T = ParamSpec::Type;
  VariantModule m;
  m.id = Variant::Grow;
  m.name = GB_TR("GrowPlanner", "Grow (MLP width replication)");
  m.paper = "grow-dont-overwrite.txt §3 (G-Freeze, G-Train)";
  m.description = GB_TR(
      "GrowPlanner",
      "“Grow, don't overwrite”: the up-projection is concatenated k times and each copy of the "
      "down-projection scaled by 1/k; function preserving for any k.");
  m.exportable_hf = true;
  m.export_note =
      "on every layer: a plain Hugging Face folder with a k-times intermediate size; on some "
      "layers: a GrowBench checkpoint";
  m.make = [] { return std::make_unique<GrowParams>(); };
  {
    auto& s = m.param("mode", &GrowParams::mode, T::Choice);
    s.choices = {"freeze", "train"};
    s.choice_labels = {GB_TR("GrowPlanner", "G-Freeze"), GB_TR("GrowPlanner", "G-Train")};
    s.label = GB_TR("GrowPlanner", "Mode");
    s.help =
        GB_TR("GrowPlanner",
              "G-Freeze “strictly trains only the newly added weights”; G-Train trains “the entire "
              "expanded up-projection matrix while keeping the entire down-projection matrix and "
              "all other original parameters frozen”.");
  }
  {
    auto& s = m.param("k", &GrowParams::k, T::Int);
    s.min = 2;
    s.max = 64;
    s.label = GB_TR("GrowPlanner", "Replication factor k");
    s.help =
        GB_TR("GrowPlanner",
              "k copies of each MLP unit, the down copies scaled by 1/k; “using k = 2 consistently "
              "provided the best trade-off”.");
  }
  {
    auto& s = m.param("layers", &GrowParams::layers, T::Layers);
    s.label = GB_TR("GrowPlanner", "Layers");
    s.help = GB_TR("GrowPlanner",
                   "Layers whose MLP grows: \"all\", a list of indices or a selection policy.");
  }
  m.label = [](const VariantParams& vp) {
    const auto& p = static_cast<const GrowParams&>(vp);
    return fmt::format("/{} k={}", p.mode, p.k);
  };
  m.apply = apply_grow;
  m.estimate = [](const VariantParams& vp, const ModelConfig& c) {
    const auto& p = static_cast<const GrowParams&>(vp);
    VariantEstimate e;
    e.layers_touched = estimate_layer_count(p.layers, c.num_layers, &e.note);
    e.graph_from_layer = estimate_lowest_layer(p.layers);  // the base stays frozen
    const int64_t n = e.layers_touched, d = c.hidden_size, f = c.intermediate_size;
    const int64_t ups = c.gated_mlp ? 2 : 1;
    int64_t per = (p.k - 1) * f * d * (ups + 1);
    if (c.mlp_bias) per += (p.k - 1) * f * ups;
    e.added = per * n;
    e.trainable =
        p.mode == "train" ? n * (p.k * f * d * ups + (c.mlp_bias ? p.k * f * ups : 0)) : e.added;
    return e;
  };
  return m;
}

}  // namespace
GB_REGISTER_VARIANT(grow_module);
}  // namespace gb::grow
