#pragma once
// SCALE: width upscaling of every linear unit (Lee et al., "SCALE: Upscaled Continual
// Learning of Large Language Models", ../shared/papers/scale-upscaled-continual-learning.txt).
//
// Hidden d → d + d_up, MLP p → p + p_up, d_up / d_h new attention heads of the same head
// dim (with GQA, d_up / (d_h·H/H_kv) new kv heads; new q head j uses new kv head
// j / (H/H_kv), the repeat-interleave rule of the base). Every linear W (out, in) becomes
//
//     [ W    W12 ] [ x    ]      W12 (out, in_up):    new inputs → original outputs
//     [ W21  W22 ] [ x_up ]      W21 (out_up, in):    original inputs → new outputs
//                                W22 (out_up, in_up): new inputs → new outputs
//
// (paper eq. 1). Per unit: q, k, v: in_up = d_up, out_up = new heads·d_h; o: in_up = new q
// heads·d_h = d_up, out_up = d_up; gate, up: in_up = d_up, out_up = p_up; down: in_up = p_up,
// out_up = d_up. The embedding E (V, d) gains E_up (V, d_up), GPT-2's learned positions
// P (T_max, d) gain P_up (T_max, d_up), the head gains W_out_up (V, d_up): logits
// Z = W_out·X + W_out_up·X_up (paper §3.1). Every norm is split: the original part and
// the new part are normalised separately, with separate statistics and weights; per-head
// q/k norms keep the original weight for the original heads and get their own weight for
// the new heads. Without the split, the statistics of a norm over d + d_up would change the
// original stream.
//
// Exactness. With W12 = 0 in every layer the original stream is bit-for-bit the base
// model's (the paper's Theorem 3.1, here in floating point too), because every value of
// the original part is computed by exactly the base's operations on equal inputs:
//   - a linear unit computes F::linear(x_o, W, b) on x_o = x[..., :in].contiguous(), the
//     same call on a contiguous input of the same shape and values as the base's; W12·x_up
//     is added only where a W12 block exists (it collaborates) and is not masked;
//   - a split norm runs the base's NormImpl::forward on x[..., :d].contiguous();
//   - attention runs the original heads through their own attention call
//     (AttentionImpl::split_heads / split_kv_heads), never mixed with new heads;
//   - the MLP activation of the original units runs on their own tensor of the base's shape
//     (MLPImpl::split_inner): vectorised and scalar kernels of exp/tanh/erf round
//     differently and multi-threaded chunking depends on the shape, so an activation over
//     p + p_up would differ from the base's in the last bit when run on several threads;
//   - residual additions, the gate product, RoPE and Gemma's sqrt(d) scale are single
//     IEEE additions or multiplications per element, the same in every kernel, so the
//     original slice of their result equals the base's result;
//   - the head adds W_out_up·X_up, exactly zero at initialisation, and x + 0 = x.
// A frozen zero W12 block is not stored at all (it would cost memory and compute and
// contribute exactly nothing): W12 exists only where it trains (dense_weight() reports
// zeros there).
//
// Variants (ScaleParams in grow/plan.h):
//   preserve  W12 nowhere; every original tensor frozen. Trainable: W21, W22, new biases,
//             new norm weights (and biases), E_up (P_up), W_out_up.
//   adapt     as preserve plus W12 (zero-initialised, trainable) in every linear unit of
//             the layers l >= l_fp ("collaboration above L_fp": the lowest l_fp layers keep
//             W12 frozen at zero); with attention_only, W12 only in q, k, v and o.
//   route     adapt's parameters (W12 above l_fp, attention_only as adapt) and a routed
//             forward pass (paper eq. 5): per token, the original-part logits with W12
//             active, Z_a, and with every W12 masked to zero (ForwardState::mask_w12), Z_p;
//             if cos(Z_p, Z_a) > tau the logits are (Z_p + Z_a)/2 + Z_up,p, otherwise
//             Z_a + Z_up,a. The cosine (over the vocabulary, of the logits before any final
//             softcap) and the decision are computed without gradient (the paper's
//             stop-gradient router, its Assumption D.3); the softcap applies to the routed
//             logits. Layers below the lowest W12 compute identically in both passes and run
//             once; with a KV cache the preserve pass keeps its entries in the same cache.
//             hidden_states() (representation drift) reports the adapt pass; forward with
//             ForwardOptions::mask_w12 returns the preserve path alone, Z_p + Z_up,p.
//             At initialisation (W12 = 0) Z_a = Z_p, so the routed logits are
//             (Z + Z)/2 + 0 = Z: exactly the base model's. The paper trains W12 only in the
//             last layer for its biography task: l_fp = L - 1.
//
// Initialisation ("init": "W21,W22"; the paper's pairs are zero,random / random,zero /
// zero,svd / svd,zero; default svd,zero, its best pair, §3.2):
//   zero    all zeros.
//   random  He initialisation (He et al. 2015, as the paper cites): normal(0, 2 / fan_in)
//           with fan_in the input width of the block itself (in for W21, in_up for W22;
//           every paper pair has exactly one non-zero block, so that is the output's fan-in).
//   svd     from the singular value decomposition of the original W (out, in) = U S Vᵀ,
//           r = min(out, in), singular values descending, computed in float32 on W's device
//           with torch::linalg_svd; each direction's sign is fixed so that the entry of
//           largest magnitude of v_i is positive. "Dimension-reduced SVD of W", as in LESA:
//           W21 (out_up, in): row i = S_i · v_iᵀ for i < min(out_up, r), i.e. the top rows
//             of S·Vᵀ (= U_topᵀ W: the new outputs start as W's outputs projected on its
//             top left-singular directions). Rows i >= r (out_up exceeds the rank) have no
//             direction left and are drawn as "random" (He), so that no two new units start
//             identical (duplicated directions would never separate).
//           W22 (out_up, in_up): the rectangular diagonal diag(S_0, ..., S_{m-1}) with
//             m = min(out_up, in_up, r), zeros elsewhere: W restricted to its top singular
//             subspace, in the coordinates of that subspace (input coordinate j read as
//             v_jᵀx, output coordinate i as u_iᵀy).
// Other parts: W12 zero (trainable only where it collaborates); new biases zero; new norm
// parts as a freshly initialised norm (weight 1, or 0 for Gemma's (1 + w) norms; bias 0);
// W_out_up zero (so logits are unchanged); E_up (and GPT-2's P_up) normal(0, σ²) with σ
// the standard deviation of the entries of E (P), so that the new stream starts with
// embeddings of the original's scale. Gemma multiplies the whole embedding vector by the
// base's sqrt(d) (CausalLMImpl::embed, base hidden size d, rounded to the activation dtype
// as transformers does): the original part is scaled exactly as in the base, and the new
// part by the same factor (E_up is drawn at E's scale, so both parts enter the network at
// the same scale; a separate sqrt(d + d_up) or sqrt(d_up) would make the parts unequal).
// Every random tensor comes from its own generator seeded by ApplyContext::seed and the
// tensor's registered name, so a plan is deterministic given the seed. structure_only
// creates every tensor with its shape (zeros) and skips SVDs, statistics and draws.
//
// Checkpoints: SCALE is not expressible as a plain Hugging Face checkpoint (is_hf_expressible
// says why); it is saved as a GrowBench checkpoint. Registered names are stable: original
// tensors keep their names (model.layers.0.self_attn.q_proj.weight, ...bias,
// model.embed_tokens.weight, lm_head.weight, model.norm.weight), the new parts are
// <unit>.w12, <unit>.w21, <unit>.w22, <unit>.bias_up, <norm>.weight_up, <norm>.bias_up,
// model.embed_tokens.weight_up, model.embed_positions.weight_up, lm_head.weight_up (also
// with tied embeddings, where lm_head owns only weight_up).
//
// GPT-2: apply_scale supports it exactly (learned positions gain P_up like the embedding),
// but validate_plan still refuses SCALE on GPT-2; removing that check enables it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <torch/nn/module.h>

#include "model/modules.h"

namespace gb::grow {

// A linear unit widened by SCALE. The original weight and bias are the base unit's tensors
// (shared, not copied). Blocks of zero size (p_up = 0) are not created.
class ScaleLinearImpl : public LinearUnitImpl {
 public:
  // weight (out, in), bias (out) or undefined; new blocks start at zero.
  ScaleLinearImpl(torch::Tensor weight, torch::Tensor bias, int64_t in_up, int64_t out_up,
                  bool with_w12);
  // x (..., in + in_up) → (..., out + out_up)
  torch::Tensor forward(const torch::Tensor& x, const ForwardState& state) override;
  int64_t in_features() const override { return m_in + m_in_up; }
  int64_t out_features() const override { return m_out + m_out_up; }
  torch::Tensor dense_weight() const override;  // [[W, W12], [W21, W22]] (W12 = 0 if absent)
  torch::Tensor dense_bias() const override;    // [b, b_up] or undefined
  std::string kind() const override;

  int64_t in_original() const { return m_in; }
  int64_t out_original() const { return m_out; }
  int64_t in_up() const { return m_in_up; }
  int64_t out_up() const { return m_out_up; }
  bool has_w12() const { return w12.defined(); }

  torch::Tensor weight;   // (out, in) original W, frozen
  torch::Tensor bias;     // (out) original bias or undefined, frozen
  torch::Tensor w12;      // (out, in_up) or undefined (no collaboration in this unit)
  torch::Tensor w21;      // (out_up, in) or undefined when out_up = 0
  torch::Tensor w22;      // (out_up, in_up) or undefined when out_up or in_up = 0
  torch::Tensor bias_up;  // (out_up) when the original has a bias

 private:
  int64_t m_in, m_out, m_in_up, m_out_up;
};

// A norm over d + d_up normalising x[..., :d] with the original norm and x[..., d:] with a
// new one (separate statistics and weights). `original` and `added` are NormImpl modules
// whose tensors are registered here (weight, bias; weight_up, bias_up), not as children.
class SplitNormImpl : public NormUnitImpl {
 public:
  SplitNormImpl(std::shared_ptr<NormImpl> original, int64_t features_up);
  torch::Tensor forward(const torch::Tensor& x) override;  // (..., d + d_up)
  int64_t features() const override;
  std::string kind() const override;

  std::shared_ptr<NormImpl> original;  // over d: the base unit's tensors
  std::shared_ptr<NormImpl> added;     // over d_up: new weights
};

// A per-head norm (q_norm, k_norm) over x (B, T, heads, d_h): the first `heads` heads use
// the original weight, the new heads their own (weight_up, bias_up).
class SplitHeadNormImpl : public NormUnitImpl {
 public:
  SplitHeadNormImpl(std::shared_ptr<NormImpl> original, int64_t original_heads);
  torch::Tensor forward(const torch::Tensor& x) override;
  int64_t features() const override { return original->features(); }
  std::string kind() const override;

  std::shared_ptr<NormImpl> original;  // the base unit's tensors, (d_h)
  std::shared_ptr<NormImpl> added;     // the new heads' weights, (d_h)
  int64_t original_heads;
};

// The token embedding with E_up: ids → [E[ids], E_up[ids]] (B, T, d + d_up).
class ScaleEmbeddingImpl : public EmbeddingUnitImpl {
 public:
  ScaleEmbeddingImpl(torch::Tensor weight, int64_t dim_up);
  torch::Tensor forward(const torch::Tensor& ids) override;
  int64_t num_embeddings() const override { return weight.size(0); }
  int64_t dim() const override { return weight.size(1) + weight_up.size(1); }
  torch::Tensor tied_weight() const override { return weight; }  // (V, d): the original part

  torch::Tensor weight;     // (V, d) original E, frozen
  torch::Tensor weight_up;  // (V, d_up)
};

// GPT-2's learned positions with P_up. It derives from EmbeddingImpl because the backbone
// holds its positions as one; `weight` is the original P (sharing its storage).
class ScalePositionsImpl : public EmbeddingImpl {
 public:
  ScalePositionsImpl(const torch::Tensor& weight, int64_t dim_up);
  torch::Tensor forward(const torch::Tensor& positions) override;  // → (T, d + d_up)
  int64_t dim() const override { return weight.size(1) + weight_up.size(1); }

  torch::Tensor weight_up;  // (T_max, d_up)
};

// The LM head with W_out_up: logits = cap(W_out·h[..., :d] + W_out_up·h[..., d:]). W_out is
// its own (untied) weight or, with tied embeddings, the embedding's original part.
class ScaleHeadImpl : public HeadUnitImpl {
 public:
  ScaleHeadImpl(torch::Tensor weight, std::shared_ptr<EmbeddingUnitImpl> tied, int64_t dim_up,
                std::optional<double> softcap);
  torch::Tensor forward(const torch::Tensor& h) override;  // (B, T, d + d_up) → (B, T, V)
  std::string kind() const override;

  struct Parts {
    torch::Tensor original;  // (B, T, V) W_out·X, before the softcap
    torch::Tensor added;     // (B, T, V) W_out_up·X_up
  };
  Parts parts(const torch::Tensor& h) const;
  torch::Tensor cap(const torch::Tensor& logits) const;  // the base's final softcap, if any
  torch::Tensor original_weight() const;                 // (V, d)
  int64_t dim_original() const { return original_weight().size(1); }

  torch::Tensor weight;     // (V, d) untied W_out, frozen; undefined when tied
  torch::Tensor weight_up;  // (V, d_up), zero at initialisation
  std::weak_ptr<EmbeddingUnitImpl> tied;
  std::optional<double> softcap;
  // Evaluation of the frozen logits alone (FrozenHeadLogits): parts().added is zero, so the
  // logits are cap(W_out·X) (Route: its two passes' original parts, routed as usual).
  bool mask_added = false;
};

// Whether `model` is upscaled by SCALE (its head is a ScaleHeadImpl).
bool is_upscaled(const CausalLMImpl& model);

// While alive, an upscaled model computes its logits from the frozen head term W_out·X alone
// (the new term W_out_up·X_up masked to zero): SCALE's "Task 0 from the original logits".
// Does nothing for other models (active() is false). Restores the head on destruction.
class FrozenHeadLogits {
 public:
  explicit FrozenHeadLogits(CausalLMImpl& model);
  ~FrozenHeadLogits();
  FrozenHeadLogits(const FrozenHeadLogits&) = delete;
  FrozenHeadLogits& operator=(const FrozenHeadLogits&) = delete;
  bool active() const { return m_head != nullptr; }

 private:
  std::shared_ptr<ScaleHeadImpl> m_head;
  bool m_previous = false;
};

}  // namespace gb::grow
