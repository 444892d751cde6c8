#pragma once
// Helpers shared by the probe implementations (core/importance/*.cpp only; not API).

#include <set>
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
// With `only` non-empty, exactly the parameters of those registered names require gradients
// (and no other: backward then computes no weight gradient it would throw away).
class AllParametersRequireGrad {
 public:
  explicit AllParametersRequireGrad(CausalLMImpl& model, const std::set<std::string>& only = {}) {
    for (auto& item : model.named_parameters(true)) {
      auto& p = item.value();
      m_saved.emplace_back(p, p.requires_grad());
      p.set_requires_grad(only.empty() || only.count(item.key()) > 0);
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
