#pragma once
// LoRAMoE and MH-MoE branches, after ../shared/papers/mh-moe-multi-head-routing.txt ("the
// paper": section 3, equations 12-17, algorithm 1, appendix A.3.2) and DESIGN.md.
//
// One branch per selected layer, registered as "moe" (model.layers.3.moe.{router,lora_a,
// lora_b}: GrowBench checkpoint names, keep them stable). Like the adapters (adapters.h,
// which also explains where DecoderLayerImpl places a branch for each family) the branch
// reads the MLP's normalised input x and its output is added to the residual stream in
// parallel to the MLP. The paper's router input is "the post-attention hidden state"; in
// GrowBench that is the MLP's normalised input (for GPT-NeoX's parallel residual, a norm of
// the layer input, which is what NeoX's MLP reads). The paper attaches experts to the MLP's
// linear modules (A.3.4); GrowBench uses one bank d → r → d in parallel to the whole MLP, as
// DESIGN.md specifies.
//
// LoRAMoE (heads = 1), for a token x ∈ ℝ^d:
//   a = W_rt x ∈ ℝ^K                      router (K, d), no bias (eq. 13)
//   S = TopK(a, k);  α_j = exp(a_j) / Σ_{q∈S} exp(a_q) for j ∈ S, 0 otherwise
//       (softmax over the selected logits only, eq. 13 and algorithm 1)
//   y = scale · Σ_{j∈S} α_j B_j A_j x       A (K, r, d), B (K, d, r), scale = alpha/r or 1
// MH-MoE (heads = H, H | d): x = [x_1 ‖ … ‖ x_H], x_m ∈ ℝ^{d/H} (eq. 12); every head has its
// own router W_rt^(m) (K, d/H) and its own bank of K experts A^(m) (K, r, d/H), B^(m)
// (K, d, r) mapping d/H → r → d (eq. 14); routing per head as above (eq. 13, 15) and
// y = Σ_m y_m (eq. 16). With H = 1 it is LoRAMoE exactly (a test checks this).
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
// heads (so its scale does not grow with H). Pushed as AuxTerm "balance" into
// ForwardState::aux on every batch.
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

#include "model/modules.h"

namespace gb::grow {

inline constexpr const char* kMoeBranch = "moe";

struct MoeOptions {
  int64_t hidden = 0;   // d
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

class LoraMoeImpl : public BranchImpl {
 public:
  LoraMoeImpl(const MoeOptions& options, const torch::TensorOptions& tensor_options);
  torch::Tensor forward(const torch::Tensor& x_normed, ForwardState& state) override;
  std::string kind() const override;            // "LoRAMoE K=4 top2 r=4"
  Routing route(const torch::Tensor& x) const;  // x (..., d) → (..., K)
  void init_values(uint64_t seed);
  int64_t num_parameters() const;  // K·r·2d + d·K

  MoeOptions options;
  torch::Tensor router;  // (K, d)
  torch::Tensor lora_a;  // (K, r, d)
  torch::Tensor lora_b;  // (K, d, r)
};
using LoraMoe = std::shared_ptr<LoraMoeImpl>;

class MhMoeImpl : public BranchImpl {
 public:
  MhMoeImpl(const MoeOptions& options, const torch::TensorOptions& tensor_options);
  torch::Tensor forward(const torch::Tensor& x_normed, ForwardState& state) override;
  std::string kind() const override;            // "MH-MoE H=4 K=4 top1 r=4"
  Routing route(const torch::Tensor& x) const;  // x (..., d) → (..., H, K)
  void init_values(uint64_t seed);
  int64_t num_parameters() const;  // H·(K·r·(d/H + d) + (d/H)·K)

  MoeOptions options;
  torch::Tensor router;  // (H, K, d/H)
  torch::Tensor lora_a;  // (H, K, r, d/H)
  torch::Tensor lora_b;  // (H, K, d, r)
};
using MhMoe = std::shared_ptr<MhMoeImpl>;

}  // namespace gb::grow
