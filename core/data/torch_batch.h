#pragma once
// A batch as LibTorch tensors: what training, evaluation and the route statistics feed the
// model. The one LibTorch part of data/ (its .cpp is compiled into growbench_core, as
// util/torch_*.cpp are; growbench_base stays torch-free).

#include <cstdint>

#include <c10/core/Device.h>
#include <torch/types.h>

#include "data/packing.h"

namespace gb::data {

// Tensors of a batch on `device`: inputs (B, T) and labels (B, T) with -100 for ignored
// positions (loss mask), plus per-row domain labels (1 = new domain). A batch mixed per row
// (Batch::row_domains) gets each row's label and `original_rows` (B) float, 1 = an
// original-domain row (undefined for a batch from one domain, whose `original` says which).
struct BatchTensors {
  torch::Tensor inputs, labels, domain_labels, original_rows;
  bool original = false;
  int64_t targets = 0;
  int64_t n_original_rows = 0;  // original-domain rows of a batch mixed per row
};
BatchTensors to_tensors(const Batch& batch, const c10::Device& device);

}  // namespace gb::data
