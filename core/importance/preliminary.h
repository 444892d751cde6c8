#pragma once
// The minimal trainer of the preliminary fine-tuning run (update_magnitude.h), private to
// core/importance: the full trainer with schedules and parameter groups is core/train.

#include <cstdint>
#include <functional>
#include <vector>

#include "importance/probe_set.h"
#include "importance/sharding.h"
#include "model/modules.h"
#include "util/progress.h"

namespace gb::importance::detail {

struct PreliminaryOptions {
  int64_t steps = 50;
  double lr = 1e-4;
  double weight_decay = 0.0;
  uint64_t seed = 0;
  // Data-parallel: each rank runs rows [rank * B / world, (rank + 1) * B / world) of every
  // step's batch (B rows), the gradients and the loss are summed over the ranks before the
  // optimizer step, so every rank takes the same step as one process (up to float32
  // summation order). Null or world 1: one process runs every row.
  const ProbeSharding* shard = nullptr;
};

// Full fine-tuning of `model` in place: AdamW over every parameter (all are made trainable
// for the run), a fixed learning rate, `steps` steps; step k trains on batch
// perm_e[k mod nb] with perm_e = data::permutation(nb, data::derive_seed(seed, e)) and
// e = k / nb. `after_step(k)` is called after step k (1-based). Returns the loss of every
// step. The caller restores the parameters if it needs to. With `options.shard`, `rows_by_rank`
// (when given) receives the number of batch rows each rank ran over the whole run.
std::vector<double> preliminary_finetune(CausalLMImpl& model, const ProbeSet& data,
                                         const PreliminaryOptions& options,
                                         const std::function<void(int64_t)>& after_step,
                                         Progress& progress,
                                         std::vector<int64_t>* rows_by_rank = nullptr);

}  // namespace gb::importance::detail
