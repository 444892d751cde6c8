#pragma once
// Layer importance by masking (ADEPT §2.2, eqs. 1–3; DESIGN.md "Importance probes"): the
// increase of the mean next-token loss on the probe set when layer l is bypassed, i.e. its
// output equals its input (the residual stream passes through unchanged):
//   I(l) = L(model with layer l bypassed) − L(model).
// Bypassing a layer is exactly removing it and renumbering the rest (a decoder layer maps
// the residual stream to the residual stream; rotary positions and attention kinds belong
// to the remaining layers' own modules), which the tests check against a model built
// without the layer.
//
// Cached (default). Per batch, one base pass keeps every layer's input h_l (h_0 = the
// embedding); bypassing l restarts from h_l with layers l+1..L-1 (the bypassed layer's
// output is h_l). Layer forwards per batch: L + Σ_l (L−1−l) = L(L+1)/2, against L + L(L−1)
// = L² for the naive loop (a full pass per bypass), so about half for large L. The LM head
// runs L + 1 times per batch in both. Everything runs under torch::NoGradGuard.

#include <cstdint>
#include <vector>

#include "importance/probe_options.h"
#include "importance/probe_set.h"
#include "importance/result.h"
#include "importance/sharding.h"
#include "model/modules.h"
#include "util/progress.h"

namespace gb::importance {

// MaskingMode (Cached, Naive) is declared in probe_options.h.

struct MaskingResult {
  double base_loss = 0;             // mean next-token loss of the model
  std::vector<double> bypass_loss;  // (L) with layer l bypassed
  std::vector<double> importance;   // (L) bypass_loss − base_loss
  int64_t layer_forwards = 0;       // decoder-layer forward calls made
  int64_t scored_tokens = 0;
  std::vector<int64_t> batches_by_rank;  // sharded: the batches each rank ran
};

// Layer forwards the probe makes for `batches` batches of an L-layer model.
int64_t masking_layer_forwards(int64_t num_layers, int64_t batches, MaskingMode mode);

// Runs the probe on `model` (left unchanged; probe batches are moved to its device).
// Reports progress per batch under stage "probe/masking"; throws CancelledError when the
// progress' token is cancelled. A model with a forward_override (SCALE Route) is refused:
// its forward pass is not a plain stack of layers. With `shard` (a data-parallel run), this
// rank runs only its batches and the losses and forward counts are summed over the ranks.
MaskingResult masking_importance(CausalLMImpl& model, const ProbeSet& probes,
                                 MaskingMode mode = MaskingMode::Cached, Progress progress = {},
                                 const ProbeSharding* shard = nullptr);

// The shared result shape (method "masking"; details: base/bypass losses, forwards).
ProbeResult to_probe_result(const MaskingResult& r);

// Mean next-token loss of the model on the probe set (a plain forward per batch).
double probe_loss(CausalLMImpl& model, const ProbeSet& probes);

}  // namespace gb::importance
