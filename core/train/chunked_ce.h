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

}  // namespace gb::train
