#pragma once
// The one place where differences between LibTorch versions live: Debian's 1.13 (CPU, the
// development machines and CI) and 2.x (CUDA, the GPU machines).

#include <ATen/ATen.h>
#include <torch/version.h>

#define GB_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||     \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace gb::compat {

// True when at::scaled_dot_product_attention (fused/flash kernels) is available.
constexpr bool kHasSdpa = GB_TORCH_AT_LEAST(2, 0);

// softmax(q·kᵀ · scale + mask) · v for q (B, H, Tq, D), k and v (B, H, Tk, D) with the same
// head count (GQA already expanded). `mask` is additive float (broadcastable to
// (B, H, Tq, Tk)) or undefined with `causal` set for a plain causal mask aligned to the end
// (query i sees keys up to Tk - Tq + i). `softcap` > 0 applies tanh capping to the scores
// (Gemma 2 style), which forces the unfused path. The softmax runs in float32.
// `fused_mask` applies the causal mask by direct loops (causal_mask_) instead of a boolean
// mask tensor and masked_fill_ (the same numbers).
at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                     const at::Tensor& mask, bool causal, double scale, double softcap,
                     bool fused_mask = true);

// scores (…, Tq, Tk) with −∞ written where key j lies after query i's horizon,
// j ≥ i + Tk − Tq + 1, in place, as scores.masked_fill_(ones(Tq, Tk).triu(Tk − Tq + 1), −∞)
// does, and a backward that zeroes those entries of the gradient (MaskedFillBackward0's
// numbers); contiguous float32 CPU tensors (causal_mask_fusable), else the ops. No arithmetic, so
// the same numbers on any split over threads.
bool causal_mask_fusable(const at::Tensor& scores);
at::Tensor causal_mask_(at::Tensor& scores);

// Peak device memory in bytes since the last reset (CUDA), or the process's peak RSS (CPU).
// -1 for a CUDA device when this LibTorch has no allocator statistics (1.x, or no CUDA).
int64_t peak_memory_bytes(const at::Device& device);
void reset_peak_memory(const at::Device& device);
bool cuda_available();
std::string torch_version();

}  // namespace gb::compat
