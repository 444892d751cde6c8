#pragma once
// Sharding a global batch over the ranks of a data-parallel world: every rank draws the
// same global batches (same data order as one process) and keeps a contiguous block of
// rows; evaluation sets are dealt out by batch. No LibTorch here.

#include <cstdint>
#include <vector>

#include "data/packing.h"

namespace gb::dist {

struct Shard {
  int64_t begin = 0;  // first row
  int64_t count = 0;  // rows
};

// The rows of `rank` among `rows` split into `world` contiguous blocks, the first rows % world
// blocks one row longer. Throws when a rank would get no row.
Shard shard_rows(int64_t rows, int64_t world, int64_t rank);

// Rows [s.begin, s.begin + s.count) of a batch (tokens, loss mask, domain and the rows'
// domains of a batch mixed per row, step).
data::Batch slice_rows(const data::Batch& batch, const Shard& s);

// Target tokens of a batch: labels that count in the loss (every label without a mask).
int64_t batch_targets(const data::Batch& batch);

// The batches with index i % world == rank.
std::vector<data::Batch> deal_batches(const std::vector<data::Batch>& batches, int64_t world,
                                      int64_t rank);

}  // namespace gb::dist
