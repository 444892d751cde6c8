#pragma once
// Helpers shared by the probe implementations (core/importance/*.cpp only; not API).

#include <string>
#include <utility>
#include <vector>

#include <torch/nn/module.h>

#include "model/modules.h"

namespace gb::importance::detail {

// Device of the model's parameters (CPU for a model without any).
inline torch::Device model_device(const CausalLMImpl& model) {
  for (const auto& p : model.parameters(true)) return p.device();
  return torch::Device(torch::kCPU);
}

// Makes every parameter require gradients while alive and restores each flag afterwards
// (probes need gradients of frozen parameters too), clearing the gradients it produced.
class AllParametersRequireGrad {
 public:
  explicit AllParametersRequireGrad(CausalLMImpl& model) {
    for (auto& p : model.parameters(true)) {
      m_saved.emplace_back(p, p.requires_grad());
      p.set_requires_grad(true);
    }
  }
  ~AllParametersRequireGrad() {
    for (auto& [p, flag] : m_saved) {
      p.mutable_grad().reset();
      p.set_requires_grad(flag);
    }
  }
  AllParametersRequireGrad(const AllParametersRequireGrad&) = delete;
  AllParametersRequireGrad& operator=(const AllParametersRequireGrad&) = delete;

 private:
  std::vector<std::pair<torch::Tensor, bool>> m_saved;
};

}  // namespace gb::importance::detail
