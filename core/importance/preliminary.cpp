#include "importance/preliminary.h"

#include <cmath>

#include <torch/torch.h>

#include "data/random.h"
#include "importance/internal.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::importance::detail {

std::vector<double> preliminary_finetune(CausalLMImpl& model, const ProbeSet& data,
                                         const PreliminaryOptions& o,
                                         const std::function<void(int64_t)>& after_step,
                                         Progress& progress, std::vector<int64_t>* rows_by_rank) {
  if (data.empty()) fail("preliminary fine-tuning: the data set is empty");
  if (o.steps < 1) fail("preliminary fine-tuning: steps must be at least 1, found {}", o.steps);
  if (!(o.lr > 0)) fail("preliminary fine-tuning: the learning rate must be positive");
  const auto device = model_device(model);
  std::vector<torch::Tensor> params;
  for (auto& p : model.parameters(true)) {
    p.set_requires_grad(true);
    params.push_back(p);
  }
  torch::optim::AdamW optimizer(
      params,
      torch::optim::AdamWOptions(o.lr).betas({0.9, 0.999}).eps(1e-8).weight_decay(o.weight_decay));
  const uint64_t nb = data.batches.size();
  uint64_t perm_epoch = UINT64_MAX;
  std::vector<uint64_t> perm;
  std::vector<double> losses;
  losses.reserve(o.steps);
  const bool sharded = o.shard && o.shard->world > 1;
  int64_t my_rows = 0;
  for (int64_t k = 0; k < o.steps; ++k) {
    const uint64_t epoch = static_cast<uint64_t>(k) / nb;
    if (epoch != perm_epoch) {
      perm = data::permutation(nb, data::derive_seed(o.seed, epoch));
      perm_epoch = epoch;
    }
    const auto& batch = data.batches[perm[static_cast<uint64_t>(k) % nb]];
    // The loss is the batch's summed NLL over its scored targets divided by their number;
    // a rank takes its rows' share of the sum, so the ranks' gradients add up to the batch's.
    const double scored = static_cast<double>(batch.scored);
    optimizer.zero_grad();
    double value = 0;
    if (!sharded) {
      auto logits = model.forward(batch.ids.to(device));
      auto loss = summed_nll(logits, batch.targets.to(device)) / scored;
      loss.backward();
      value = loss.item<double>();
    } else {
      const int64_t rows = batch.rows();
      const int64_t begin = rows * o.shard->rank / o.shard->world;
      const int64_t end = rows * (o.shard->rank + 1) / o.shard->world;
      std::vector<double> sum = {0.0, 0.0};  // the loss, then whether a rank was cancelled
      if (end > begin) {
        auto logits = model.forward(batch.ids.slice(0, begin, end).to(device));
        auto loss = summed_nll(logits, batch.targets.slice(0, begin, end).to(device)) / scored;
        loss.backward();
        sum[0] = loss.item<double>();
      }
      my_rows += end - begin;
      // Every parameter takes part in the sum (a rank without rows adds zeros), flattened
      // into one buffer: one collective a step, in the same order on every rank.
      std::vector<torch::Tensor> flat;
      flat.reserve(params.size());
      for (auto& p : params) {
        flat.push_back(p.grad().defined() ? p.grad().reshape({-1})
                                          : torch::zeros({p.numel()}, p.options()));
      }
      std::vector<torch::Tensor> buffer = {torch::cat(flat)};
      sum_over_ranks(o.shard, buffer);
      {
        torch::NoGradGuard no_grad;
        int64_t offset = 0;
        for (auto& p : params) {
          auto part = buffer[0].slice(0, offset, offset + p.numel()).view(p.sizes());
          if (p.grad().defined()) {
            p.mutable_grad().copy_(part);
          } else {
            p.mutable_grad() = part.clone();
          }
          offset += p.numel();
        }
      }
      // A cancel goes through the reduction, so that every rank stops at the same step
      // instead of one waiting for the others in the next collective.
      sum[1] = progress.token().cancelled() ? 1.0 : 0.0;
      sum_over_ranks(o.shard, sum);
      if (sum[1] > 0) throw CancelledError();
      value = sum[0];
    }
    optimizer.step();
    if (!std::isfinite(value)) {
      fail(
          "preliminary fine-tuning diverged at step {} (loss {}); lower the learning rate "
          "(now {})",
          k + 1, value, o.lr);
    }
    losses.push_back(value);
    if (after_step) after_step(k + 1);
    try {
      progress.report(static_cast<double>(k + 1) / static_cast<double>(o.steps),
                      "step " + std::to_string(k + 1) + "/" + std::to_string(o.steps));
    } catch (const CancelledError&) {
      if (!sharded) throw;  // sharded: the next step's reduction stops every rank
    }
  }
  if (sharded && rows_by_rank) *rows_by_rank = batches_by_rank(o.shard, my_rows);
  log::get("importance")
      ->info("preliminary fine-tuning: {} steps, lr {}, loss {:.4f} -> {:.4f}", o.steps, o.lr,
             losses.front(), losses.back());
  return losses;
}

}  // namespace gb::importance::detail
