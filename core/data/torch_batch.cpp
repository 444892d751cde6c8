// A batch as LibTorch tensors (data/torch_batch.h).
#include "data/torch_batch.h"

#include <torch/torch.h>

namespace gb::data {

BatchTensors to_tensors(const Batch& batch, const c10::Device& device) {
  BatchTensors bt;
  const int64_t rows = batch.rows, len = batch.row_length();
  auto tokens =
      torch::from_blob(const_cast<int32_t*>(batch.tokens.data()), {rows, len}, torch::kInt)
          .to(torch::kLong);
  bt.inputs = tokens.narrow(1, 0, len - 1).contiguous();
  auto labels = tokens.narrow(1, 1, len - 1).clone();
  if (!batch.loss_mask.empty()) {
    auto mask =
        torch::from_blob(const_cast<uint8_t*>(batch.loss_mask.data()), {rows, len}, torch::kUInt8)
            .narrow(1, 1, len - 1)
            .to(torch::kBool);
    labels.masked_fill_(mask.logical_not(), -100);
    bt.targets = mask.sum().item<int64_t>();
  } else {
    bt.targets = rows * (len - 1);
  }
  bt.labels = labels;
  if (batch.mixed_rows()) {
    bt.original = false;
    bt.domain_labels = torch::ones({rows});
    bt.original_rows = torch::zeros({rows});
    for (int64_t r = 0; r < rows; ++r) {
      if (batch.row_domain(r) != Domain::Original) continue;
      bt.domain_labels[r] = 0.0f;
      bt.original_rows[r] = 1.0f;
      ++bt.n_original_rows;
    }
    bt.original_rows = bt.original_rows.to(device);
  } else {
    bt.original = batch.domain == Domain::Original;
    bt.domain_labels = torch::full({rows}, bt.original ? 0.0f : 1.0f);
  }
  bt.inputs = bt.inputs.to(device);
  bt.labels = bt.labels.to(device);
  bt.domain_labels = bt.domain_labels.to(device);
  return bt;
}

}  // namespace gb::data
