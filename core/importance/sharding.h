#pragma once
// A probe sharded over the ranks of a data-parallel world: each rank takes every world-th
// batch of the probe set (batch b belongs to rank b % world), and the probe's sums (losses,
// accumulated gradients, Fisher) are summed over the ranks before anything is derived from
// them, so every rank ends with the same result as one process, up to float32 summation
// order. The importance library knows nothing of c10d: the runner supplies the sums.

#include <cstdint>
#include <functional>
#include <vector>

#include <torch/types.h>

namespace gb::importance {

struct ProbeSharding {
  int64_t world = 1;
  int64_t rank = 0;
  // Sums over the ranks, in place; every rank calls them in the same order.
  std::function<void(std::vector<double>&)> sum_values;
  std::function<void(std::vector<torch::Tensor>&)> sum_tensors;

  bool owns(int64_t batch) const { return world <= 1 || batch % world == rank; }
};

// Sums `values` over the ranks when `s` shards the probe; no-op otherwise.
inline void sum_over_ranks(const ProbeSharding* s, std::vector<double>& values) {
  if (s && s->world > 1) s->sum_values(values);
}
inline void sum_over_ranks(const ProbeSharding* s, std::vector<torch::Tensor>& tensors) {
  if (s && s->world > 1) s->sum_tensors(tensors);
}

// The number of batches each rank ran (index = rank), from every rank's own `count`; empty
// without sharding. Recorded in the probe's details as "batches_by_rank".
inline std::vector<int64_t> batches_by_rank(const ProbeSharding* s, int64_t count) {
  if (!s || s->world <= 1) return {};
  std::vector<double> v(static_cast<size_t>(s->world), 0.0);
  v[static_cast<size_t>(s->rank)] = static_cast<double>(count);
  s->sum_values(v);
  return std::vector<int64_t>(v.begin(), v.end());
}

}  // namespace gb::importance
