#pragma once
// The minimal trainer of the preliminary fine-tuning run (update_magnitude.h), private to
// core/importance: the full trainer with schedules and parameter groups is core/train.

#include <cstdint>
#include <functional>
#include <vector>

#include "importance/probe_set.h"
#include "model/modules.h"
#include "util/progress.h"

namespace gb::importance::detail {

struct PreliminaryOptions {
  int64_t steps = 50;
  double lr = 1e-4;
  double weight_decay = 0.0;
  uint64_t seed = 0;
};

// Full fine-tuning of `model` in place: AdamW over every parameter (all are made trainable
// for the run), a fixed learning rate, `steps` steps; step k trains on batch
// perm_e[k mod nb] with perm_e = data::permutation(nb, data::derive_seed(seed, e)) and
// e = k / nb. `after_step(k)` is called after step k (1-based). Returns the loss of every
// step. The caller restores the parameters if it needs to.
std::vector<double> preliminary_finetune(CausalLMImpl& model, const ProbeSet& data,
                                         const PreliminaryOptions& options,
                                         const std::function<void(int64_t)>& after_step,
                                         Progress& progress);

}  // namespace gb::importance::detail
