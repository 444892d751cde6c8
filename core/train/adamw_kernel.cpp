#include "train/adamw_kernel.h"

#include <cmath>

#include "model/exact_kernels.h"
#include "util/error.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define GB_ADAMW_X86 1
#else
#define GB_ADAMW_X86 0
#endif

namespace gb::train {

#if GB_ADAMW_X86

namespace {

// One element, in the order and with the fused multiply-adds of LibTorch's ops (see the
// header); compiled for FMA so that __builtin_fmaf is the instruction.
__attribute__((target("avx2,fma"))) inline void update_one(float& p, float g, float& m, float& v,
                                                           const AdamWCoefficients& c) {
  if (c.scales) g = g * c.grad_scale;
  float pi = p;
  if (c.decays) pi = pi * c.decay;
  m = __builtin_fmaf(c.one_minus_beta1, g - m, m);
  const float vi = v * c.beta2;
  v = __builtin_fmaf(c.one_minus_beta2 * g, g, vi);
  const float d = std::sqrt(v) / c.bias2_sqrt + c.eps;
  p = pi + (c.step * m) / d;
}

__attribute__((target("avx2,fma"))) void update_avx2(float* p, const float* g, float* m, float* v,
                                                     int64_t n, const AdamWCoefficients& c) {
  const __m256 scale = _mm256_set1_ps(c.grad_scale);
  const __m256 decay = _mm256_set1_ps(c.decay);
  const __m256 w1 = _mm256_set1_ps(c.one_minus_beta1);
  const __m256 b2 = _mm256_set1_ps(c.beta2);
  const __m256 w2 = _mm256_set1_ps(c.one_minus_beta2);
  const __m256 bias2 = _mm256_set1_ps(c.bias2_sqrt);
  const __m256 eps = _mm256_set1_ps(c.eps);
  const __m256 step = _mm256_set1_ps(c.step);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 gi = _mm256_loadu_ps(g + i);
    if (c.scales) gi = _mm256_mul_ps(gi, scale);
    __m256 pi = _mm256_loadu_ps(p + i);
    if (c.decays) pi = _mm256_mul_ps(pi, decay);
    __m256 mi = _mm256_loadu_ps(m + i);
    mi = _mm256_fmadd_ps(w1, _mm256_sub_ps(gi, mi), mi);
    __m256 vi = _mm256_mul_ps(_mm256_loadu_ps(v + i), b2);
    vi = _mm256_fmadd_ps(_mm256_mul_ps(w2, gi), gi, vi);
    const __m256 d = _mm256_add_ps(_mm256_div_ps(_mm256_sqrt_ps(vi), bias2), eps);
    pi = _mm256_add_ps(pi, _mm256_div_ps(_mm256_mul_ps(step, mi), d));
    _mm256_storeu_ps(m + i, mi);
    _mm256_storeu_ps(v + i, vi);
    _mm256_storeu_ps(p + i, pi);
  }
  for (; i < n; ++i) update_one(p[i], g[i], m[i], v[i], c);
}

}  // namespace

bool adamw_fused_available() {
  // LibTorch's lerp_ and addcmul_ contract into fused multiply-adds in its AVX2 kernels only.
  static const bool available = aten_runs_avx2_kernels();
  return available;
}

void adamw_fused_update(float* p, const float* g, float* m, float* v, int64_t n,
                        const AdamWCoefficients& c) {
  if (!adamw_fused_available()) fail("fused AdamW needs a CPU with AVX2 and FMA");
  if (!(c.one_minus_beta1 < 0.5f)) fail("fused AdamW needs beta1 above 0.5");
  update_avx2(p, g, m, v, n, c);
}

#else

bool adamw_fused_available() {
  return false;
}

void adamw_fused_update(float*, const float*, float*, float*, int64_t, const AdamWCoefficients&) {
  fail("fused AdamW is not built for this CPU");
}

#endif

}  // namespace gb::train
