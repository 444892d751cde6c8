#include "model/exact_kernels.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <dlfcn.h>
#include <immintrin.h>
#define GB_EXACT_X86 1
#else
#define GB_EXACT_X86 0
#endif

namespace gb {

void rope_forward_rows(const float* x, const RopeRows& r, const float* cos, const float* sin,
                       float scale, float* out, int64_t begin, int64_t end) {
  const int64_t d = r.dim, half = d / 2;
  for (int64_t bh = begin; bh < end; ++bh) {
    const int64_t b = bh / r.heads, h = bh % r.heads;
    for (int64_t t = 0; t < r.length; ++t) {
      const float* xs = x + b * r.stride_batch + h * r.stride_head + t * r.stride_pos;
      const float* c = cos + t * d;
      const float* s = sin + t * d;
      float* o = out + (bh * r.length + t) * d;
      for (int64_t j = 0; j < half; ++j) o[j] = xs[j] * c[j] + (-xs[j + half]) * s[j];
      for (int64_t j = half; j < d; ++j) o[j] = xs[j] * c[j] + xs[j - half] * s[j];
      if (scale != 1.0f) {
        for (int64_t j = 0; j < d; ++j) o[j] = o[j] * scale;
      }
    }
  }
}

void rope_backward_rows(const float* g, const RopeRows& r, const float* cos, const float* sin,
                        float scale, float* dx, int64_t begin, int64_t end) {
  const int64_t d = r.dim, half = d / 2;
  float buffer[1024];
  for (int64_t bh = begin; bh < end; ++bh) {
    const int64_t b = bh / r.heads, h = bh % r.heads;
    for (int64_t t = 0; t < r.length; ++t) {
      const float* gs = g + b * r.stride_batch + h * r.stride_head + t * r.stride_pos;
      if (scale != 1.0f) {
        for (int64_t j = 0; j < d; ++j) buffer[j] = gs[j] * scale;
        gs = buffer;
      }
      const float* c = cos + t * d;
      const float* s = sin + t * d;
      float* o = dx + (bh * r.length + t) * d;
      for (int64_t j = 0; j < half; ++j) o[j] = gs[j] * c[j] + gs[j + half] * s[j + half];
      for (int64_t j = half; j < d; ++j) o[j] = gs[j] * c[j] + -(gs[j - half] * s[j - half]);
    }
  }
}

void rms_forward_rows(const float* x, const float* r, const float* w, int64_t rows, int64_t d,
                      float* out) {
  for (int64_t i = 0; i < rows; ++i) {
    const float ri = r[i];
    const float* xi = x + i * d;
    float* oi = out + i * d;
    for (int64_t j = 0; j < d; ++j) oi[j] = w[j] * (xi[j] * ri);
  }
}

void rms_backward_products(const float* g, const float* x, const float* r, const float* w,
                           int64_t rows, int64_t d, float* g_times_normed, float* gw_times_x) {
  for (int64_t i = 0; i < rows; ++i) {
    const float ri = r[i];
    const float* gi = g + i * d;
    const float* xi = x + i * d;
    float* a = gw_times_x + i * d;
    for (int64_t j = 0; j < d; ++j) a[j] = (gi[j] * w[j]) * xi[j];
    if (g_times_normed) {
      float* b = g_times_normed + i * d;
      for (int64_t j = 0; j < d; ++j) b[j] = gi[j] * (xi[j] * ri);
    }
  }
}

void rms_backward_input(const float* g, const float* x, const float* r, const float* w,
                        const float* gvar, int64_t rows, int64_t d, float* dx_product,
                        float* dx_square) {
  const float count = static_cast<float>(d);
  for (int64_t i = 0; i < rows; ++i) {
    const float ri = r[i];
    const float per_element = gvar[i] / count;
    const float* gi = g + i * d;
    const float* xi = x + i * d;
    float* a = dx_product + i * d;
    float* b = dx_square + i * d;
    for (int64_t j = 0; j < d; ++j) {
      a[j] = (gi[j] * w[j]) * ri;
      b[j] = per_element * (2.0f * xi[j]);
    }
  }
}

// ---------------------------------------------------------------------------------------
// SwiGLU

#if GB_EXACT_X86

namespace {

using ExpF8 = __m256 (*)(__m256);

// The Sleef entry point ATen's Vectorized<float>::exp calls; null when the process has none
// (a LibTorch with Sleef linked in statically and its symbols hidden).
ExpF8 sleef_expf8() {
  static const ExpF8 f = reinterpret_cast<ExpF8>(::dlsym(RTLD_DEFAULT, "Sleef_expf8_u10"));
  return f;
}

// ATen's scalar loop (its AVX2 unit, compiled with FMA contraction).
__attribute__((target("avx2,fma"))) inline float silu_one(float x) {
  return x / (1.0f + std::exp(-x));
}

__attribute__((target("avx2,fma"))) inline float silu_backward_one(float dy, float x) {
  const float sigmoid = 1.0f / (1.0f + std::exp(-x));
  return dy * sigmoid * __builtin_fmaf(x, 1.0f - sigmoid, 1.0f);
}

__attribute__((target("avx2,fma"))) inline __m256 neg(__m256 x) {
  return _mm256_xor_ps(_mm256_set1_ps(-0.0f), x);
}

// h = silu(g) · u, or silu(g) alone for a null u.
__attribute__((target("avx2,fma"))) void forward_avx2(ExpF8 exp8, const float* g, const float* u,
                                                      float* h, int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f);
  // ATen's vectorised loop takes 16 at a time and leaves the rest to its scalar loop.
  const int64_t vec_end = n - n % 16;
  int64_t i = 0;
  for (; i < vec_end; i += 8) {
    const __m256 x = _mm256_loadu_ps(g + i);
    const __m256 s = _mm256_div_ps(x, _mm256_add_ps(one, exp8(neg(x))));
    _mm256_storeu_ps(h + i, u ? _mm256_mul_ps(s, _mm256_loadu_ps(u + i)) : s);
  }
  for (; i < n; ++i) h[i] = u ? silu_one(g[i]) * u[i] : silu_one(g[i]);
}

__attribute__((target("avx2,fma"))) void backward_avx2(ExpF8 exp8, const float* dh, const float* g,
                                                       const float* u, float* dg, float* du,
                                                       int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const int64_t vec_end = n - n % 16;
  for (int64_t i = 0; i < vec_end; i += 8) {
    const __m256 x = _mm256_loadu_ps(g + i);
    const __m256 d = _mm256_loadu_ps(dh + i);
    const __m256 e1 = _mm256_add_ps(one, exp8(neg(x)));
    const __m256 s = _mm256_div_ps(x, e1);  // silu, as the forward computed it
    const __m256 sigmoid = _mm256_div_ps(one, e1);
    const __m256 ds = _mm256_mul_ps(d, _mm256_loadu_ps(u + i));
    _mm256_storeu_ps(du + i, _mm256_mul_ps(d, s));
    const __m256 t = _mm256_fmadd_ps(x, _mm256_sub_ps(one, sigmoid), one);
    _mm256_storeu_ps(dg + i, _mm256_mul_ps(_mm256_mul_ps(ds, sigmoid), t));
  }
  for (int64_t i = vec_end; i < n; ++i) {
    du[i] = dh[i] * silu_one(g[i]);
    dg[i] = silu_backward_one(dh[i] * u[i], g[i]);
  }
}

}  // namespace

bool aten_runs_avx2_kernels() {
  // ATen 1.13 (DispatchStub.cpp): ATEN_CPU_CAPABILITY "avx2", "avx512" or "default" chooses,
  // another value is ignored; otherwise AVX2 where the CPU has AVX2 and FMA (AVX-512 is
  // opt-in there).
  static const bool avx2 = [] {
    const char* env = std::getenv("ATEN_CPU_CAPABILITY");
    if (env && (std::strcmp(env, "avx512") == 0 || std::strcmp(env, "default") == 0)) {
      return false;
    }
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  }();
  return avx2;
}

bool swiglu_exact_available() {
  static const bool available = aten_runs_avx2_kernels() && sleef_expf8() != nullptr;
  return available;
}

void swiglu_forward(const float* g, const float* u, float* h, int64_t n) {
  forward_avx2(sleef_expf8(), g, u, h, n);
}

void swiglu_backward(const float* dh, const float* g, const float* u, float* dg, float* du,
                     int64_t n) {
  backward_avx2(sleef_expf8(), dh, g, u, dg, du, n);
}

void silu_serial(const float* g, float* s, int64_t n) {
  forward_avx2(sleef_expf8(), g, nullptr, s, n);
}

#else

bool aten_runs_avx2_kernels() {
  return false;
}

bool swiglu_exact_available() {
  return false;
}

void swiglu_forward(const float*, const float*, float*, int64_t) {
  std::abort();  // callers check swiglu_exact_available()
}

void swiglu_backward(const float*, const float*, const float*, float*, float*, int64_t) {
  std::abort();
}

void silu_serial(const float*, float*, int64_t) {
  std::abort();
}

#endif

}  // namespace gb
