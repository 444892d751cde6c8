#include "model/runtime.h"

#include <torch/cuda.h>

#include "util/error.h"

namespace gb {

c10::Device parse_device(const std::string& name) {
  if (name.empty() || name == "cpu") return c10::Device(c10::kCPU);
  if (name == "cuda" || name.rfind("cuda:", 0) == 0) {
    if (!torch::cuda::is_available()) {
      fail(
          "device '{}' requested but CUDA is not available (this LibTorch build or machine has "
          "no usable GPU); use --device cpu",
          name);
    }
    c10::Device d(name);
    if (d.has_index() && d.index() >= static_cast<int>(torch::cuda::device_count())) {
      fail("device '{}' requested but only {} CUDA device(s) exist", name,
           torch::cuda::device_count());
    }
    return d;
  }
  fail("unknown device '{}' (expected cpu, cuda or cuda:N)", name);
}

c10::ScalarType parse_dtype(const std::string& n) {
  if (n == "float32" || n == "f32" || n == "fp32" || n == "float") return c10::kFloat;
  if (n == "bfloat16" || n == "bf16") return c10::kBFloat16;
  if (n == "float16" || n == "f16" || n == "fp16" || n == "half") return c10::kHalf;
  if (n == "float64" || n == "f64" || n == "double") return c10::kDouble;
  fail("unknown dtype '{}' (expected float32, bfloat16 or float16)", n);
}

std::string dtype_name(c10::ScalarType t) {
  switch (t) {
    case c10::kFloat:
      return "float32";
    case c10::kBFloat16:
      return "bfloat16";
    case c10::kHalf:
      return "float16";
    case c10::kDouble:
      return "float64";
    default:
      return c10::toString(t);
  }
}

}  // namespace gb
