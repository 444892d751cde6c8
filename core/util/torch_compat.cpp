#include "util/torch_compat.h"

#include <cmath>
#include <fstream>
#include <limits>
#include <string>

#include <sys/resource.h>

#include <torch/autograd.h>
#include <torch/cuda.h>

// CUDA memory statistics need LibTorch 2.x built with CUDA (CMake sets GB_TORCH_CUDA when
// Torch's CUDA libraries are found). A CPU-only LibTorch 2.x (Debian trixie's libtorch-dev)
// still ships c10/cuda headers, but they include the CUDA runtime's, which it lacks.
#if GB_TORCH_AT_LEAST(2, 0) && defined(GB_TORCH_CUDA) && __has_include(<cuda_runtime_api.h>)
#define GB_CUDA_MEMORY_STATS 1
#include <c10/cuda/CUDACachingAllocator.h>
#else
#define GB_CUDA_MEMORY_STATS 0
#endif

namespace gb::compat {

bool causal_mask_fusable(const at::Tensor& scores) {
  return scores.defined() && scores.device().is_cpu() && scores.scalar_type() == at::kFloat &&
         scores.dim() >= 2 && scores.numel() > 0 && scores.is_contiguous();
}

namespace {

// Fills entries j ≥ i + offset of each (Tq, Tk) matrix of the contiguous t with `value`.
void fill_above_horizon(at::Tensor& t, int64_t offset, float value) {
  const int64_t tq = t.size(-2), tk = t.size(-1);
  const int64_t matrices = t.numel() / (tq * tk);
  float* base = t.data_ptr<float>();
  const int64_t grain = std::max<int64_t>(1, 32768 / (tq * tk));
  at::parallel_for(0, matrices, grain, [&](int64_t begin, int64_t end) {
    for (int64_t m = begin; m < end; ++m) {
      for (int64_t i = 0; i < tq; ++i) {
        float* row = base + (m * tq + i) * tk;
        for (int64_t j = std::max<int64_t>(0, i + offset); j < tk; ++j) row[j] = value;
      }
    }
  });
}

// The ops' mask: true above each query's horizon, j ≥ i + Tk − Tq + 1.
at::Tensor causal_bool_mask(int64_t tq, int64_t tk, const at::TensorOptions& options) {
  return at::ones({tq, tk}, options.dtype(at::kBool)).triu(tk - tq + 1);
}

struct CausalMaskFunction : public torch::autograd::Function<CausalMaskFunction> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, at::Tensor scores) {
    const int64_t offset = scores.size(-1) - scores.size(-2) + 1;
    fill_above_horizon(scores, offset, -std::numeric_limits<float>::infinity());
    ctx->mark_dirty({scores});
    ctx->saved_data["offset"] = offset;
    return scores;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const int64_t offset = ctx->saved_data["offset"].toInt();
    const at::Tensor& g = grads[0];
    at::Tensor dx;
    if (torch::GradMode::is_enabled() || !causal_mask_fusable(g)) {
      dx = g.masked_fill(causal_bool_mask(g.size(-2), g.size(-1), g.options()), 0.0);
    } else {
      dx = g.clone();
      fill_above_horizon(dx, offset, 0.0f);
    }
    return {dx};
  }
};

}  // namespace

at::Tensor causal_mask_(at::Tensor& scores) {
  TORCH_CHECK(causal_mask_fusable(scores), "causal_mask_: needs float32 CPU scores");
  return CausalMaskFunction::apply(scores);
}

at::Tensor attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                     const at::Tensor& mask, bool causal, double scale, double softcap,
                     bool fused_mask) {
#if GB_TORCH_AT_LEAST(2, 1)
  if (softcap <= 0 && q.is_cuda()) {
    if (mask.defined()) {
      return at::scaled_dot_product_attention(q, k, v, mask.to(q.scalar_type()), 0.0, false, scale);
    }
    // is_causal in SDPA aligns to the start; only use it when Tq == Tk.
    if (!causal || q.size(2) == k.size(2)) {
      return at::scaled_dot_product_attention(q, k, v, {}, 0.0, causal, scale);
    }
  }
#endif
  at::Tensor scores = at::matmul(q, k.transpose(-2, -1));
  if (scale != 1.0) scores = scores * scale;  // 1: already folded into q (modules.cpp)
  if (softcap > 0) scores = at::tanh(scores / softcap) * softcap;
  if (mask.defined()) {
    scores = scores + mask.to(scores.scalar_type());
  } else if (causal) {
    // In place: scores is this function's own (a product's or a multiplication's result,
    // which their backward passes do not keep).
    if (fused_mask && causal_mask_fusable(scores)) {
      scores = causal_mask_(scores);
    } else {
      scores.masked_fill_(causal_bool_mask(q.size(2), k.size(2), q.options()),
                          -std::numeric_limits<float>::infinity());
    }
  }
  at::Tensor probs = at::softmax(scores, -1, at::kFloat).to(q.scalar_type());
  return at::matmul(probs, v);
}

bool cuda_available() {
  return torch::cuda::is_available();
}

int64_t peak_memory_bytes(const at::Device& device) {
#if GB_CUDA_MEMORY_STATS
  if (device.is_cuda()) {
    auto stats =
        c10::cuda::CUDACachingAllocator::getDeviceStats(device.index() < 0 ? 0 : device.index());
    return stats.allocated_bytes[0].peak;
  }
#else
  if (device.is_cuda()) {
    return -1;  // no CUDA allocator statistics in this LibTorch: unknown, not host RSS
  }
#endif
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<int64_t>(ru.ru_maxrss) * 1024;
}

void reset_peak_memory(const at::Device& device) {
#if GB_CUDA_MEMORY_STATS
  if (device.is_cuda()) {
    c10::cuda::CUDACachingAllocator::resetPeakStats(device.index() < 0 ? 0 : device.index());
  }
#endif
}

std::string torch_version() {
  return TORCH_VERSION;
}

}  // namespace gb::compat
