#pragma once
// Cross-entropy of a linear LM head over chunks of tokens: the loss of logits = cap(h Wᵀ)
// without materialising more than one chunk of the (tokens × vocabulary) logits or of their
// gradient. Where a backward pass can follow (grad mode on, h or W requiring a gradient), the
// forward pass forms each chunk's g = softmax − onehot from the logits it has just computed and
// sums g·W into dh and gᵀ·h into dW (only where W takes a gradient); the backward pass only
// scales them by the incoming gradient. The logits are thus computed once a step, as in the
// plain path, not again in the backward pass. For large vocabularies (the 151 936 of Qwen3) the
// plain path's logits, log-softmax and their gradients are several GiB at batch 4 × 256;
// chunked they are one chunk's. One backward pass per forward pass (no retain_graph) and no
// second derivatives (create_graph): both are refused with an error. A loss computed with grad
// mode on whose backward pass never follows has done the gradients' work for nothing (and
// holds dh, and a trainable head's float32 dW, until it is freed).

#include <cstdint>
#include <optional>

#include <torch/types.h>

namespace gb {
class CausalLMImpl;
struct ForwardOptions;
}  // namespace gb

namespace gb::train {

// Sum over the targets (labels != -100) of −log softmax(cap(h Wᵀ))[label], computed
// `chunk` rows at a time. h (N, d), weight (V, d), labels (N) int64; cap(z) = tanh(z/c)·c
// when `softcap` is given. The logits are computed in h's dtype and the softmax in float32,
// as the plain path (trainer.h lm_loss) does; the result is a float32 scalar. A frozen head
// stored narrower than h (model/frozen_dtype.h) is converted a block of rows at a time. Equal to
// the plain path's summed cross-entropy up to float32 rounding (not bit for bit: the sums run in
// another order). The gradients are formed in float32 and converted to h's and W's dtypes last
// (a narrower h's plain path rounds them at the logits already).
torch::Tensor chunked_cross_entropy_sum(const torch::Tensor& h, const torch::Tensor& weight,
                                        const torch::Tensor& labels, int64_t chunk,
                                        std::optional<double> softcap = std::nullopt);

// Spec train.ce_chunk: kCeChunkAuto chunks only where one micro-batch's full logits would
// exceed kCeChunkAutoLogitBytes (float32), with chunks of about kCeChunkAutoChunkBytes of
// logits; 0 never chunks; N > 0 chunks N tokens at a time whenever the head allows it.
constexpr int64_t kCeChunkAuto = -1;
constexpr int64_t kCeChunkAutoLogitBytes = 256LL << 20;
constexpr int64_t kCeChunkAutoChunkBytes = 64LL << 20;
// Tokens per chunk for `tokens` target positions (rows × length) and a vocabulary of
// `vocab`, for the option value `ce_chunk`; 0 = the plain (unchunked) path.
int64_t ce_chunk_tokens(int64_t ce_chunk, int64_t tokens, int64_t vocab);

// The head's (V, d) matrix and softcap where the logits are cap(h Wᵀ) of the final hidden
// states: a plain or tied head and no forward override (SCALE Route); else no weight (the
// loss then needs the model's own forward pass, and is never chunked).
struct HeadMatrix {
  torch::Tensor weight;
  std::optional<double> softcap;
};
HeadMatrix head_matrix(const CausalLMImpl& model);

// Σ next-token NLL over the targets (labels != -100) of `model` on `ids` (B, T): the model's
// forward pass and the summed float32 cross-entropy of its logits, or, where `ce_chunk`
// (kCeChunkAuto, 0 or N, as train.ce_chunk) chunks for this many targets and the head is a
// matrix, hidden_states and chunked_cross_entropy_sum. A float32 scalar, with its graph where
// grad mode is on. The probes' loss (importance/): a large vocabulary's whole logits never
// exist at once, and a small one's numbers are those of the plain path, bit for bit.
torch::Tensor summed_lm_nll(CausalLMImpl& model, const torch::Tensor& ids,
                            const torch::Tensor& labels, const ForwardOptions& options,
                            int64_t ce_chunk = kCeChunkAuto);
// The same from the hidden states after the last decoder layer (before the final norm), for
// probes that run the layers themselves (the masking probe). Never with a forward override.
torch::Tensor summed_lm_nll_from_layers(CausalLMImpl& model, const torch::Tensor& h,
                                        const torch::Tensor& labels,
                                        int64_t ce_chunk = kCeChunkAuto);

}  // namespace gb::train
