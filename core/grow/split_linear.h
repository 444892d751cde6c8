#pragma once
// Linear units split into a frozen part and a trainable part, so that a grown projection
// trains only its new slice without gradient masks: the optimizer then holds state for the
// trainable slice only (DESIGN.md, "Grow": "Prefer splitting a grown projection into a
// frozen part and a trainable part over gradient masks").
//
//   RowSplitLinear  output rows split:    y = cat(x W_fᵀ + b_f, x W_gᵀ + b_g)   (up, gate)
//   ColSplitLinear  input columns split:  y = x[:, :n_f] W_fᵀ + x[:, n_f:] W_gᵀ + b  (down)
//
// Both are ordinary LinearUnits: dense_weight() and dense_bias() join the parts, so probes
// see the grown projection and export writes it as one plain tensor. Which part trains is
// up to the operator (requires_grad per tensor); the names only say which part is the
// original one ("frozen_*") and which the new one ("grown_*"). Registered parameter names
// (file format of GrowBench checkpoints): frozen_weight, frozen_bias, grown_weight,
// grown_bias (RowSplit); frozen_weight, grown_weight, bias (ColSplit).
//
// The frozen weight may be stored narrower than the activations (spec frozen_dtype,
// model/frozen_dtype.h: a bf16 checkpoint's G-Freeze keeps its original rows bf16): the
// products convert it where they need it and keep only the narrow tensor. Where it has the
// activations' dtype nothing changes, bit for bit.

#include <cstdint>
#include <memory>
#include <string>

#include "model/frozen_dtype.h"
#include "model/modules.h"

namespace gb::grow {

class RowSplitLinearImpl : public LinearUnitImpl, public NarrowableFrozen {
 public:
  // Takes the given tensors as parameters. Biases are both defined or both undefined.
  RowSplitLinearImpl(torch::Tensor frozen_weight, torch::Tensor frozen_bias,
                     torch::Tensor grown_weight, torch::Tensor grown_bias);
  torch::Tensor forward(const torch::Tensor& x, const ForwardState& state) override;
  int64_t in_features() const override { return frozen_weight.size(1); }
  int64_t out_features() const override { return frozen_weight.size(0) + grown_weight.size(0); }
  torch::Tensor dense_weight() const override;
  torch::Tensor dense_bias() const override;
  std::string kind() const override;
  std::vector<torch::Tensor> narrowable_matrices() const override { return {frozen_weight}; }

  torch::Tensor frozen_weight;  // (out_f, in)
  torch::Tensor frozen_bias;    // (out_f) or undefined
  torch::Tensor grown_weight;   // (out_g, in)
  torch::Tensor grown_bias;     // (out_g) or undefined
  // Both products written into one tensor instead of concatenated (CPU, float32, no bias;
  // the same numbers). Off: the ops.
  bool fused = true;
};

class ColSplitLinearImpl : public LinearUnitImpl, public NarrowableFrozen {
 public:
  // Takes the given tensors as parameters; the bias (may be undefined) is added once.
  ColSplitLinearImpl(torch::Tensor frozen_weight, torch::Tensor grown_weight, torch::Tensor bias);
  torch::Tensor forward(const torch::Tensor& x, const ForwardState& state) override;
  int64_t in_features() const override { return frozen_weight.size(1) + grown_weight.size(1); }
  int64_t out_features() const override { return frozen_weight.size(0); }
  torch::Tensor dense_weight() const override;
  torch::Tensor dense_bias() const override { return bias; }
  std::string kind() const override;
  std::vector<torch::Tensor> narrowable_matrices() const override { return {frozen_weight}; }

  torch::Tensor frozen_weight;  // (out, in_f)
  torch::Tensor grown_weight;   // (out, in_g)
  torch::Tensor bias;           // (out) or undefined
  // The input's gradient written as one tensor instead of two zero-filled halves that the
  // engine adds (CPU, float32, no bias; the same numbers). Off: the ops.
  bool fused = true;
};

}  // namespace gb::grow
