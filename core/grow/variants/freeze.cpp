// Freeze: the bottom k layers and the input embedding are frozen, the rest trains (the
// partial fine-tuning baseline of grow-dont-overwrite.txt §4, "Freeze").
#include <algorithm>

#include <fmt/format.h>

#include "grow/growth.h"
#include "grow/variant.h"
#include "util/error.h"

namespace gb::grow {
namespace {

VariantModule freeze_module() {
  using T = ParamSpec::Type;
  VariantModule m;
  m.id = Variant::Freeze;
  m.name = GB_TR("GrowPlanner", "Freeze bottom layers");
  m.paper = "grow-dont-overwrite.txt §4 (Freeze baseline)";
  m.description =
      GB_TR("GrowPlanner", "Trains all but the bottom k layers and the input embedding.");
  m.exportable_hf = true;
  m.export_note = "unchanged shapes: a plain Hugging Face folder";
  m.make = [] { return std::make_unique<FreezeParams>(); };
  {
    auto& s = m.param("bottom", &FreezeParams::bottom, T::Int);
    s.min = 0;
    s.max = 1000;
    s.unit = "layers";
    s.label = GB_TR("GrowPlanner", "Frozen bottom layers");
    s.help = GB_TR("GrowPlanner",
                   "“Freeze trains all but the bottom k layers and the input embedding.”");
    s.model_hint = [](const ModelConfig& c) {
      ParamSpec::ModelHint h;
      h.max = static_cast<double>(std::max<int64_t>(0, c.num_layers - 1));
      return h;
    };
  }
  {
    auto& s = m.param("freeze_embedding", &FreezeParams::freeze_embedding, T::Bool);
    s.label = GB_TR("GrowPlanner", "Freeze the embedding");
    s.help = GB_TR("GrowPlanner",
                   "Also freeze the token embedding (and with tied embeddings the LM head).");
  }
  m.validate_model = [](const VariantParams& vp, const ModelConfig& c, const std::string& ctx) {
    const auto& p = static_cast<const FreezeParams&>(vp);
    if (p.bottom >= c.num_layers) {
      fail("{}: freezing the bottom {} layers leaves nothing to train (the model has {})", ctx,
           p.bottom, c.num_layers);
    }
  };
  m.label = [](const VariantParams& vp) {
    return fmt::format(" bottom={}", static_cast<const FreezeParams&>(vp).bottom);
  };
  m.apply = apply_freeze;
  m.estimate = [](const VariantParams& vp, const ModelConfig& c) {
    const auto& p = static_cast<const FreezeParams&>(vp);
    VariantEstimate e;
    e.trainable = c.param_count() - p.bottom * layer_param_count(c);
    if (p.freeze_embedding) {
      e.trainable -= c.vocab_size * c.hidden_size;
      if (c.learned_positions) e.trainable -= c.max_positions * c.hidden_size;
      e.graph_from_layer = p.bottom;  // nothing below the lowest trainable layer needs a graph
    }
    e.layers_touched = static_cast<int>(std::max<int64_t>(0, c.num_layers - p.bottom));
    return e;
  };
  return m;
}

}  // namespace
GB_REGISTER_VARIANT(freeze_module);
}  // namespace gb::grow
