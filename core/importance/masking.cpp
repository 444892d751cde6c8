#include "importance/masking.h"

#include <algorithm>
#include <cmath>

#include <torch/torch.h>

#include "importance/internal.h"
#include "train/chunked_ce.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::importance {

int64_t masking_layer_forwards(int64_t num_layers, int64_t batches, MaskingMode mode) {
  const int64_t l = num_layers;
  const int64_t per_batch = mode == MaskingMode::Cached ? l * (l + 1) / 2 : l * l;
  return per_batch * batches;
}

namespace {

// Σ NLL of one batch from the hidden state after the last layer.
double batch_nll(CausalLMImpl& model, const torch::Tensor& h, const torch::Tensor& targets) {
  // Chunked for a large vocabulary (train/chunked_ce.h): one chunk of logits at a time.
  return train::summed_lm_nll_from_layers(model, h, targets).item<double>();
}

// The work of one batch's parts, by the weights each multiplies by (the products dominate):
// cost[l] for layer l, and the head's. For progress by layer (the head of a large vocabulary
// costs as much as several layers: Qwen3-0.6B's about ten).
struct WorkModel {
  std::vector<double> suffix;  // suffix[l] = Σ_{j >= l} cost[j]; suffix[L] = 0
  std::vector<double> cost;
  double head = 0;
  // The base pass and each bypassed layer's continuation, in the order they run.
  double base() const { return suffix[0] + head; }
  double bypass(int64_t skip, MaskingMode mode) const {
    return (mode == MaskingMode::Cached ? suffix[skip + 1] : suffix[0] - cost[skip]) + head;
  }
};

WorkModel work_model(CausalLMImpl& model) {
  WorkModel w;
  const int64_t n = model.num_layers();
  w.cost.assign(n, 0.0);
  w.suffix.assign(n + 1, 0.0);
  for (int64_t l = 0; l < n; ++l) {
    for (const auto& p : model.layer(l)->parameters(true)) {
      w.cost[l] += static_cast<double>(p.numel());
    }
  }
  for (int64_t l = n - 1; l >= 0; --l) w.suffix[l] = w.suffix[l + 1] + w.cost[l];
  w.head =
      static_cast<double>(model.config.vocab_size) * static_cast<double>(model.config.hidden_size);
  return w;
}

}  // namespace

MaskingResult masking_importance(CausalLMImpl& model, const ProbeSet& probes, MaskingMode mode,
                                 Progress progress, const ProbeSharding* shard) {
  if (model.forward_override) {
    fail(
        "masking probe: this model's forward pass is overridden (SCALE Route combines two "
        "passes), so bypassing a layer is not defined; probe the model before growing it");
  }
  if (probes.empty()) fail("masking probe: the probe set is empty");
  torch::NoGradGuard no_grad;
  const int64_t n_layers = model.num_layers();
  const auto device = detail::model_device(model);
  MaskingResult r;
  r.bypass_loss.assign(n_layers, 0.0);
  double base_sum = 0;
  const int64_t n_batches = static_cast<int64_t>(probes.batches.size());
  const WorkModel work = work_model(model);
  double batch_work = work.base();
  for (int64_t skip = 0; skip < n_layers; ++skip) batch_work += work.bypass(skip, mode);
  // Progress within batch b after `done` of its work, by layer: "batch 3/16, layer 7/28".
  auto report_layer = [&](int64_t b, double done, int64_t layer) {
    progress.report((static_cast<double>(b) + done / batch_work) / static_cast<double>(n_batches),
                    "batch " + std::to_string(b + 1) + "/" + std::to_string(n_batches) +
                        ", layer " + std::to_string(layer) + "/" + std::to_string(n_layers));
  };
  int64_t mine = 0;
  // Sharded, a cancel must not leave the other ranks waiting in the reduction: it is noted,
  // reduced with the sums, and then every rank stops.
  bool cancelled = false;
  try {
    progress.begin("probe/masking");
    for (int64_t b = 0; b < n_batches; ++b) {
      if (shard && !shard->owns(b)) continue;
      ++mine;
      const auto& batch = probes.batches[b];
      auto ids = batch.ids.to(device);
      auto targets = batch.targets.to(device);
      auto state = model.make_state(ids.size(1), ForwardOptions{}, device);
      auto h = model.embed(ids, state.past);
      if (mode == MaskingMode::Cached) {
        // inputs[l] = input of layer l = output of layer l-1 (h_0 = embedding).
        std::vector<torch::Tensor> inputs;
        inputs.reserve(n_layers);
        for (int64_t l = 0; l < n_layers; ++l) {
          inputs.push_back(h);
          h = model.run_layer(l, h, state);
          ++r.layer_forwards;
        }
        base_sum += batch_nll(model, h, targets);
        double done = work.base();
        for (int64_t skip = 0; skip < n_layers; ++skip) {
          if (skip > 0) report_layer(b, done, skip);  // layers 1..skip bypassed so far
          // The bypassed layer's output is its input: continue from inputs[skip].
          auto x = inputs[skip];
          for (int64_t l = skip + 1; l < n_layers; ++l) {
            x = model.run_layer(l, x, state);
            ++r.layer_forwards;
          }
          r.bypass_loss[skip] += batch_nll(model, x, targets);
          done += work.bypass(skip, mode);
          progress.check_cancel();
        }
      } else {
        auto h0 = h;
        for (int64_t l = 0; l < n_layers; ++l) {
          h = model.run_layer(l, h, state);
          ++r.layer_forwards;
        }
        base_sum += batch_nll(model, h, targets);
        double done = work.base();
        for (int64_t skip = 0; skip < n_layers; ++skip) {
          if (skip > 0) report_layer(b, done, skip);
          auto x = h0;
          for (int64_t l = 0; l < n_layers; ++l) {
            if (l == skip) continue;
            x = model.run_layer(l, x, state);
            ++r.layer_forwards;
          }
          r.bypass_loss[skip] += batch_nll(model, x, targets);
          done += work.bypass(skip, mode);
          progress.check_cancel();
        }
      }
      progress.report(static_cast<double>(b + 1) / static_cast<double>(n_batches),
                      "batch " + std::to_string(b + 1) + "/" + std::to_string(n_batches));
    }
  } catch (const CancelledError&) {
    if (!shard || shard->world <= 1) throw;
    cancelled = true;
  }
  if (shard && shard->world > 1) {
    std::vector<double> sums(r.bypass_loss);
    sums.push_back(base_sum);
    sums.push_back(static_cast<double>(r.layer_forwards));
    sums.push_back(cancelled ? 1.0 : 0.0);
    sum_over_ranks(shard, sums);
    if (sums.back() > 0) throw CancelledError();
    std::copy(sums.begin(), sums.begin() + n_layers, r.bypass_loss.begin());
    base_sum = sums[n_layers];
    r.layer_forwards = static_cast<int64_t>(std::llround(sums[n_layers + 1]));
    r.batches_by_rank = batches_by_rank(shard, mine);
  }
  const double n = static_cast<double>(probes.scored_tokens);
  r.scored_tokens = probes.scored_tokens;
  r.base_loss = base_sum / n;
  r.importance.resize(n_layers);
  for (int64_t l = 0; l < n_layers; ++l) {
    r.bypass_loss[l] /= n;
    r.importance[l] = r.bypass_loss[l] - r.base_loss;
  }
  log::get("importance")
      ->debug("masking probe ({}): base loss {:.6f}, {} layer forwards", masking_mode_name(mode),
              r.base_loss, r.layer_forwards);
  return r;
}

ProbeResult to_probe_result(const MaskingResult& r) {
  ProbeResult p;
  p.method = methods::kMasking;
  p.layers = r.importance;
  p.base_loss = r.base_loss;
  p.details = {{"base_loss", r.base_loss},
               {"bypass_loss", r.bypass_loss},
               {"layer_forwards", r.layer_forwards},
               {"scored_tokens", r.scored_tokens}};
  if (!r.batches_by_rank.empty()) p.details["batches_by_rank"] = r.batches_by_rank;
  return p;
}

double probe_loss(CausalLMImpl& model, const ProbeSet& probes) {
  if (probes.empty()) fail("probe loss: the probe set is empty");
  torch::NoGradGuard no_grad;
  const auto device = detail::model_device(model);
  double sum = 0;
  for (const auto& b : probes.batches) {
    sum += train::summed_lm_nll(model, b.ids.to(device), b.targets.to(device), ForwardOptions{})
               .item<double>();
  }
  return sum / static_cast<double>(probes.scored_tokens);
}

}  // namespace gb::importance
