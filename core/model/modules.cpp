#include "model/modules.h"

#include <cmath>
#include <limits>

#include <torch/torch.h>

#include "model/exact_kernels.h"
#include "model/frozen_dtype.h"
#include "model/units.h"
#include "util/error.h"
#include "util/torch_compat.h"

namespace gb {

namespace F = torch::nn::functional;

namespace {
thread_local bool t_skip_init = false;
}  // namespace

SkipInitGuard::SkipInitGuard() : m_previous(t_skip_init) {
  t_skip_init = true;
}
SkipInitGuard::~SkipInitGuard() {
  t_skip_init = m_previous;
}
bool SkipInitGuard::active() {
  return t_skip_init;
}

// ---------------------------------------------------------------------------------------
// DenseLinear

DenseLinearImpl::DenseLinearImpl(int64_t in, int64_t out, bool with_bias) {
  weight = register_parameter("weight", torch::empty({out, in}));
  if (with_bias) bias = register_parameter("bias", torch::zeros({out}));
  if (SkipInitGuard::active()) return;
  torch::NoGradGuard guard;
  weight.normal_(0.0, 0.02);
}

DenseLinearImpl::DenseLinearImpl(torch::Tensor w, torch::Tensor b) {
  TORCH_CHECK(w.dim() == 2, "DenseLinear weight must be 2-D");
  weight = register_parameter("weight", std::move(w));
  if (b.defined()) bias = register_parameter("bias", std::move(b));
}

torch::Tensor DenseLinearImpl::forward(const torch::Tensor& x, const ForwardState&) {
  return mixed_linear(x, weight, bias);
}

std::shared_ptr<DenseLinearImpl> make_dense(int64_t in, int64_t out, bool bias) {
  return std::make_shared<DenseLinearImpl>(in, out, bias);
}

// ---------------------------------------------------------------------------------------
// Norm

NormImpl::NormImpl(NormKind kind, int64_t features, double eps_) : norm_kind(kind), eps(eps_) {
  weight = register_parameter("weight", kind == NormKind::RMSNormOnePlus ? torch::zeros({features})
                                                                         : torch::ones({features}));
  if (kind == NormKind::LayerNorm) bias = register_parameter("bias", torch::zeros({features}));
}

std::string NormImpl::kind() const {
  switch (norm_kind) {
    case NormKind::RMSNorm:
      return "RMSNorm";
    case NormKind::RMSNormOnePlus:
      return "RMSNorm(1+w)";
    case NormKind::LayerNorm:
      return "LayerNorm";
  }
  return "Norm";
}

torch::Tensor NormImpl::forward(const torch::Tensor& x) {
  switch (norm_kind) {
    case NormKind::LayerNorm:
      return F::layer_norm(
          x, F::LayerNormFuncOptions({x.size(-1)}).weight(weight).bias(bias).eps(eps));
    case NormKind::RMSNorm: {
      if (fused && rms_norm_fusable(x, weight)) return rms_norm_fused(x, weight, eps);
      // Llama: normalise in float32, cast back, then multiply by the weight.
      auto xf = x.to(torch::kFloat);
      auto var = xf.pow(2).mean(-1, true);
      auto normed = (xf * torch::rsqrt(var + eps)).to(x.scalar_type());
      return weight * normed;
    }
    case NormKind::RMSNormOnePlus: {
      // Gemma: everything in float32, (1 + w), then cast back.
      auto xf = x.to(torch::kFloat);
      auto var = xf.pow(2).mean(-1, true);
      auto out = xf * torch::rsqrt(var + eps) * (1.0 + weight.to(torch::kFloat));
      return out.to(x.scalar_type());
    }
  }
  return x;
}

std::shared_ptr<NormImpl> make_norm(const ModelConfig& config, int64_t features) {
  return std::make_shared<NormImpl>(config.norm, features, config.norm_eps);
}

// ---------------------------------------------------------------------------------------
// Embedding

EmbeddingImpl::EmbeddingImpl(int64_t num, int64_t dim_) {
  weight = register_parameter("weight", torch::empty({num, dim_}));
  if (SkipInitGuard::active()) return;
  torch::NoGradGuard guard;
  weight.normal_(0.0, 0.02);
}

torch::Tensor EmbeddingImpl::forward(const torch::Tensor& ids) {
  return F::embedding(ids, weight);
}

// ---------------------------------------------------------------------------------------
// RoPE

torch::Tensor rope_inv_freq(const ModelConfig& c, bool local) {
  const int64_t rot = c.rotary_dim();
  if (rot <= 0) return torch::Tensor();
  const double base = local ? c.rope_local_theta : c.rope_theta;
  // As transformers: base ** (arange(0, dim, 2, int64).float() / dim), in float32.
  auto exponent =
      torch::arange(0, rot, 2, torch::kLong).to(torch::kFloat) / static_cast<float>(rot);
  auto inv_freq = 1.0 / torch::pow(torch::tensor(static_cast<float>(base)), exponent);
  const RopeScaling& rs = c.rope_scaling;
  if (local || rs.type == "default") return inv_freq;
  if (rs.type == "linear") return inv_freq / rs.factor;
  if (rs.type == "llama3") {
    const double old_len = static_cast<double>(rs.original_max_position);
    const double low_wavelen = old_len / rs.low_freq_factor;
    const double high_wavelen = old_len / rs.high_freq_factor;
    auto wavelen = 2.0 * M_PI / inv_freq;
    auto scaled = torch::where(wavelen > low_wavelen, inv_freq / rs.factor, inv_freq);
    auto smooth =
        (old_len / wavelen - rs.low_freq_factor) / (rs.high_freq_factor - rs.low_freq_factor);
    auto smoothed = (1 - smooth) * scaled / rs.factor + smooth * scaled;
    auto medium = (wavelen >= high_wavelen).logical_and(wavelen <= low_wavelen);
    return torch::where(medium, smoothed, scaled);
  }
  fail("rope scaling '{}' is not supported", rs.type);
}

namespace {

RopeRows rope_rows(const torch::Tensor& t) {
  RopeRows r;
  r.batch = t.size(0);
  r.heads = t.size(1);
  r.length = t.size(2);
  r.dim = t.size(3);
  r.stride_batch = t.stride(0);
  r.stride_head = t.stride(1);
  r.stride_pos = t.stride(2);
  return r;
}

// out = f(rows of `in`) over the (batch, head) rows, spread as LibTorch's intra-op threads
// allow (each row is computed alone: the same numbers for any split).
template <typename Kernel>
torch::Tensor rope_rows_apply(const torch::Tensor& in, const torch::Tensor& cos,
                              const torch::Tensor& sin, double scale, Kernel kernel) {
  auto out = torch::empty(in.sizes(), in.options().memory_format(at::MemoryFormat::Contiguous));
  const RopeRows rows = rope_rows(in);
  const float* src = in.data_ptr<float>();
  const float* c = cos.data_ptr<float>();
  const float* s = sin.data_ptr<float>();
  float* dst = out.data_ptr<float>();
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, rows.length * rows.dim));
  at::parallel_for(0, rows.batch * rows.heads, grain, [&](int64_t begin, int64_t end) {
    kernel(src, rows, c, s, static_cast<float>(scale), dst, begin, end);
  });
  return out;
}

// rotate_half's transpose: (y₂, −y₁), the gradient path of apply_rope's cat({−x₂, x₁}).
torch::Tensor rotate_half_transposed(const torch::Tensor& y) {
  const int64_t half = y.size(-1) / 2;
  return torch::cat({y.narrow(-1, half, half), -y.narrow(-1, 0, half)}, -1);
}

// apply_rope (times an exact power-of-two scale) as one pass forward and one backward on the
// CPU in float32 (model/exact_kernels.h), the same numbers as the ops. Under create_graph the
// backward is spelled in differentiable ops (the same numbers again).
struct RopeFunction : public torch::autograd::Function<RopeFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& cos, const torch::Tensor& sin, double scale) {
    ctx->save_for_backward({cos, sin});
    ctx->saved_data["scale"] = scale;
    return rope_rows_apply(x, cos, sin, scale, rope_forward_rows);
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &cos = saved[0], &sin = saved[1];
    const double scale = ctx->saved_data["scale"].toDouble();
    torch::Tensor g = grads[0];
    torch::Tensor dx;
    if (torch::GradMode::is_enabled()) {
      if (scale != 1.0) g = g * scale;
      dx = g * cos + rotate_half_transposed(g * sin);
    } else {
      if (g.stride(-1) != 1) g = g.contiguous();
      dx = rope_rows_apply(g, cos, sin, scale, rope_backward_rows);
    }
    return {dx, torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

bool exact_power_of_two(double v) {
  int exponent = 0;
  return v > 0 && std::isfinite(v) && std::frexp(v, &exponent) == 0.5;
}

}  // namespace

bool rope_fusable(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin,
                  int64_t rot) {
  const auto fp32_cpu = [](const torch::Tensor& t) {
    return t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat;
  };
  return fp32_cpu(x) && fp32_cpu(cos) && fp32_cpu(sin) && x.dim() == 4 && x.size(-1) == rot &&
         rot % 2 == 0 && rot <= 1024 && x.stride(-1) == 1 && cos.dim() == 2 &&
         cos.size(0) == x.size(2) && cos.size(1) == rot && cos.is_contiguous() &&
         sin.sizes() == cos.sizes() && sin.is_contiguous();
}

torch::Tensor apply_rope_fused(const torch::Tensor& x, const torch::Tensor& cos,
                               const torch::Tensor& sin, double scale) {
  if (!exact_power_of_two(scale)) fail("fused RoPE: scale {} is not a power of two", scale);
  return RopeFunction::apply(x, cos, sin, scale);
}

namespace {

// RMSNorm (NormKind::RMSNorm on float32) with its products in single passes. r comes from
// the same LibTorch ops as in NormImpl::forward, and the reductions of the backward are
// LibTorch's (at::sum_to, as the autograd engine reduces a broadcast operand's gradient),
// so every number equals the ops'. x is passed twice, once for x · r and once for x², so
// that its two gradients reach the engine separately and in the ops' order (the product's
// first): summed here, they would round differently when x has a third use (the residual
// stream). Under create_graph, or for a strided incoming gradient, the backward is spelled
// in ops (with create_graph on x, r recomputed from x, so that second derivatives see it).
struct RmsNormFunction : public torch::autograd::Function<RmsNormFunction> {
  static torch::Tensor rstd(const torch::Tensor& x, double eps) {
    return torch::rsqrt(x.pow(2).mean(-1, true) + eps);
  }

  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& x_squared_path, const torch::Tensor& weight,
                               double eps) {
    auto r = rstd(x_squared_path, eps);
    auto out = torch::empty_like(x, at::MemoryFormat::Contiguous);
    const int64_t d = x.size(-1);
    rms_forward_rows(x.data_ptr<float>(), r.data_ptr<float>(), weight.data_ptr<float>(),
                     x.numel() / d, d, out.data_ptr<float>());
    ctx->save_for_backward({x, weight, r});
    ctx->saved_data["eps"] = eps;
    return out;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &x = saved[0], &w = saved[1];
    torch::Tensor r = saved[2];
    const bool want_x = ctx->needs_input_grad(0) || ctx->needs_input_grad(1);
    const bool want_w = ctx->needs_input_grad(2);
    const int64_t d = x.size(-1);
    torch::Tensor g = grads[0];
    torch::Tensor dx_product, dx_square, dw;
    if (torch::GradMode::is_enabled() || !g.is_contiguous()) {
      // Also for a strided gradient: the ops' products then take its layout, and LibTorch's
      // reductions over them add in that order.
      if (torch::GradMode::is_enabled()) r = rstd(x, ctx->saved_data["eps"].toDouble());
      if (want_w) dw = at::sum_to(g * (x * r), w.sizes());
      auto gn = g * w;
      if (want_x) {
        auto gvar = (-0.5 * at::sum_to(gn * x, r.sizes())) * r.pow(3);
        dx_product = gn * r;
        dx_square = (gvar.expand_as(x) / d) * (2.0 * x);
      }
    } else {
      const int64_t rows = x.numel() / d;
      const auto fresh = [&] { return torch::empty_like(x, at::MemoryFormat::Contiguous); };
      torch::Tensor g_normed, gw_x = fresh();
      if (want_w) g_normed = fresh();
      rms_backward_products(g.data_ptr<float>(), x.data_ptr<float>(), r.data_ptr<float>(),
                            w.data_ptr<float>(), rows, d,
                            want_w ? g_normed.data_ptr<float>() : nullptr, gw_x.data_ptr<float>());
      if (want_w) dw = at::sum_to(g_normed, w.sizes());
      if (want_x) {
        auto gvar = ((-0.5 * at::sum_to(gw_x, r.sizes())) * r.pow(3)).contiguous();
        dx_product = std::move(gw_x);  // its products are no longer needed: reuse
        dx_square = fresh();
        rms_backward_input(g.data_ptr<float>(), x.data_ptr<float>(), r.data_ptr<float>(),
                           w.data_ptr<float>(), gvar.data_ptr<float>(), rows, d,
                           dx_product.data_ptr<float>(), dx_square.data_ptr<float>());
      }
    }
    return {dx_product, dx_square, dw, torch::Tensor()};
  }
};

}  // namespace

bool rms_norm_fusable(const torch::Tensor& x, const torch::Tensor& weight) {
  return x.defined() && weight.defined() && x.device().is_cpu() && weight.device().is_cpu() &&
         x.scalar_type() == torch::kFloat && weight.scalar_type() == torch::kFloat &&
         x.dim() >= 1 && x.numel() > 0 && x.is_contiguous() && weight.dim() == 1 &&
         weight.is_contiguous() && weight.size(0) == x.size(-1);
}

torch::Tensor rms_norm_fused(const torch::Tensor& x, const torch::Tensor& weight, double eps) {
  if (!rms_norm_fusable(x, weight)) fail("fused RMSNorm: needs float32 CPU tensors, x contiguous");
  return RmsNormFunction::apply(x, x, weight, eps);
}

namespace {

// LibTorch's element-wise loops run serially (so one vectorised loop over all n elements, its
// scalar loop over the last n mod 16) with one intra-op thread or under their grain size;
// otherwise their chunks depend on the thread count, and the ops are used.
bool elementwise_serial(int64_t numel) {
  return numel < at::internal::GRAIN_SIZE || at::get_num_threads() == 1;
}

bool swiglu_operands(const torch::Tensor& a, const torch::Tensor& b) {
  return a.defined() && b.defined() && a.device().is_cpu() && b.device().is_cpu() &&
         a.scalar_type() == torch::kFloat && b.scalar_type() == torch::kFloat &&
         a.sizes() == b.sizes() && a.numel() > 0 && a.is_contiguous() && b.is_contiguous();
}

// silu(g) · u (model/exact_kernels.h swiglu_forward/backward), the same numbers as silu and
// mul forward and MulBackward0 and SiluBackward0 backward; g and u are saved instead of
// silu(g), which the backward recomputes (the same function of the same input). Under
// create_graph, for a strided incoming gradient, or where the ops' loops would be split
// over threads, the backward is those ops.
struct SwiGluFunction : public torch::autograd::Function<SwiGluFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& g,
                               const torch::Tensor& u) {
    auto h = torch::empty_like(g, at::MemoryFormat::Contiguous);
    swiglu_forward(g.data_ptr<float>(), u.data_ptr<float>(), h.data_ptr<float>(), g.numel());
    ctx->save_for_backward({g, u});
    return h;
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &g = saved[0], &u = saved[1];
    const torch::Tensor& dh = grads[0];
    torch::Tensor dg, du;
    if (torch::GradMode::is_enabled()) {
      // What autograd's formulas compute under create_graph (silu's derivative through
      // sigmoid, LibTorch's infinitely_differentiable_silu_backward).
      if (ctx->needs_input_grad(1)) du = dh * torch::silu(g);
      if (ctx->needs_input_grad(0)) {
        const auto sigmoid = g.sigmoid();
        dg = (dh * u) * sigmoid * (1.0 + g * (1.0 - sigmoid));
      }
    } else if (!swiglu_operands(dh, g) || !elementwise_serial(g.numel())) {
      if (ctx->needs_input_grad(1)) {
        // silu(g) as the forward computed it (serially), which the ops would have saved.
        auto s = torch::empty_like(g);
        silu_serial(g.data_ptr<float>(), s.data_ptr<float>(), g.numel());
        du = dh * s;
      }
      if (ctx->needs_input_grad(0)) dg = at::silu_backward(dh * u, g);
    } else {
      dg = torch::empty_like(g);
      du = torch::empty_like(u);
      swiglu_backward(dh.data_ptr<float>(), g.data_ptr<float>(), u.data_ptr<float>(),
                      dg.data_ptr<float>(), du.data_ptr<float>(), g.numel());
      if (!ctx->needs_input_grad(0)) dg = torch::Tensor();
      if (!ctx->needs_input_grad(1)) du = torch::Tensor();
    }
    return {dg, du};
  }
};

}  // namespace

bool swiglu_fusable(const torch::Tensor& gate, const torch::Tensor& up) {
  return swiglu_operands(gate, up) && swiglu_exact_available() && elementwise_serial(gate.numel());
}

torch::Tensor swiglu_fused(const torch::Tensor& gate, const torch::Tensor& up) {
  if (!swiglu_fusable(gate, up)) fail("fused SwiGLU: needs contiguous float32 CPU tensors");
  return SwiGluFunction::apply(gate, up);
}

torch::Tensor apply_rope(const torch::Tensor& x, const torch::Tensor& cos, const torch::Tensor& sin,
                         int64_t rot) {
  // x (B, H, T, d_h); cos/sin (T, rot) broadcast over B and H.
  const int64_t d = x.size(-1);
  auto xr = rot == d ? x : x.narrow(-1, 0, rot);
  auto half = rot / 2;
  auto x1 = xr.narrow(-1, 0, half);
  auto x2 = xr.narrow(-1, half, half);
  auto rotated = torch::cat({-x2, x1}, -1);
  auto out = xr * cos + rotated * sin;
  if (rot == d) return out;
  return torch::cat({out, x.narrow(-1, rot, d - rot)}, -1);
}

// ---------------------------------------------------------------------------------------
// Attention

AttentionImpl::AttentionImpl(const ModelConfig& c, int64_t layer_index)
    : num_heads(c.num_heads),
      num_kv_heads(c.num_kv_heads),
      head_dim(c.head_dim),
      rotary_dim(c.rotary_dim()),
      scale(c.attn_scale) {
  const int64_t d = c.hidden_size;
  q_proj = register_module("q_proj", make_dense(d, num_heads * head_dim, c.qkv_bias));
  k_proj = register_module("k_proj", make_dense(d, num_kv_heads * head_dim, c.qkv_bias));
  v_proj = register_module("v_proj", make_dense(d, num_kv_heads * head_dim, c.qkv_bias));
  o_proj = register_module("o_proj", make_dense(num_heads * head_dim, d, c.o_bias));
  if (c.qk_norm) {
    q_norm = register_module("q_norm", make_norm(c, head_dim));
    k_norm = register_module("k_norm", make_norm(c, head_dim));
  }
  if (c.attn_softcap) softcap = *c.attn_softcap;
  sliding = c.layer_types.at(layer_index) == AttentionKind::Sliding;
  if (sliding) sliding_window = c.sliding_window;
}

torch::Tensor AttentionImpl::core(const torch::Tensor& q, const torch::Tensor& k,
                                  const torch::Tensor& v, const ForwardState& state,
                                  double scores_scale) const {
  // q (B, Hq, T, d_h); k, v (B, Hkv, Tk, d_h) → (B, Hq, T, d_h)
  const int64_t hq = q.size(1), hkv = k.size(1);
  torch::Tensor kk = k, vv = v;
  if (hq != hkv) {
    const int64_t g = hq / hkv;
    auto expand = [&](const torch::Tensor& t) {
      return t.unsqueeze(2)
          .expand({t.size(0), hkv, g, t.size(2), t.size(3)})
          .reshape({t.size(0), hq, t.size(2), t.size(3)});
    };
    kk = expand(k);
    vv = expand(v);
  }
  const int64_t tq = q.size(2), tk = kk.size(2);
  torch::Tensor mask;
  if (sliding_window > 0 || state.key_padding.defined()) {
    // Additive mask (1 or B, 1, Tq, Tk): causal, sliding window, key padding.
    auto qpos = torch::arange(tk - tq, tk, q.options().dtype(torch::kLong)).unsqueeze(1);
    auto kpos = torch::arange(0, tk, q.options().dtype(torch::kLong)).unsqueeze(0);
    auto allowed = kpos <= qpos;
    if (sliding_window > 0) allowed = allowed.logical_and(kpos > qpos - sliding_window);
    allowed = allowed.unsqueeze(0).unsqueeze(0);  // (1, 1, Tq, Tk)
    if (state.key_padding.defined()) {
      allowed = allowed.logical_and(state.key_padding.unsqueeze(1).unsqueeze(1));
      // Rows with nothing visible (queries at padded positions) attend to themselves to
      // stay finite; their outputs are ignored.
      auto none = allowed.logical_not().all(-1, true);
      auto self = (kpos == qpos).unsqueeze(0).unsqueeze(0);
      allowed = allowed.logical_or(none.logical_and(self));
    }
    mask = torch::zeros(allowed.sizes(), q.options().dtype(torch::kFloat))
               .masked_fill(allowed.logical_not(), -std::numeric_limits<float>::infinity());
  }
  return compat::attention(q, kk, vv, mask, /*causal=*/!mask.defined(), scores_scale, softcap,
                           fused_mask);
}

torch::Tensor AttentionImpl::forward(const torch::Tensor& x, ForwardState& state) {
  const int64_t b = x.size(0), t = x.size(1);
  double scores_scale = scale;  // 1 once folded into q
  auto q = q_proj->forward(x, state);
  auto k = k_proj->forward(x, state);
  auto v = v_proj->forward(x, state);
  const int64_t hq = q.size(-1) / head_dim, hkv = k.size(-1) / head_dim;
  q = q.view({b, t, hq, head_dim});
  k = k.view({b, t, hkv, head_dim});
  v = v.view({b, t, hkv, head_dim});
  if (q_norm) {
    q = q_norm->forward(q);
    k = k_norm->forward(k);
  }
  q = q.transpose(1, 2);
  k = k.transpose(1, 2);
  v = v.transpose(1, 2);
  if (rotary_dim > 0) {
    const auto& cos = sliding ? state.cos_local : state.cos_global;
    const auto& sin = sliding ? state.sin_local : state.sin_global;
    auto c = cos.to(q.scalar_type());
    auto s = sin.to(q.scalar_type());
    if (fused_rope && rope_fusable(q, c, s, rotary_dim) && rope_fusable(k, c, s, rotary_dim)) {
      // One pass each way; where the attention's scale is a power of two it is folded into
      // q, exactly (q·kᵀ scaled by 2^e is the scaled product bit for bit, softcap or not).
      if (exact_power_of_two(scale)) {
        q = apply_rope_fused(q, c, s, scale);
        scores_scale = 1.0;
      } else {
        q = apply_rope_fused(q, c, s, 1.0);
      }
      k = apply_rope_fused(k, c, s, 1.0);
    } else {
      q = apply_rope(q, c, s, rotary_dim);
      k = apply_rope(k, c, s, rotary_dim);
    }
  }
  if (state.cache) {
    auto& ck = state.cache->k.at(state.layer_index);
    auto& cv = state.cache->v.at(state.layer_index);
    if (ck.defined()) {
      k = torch::cat({ck, k}, 2);
      v = torch::cat({cv, v}, 2);
    }
    ck = k;
    cv = v;
  }
  torch::Tensor out;
  if (split_heads > 0 && split_heads < hq) {
    // SCALE: original heads and new heads separately, so that the original stream is
    // computed exactly as in the base model.
    auto o1 = core(q.narrow(1, 0, split_heads), k.narrow(1, 0, split_kv_heads),
                   v.narrow(1, 0, split_kv_heads), state, scores_scale);
    auto o2 = core(q.narrow(1, split_heads, hq - split_heads),
                   k.narrow(1, split_kv_heads, hkv - split_kv_heads),
                   v.narrow(1, split_kv_heads, hkv - split_kv_heads), state, scores_scale);
    out = torch::cat({o1, o2}, 1);
  } else {
    out = core(q, k, v, state, scores_scale);
  }
  out = out.transpose(1, 2).reshape({b, t, hq * head_dim});
  return o_proj->forward(out, state);
}

// ---------------------------------------------------------------------------------------
// MLP

torch::Tensor activate(const torch::Tensor& x, Activation act) {
  switch (act) {
    case Activation::SiLU:
      return torch::silu(x);
    case Activation::GeluTanh:
      return torch::gelu(x, "tanh");
    case Activation::GeluErf:
      return torch::gelu(x);
    case Activation::QuickGelu:
      return x * torch::sigmoid(1.702 * x);
    case Activation::Relu:
      return torch::relu(x);
  }
  return x;
}

MLPImpl::MLPImpl(const ModelConfig& c, int64_t p) : activation(c.activation) {
  const int64_t d = c.hidden_size;
  if (c.gated_mlp) gate_proj = register_module("gate_proj", make_dense(d, p, c.mlp_bias));
  up_proj = register_module("up_proj", make_dense(d, p, c.mlp_bias));
  down_proj = register_module("down_proj", make_dense(p, d, c.mlp_bias));
}

torch::Tensor MLPImpl::forward(const torch::Tensor& x, ForwardState& state) {
  auto act = [&](const torch::Tensor& t) {
    const int64_t width = t.size(-1);
    if (split_inner <= 0 || split_inner >= width) return activate(t, activation);
    return torch::cat(
        {activate(t.narrow(-1, 0, split_inner).contiguous(), activation),
         activate(t.narrow(-1, split_inner, width - split_inner).contiguous(), activation)},
        -1);
  };
  torch::Tensor h;
  if (gate_proj) {
    // up before gate: the order GCC gave the expression act(gate(x)) * up(x) that this
    // replaces, which sets the autograd engine's order and so how x's gradients add up.
    auto up = up_proj->forward(x, state);
    auto gate = gate_proj->forward(x, state);
    if (fused_swiglu && activation == Activation::SiLU && split_inner <= 0 &&
        swiglu_fusable(gate, up)) {
      h = swiglu_fused(gate, up);
    } else {
      h = act(gate) * up;
    }
  } else {
    h = act(up_proj->forward(x, state));
  }
  return down_proj->forward(h, state);
}

// ---------------------------------------------------------------------------------------
// Decoder layer

DecoderLayerImpl::DecoderLayerImpl(const ModelConfig& c, int64_t layer_index)
    : parallel_residual(c.parallel_residual), sandwich(c.sandwich_norms) {
  input_layernorm = register_module("input_layernorm", make_norm(c, c.hidden_size));
  self_attn = register_module("self_attn", Attention(c, layer_index));
  post_attention_layernorm =
      register_module("post_attention_layernorm", make_norm(c, c.hidden_size));
  if (sandwich) {
    pre_feedforward_layernorm =
        register_module("pre_feedforward_layernorm", make_norm(c, c.hidden_size));
    post_feedforward_layernorm =
        register_module("post_feedforward_layernorm", make_norm(c, c.hidden_size));
  }
  mlp = register_module("mlp", MLP(c, c.intermediate_size));
}

torch::Tensor DecoderLayerImpl::forward(const torch::Tensor& h, ForwardState& state) {
  auto add_branches = [&](torch::Tensor out, const torch::Tensor& x_normed) {
    for (auto& [name, branch] : m_branches) out = out + branch->forward(x_normed, state);
    return out;
  };
  if (parallel_residual) {
    // GPT-NeoX: x + attn(ln1(x)) + mlp(ln2(x))
    auto attn = self_attn->forward(input_layernorm->forward(h), state);
    auto x2 = post_attention_layernorm->forward(h);
    auto mlp_out = add_branches(mlp->forward(x2, state), x2);
    return h + attn + mlp_out;
  }
  if (sandwich) {
    // Gemma 3: x += post_attn_norm(attn(in_norm(x))); x += post_ffn_norm(mlp(pre_ffn_norm(x)))
    auto attn = self_attn->forward(input_layernorm->forward(h), state);
    auto h1 = h + post_attention_layernorm->forward(attn);
    auto x2 = pre_feedforward_layernorm->forward(h1);
    auto mlp_out = post_feedforward_layernorm->forward(mlp->forward(x2, state));
    return add_branches(h1 + mlp_out, x2);
  }
  auto h1 = h + self_attn->forward(input_layernorm->forward(h), state);
  auto x2 = post_attention_layernorm->forward(h1);
  auto mlp_out = mlp->forward(x2, state);
  return add_branches(h1 + mlp_out, x2);
}

std::vector<UnitRef> DecoderLayerImpl::units() const {
  // The registry's units this layer has (gate only on gated MLPs, q/k norms and sandwich
  // norms only where the family has them).
  std::vector<UnitRef> u;
  for (const auto& info : gb::units::all()) {
    std::shared_ptr<torch::nn::Module> module;
    const std::string name = info.name;
    if (info.kind == gb::units::Kind::Linear) {
      if (name == "gate" && !mlp->gate_proj) continue;
      module = linear(name);
    } else {
      if ((name == "q_norm" || name == "k_norm") && !self_attn->q_norm) continue;
      if ((name == "pre_ffn_norm" || name == "post_ffn_norm") && !sandwich) continue;
      module = norm(name);
    }
    u.push_back({name, module, info.path});
  }
  return u;
}

std::vector<std::string> DecoderLayerImpl::unit_names() const {
  std::vector<std::string> names;
  for (const auto& u : units()) names.push_back(u.name);
  return names;
}

LinearUnit DecoderLayerImpl::linear(const std::string& unit) const {
  if (unit == "q") return self_attn->q_proj;
  if (unit == "k") return self_attn->k_proj;
  if (unit == "v") return self_attn->v_proj;
  if (unit == "o") return self_attn->o_proj;
  if (unit == "gate") {
    if (!mlp->gate_proj) fail("this model's MLP has no gate projection (it is not gated)");
    return mlp->gate_proj;
  }
  if (unit == "up") return mlp->up_proj;
  if (unit == "down") return mlp->down_proj;
  fail("unknown linear unit '{}' (expected q, k, v, o, gate, up or down)", unit);
}

void DecoderLayerImpl::set_linear(const std::string& unit, LinearUnit r) {
  if (unit == "q") {
    self_attn->q_proj = self_attn->replace_module("q_proj", r);
  } else if (unit == "k") {
    self_attn->k_proj = self_attn->replace_module("k_proj", r);
  } else if (unit == "v") {
    self_attn->v_proj = self_attn->replace_module("v_proj", r);
  } else if (unit == "o") {
    self_attn->o_proj = self_attn->replace_module("o_proj", r);
  } else if (unit == "gate") {
    if (!mlp->gate_proj) fail("this model's MLP has no gate projection (it is not gated)");
    mlp->gate_proj = mlp->replace_module("gate_proj", r);
  } else if (unit == "up") {
    mlp->up_proj = mlp->replace_module("up_proj", r);
  } else if (unit == "down") {
    mlp->down_proj = mlp->replace_module("down_proj", r);
  } else {
    fail("unknown linear unit '{}' (expected q, k, v, o, gate, up or down)", unit);
  }
}

NormUnit DecoderLayerImpl::norm(const std::string& unit) const {
  if (unit == "input_norm") return input_layernorm;
  if (unit == "post_attn_norm") return post_attention_layernorm;
  if (unit == "pre_ffn_norm" && sandwich) return pre_feedforward_layernorm;
  if (unit == "post_ffn_norm" && sandwich) return post_feedforward_layernorm;
  if (unit == "q_norm" && self_attn->q_norm) return self_attn->q_norm;
  if (unit == "k_norm" && self_attn->k_norm) return self_attn->k_norm;
  fail("this layer has no norm unit '{}'", unit);
}

void DecoderLayerImpl::set_norm(const std::string& unit, NormUnit r) {
  if (unit == "input_norm") {
    input_layernorm = replace_module("input_layernorm", r);
  } else if (unit == "post_attn_norm") {
    post_attention_layernorm = replace_module("post_attention_layernorm", r);
  } else if (unit == "pre_ffn_norm" && sandwich) {
    pre_feedforward_layernorm = replace_module("pre_feedforward_layernorm", r);
  } else if (unit == "post_ffn_norm" && sandwich) {
    post_feedforward_layernorm = replace_module("post_feedforward_layernorm", r);
  } else if (unit == "q_norm" && self_attn->q_norm) {
    self_attn->q_norm = self_attn->replace_module("q_norm", r);
  } else if (unit == "k_norm" && self_attn->k_norm) {
    self_attn->k_norm = self_attn->replace_module("k_norm", r);
  } else {
    fail("this layer has no norm unit '{}'", unit);
  }
}

void DecoderLayerImpl::add_branch(const std::string& name, Branch branch) {
  for (const auto& [n, b] : m_branches) {
    if (n == name) fail("layer already has a branch named '{}'", name);
  }
  register_module(name, branch);
  m_branches.emplace_back(name, std::move(branch));
}

// ---------------------------------------------------------------------------------------
// Heads

LinearHeadImpl::LinearHeadImpl(int64_t d, int64_t vocab, std::optional<double> cap) : softcap(cap) {
  weight = register_parameter("weight", torch::empty({vocab, d}));
  if (SkipInitGuard::active()) return;
  torch::NoGradGuard guard;
  weight.normal_(0.0, 0.02);
}

namespace {
torch::Tensor cap_logits(torch::Tensor logits, const std::optional<double>& cap) {
  if (!cap) return logits;
  return torch::tanh(logits / *cap) * *cap;
}
}  // namespace

torch::Tensor LinearHeadImpl::forward(const torch::Tensor& h) {
  return cap_logits(mixed_linear(h, weight), softcap);
}

TiedHeadImpl::TiedHeadImpl(EmbeddingUnit e, std::optional<double> cap)
    : embedding(e), softcap(cap) {}

torch::Tensor TiedHeadImpl::forward(const torch::Tensor& h) {
  auto e = embedding.lock();
  TORCH_CHECK(e, "tied head lost its embedding");
  return cap_logits(mixed_linear(h, e->tied_weight()), softcap);
}

// ---------------------------------------------------------------------------------------
// Backbone and CausalLM

BackboneImpl::BackboneImpl(const ModelConfig& c) {
  embed_tokens =
      register_module("embed_tokens", std::make_shared<EmbeddingImpl>(c.vocab_size, c.hidden_size));
  if (c.learned_positions) {
    embed_positions = register_module(
        "embed_positions", std::make_shared<EmbeddingImpl>(c.max_positions, c.hidden_size));
  }
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t l = 0; l < c.num_layers; ++l) layers->push_back(DecoderLayer(c, l));
  norm = register_module("norm", make_norm(c, c.hidden_size));
}

CausalLMImpl::CausalLMImpl(const ModelConfig& c) : config(c) {
  validate(c, "model config");
  model = register_module("model", Backbone(c));
  if (c.tie_embeddings) {
    lm_head = std::make_shared<TiedHeadImpl>(model->embed_tokens, c.final_softcap);
  } else {
    lm_head = register_module(
        "lm_head", std::make_shared<LinearHeadImpl>(c.hidden_size, c.vocab_size, c.final_softcap));
  }
  inv_freq_global = register_buffer("inv_freq_global", rope_inv_freq(c, false));
  bool any_sliding = false;
  for (auto t : c.layer_types) any_sliding |= t == AttentionKind::Sliding;
  if (any_sliding && c.family == Family::Gemma3) {
    inv_freq_local = register_buffer("inv_freq_local", rope_inv_freq(c, true));
  }
}

DecoderLayer CausalLMImpl::layer(int64_t index) const {
  if (index < 0 || index >= num_layers()) {
    fail("layer index {} out of range (the model has {} layers)", index, num_layers());
  }
  return DecoderLayer(model->layers->ptr<DecoderLayerImpl>(index));
}

std::vector<DecoderLayer> CausalLMImpl::all_layers() const {
  std::vector<DecoderLayer> out;
  for (int64_t i = 0; i < num_layers(); ++i) out.push_back(layer(i));
  return out;
}

void CausalLMImpl::set_layers(const std::vector<DecoderLayer>& layers) {
  auto list = torch::nn::ModuleList();
  for (const auto& l : layers) list->push_back(l);
  model->layers = model->replace_module("layers", list);
  config.num_layers = static_cast<int64_t>(layers.size());
  std::vector<AttentionKind> types;
  for (const auto& l : layers) {
    types.push_back(l->self_attn->sliding ? AttentionKind::Sliding : AttentionKind::Full);
  }
  config.layer_types = types;
}

void CausalLMImpl::set_head(HeadUnit head) {
  if (!config.tie_embeddings || named_children().contains("lm_head")) {
    lm_head = replace_module("lm_head", head);
  } else {
    lm_head = register_module("lm_head", head);
  }
}

void CausalLMImpl::set_embedding(EmbeddingUnit embedding) {
  model->embed_tokens = model->replace_module("embed_tokens", embedding);
}

RopeTables CausalLMImpl::rope(const torch::Tensor& inv_freq, int64_t start, int64_t length,
                              const torch::Device& device) const {
  RopeTables t;
  if (!inv_freq.defined()) return t;
  auto pos = torch::arange(start, start + length, torch::dtype(torch::kFloat).device(device));
  auto freqs = torch::outer(pos, inv_freq.to(device, torch::kFloat));  // (T, rot/2)
  auto emb = torch::cat({freqs, freqs}, -1);
  t.cos = emb.cos();
  t.sin = emb.sin();
  return t;
}

ForwardState CausalLMImpl::make_state(int64_t seq_len, const ForwardOptions& o,
                                      const torch::Device& device) {
  ForwardState s;
  s.past = o.cache ? o.cache->length() : 0;
  s.cache = o.cache;
  s.key_padding = o.key_padding;
  s.original_domain = o.original_domain;
  s.domain_labels = o.domain_labels;
  s.original_rows = o.original_rows;
  s.aux = o.aux;
  s.routes = o.routes;
  s.mask_w12 = o.mask_w12;
  auto g = rope(inv_freq_global, s.past, seq_len, device);
  s.cos_global = g.cos;
  s.sin_global = g.sin;
  if (inv_freq_local.defined()) {
    auto l = rope(inv_freq_local, s.past, seq_len, device);
    s.cos_local = l.cos;
    s.sin_local = l.sin;
  }
  if (o.cache && o.cache->k.size() != static_cast<size_t>(num_layers())) {
    o.cache->k.resize(num_layers());
    o.cache->v.resize(num_layers());
  }
  return s;
}

torch::Tensor CausalLMImpl::embed(const torch::Tensor& ids, int64_t past) {
  auto h = model->embed_tokens->forward(ids);
  if (activation_dtype && h.scalar_type() != *activation_dtype) h = h.to(*activation_dtype);
  if (config.scale_embeddings) {
    // sqrt(hidden) rounded to the activation dtype, as transformers does.
    auto s = torch::tensor(config.embed_scale(), torch::dtype(torch::kDouble))
                 .to(h.scalar_type())
                 .to(h.device());
    h = h * s;
  }
  if (model->embed_positions) {
    const int64_t t = ids.size(1);
    if (past + t > model->embed_positions->num_embeddings()) {
      fail("sequence of {} tokens exceeds the model's {} learned positions", past + t,
           model->embed_positions->num_embeddings());
    }
    auto pos = torch::arange(past, past + t, ids.options().dtype(torch::kLong));
    h = h + model->embed_positions->forward(pos).unsqueeze(0).to(h.scalar_type());
  }
  return h;
}

torch::Tensor CausalLMImpl::run_layer(int64_t index, const torch::Tensor& h, ForwardState& s) {
  s.layer_index = index;
  return model->layers->ptr<DecoderLayerImpl>(index)->forward(h, s);
}

namespace {

// What a checkpointed layer needs to run again in the backward pass.
struct LayerCheckpointState : torch::CustomClassHolder {
  std::shared_ptr<DecoderLayerImpl> layer;
  ForwardState state;
  size_t n_params = 0;
};

// A decoder layer's forward pass without recording (its input saved), recomputed with
// recording in the backward pass, which backpropagates the output's gradient through it to
// the input and the layer's trainable tensors (inputs of this function, so that
// torch::autograd::grad over them sees their gradients). Reentrant, as
// torch.utils.checkpoint's default.
class LayerCheckpoint : public torch::autograd::Function<LayerCheckpoint> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& h,
                               at::TensorList params, c10::intrusive_ptr<LayerCheckpointState> st) {
    st->n_params = params.size();
    ctx->save_for_backward({h});
    ctx->saved_data["state"] = c10::IValue::make_capsule(st);
    ForwardState s = st->state;
    // Auxiliary terms are refused only where the caller collects them (training): a caller
    // without a list (a probe) has the layers add none, with or without checkpointing.
    std::vector<AuxTerm> aux;
    s.aux = st->state.aux ? &aux : nullptr;
    torch::Tensor out = st->layer->forward(h, s);
    if (!aux.empty()) {
      fail(
          "train.checkpointing: layer {} adds the auxiliary loss term '{}' during its forward "
          "pass, which a checkpointed layer cannot recompute; train this plan without "
          "checkpointing",
          st->state.layer_index, aux.front().name);
    }
    return out;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grad_out) {
    auto st = c10::static_intrusive_pointer_cast<LayerCheckpointState>(
        ctx->saved_data["state"].toCapsule());
    const torch::Tensor h = ctx->get_saved_variables()[0];
    torch::autograd::variable_list params;
    for (const auto& p : st->layer->parameters(true)) {
      if (p.requires_grad()) params.push_back(p);
    }
    TORCH_CHECK(params.size() == st->n_params,
                "checkpointed layer: its trainable tensors changed between forward and backward");
    torch::Tensor out, x;
    {
      torch::AutoGradMode recording(true);
      x = h.detach().requires_grad_(h.requires_grad());
      ForwardState s = st->state;
      s.aux = nullptr;
      s.routes = nullptr;
      out = st->layer->forward(x, s);
    }
    torch::autograd::variable_list inputs;
    if (x.requires_grad()) inputs.push_back(x);
    inputs.insert(inputs.end(), params.begin(), params.end());
    torch::autograd::variable_list result;
    result.reserve(params.size() + 2);
    if (inputs.empty() || !out.requires_grad()) {
      result.resize(params.size() + 2);
      return result;
    }
    auto grads = torch::autograd::grad({out}, inputs, {grad_out[0]}, /*retain_graph=*/false,
                                       /*create_graph=*/false, /*allow_unused=*/true);
    size_t k = 0;
    result.push_back(x.requires_grad() ? grads[k++] : torch::Tensor());
    for (size_t i = 0; i < params.size(); ++i) result.push_back(grads[k++]);
    result.emplace_back();  // the state
    return result;
  }
};

}  // namespace

torch::Tensor CausalLMImpl::run_layer_checkpointed(int64_t index, const torch::Tensor& h,
                                                   ForwardState& s) {
  s.layer_index = index;
  auto st = c10::make_intrusive<LayerCheckpointState>();
  st->layer = model->layers->ptr<DecoderLayerImpl>(index);
  if (s.cache) fail("activation checkpointing does not take a key/value cache");
  st->state = s;
  torch::autograd::variable_list params;
  for (const auto& p : st->layer->parameters(true)) {
    if (p.requires_grad()) params.push_back(p);
  }
  // As a TensorList, so that every tensor is an input of its own (a gradient edge).
  return LayerCheckpoint::apply(h, at::TensorList(params), st);
}

torch::Tensor CausalLMImpl::final_hidden(const torch::Tensor& h) {
  return model->norm->forward(h);
}

torch::Tensor CausalLMImpl::logits_from_hidden(const torch::Tensor& h, const ForwardOptions&) {
  return lm_head->forward(h);
}

torch::Tensor CausalLMImpl::hidden_states(const torch::Tensor& ids, const ForwardOptions& o) {
  TORCH_CHECK(ids.dim() == 2, "input ids must be (batch, length)");
  auto state = make_state(ids.size(1), o, ids.device());
  auto h = embed(ids, state.past);
  const bool checkpoint = o.checkpoint_layers && torch::GradMode::is_enabled();
  for (int64_t l = 0; l < num_layers(); ++l) {
    h = checkpoint ? run_layer_checkpointed(l, h, state) : run_layer(l, h, state);
  }
  return final_hidden(h);
}

torch::Tensor CausalLMImpl::forward(const torch::Tensor& ids, const ForwardOptions& o) {
  if (forward_override) return forward_override(*this, ids, o);
  return logits_from_hidden(hidden_states(ids, o), o);
}

// ---------------------------------------------------------------------------------------

void init_weights(CausalLMImpl& m, double std) {
  torch::NoGradGuard guard;
  for (auto& item : m.named_parameters(true)) {
    const std::string& name = item.key();
    auto& p = item.value();
    bool is_norm = name.find("norm") != std::string::npos;
    if (name.size() >= 5 && name.compare(name.size() - 5, 5, ".bias") == 0) {
      p.zero_();
    } else if (is_norm) {
      if (m.config.norm == NormKind::RMSNormOnePlus) {
        p.zero_();
      } else {
        p.fill_(1.0);
      }
    } else {
      p.normal_(0.0, std);
    }
  }
}

std::vector<std::pair<std::string, torch::Tensor>> named_parameters(const CausalLMImpl& m) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  for (const auto& item : m.named_parameters(true)) out.emplace_back(item.key(), item.value());
  return out;
}

int64_t count_parameters(const CausalLMImpl& m, bool trainable_only) {
  int64_t n = 0;
  for (const auto& p : m.parameters(true)) {
    if (!trainable_only || p.requires_grad()) n += p.numel();
  }
  return n;
}

}  // namespace gb
