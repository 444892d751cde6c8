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
                                         Progress& progress) {
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
  for (int64_t k = 0; k < o.steps; ++k) {
    const uint64_t epoch = static_cast<uint64_t>(k) / nb;
    if (epoch != perm_epoch) {
      perm = data::permutation(nb, data::derive_seed(o.seed, epoch));
      perm_epoch = epoch;
    }
    const auto& batch = data.batches[perm[static_cast<uint64_t>(k) % nb]];
    auto logits = model.forward(batch.ids.to(device));
    auto loss = summed_nll(logits, batch.targets.to(device)) / static_cast<double>(batch.scored);
    optimizer.zero_grad();
    loss.backward();
    optimizer.step();
    const double value = loss.item<double>();
    if (!std::isfinite(value)) {
      fail(
          "preliminary fine-tuning diverged at step {} (loss {}); lower the learning rate "
          "(now {})",
          k + 1, value, o.lr);
    }
    losses.push_back(value);
    if (after_step) after_step(k + 1);
    progress.report(static_cast<double>(k + 1) / static_cast<double>(o.steps),
                    "step " + std::to_string(k + 1) + "/" + std::to_string(o.steps));
  }
  log::get("importance")
      ->info("preliminary fine-tuning: {} steps, lr {}, loss {:.4f} -> {:.4f}", o.steps, o.lr,
             losses.front(), losses.back());
  return losses;
}

}  // namespace gb::importance::detail
