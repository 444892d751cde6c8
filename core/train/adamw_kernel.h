#pragma once
// AdamW's update of one float32 tensor in a single pass over its memory (parameter, gradient
// and both moments read once, written once), with exactly the float operations of the
// per-tensor LibTorch ops it replaces (optimizer.cpp): the optional gradient scale
// (clip_grad_norm_'s mul_), the decoupled decay (mul_), m.lerp_(g, 1 − β1),
// v.mul_(β2).addcmul_(g, g, 1 − β2), (v.sqrt() / √bc2).add_(ε) and p.addcdiv_(m, d, −lr/bc1).
// Where LibTorch's CPU kernels contract a multiply and an add into one fused multiply-add
// (lerp, addcmul on CPUs with FMA), so does this, and nowhere else: the result is the same
// bit for bit (tst_grow fusedAdamWEqualsTheOps). Only where LibTorch runs its AVX2 kernels
// (CPUs with AVX2 and FMA, ATEN_CPU_CAPABILITY not naming another set: model/exact_kernels.h
// aten_runs_avx2_kernels); elsewhere `adamw_fused_available()` is false and the caller keeps
// the ops.

#include <cstdint>

namespace gb::train {

struct AdamWCoefficients {
  bool scales = false;  // multiply the gradient by grad_scale first (clipping)
  float grad_scale = 1.0f;
  bool decays = false;  // multiply the parameter by decay first (weight decay)
  float decay = 1.0f;
  float one_minus_beta1 = 0.1f;  // lerp weight; must be below 0.5 (LibTorch's other branch)
  float beta2 = 0.999f;
  float one_minus_beta2 = 0.001f;
  float bias2_sqrt = 1.0f;  // √(1 − β2^t)
  float eps = 1e-8f;
  float step = -1e-3f;  // −lr / (1 − β1^t)
};

bool adamw_fused_available();

// p, m, v updated in place over n contiguous elements; g read. Requires
// adamw_fused_available().
void adamw_fused_update(float* p, const float* g, float* m, float* v, int64_t n,
                        const AdamWCoefficients& c);

}  // namespace gb::train
