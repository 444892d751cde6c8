// Depth expansion: LLaMA-Pro (uniform block insertion) and ADEPT (copies after chosen layers)
// (DESIGN.md "Depth expansion"; /work/shared/papers/adept-adaptive-expansion.txt).
//
// A new block is a copy of an existing layer placed right after it. ADEPT: "we create a
// parallel copy by directly duplicating its parameters without re-initialization", then
// "set the output projections of both attention and feed-forward sublayers to zero
// (W_MHSA^out = 0, W_FFN^out = 0), so the forward computation remains unchanged". LLaMA-Pro
// builds its identity blocks the same way. We zero the weights *and* biases of o_proj and
// down_proj, so that each sublayer adds exactly zero to the residual stream:
//   pre-norm (Llama, Qwen, Gemma, GPT-2):  h1 = h + o(attn(...)) = h;  h2 = h1 + down(...) = h1
//   parallel residual (GPT-NeoX):          h + o(attn(ln1 h)) + down(mlp(ln2 h)) = h
//   sandwich norms (Gemma 3):              h + post_attn_norm(0) = h, since RMSNorm(0) =
//     0 · rsqrt(0 + eps) · (1 + w) = 0 (eps > 0 keeps it finite); likewise post_ffn_norm(0) = 0.
// So the new block starts as the exact identity on every family and the expanded model is
// bit-for-bit the base model at initialisation.
//
// Positions. LLaMA-Pro ("style": "llama-pro", "count": P) inserts P blocks uniformly: block i
// (i = 0..P−1) goes after original layer ((i+1)·L)/P − 1 (integer division), i.e. after every
// L/P layers when P divides L (LLaMA-Pro: "after every L/P blocks"; its LLaMA-2-7B recipe with
// L = 32, P = 8 copies layers 3, 7, ..., 31). These positions are distinct for P ≤ L, which
// validate_plan enforces. ADEPT ("style": "adept", "layers": [...]) inserts a copy right after
// each listed layer (the k least important by layer masking, chosen by a policy or by hand).
//
// In place ("style": "in-place", "layers": [...]): ADEPT without stage 1 as the paper's
// ablation states it ("directly apply Adaptive Unit-Wise Decoupled Tuning on the k
// Domain-Adaptable Layers without introducing any new parameters"): nothing is copied, the
// listed original layers (every parameter in them) train and everything else is frozen; the
// model is the base model, so it is preserved at step 0 trivially.
//
// Trainable set: only the new blocks (every parameter in them: attention, MLP, norms);
// original layers, embeddings, final norm and head stay frozen ("freezing the original
// weights. Only the newly introduced parameters are trained"). Copies keep the source layer's
// attention type (Gemma 3 sliding/global, Qwen sliding window). The grown model is a plain
// model of its family with L + P layers, so it exports as a plain Hugging Face folder.
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <torch/torch.h>

#include "grow/growth.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::grow {

namespace {

void zero_linear(const LinearUnit& unit, int64_t layer, const char* name) {
  auto dense = std::dynamic_pointer_cast<DenseLinearImpl>(unit);
  if (!dense) {
    fail("depth expansion: layer {} unit {} is a {}, expected a plain linear unit", layer, name,
         unit->kind());
  }
  dense->weight.zero_();
  if (dense->bias.defined()) dense->bias.zero_();
}

// A fresh layer with the structure of `src` (original layer `index`), holding a copy of its
// values with o_proj and down_proj zeroed; with `structure` only the structure.
DecoderLayer identity_copy(const CausalLMImpl& model, const DecoderLayer& src, int64_t index,
                           bool structure) {
  ModelConfig c = model.config;
  // The copy keeps the source's attention type and MLP size whatever the config says.
  c.layer_types.at(index) = src->self_attn->sliding ? AttentionKind::Sliding : AttentionKind::Full;
  c.intermediate_size = src->mlp->intermediate_size();
  DecoderLayer copy{nullptr};
  {
    SkipInitGuard skip;  // every value is copied (or loaded from a checkpoint)
    copy = DecoderLayer(c, index);
  }
  copy->self_attn->sliding_window = src->self_attn->sliding_window;
  auto src_params = src->named_parameters(true);
  auto dst_params = copy->named_parameters(true);
  if (src_params.size() != dst_params.size()) {
    fail(
        "depth expansion: layer {} is not a plain layer of its family ({} parameters, a plain "
        "layer has {}); depth expansion copies unmodified layers",
        index, src_params.size(), dst_params.size());
  }
  torch::NoGradGuard no_grad;
  for (auto& item : dst_params) {
    const torch::Tensor* s = src_params.find(item.key());
    if (!s || s->sizes() != item.value().sizes()) {
      fail(
          "depth expansion: layer {} has no plain parameter '{}' of the expected shape; depth "
          "expansion copies unmodified layers",
          index, item.key());
    }
    if (structure) {
      item.value().set_data(torch::empty(s->sizes(), s->options()));
    } else {
      item.value().set_data(s->detach().clone());
    }
  }
  if (!structure) {
    zero_linear(copy->self_attn->o_proj, index, "o");
    zero_linear(copy->mlp->down_proj, index, "down");
  }
  return copy;
}

// Original layer indices after which LLaMA-Pro inserts its P blocks.
std::vector<int64_t> llama_pro_positions(int64_t num_layers, int64_t count) {
  if (count < 1 || count > num_layers) {
    fail("plan: LLaMA-Pro 'count' must be in [1, {}] (the number of layers), found {}", num_layers,
         count);
  }
  std::vector<int64_t> after;
  for (int64_t i = 0; i < count; ++i) after.push_back(((i + 1) * num_layers) / count - 1);
  return after;
}

}  // namespace

GrowthResult apply_depth(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx) {
  const auto& p = plan.get<DepthParams>();
  const int64_t n = model.num_layers();
  if (p.style == "in-place") {
    GrowthResult r;
    freeze_all(model);
    r.unit_lr_layers = p.layers.resolve(n);
    for (int64_t l : r.unit_lr_layers) {
      for (auto& t : model.layer(l)->parameters(true)) t.set_requires_grad(true);
    }
    r.groups = groups_from_requires_grad(model);
    r.function_preserving = true;
    log::get("grow")->debug("depth (in-place): layers {} train, nothing added",
                            fmt::join(r.unit_lr_layers, ","));
    return r;
  }
  std::vector<int64_t> after;
  if (p.style == "llama-pro") {
    after = llama_pro_positions(n, p.count);
  } else if (p.style == "adept") {
    if (p.layers.kind == LayerSelection::Kind::All) {
      fail("plan: ADEPT needs explicit 'layers' to copy (a list or a policy)");
    }
    after = p.layers.resolve(n);
  } else {
    fail("plan: depth 'style' must be llama-pro, adept or in-place, found '{}'", p.style);
  }
  const std::set<int64_t> positions(after.begin(), after.end());

  freeze_all(model);
  const auto old_layers = model.all_layers();
  std::vector<DecoderLayer> layers;
  GrowthResult r;
  for (int64_t l = 0; l < n; ++l) {
    layers.push_back(old_layers[l]);
    if (!positions.count(l)) continue;
    auto copy = identity_copy(model, old_layers[l], l, ctx.structure_only);
    // Same device and dtype as the layer it copies.
    auto ref = old_layers[l]->self_attn->q_proj->dense_weight();
    copy->to(ref.device(), ref.scalar_type());
    for (auto& t : copy->parameters(true)) t.set_requires_grad(true);
    r.new_layers.push_back(static_cast<int64_t>(layers.size()));
    layers.push_back(copy);
  }
  model.set_layers(layers);
  r.unit_lr_layers = r.new_layers;
  r.groups = groups_from_requires_grad(model);
  r.function_preserving = true;
  log::get("grow")->debug("depth ({}): {} -> {} layers", p.style, n, model.num_layers());
  return r;
}

}  // namespace gb::grow
