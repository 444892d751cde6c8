// Grow: k-fold replication of the MLP's inner units ("Grow, don't overwrite",
// /work/shared/papers/grow-dont-overwrite.txt; DESIGN.md "Grow").
//
// For each selected layer, with p the inner size and d the hidden size:
//   up (and gate) (p, d) → k stacked copies (kp, d); their biases copied k times;
//   down (d, p) → k copies side by side, each divided by k: (d, kp); down bias unchanged.
// The paper: "the up-projection matrix is concatenated k times, and each of the k copies in
// the stacked down-projection matrix is scaled by 1/k" (its printed block matrices are
// garbled; this is the intended operator, see DESIGN.md). Each copy of an inner unit sees the
// same pre-activation, so the k copies together give k · act(...) · W_down / k = the original
// output: function preserving within float rounding (exact for k = 2, where halving is exact
// in binary floating point).
//
// Trainable sets:
//   G-Freeze ("mode": "freeze", the paper's default) "strictly trains only the newly added
//     weights": rows p..kp of up/gate (with their bias slices, which belong to the new units)
//     and columns p..kp of down. The original slices, including the 1/k-scaled original down
//     slice and the down bias, stay frozen. Implemented with split units (grow/split_linear.h)
//     so that the optimizer sees only the new slices; trains (k−1)·p·d per projection.
//   G-Train ("mode": "train") trains "the entire expanded up-projection matrix" (and gate, with
//     biases) "while keeping the entire down-projection matrix and all other original
//     parameters frozen"; plain dense units of the grown sizes.
// Plain (non-gated) MLPs (GPT-2, GPT-NeoX) grow up and down only; their biases follow the same
// rules (up bias replicated, down bias once).
#include <torch/torch.h>

#include "grow/growth.h"
#include "grow/split_linear.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::grow {

namespace {

// k stacked copies along `dim`, or an uninitialised tensor of that shape (structure only).
torch::Tensor replicate(const torch::Tensor& t, int64_t copies, int64_t dim, bool structure) {
  if (!t.defined()) return {};
  std::vector<int64_t> shape = t.sizes().vec();
  shape[dim] *= copies;
  if (structure) return torch::empty(shape, t.options());
  std::vector<int64_t> reps(t.dim(), 1);
  reps[dim] = copies;
  return t.detach().repeat(reps);
}

torch::Tensor copy_or_empty(const torch::Tensor& t, bool structure) {
  if (!t.defined()) return {};
  if (structure) return torch::empty(t.sizes(), t.options());
  return t.detach().clone();
}

void set_trainable(const torch::Tensor& t, bool trainable) {
  if (t.defined()) t.set_requires_grad(trainable);
}

// register_parameter makes parameters trainable; new units start frozen and the operator
// opens exactly the slices that train.
template <typename Unit>
std::shared_ptr<Unit> frozen(std::shared_ptr<Unit> unit) {
  for (auto& t : unit->parameters(true)) t.set_requires_grad(false);
  return unit;
}

ParamGroup make_group(int64_t layer, const std::string& unit, const std::string& suffix,
                      std::initializer_list<torch::Tensor> tensors) {
  ParamGroup g;
  g.layer = layer;
  g.unit = unit;
  g.name = "layers." + std::to_string(layer) + "." + unit + suffix;
  for (const auto& t : tensors) {
    if (t.defined()) g.params.push_back(t);
  }
  return g;
}

}  // namespace

GrowthResult apply_grow(CausalLMImpl& model, const GrowthPlan& plan, const ApplyContext& ctx) {
  const auto& p = plan.get<GrowParams>();
  const bool structure = ctx.structure_only;
  const bool freeze_mode = p.mode == "freeze";
  if (p.mode != "freeze" && p.mode != "train") {
    fail("plan: grow 'mode' must be freeze or train, found '{}'", p.mode);
  }
  const int64_t k = p.k;
  if (k < 2) fail("plan: grow 'k' must be at least 2, found {}", k);
  const auto layers = p.layers.resolve(model.num_layers());

  freeze_all(model);
  GrowthResult r;
  r.function_preserving = true;
  torch::NoGradGuard no_grad;
  for (int64_t l : layers) {
    auto layer = model.layer(l);
    auto& mlp = layer->mlp;
    const bool gated = static_cast<bool>(mlp->gate_proj);
    // Up-type projections (gate, up): rows replicated.
    std::vector<std::string> ups;
    if (gated) ups.push_back("gate");
    ups.push_back("up");
    for (const auto& unit : ups) {
      LinearUnit src = layer->linear(unit);
      torch::Tensor w = src->dense_weight();  // (p, d)
      torch::Tensor b = src->dense_bias();    // (p) or undefined
      if (freeze_mode) {
        auto split = frozen(std::make_shared<RowSplitLinearImpl>(
            copy_or_empty(w, structure), copy_or_empty(b, structure),
            replicate(w, k - 1, 0, structure), replicate(b, k - 1, 0, structure)));
        set_trainable(split->grown_weight, true);
        set_trainable(split->grown_bias, true);
        r.groups.push_back(make_group(l, unit, ".grown", {split->grown_weight, split->grown_bias}));
        layer->set_linear(unit, split);
      } else {
        auto dense = frozen(std::make_shared<DenseLinearImpl>(replicate(w, k, 0, structure),
                                                              replicate(b, k, 0, structure)));
        set_trainable(dense->weight, true);
        set_trainable(dense->bias, true);
        r.groups.push_back(make_group(l, unit, "", {dense->weight, dense->bias}));
        layer->set_linear(unit, dense);
      }
    }
    // Down: columns replicated, every copy scaled by 1/k; the bias is added once.
    LinearUnit down = layer->linear("down");
    torch::Tensor w = down->dense_weight();  // (d, p)
    torch::Tensor b = down->dense_bias();    // (d) or undefined
    torch::Tensor scaled = structure ? w : w.detach() / static_cast<double>(k);
    if (freeze_mode) {
      auto split = frozen(std::make_shared<ColSplitLinearImpl>(
          copy_or_empty(scaled, structure), replicate(scaled, k - 1, 1, structure),
          copy_or_empty(b, structure)));
      split->grown_weight.set_requires_grad(true);
      r.groups.push_back(make_group(l, "down", ".grown", {split->grown_weight}));
      layer->set_linear("down", split);
    } else {
      layer->set_linear("down",
                        frozen(std::make_shared<DenseLinearImpl>(replicate(scaled, k, 1, structure),
                                                                 copy_or_empty(b, structure))));
    }
  }
  log::get("grow")->debug("grow: {} layer(s), k = {}, mode {}", layers.size(), k, p.mode);
  return r;
}

}  // namespace gb::grow
