#pragma once
// Neutral residues (gated parallel adapters) and vanilla parallel adapters, after
// ../shared/papers/neutral-residues-adapters.txt ("the paper" below; section 3, 4.4, tables 6-7).
//
// One adapter block per selected layer, registered as the branch "adapter" of that layer
// (model.layers.3.adapter.{gate_proj,up_proj,down_proj,block_gate}.weight: these names are
// the GrowBench checkpoint format, keep them stable):
//
//   a(x) = W_down (SiLU(W_g x) ⊙ W_up x)              W_g, W_up (m, d); W_down (d, m)
//   y(x) = s(x) · a(x)                                  s(x) per token, w_s (1, d)
//     "elu"     s(x) = ELU(w_sᵀ x)      implicit selector ("neutral residues" proper)
//     "sigmoid" s(x) = sigmoid(w_sᵀ x)  explicit selector, a per-block domain classifier
//     "none"    s(x) = 1                 vanilla parallel adapter (the paper's baseline)
//
// No biases anywhere (the paper's backbones have none; the block is defined bias-free), and
// SiLU even on families whose own MLP uses GELU: the paper's block is the gated-SiLU FFN.
//
// Placement. The paper (Figure 2, section 3) adds the adapter "in parallel to the FFN": it
// reads the FFN's input and its output is added to the residual next to the FFN's.
// DecoderLayerImpl::forward gives a branch the MLP's normalised input and adds its output
// to the residual stream:
//   - Pre-norm layers (Llama, Qwen 2/3, Gemma, GPT-2): h1 + mlp(x2) + y(x2), with
//       h1 = h + attn(in_norm(h)) and x2 = post_attn_norm(h1): exactly the paper's placement.
//   - Gemma 3 (sandwich norms): h1 + post_ffn_norm(mlp(x2)) + y(x2), x2 = pre_ffn_norm(h1):
//       the branch shares the MLP's input but its output is not passed through the
//       post-FFN norm (it sits in parallel to "MLP + post norm"). This keeps a zero adapter
//       output exactly neutral; the paper's Gemma-2B has no sandwich norms, so it is silent.
//   - GPT-NeoX (parallel residual): h + attn(ln1(h)) + mlp(ln2(h)) + y(ln2(h)): parallel to
//       the MLP as in the paper, but the MLP's (and so the adapter's) input is a norm of the
//       layer input h, not of the post-attention state, because that is how NeoX feeds its
//       MLP.
//
// Initialisation (paper, "Near-to-identity initialization"): W_down = 0, so y = 0 and the
// grown model equals the base at step 0. The paper replaces He's variance 2/d for "both the
// input and gating matrix" by 1/(d·L), d the input dimension of the matrix and L the number
// of transformer layers of the model (not the number of selected layers). "Input matrix" is
// W_up and "gating matrix" is W_g (section 3 calls W_g "the gating weights" and figure 3
// analyses its singular values, so it is a matrix, not w_s). The paper gives no
// initialisation for the block gate w_s; DESIGN.md draws it with 1/(d·L) as well, which we
// follow. Vanilla adapters (paper §4.1: "vanilla adapters as Houlsby et al. with
// near-identical initialization", and table 6, whose ungated row without the new init is
// the baseline of table 4) keep He's variance 2/d for W_g and W_up, with W_down = 0; the
// paper notes the low-variance init is detrimental without gating.
//
// Local losses, pushed into ForwardState::aux (when non-null) for the trainer to add as
// coefficient · value:
//   "local_l1"  value = mean |s(x)·a(x)| over the tokens (and d) of the batch, coefficient
//               α ("alpha", 100 in the paper, table 7). The paper applies the ℓ1 "on the
//               output of the adapter", i.e. on the gated output y = s·a (not on the gate
//               alone), and "only ... when feeding the extended model with data of the
//               original distribution": pushed only when ForwardState::original_domain is
//               set (batch-level, as the paper mixes whole batches with probability p).
//               A batch mixed per row (replay_mode "rows", ForwardState::original_rows
//               defined) gets the mean over the tokens of its original-domain rows only,
//               pushed even when there are none (value 0), marked original_rows_only.
//               Pushed for both gates (table 6: the best sigmoid configuration uses ℓ1 and
//               the classifier loss together); α = 0 switches it off; vanilla adapters have
//               α = 0 (the plan has no "alpha" for them).
//   "gate_bce"  sigmoid gate only: binary cross-entropy of the per-token gate probability
//               sigmoid(w_sᵀ x) against the domain label, mean over tokens, pushed on every
//               batch. Label convention: 1 = new domain (the adapter should open), 0 = original
//               domain, one label per batch row (ForwardState::domain_labels, (B) float),
//               broadcast over the row's tokens (so a batch mixed per row gets each row's
//               own label). Without labels, the whole batch gets 0 when
//               ForwardState::original_domain is set and 1 otherwise. The paper gives no
//               weight for this classifier loss (and does not say it shares α), so its
//               coefficient is 1 (AdapterOptions::bce_coefficient).
// Padded positions (ForwardState::key_padding false) are left out of both means.
//
// Size: inner size m from "inner", or else from the extra-parameter budget (fraction of the
// base model's parameters; the paper's default 20 %), spread evenly over the selected
// layers: per layer P = 3·d·m (+ d for the gate vector w_s when gated), and m is the largest
// size whose total over the selected layers stays within budget · base parameters:
//   m = floor((budget · N_base / n_layers − g) / (3·d)),  g = d (gated) or 0 (vanilla).

#include <cstdint>
#include <memory>
#include <string>

#include <torch/nn/module.h>

#include "model/modules.h"

namespace gb::grow {

inline constexpr const char* kAdapterBranch = "adapter";

enum class AdapterGate { None, Elu, Sigmoid };
AdapterGate parse_adapter_gate(const std::string& gate);  // "none", "elu", "sigmoid"
const char* adapter_gate_name(AdapterGate gate);

struct AdapterOptions {
  int64_t hidden = 0;  // d
  int64_t inner = 0;   // m
  AdapterGate gate = AdapterGate::Elu;
  double l1_alpha = 100.0;       // coefficient of "local_l1" (0 = not pushed)
  double bce_coefficient = 1.0;  // coefficient of "gate_bce" (sigmoid gate only)
};

class GatedAdapterImpl : public BranchImpl {
 public:
  // Parameters are created with `tensor_options` and zero values; init_values draws them.
  GatedAdapterImpl(const AdapterOptions& options, const torch::TensorOptions& tensor_options);
  // x_normed (B, T, d) → y (B, T, d); pushes the local loss terms into state.aux.
  torch::Tensor forward(const torch::Tensor& x_normed, ForwardState& state) override;
  // "NeutralResidue(elu) 96", "NeutralResidue(sigmoid) 96", "Adapter 96".
  std::string kind() const override;
  // Draws the initial values (see the header comment): W_down = 0; W_g, W_up (and w_s)
  // normal with variance 1/(d·L) when gated, 2/d (He) for the vanilla adapter.
  void init_values(int64_t num_model_layers, uint64_t seed);
  int64_t num_parameters() const;

  AdapterOptions options;
  std::shared_ptr<DenseLinearImpl> gate_proj;   // W_g (m, d)
  std::shared_ptr<DenseLinearImpl> up_proj;     // W_up (m, d)
  std::shared_ptr<DenseLinearImpl> down_proj;   // W_down (d, m)
  std::shared_ptr<DenseLinearImpl> block_gate;  // w_s (1, d); null for AdapterGate::None
};
using GatedAdapter = std::shared_ptr<GatedAdapterImpl>;

// Trainable parameters of one adapter block: 3·d·m (+ d when gated).
int64_t adapter_params_per_layer(int64_t hidden, int64_t inner, bool gated);
// The inner size the budget rule gives (see the header comment); throws when the budget
// does not pay for a single inner unit per layer.
int64_t adapter_inner_size(int64_t base_params, double budget, int64_t num_layers, int64_t hidden,
                           bool gated);

// A per-tensor seed derived from the plan's seed, the layer and a slot number
// (deterministic, independent of the global torch generator). Shared with moe.cpp.
uint64_t branch_seed(uint64_t seed, int64_t layer, int64_t slot);

// Float weights (B, T) of the tokens a branch's local losses average over: 1 for valid
// positions, 0 for padding (ForwardState::key_padding, whose last T columns are this call's
// positions); undefined when the batch has no padding. Shared with moe.cpp.
torch::Tensor branch_token_weights(const ForwardState& state, int64_t batch, int64_t length,
                                   const torch::Device& device);

}  // namespace gb::grow
