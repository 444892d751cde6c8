#include "grow/split_linear.h"

#include <torch/torch.h>

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
  // Two GEMMs and a concatenation: the original rows are computed exactly as the base
  // model computes them.
  return torch::cat(
      {F::linear(x, frozen_weight, frozen_bias), F::linear(x, grown_weight, grown_bias)}, -1);
}

torch::Tensor RowSplitLinearImpl::dense_weight() const {
  return torch::cat({frozen_weight, grown_weight}, 0);
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
  const int64_t nf = frozen_weight.size(1);
  const int64_t ng = grown_weight.size(1);
  auto y = F::linear(x.narrow(-1, 0, nf), frozen_weight, bias);
  return y + F::linear(x.narrow(-1, nf, ng), grown_weight);
}

torch::Tensor ColSplitLinearImpl::dense_weight() const {
  return torch::cat({frozen_weight, grown_weight}, 1);
}

std::string ColSplitLinearImpl::kind() const {
  return "ColSplit " + std::to_string(frozen_weight.size(1)) + "+" +
         std::to_string(grown_weight.size(1));
}

}  // namespace gb::grow
