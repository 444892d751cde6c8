#include "dist/shard.h"

#include <algorithm>

#include "util/error.h"

namespace gb::dist {

Shard shard_rows(int64_t rows, int64_t world, int64_t rank) {
  if (world < 1 || rank < 0 || rank >= world) {
    fail("shard_rows: rank {} is not in a world of {}", rank, world);
  }
  if (rows < world) {
    fail(
        "a batch of {} rows cannot give each of {} processes a row: use train.batch_size >= "
        "the number of processes",
        rows, world);
  }
  const int64_t base = rows / world, extra = rows % world;
  Shard s;
  s.count = base + (rank < extra ? 1 : 0);
  s.begin = rank * base + std::min(rank, extra);
  return s;
}

data::Batch slice_rows(const data::Batch& batch, const Shard& s) {
  if (s.begin < 0 || s.count < 0 || s.begin + s.count > batch.rows) {
    fail("slice_rows: rows [{}, {}) outside a batch of {} rows", s.begin, s.begin + s.count,
         batch.rows);
  }
  data::Batch out;
  const int64_t len = batch.row_length();
  out.rows = s.count;
  out.seq_len = batch.seq_len;
  out.domain = batch.domain;
  if (batch.mixed_rows()) {
    out.row_domains.assign(batch.row_domains.begin() + s.begin,
                           batch.row_domains.begin() + s.begin + s.count);
  }
  out.step = batch.step;
  out.tokens.assign(batch.tokens.begin() + s.begin * len,
                    batch.tokens.begin() + (s.begin + s.count) * len);
  if (!batch.loss_mask.empty()) {
    out.loss_mask.assign(batch.loss_mask.begin() + s.begin * len,
                         batch.loss_mask.begin() + (s.begin + s.count) * len);
  }
  return out;
}

int64_t batch_targets(const data::Batch& batch) {
  if (batch.loss_mask.empty()) return batch.rows * batch.seq_len;
  int64_t n = 0;
  const int64_t len = batch.row_length();
  for (int64_t r = 0; r < batch.rows; ++r) {
    for (int64_t t = 1; t < len; ++t) n += batch.loss_mask[r * len + t] != 0;
  }
  return n;
}

std::vector<data::Batch> deal_batches(const std::vector<data::Batch>& batches, int64_t world,
                                      int64_t rank) {
  std::vector<data::Batch> out;
  for (size_t i = 0; i < batches.size(); ++i) {
    if (static_cast<int64_t>(i % world) == rank) out.push_back(batches[i]);
  }
  return out;
}

}  // namespace gb::dist
