#pragma once
// Loops that replace chains of LibTorch tensor ops on float32 rows, with exactly the ops'
// float operations: each product and sum rounded on its own (this file is compiled without
// multiply-add contraction), reductions left to LibTorch. So their results are the same
// bit for bit as the ops' (tst_model fusedRopeEqualsTheOps, fusedRmsNormEqualsTheOps).
// No LibTorch here: modules.cpp wraps them in autograd functions.
//
// Rotate-half RoPE over whole rows, in one pass each way (modules.cpp apply_rope):
//   forward   out = x·cos + rotate_half(x)·sin        rotate_half(x) = (−x₂, x₁)
//   backward  dx  = g·cos + rotate_halfᵀ(g·sin)       rotate_halfᵀ(y) = (y₂, −y₁)
// `scale`, a power of two, multiplies the forward output and the incoming gradient exactly
// (the attention's 1/√d_h folded into q).

#include <cstdint>

namespace gb {

struct RopeRows {
  int64_t batch = 0, heads = 0, length = 0, dim = 0;          // rows of `dim` contiguous floats
  int64_t stride_batch = 0, stride_head = 0, stride_pos = 0;  // of the strided side
};

// Rows [begin, end) of the flattened (batch, head) index. x is strided as `rows` says; cos
// and sin are (length, dim) contiguous; out is (batch, heads, length, dim) contiguous.
void rope_forward_rows(const float* x, const RopeRows& rows, const float* cos, const float* sin,
                       float scale, float* out, int64_t begin, int64_t end);

// g strided as `rows` says; dx (batch, heads, length, dim) contiguous.
void rope_backward_rows(const float* g, const RopeRows& rows, const float* cos, const float* sin,
                        float scale, float* dx, int64_t begin, int64_t end);

// Llama's RMSNorm in float32, y = w · (x · r) with r = rsqrt(mean(x²) + ε) per row (r from
// LibTorch), over `rows` rows of d contiguous floats; w has d entries.
void rms_forward_rows(const float* x, const float* r, const float* w, int64_t rows, int64_t d,
                      float* out);

// Its backward as autograd computes it (MulBackward, RsqrtBackward, MeanBackward,
// PowBackward): first the two products LibTorch then reduces, g·(x·r) (over rows, for w;
// null to skip) and (g·w)·x (over each row, for r); then, with gvar = −0.5·Σ(g·w·x)·r³ per
// row, x's two gradients, through x·r: (g·w)·r, and through x²: (gvar / d)·(2x).
void rms_backward_products(const float* g, const float* x, const float* r, const float* w,
                           int64_t rows, int64_t d, float* g_times_normed, float* gw_times_x);
void rms_backward_input(const float* g, const float* x, const float* r, const float* w,
                        const float* gvar, int64_t rows, int64_t d, float* dx_product,
                        float* dx_square);

// SwiGLU, h = silu(g) · u, as LibTorch 1.13's CPU kernels compute it with their AVX2 build
// (silu: g / (1 + exp(−g)); silu_backward: dy · σ · (1 + g · (1 − σ)) with σ = 1 / (1 + exp(−g)),
// the last sum a fused multiply-add as GCC contracts it there), over n contiguous floats:
// 16 at a time with Sleef's exp, as ATen's vectorised loop, and the last n mod 16 with the C
// library's expf, as its scalar loop. Only where swiglu_exact_available(): an x86-64 CPU with
// AVX2 and FMA, LibTorch dispatching its AVX2 kernels, and Sleef_expf8_u10 found in the
// process (the library LibTorch calls); callers keep the ops otherwise.
bool swiglu_exact_available();
// Whether LibTorch 1.13 runs its AVX2 kernels here (its default where the CPU has AVX2 and
// FMA, unless ATEN_CPU_CAPABILITY names another set); the one-pass loops that copy those
// kernels' fused multiply-adds (this file's SwiGLU, train/adamw_kernel.h) need it.
bool aten_runs_avx2_kernels();
void swiglu_forward(const float* g, const float* u, float* h, int64_t n);
// du = dh · silu(g); dg = silu_backward(dh · u, g): MulBackward's and SiluBackward's numbers.
void swiglu_backward(const float* dh, const float* g, const float* u, float* dg, float* du,
                     int64_t n);
// silu(g) as LibTorch's loop computes it serially (swiglu_forward's silu).
void silu_serial(const float* g, float* s, int64_t n);

}  // namespace gb
