#include "model/exact_kernels.h"

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

}  // namespace gb
