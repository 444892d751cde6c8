#pragma once
// LoRAMoE and MH-MoE branches, after ../shared/papers/mh-moe-multi-head-routing.txt ("the
// paper": section 3, equations 12-17, algorithm 1, appendix A.3.2) and DESIGN.md.
//
// Two placements (plan key "placement"):
//
//   "mlp-linears" (default, the paper's appendix A.3.4: experts are attached to "the linear
//   modules in the MLP layers"): every linear of a selected layer's MLP (gate, up and down;
//   GPT-2 and GPT-NeoX: fc_in and fc_out) is wrapped in a MoeLinear unit
//       y = W x (+ b) + bank(x)
//   whose bank of experts maps the linear's input d_in → r → d_out. The bank is registered
//   inside the unit under "moe_<the family's own name of that linear>", so checkpoint names
//   read model.layers.3.mlp.gate_proj.moe_gate_proj.{router,lora_a,lora_b} (Llama-style
//   families), model.layers.3.mlp.up_proj.moe_c_fc.router (GPT-2: c_fc / c_proj) and
//   model.layers.3.mlp.up_proj.moe_dense_h_to_4h.router (GPT-NeoX: dense_h_to_4h /
//   dense_4h_to_h): every router tensor has "router" in its name and every bank tensor the
//   name of the linear it sits beside. The base weight is model.layers.3.mlp.gate_proj.base.*
//   (frozen). The routed experts cannot be merged into the weight: dense_weight() is the base
//   weight, so probes and exports of the unit see the base linear.
//
//   "beside-mlp": one bank d → r → d in parallel to the whole MLP, registered as the branch
//   "moe" (model.layers.3.moe.{router,lora_a,lora_b}); GrowBench's first form, kept as an
//   option. Like the adapters (adapters.h, which also explains where DecoderLayerImpl places a
//   branch for each family) the branch reads the MLP's normalised input x and its output is
//   added to the residual stream in parallel to the MLP.
//
// The router input is the linear's own input (mlp-linears; for gate and up that is the MLP's
// normalised input, the paper's "post-attention hidden state"; for down the activated inner
// state) or the MLP's normalised input (beside-mlp).
//
// LoRAMoE (heads = 1), for a token x ∈ ℝ^d (d = d_in; the output has d_out features, d_out = d
// beside the MLP):
//   a = W_rt x ∈ ℝ^K                      router (K, d), no bias (eq. 13)
//   S = TopK(a, k);  α_j = exp(a_j) / Σ_{q∈S} exp(a_q) for j ∈ S, 0 otherwise
//       (softmax over the selected logits only, eq. 13 and algorithm 1)
//   y = scale · Σ_{j∈S} α_j B_j A_j x       A (K, r, d), B (K, d_out, r), scale = alpha/r or 1
// MH-MoE (heads = H, H | d): x = [x_1 ‖ … ‖ x_H], x_m ∈ ℝ^{d/H} (eq. 12); every head has its
// own router W_rt^(m) (K, d/H) and its own bank of K experts A^(m) (K, r, d/H), B^(m)
// (K, d_out, r) mapping d/H → r → d_out (eq. 14); routing per head as above (eq. 13, 15) and
// y = Σ_m y_m (eq. 16). With H = 1 it is LoRAMoE exactly (a test checks this).
//
// Router weights (plan key "router_weights"): "renormalised" (default) is eq. 13 above;
// "softmax_all" keeps the selected experts' share of a softmax over all K (Switch-style), so
// that a top-1 router receives a gradient.
//
// The paper's LoRAMoE baseline (A.3.2) is "probability-weighted residual from the selected
// experts"; we use the same top-k-renormalised softmax as MH-MoE (eq. 13) so that the two
// differ only by head-wise routing, as the paper's controlled comparison intends.
// Consequence worth knowing: with top_k = 1 every selected weight is exactly 1, so the
// language-model loss gives the router no gradient (the route is fixed by its initial
// values); only the balancing loss then trains it. apply_moe logs a warning in that case.
//
// Initialisation (the paper gives none; LoRA's convention): A normal with variance 1/fan_in
// (fan_in = d or d/H), B = 0, so the branch outputs exactly zero at step 0 (function
// preserving); the router normal with variance 1/fan_in, so that routing at step 0 is
// already token-dependent (a zero router would tie all logits).
//
// Load balancing (optional, plan key "balance" = its coefficient, 0 = off). The paper
// itself uses none and only cites Switch Transformers (Fedus et al. 2022) and Shazeer et al.
// (2017); we use the Switch formulation, generalised to top-k:
//   L_bal = K · Σ_i f_i · P_i,  f_i = (1/(N·k)) Σ_tokens 1[i ∈ S(token)],
//                               P_i = (1/N) Σ_tokens softmax(a(token))_i (full softmax)
// over the N valid (non-padded) tokens of the batch; f carries no gradient, P does. L_bal = 1
// for perfectly uniform routing. For MH-MoE it is computed per head and averaged over the H
// heads (so its scale does not grow with H). Every bank pushes its own AuxTerm "balance" into
// ForwardState::aux on every batch; the trainer sums them (so with "mlp-linears" a layer
// contributes one term per linear).
//
// Route statistics (grow/routes.h): when ForwardState::routes is set, every bank reports its
// routes and compositions of the batch's valid tokens.
//
// Vectorisation: dense over experts. Every token runs all K experts' A projections
// ((N, K·r), one matmul), the per-expert activations are multiplied by the (mostly zero)
// routing weights, and one matmul with the stacked B matrices ((K·r, d)) sums the selected
// experts' outputs. No gather/scatter and no per-token loop; cost K·r·2d multiply-adds per
// token instead of k·r·2d, negligible next to the MLP for the small K·r these methods use.
// Unselected experts get exactly zero gradient from a token (weight 0), so training is the
// same as with sparse dispatch. MH-MoE does the same with an extra head axis (einsum).

#include <cstdint>
#include <memory>
#include <string>

#include <torch/nn/module.h>

#include "grow/routes.h"
#include "model/modules.h"

namespace gb::grow {

inline constexpr const char* kMoeBranch = "moe";

struct MoeOptions {
  int64_t hidden = 0;   // d_in: the bank's input features
  int64_t out = 0;      // d_out: its output features (0 = d_in)
  int64_t heads = 1;    // H (MH-MoE); 1 for LoRAMoE
  int64_t experts = 4;  // K (per head)
  int64_t top_k = 2;
  int64_t rank = 4;      // r
  double scale = 1.0;    // multiplies the experts' output (alpha / r, or 1)
  double balance = 0.0;  // coefficient of the "balance" aux term (0 = not pushed)
  // Router weights of the selected experts: true = softmax over the selected logits only
  // (eq. 13 of mh-moe-multi-head-routing.txt; under top-1 the weight is exactly 1 and the
  // router gets no gradient), false = softmax over all K, not renormalised ("softmax_all",
  // Switch-style: a top-1 router learns).
  bool renormalise = true;
  std::string stats_name;  // the bank's name in route statistics, e.g. "3.gate_proj"
  int64_t out_features() const { return out > 0 ? out : hidden; }
};

// Top-k routing over the last axis of `logits` (..., K).
struct Routing {
  torch::Tensor weights;   // (..., K) the selected experts' weights, 0 elsewhere (float32)
  torch::Tensor selected;  // (..., K) 1 for the top-k experts, 0 elsewhere (float32)
  torch::Tensor probs;     // (..., K) full softmax (float32), for the balancing loss
};
Routing top_k_routing(const torch::Tensor& logits, int64_t top_k, bool renormalise = true);

// Switch-style balancing loss K · Σ_i f_i P_i averaged over groups (heads).
// probs, selected (N, G, K); token_weights (N) float or undefined (all tokens count).
torch::Tensor balance_loss(const torch::Tensor& probs, const torch::Tensor& selected,
                           const torch::Tensor& token_weights, int64_t top_k);

// A bank of routed experts: a branch beside the MLP, or the bank inside a MoeLinear.
class MoeBankImpl : public BranchImpl, public RoutedExperts {
 public:
  explicit MoeBankImpl(const MoeOptions& o) : options(o) {}
  // x (..., d_in) → (..., d_out); pushes the balancing term and reports route statistics.
  virtual torch::Tensor run(const torch::Tensor& x, const ForwardState& state) = 0;
  torch::Tensor forward(const torch::Tensor& x, ForwardState& state) override {
    return run(x, state);
  }
  virtual void init_values(uint64_t seed) = 0;
  virtual int64_t num_parameters() const = 0;
  MoeOptions options;
};
using MoeBank = std::shared_ptr<MoeBankImpl>;

class LoraMoeImpl : public MoeBankImpl {
 public:
  LoraMoeImpl(const MoeOptions& options, const torch::TensorOptions& tensor_options);
  torch::Tensor run(const torch::Tensor& x, const ForwardState& state) override;
  std::string kind() const override;            // "LoRAMoE K=4 top2 r=4"
  Routing route(const torch::Tensor& x) const;  // x (..., d) → (..., K)
  void init_values(uint64_t seed) override;
  int64_t num_parameters() const override;  // K·r·(d_in + d_out) + d_in·K

  torch::Tensor router;  // (K, d_in)
  torch::Tensor lora_a;  // (K, r, d_in)
  torch::Tensor lora_b;  // (K, d_out, r)
};
using LoraMoe = std::shared_ptr<LoraMoeImpl>;

class MhMoeImpl : public MoeBankImpl {
 public:
  MhMoeImpl(const MoeOptions& options, const torch::TensorOptions& tensor_options);
  torch::Tensor run(const torch::Tensor& x, const ForwardState& state) override;
  std::string kind() const override;            // "MH-MoE H=4 K=4 top1 r=4"
  Routing route(const torch::Tensor& x) const;  // x (..., d) → (..., H, K)
  void init_values(uint64_t seed) override;
  int64_t num_parameters() const override;  // H·(K·r·(d_in/H + d_out) + (d_in/H)·K)

  torch::Tensor router;  // (H, K, d_in/H)
  torch::Tensor lora_a;  // (H, K, r, d_in/H)
  torch::Tensor lora_b;  // (H, K, d_out, r)
};
using MhMoe = std::shared_ptr<MhMoeImpl>;

// A linear of the MLP with a bank of routed experts beside it ("mlp-linears"):
// y = base(x) + bank(x). Registered names: base.* (the wrapped unit) and
// <bank_name>.{router,lora_a,lora_b}.
class MoeLinearImpl : public LinearUnitImpl {
 public:
  MoeLinearImpl(LinearUnit base, MoeBank bank, const std::string& bank_name);
  torch::Tensor forward(const torch::Tensor& x, const ForwardState& state) override;
  int64_t in_features() const override { return base->in_features(); }
  int64_t out_features() const override { return base->out_features(); }
  // The base linear's: routed experts have no merged form.
  torch::Tensor dense_weight() const override { return base->dense_weight(); }
  torch::Tensor dense_bias() const override { return base->dense_bias(); }
  std::string kind() const override;  // "LoRAMoE K=4 top1 r=4 beside dense 64→160"
  bool mergeable() const override { return false; }

  LinearUnit base;
  MoeBank bank;
  std::string bank_name;  // "moe_gate_proj", "moe_c_fc", ...
};

// The name a family gives the MLP linear `unit` (gate, up, down): gate_proj / up_proj /
// down_proj (Llama style), c_fc / c_proj (GPT-2), dense_h_to_4h / dense_4h_to_h (GPT-NeoX).
std::string family_linear_name(const ModelConfig& config, const std::string& unit);

}  // namespace gb::grow
