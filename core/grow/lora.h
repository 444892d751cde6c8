#pragma once
// LoRA (Hu et al. 2022): a linear unit y = base(x) + (alpha / r) · x Aᵀ Bᵀ with the base unit
// frozen and A (r, in), B (out, r) trainable; B = 0 at initialisation, so the model is
// unchanged. Mergeable: dense_weight() is W + (alpha / r) · B A, which is what probes see and
// what export writes ("LoRA → merged weights"); merge_lora() replaces the units by dense ones.
//
// Registered names inside the unit (file format of GrowBench checkpoints):
//   base.weight, base.bias (the wrapped unit), lora_A, lora_B.

#include <cstdint>
#include <memory>
#include <string>

#include "model/modules.h"

namespace gb::grow {

class LoraLinearImpl : public LinearUnitImpl {
 public:
  // Wraps `base`; lora_A and lora_B are allocated (uninitialised A, zero B) on the base
  // weight's device and dtype. Initialise A with init_kaiming_uniform().
  LoraLinearImpl(LinearUnit base, int64_t rank, double alpha);
  torch::Tensor forward(const torch::Tensor& x, const ForwardState& state) override;
  int64_t in_features() const override { return base->in_features(); }
  int64_t out_features() const override { return base->out_features(); }
  torch::Tensor dense_weight() const override;  // W + scale · B A
  torch::Tensor dense_bias() const override { return base->dense_bias(); }
  std::string kind() const override;

  // A ~ U(−1/√in, 1/√in): PEFT's default (init_lora_weights=True), which calls
  // kaiming_uniform_(A, a=√5) as nn.Linear does; gain √(2/(1+5)) · √(3/in) = 1/√in.
  void init_kaiming_uniform(uint64_t seed);

  LinearUnit base;
  torch::Tensor lora_A;  // (r, in)
  torch::Tensor lora_B;  // (out, r)
  int64_t rank;
  double alpha;
  double scale;  // alpha / rank
};

// Replaces every LoRA unit of the model's layers by a dense unit holding the merged weight
// (W + scale · B A) and the base bias, both frozen. Returns the number of units merged.
int64_t merge_lora(CausalLMImpl& model);

}  // namespace gb::grow
