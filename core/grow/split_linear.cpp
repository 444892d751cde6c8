#include "grow/split_linear.h"

#include <torch/torch.h>

#include "model/frozen_dtype.h"
#include "util/error.h"

namespace gb::grow {

namespace F = torch::nn::functional;

namespace {

std::string shape_of(const torch::Tensor& t) {
  if (!t.defined()) return "undefined";
  std::string s = "[";
  for (int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
  return s + "]";
}

bool plain_cpu_float(const torch::Tensor& t) {
  return t.defined() && t.device().is_cpu() && t.scalar_type() == torch::kFloat;
}

// A frozen weight stored narrower than float32 (model/frozen_dtype.h) on the CPU.
bool narrow_frozen_cpu(const torch::Tensor& t) {
  return t.defined() && t.device().is_cpu() && !t.requires_grad() &&
         (t.scalar_type() == torch::kBFloat16 || t.scalar_type() == torch::kHalf);
}

// W in `like`'s dtype for one product: W itself where it has it (no copy, the same numbers),
// else a converted copy that lives only as long as the product.
torch::Tensor as_dtype_of(const torch::Tensor& w, const torch::Tensor& like) {
  return w.scalar_type() == like.scalar_type() ? w : w.to(like.scalar_type());
}

// The split linears' products written into (and read from) one tensor instead of a
// concatenation forward (RowSplit) and two zero-filled halves backward (ColSplit). Every
// product is the same LibTorch call on the same operands as F::linear's (matmul folds the
// leading dims and runs mm) and its autograd formulas (MmBackward0's mm_mat1_backward and
// mm_mat2_backward), only with the result's rows further apart, so the numbers are the
// same; x's gradients reach the engine in the ops' order (RowSplit: the grown part's first,
// as its nodes are the later ones). Their backward passes are LibTorch ops, so create_graph works
// (ColSplit's then concatenates, since products into a given tensor are not differentiable). The
// products into halves of one tensor add to a zero-filled tensor (addmm_, beta 1) rather than
// overwrite it (mm_out, beta 0): OpenBLAS zeroes the output for beta 0 and then adds the same sums,
// so the numbers are the same, but its zeroing of a strided half is much slower than one fill of
// the whole tensor (about 1 % of a G-Freeze step).
struct RowSplitFunction : public torch::autograd::Function<RowSplitFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& x_again, const torch::Tensor& wf,
                               const torch::Tensor& wg) {
    (void)x_again;
    const int64_t in = x.size(-1), nf = wf.size(0), ng = wg.size(0);
    const auto x2d = x.reshape({-1, in});
    auto out = torch::zeros({x2d.size(0), nf + ng}, x.options());
    out.narrow(1, 0, nf).addmm_(x2d, as_dtype_of(wf, x).t());
    out.narrow(1, nf, ng).addmm_(x2d, wg.t());
    ctx->save_for_backward({x, wf, wg});  // a narrow wf stays narrow
    auto sizes = x.sizes().vec();
    sizes.back() = nf + ng;
    return out.view(sizes);
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &x = saved[0], &wf = saved[1], &wg = saved[2];
    const int64_t in = x.size(-1), nf = wf.size(0), ng = wg.size(0);
    const auto& g = grads[0];
    const auto gf = g.narrow(-1, 0, nf).reshape({-1, nf});
    const auto gg = g.narrow(-1, nf, ng).reshape({-1, ng});
    const bool want_x = ctx->needs_input_grad(0) || ctx->needs_input_grad(1);
    torch::Tensor dx_g, dx_f, dwf, dwg;
    if (want_x) {
      dx_g = gg.mm(wg).reshape(x.sizes());
      dx_f = gf.mm(as_dtype_of(wf, gf)).reshape(x.sizes());
    }
    const auto x2d = x.reshape({-1, in});
    if (ctx->needs_input_grad(2)) dwf = gf.t().mm(x2d);
    if (ctx->needs_input_grad(3)) dwg = gg.t().mm(x2d);
    return {dx_g, dx_f, dwf, dwg};
  }
};

struct ColSplitFunction : public torch::autograd::Function<ColSplitFunction> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                               const torch::Tensor& wf, const torch::Tensor& wg) {
    const int64_t nf = wf.size(1), ng = wg.size(1);
    ctx->save_for_backward({x, wf, wg});
    return F::linear(x.narrow(-1, 0, nf), as_dtype_of(wf, x)) + F::linear(x.narrow(-1, nf, ng), wg);
  }

  static torch::autograd::tensor_list backward(torch::autograd::AutogradContext* ctx,
                                               torch::autograd::tensor_list grads) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor &x = saved[0], &wf = saved[1], &wg = saved[2];
    const int64_t nf = wf.size(1), ng = wg.size(1), out = wf.size(0);
    const auto g = grads[0].reshape({-1, out});
    torch::Tensor dx, dwf, dwg;
    if (ctx->needs_input_grad(0)) {
      if (torch::GradMode::is_enabled()) {
        // create_graph: products with out= are not differentiable.
        dx = torch::cat({g.mm(as_dtype_of(wf, g)), g.mm(wg)}, 1).view(x.sizes());
      } else {
        dx = torch::zeros(x.sizes(), x.options().memory_format(at::MemoryFormat::Contiguous));
        auto dx2d = dx.view({-1, nf + ng});
        dx2d.narrow(1, 0, nf).addmm_(g, as_dtype_of(wf, g));
        dx2d.narrow(1, nf, ng).addmm_(g, wg);
      }
    }
    if (ctx->needs_input_grad(1)) dwf = g.t().mm(x.narrow(-1, 0, nf).reshape({-1, nf}));
    if (ctx->needs_input_grad(2)) dwg = g.t().mm(x.narrow(-1, nf, ng).reshape({-1, ng}));
    return {dx, dwf, dwg};
  }
};

// Where the one-tensor paths apply: float32 on the CPU (the frozen weight may be stored
// narrower), no biases, contiguous operands.
bool split_fusable(const torch::Tensor& x, const torch::Tensor& wf, const torch::Tensor& wg) {
  return plain_cpu_float(x) && (plain_cpu_float(wf) || narrow_frozen_cpu(wf)) &&
         plain_cpu_float(wg) && x.dim() >= 2 && x.is_contiguous() && wf.is_contiguous() &&
         wg.is_contiguous();
}

}  // namespace

// ---------------------------------------------------------------------------------------
// RowSplitLinear

RowSplitLinearImpl::RowSplitLinearImpl(torch::Tensor fw, torch::Tensor fb, torch::Tensor gw,
                                       torch::Tensor gb) {
  if (fw.dim() != 2 || gw.dim() != 2 || fw.size(1) != gw.size(1)) {
    fail(
        "RowSplitLinear: the frozen weight {} and the grown weight {} must be (rows, in) "
        "with the same number of inputs",
        shape_of(fw), shape_of(gw));
  }
  if (fb.defined() != gb.defined()) {
    fail("RowSplitLinear: both parts need a bias or neither has one");
  }
  frozen_weight = register_parameter("frozen_weight", std::move(fw));
  grown_weight = register_parameter("grown_weight", std::move(gw));
  if (fb.defined()) {
    frozen_bias = register_parameter("frozen_bias", std::move(fb));
    grown_bias = register_parameter("grown_bias", std::move(gb));
  }
}

torch::Tensor RowSplitLinearImpl::forward(const torch::Tensor& x, const ForwardState&) {
  if (fused && !frozen_bias.defined() && split_fusable(x, frozen_weight, grown_weight)) {
    return RowSplitFunction::apply(x, x, frozen_weight, grown_weight);
  }
  // Two GEMMs and a concatenation: the original rows are computed exactly as the base
  // model computes them.
  return torch::cat(
      {mixed_linear(x, frozen_weight, frozen_bias), F::linear(x, grown_weight, grown_bias)}, -1);
}

torch::Tensor RowSplitLinearImpl::dense_weight() const {
  return torch::cat({as_dtype_of(frozen_weight, grown_weight), grown_weight}, 0);
}

torch::Tensor RowSplitLinearImpl::dense_bias() const {
  if (!frozen_bias.defined()) return {};
  return torch::cat({frozen_bias, grown_bias}, 0);
}

std::string RowSplitLinearImpl::kind() const {
  return "RowSplit " + std::to_string(frozen_weight.size(0)) + "+" +
         std::to_string(grown_weight.size(0));
}

// ---------------------------------------------------------------------------------------
// ColSplitLinear

ColSplitLinearImpl::ColSplitLinearImpl(torch::Tensor fw, torch::Tensor gw, torch::Tensor b) {
  if (fw.dim() != 2 || gw.dim() != 2 || fw.size(0) != gw.size(0)) {
    fail(
        "ColSplitLinear: the frozen weight {} and the grown weight {} must be (out, cols) "
        "with the same number of outputs",
        shape_of(fw), shape_of(gw));
  }
  frozen_weight = register_parameter("frozen_weight", std::move(fw));
  grown_weight = register_parameter("grown_weight", std::move(gw));
  if (b.defined()) bias = register_parameter("bias", std::move(b));
}

torch::Tensor ColSplitLinearImpl::forward(const torch::Tensor& x, const ForwardState&) {
  if (fused && !bias.defined() && split_fusable(x, frozen_weight, grown_weight)) {
    return ColSplitFunction::apply(x, frozen_weight, grown_weight);
  }
  const int64_t nf = frozen_weight.size(1);
  const int64_t ng = grown_weight.size(1);
  auto y = mixed_linear(x.narrow(-1, 0, nf), frozen_weight, bias);
  return y + F::linear(x.narrow(-1, nf, ng), grown_weight);
}

torch::Tensor ColSplitLinearImpl::dense_weight() const {
  return torch::cat({as_dtype_of(frozen_weight, grown_weight), grown_weight}, 1);
}

std::string ColSplitLinearImpl::kind() const {
  return "ColSplit " + std::to_string(frozen_weight.size(1)) + "+" +
         std::to_string(grown_weight.size(1));
}

}  // namespace gb::grow
