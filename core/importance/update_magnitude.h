#pragma once
// Weight-update magnitude per layer after a short preliminary full fine-tuning run (Grow
// §4.2: "after a preliminary standard fine-tuning run, we rank layers by the magnitude of
// their weight updates and select the top-N for expansion").
//
// Magnitude of layer l: ‖W_T − W_0‖_F taken over ALL parameters registered under the layer
// (every projection, bias and norm weight, flattened together), after T steps. The paper
// names no normalisation, so the ranking value is this raw norm, neither divided by ‖W_0‖
// nor by the parameter count (layers of one model have equal sizes, so the count would not
// change the ranking anyway). The relative change ‖W_T − W_0‖_F / ‖W_0‖_F is reported too.
//
// The preliminary run (preliminary.cpp, deliberately minimal; the full trainer lives in
// core/train): AdamW over every parameter (β = (0.9, 0.999), ε = 1e-8, weight decay 0 by
// default so that the update reflects the gradient only), a fixed learning rate, `steps`
// steps over the batches of the given probe set (the new-domain data), visited in a seeded
// random order per epoch; the loss is the probe-set loss of each batch (mean over its
// scored tokens). The model's parameters (values and requires_grad flags) are restored
// afterwards. Snapshots of every layer's up projection (dense_weight()) are kept for the
// effective-rank stages (effective_rank.h).

#include <cstdint>
#include <vector>

#include "importance/probe_set.h"
#include "importance/result.h"
#include "importance/sharding.h"
#include "model/modules.h"
#include "util/progress.h"

namespace gb::importance {

struct UpdateMagnitudeOptions {
  int64_t steps = 50;
  double lr = 1e-4;
  double weight_decay = 0.0;
  uint64_t seed = 0;
  // Effective-rank snapshots: the up projections after every `snapshot_every` steps (and
  // after the last step); 0 = only after the last step.
  int64_t snapshot_every = 0;
  // Data-parallel: every step's batch split by rows over the ranks (preliminary.h); every
  // rank ends with the same result as one process, up to float32 summation order.
  const ProbeSharding* shard = nullptr;
};

struct UpdateMagnitude {
  std::vector<double> magnitude;      // (L) ‖W_T − W_0‖_F over the layer's parameters
  std::vector<double> relative;       // (L) magnitude / ‖W_0‖_F
  std::vector<double> losses;         // (steps) training loss of each step
  std::vector<int64_t> rows_by_rank;  // sharded: batch rows each rank ran; else empty
  // Up projections (dense, float32, CPU): [0] = base model, then one per snapshot.
  std::vector<int64_t> snapshot_steps;                   // (S + 1), starting with 0
  std::vector<std::vector<torch::Tensor>> up_snapshots;  // (S + 1) × L, each (p, d)

  ProbeResult result() const;  // method "update-magnitude"
};

// Runs the preliminary fine-tuning on `data`, measures, and restores the model. Progress
// stage "probe/update-magnitude", one report per step; cancellable (the model is restored
// also when cancelled or on error).
UpdateMagnitude update_magnitude(CausalLMImpl& model, const ProbeSet& data,
                                 const UpdateMagnitudeOptions& options = {},
                                 Progress progress = {});

}  // namespace gb::importance
