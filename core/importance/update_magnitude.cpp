#include "importance/update_magnitude.h"

#include <cmath>

#include <torch/torch.h>

#include "importance/effective_rank.h"
#include "importance/preliminary.h"
#include "model/arch.h"
#include "util/error.h"

namespace gb::importance {

namespace {

// Copies every parameter (value and requires_grad) and puts them back on destruction, so the
// model is unchanged after the preliminary run whatever happens.
class RestoreParameters {
 public:
  explicit RestoreParameters(CausalLMImpl& model) {
    torch::NoGradGuard no_grad;
    for (auto& item : model.named_parameters(true)) {
      m_saved.push_back(
          {item.key(), item.value(), item.value().detach().clone(), item.value().requires_grad()});
    }
  }
  ~RestoreParameters() {
    torch::NoGradGuard no_grad;
    for (auto& s : m_saved) {
      s.param.copy_(s.copy);
      s.param.mutable_grad().reset();
      s.param.set_requires_grad(s.requires_grad);
    }
  }
  RestoreParameters(const RestoreParameters&) = delete;
  RestoreParameters& operator=(const RestoreParameters&) = delete;

  struct Saved {
    std::string name;
    torch::Tensor param, copy;
    bool requires_grad;
  };
  const std::vector<Saved>& saved() const { return m_saved; }

 private:
  std::vector<Saved> m_saved;
};

}  // namespace

ProbeResult UpdateMagnitude::result() const {
  ProbeResult r;
  r.method = methods::kUpdateMagnitude;
  r.layers = magnitude;
  r.details = {{"relative", relative},
               {"normalisation", "none (Frobenius norm of W_T - W_0 over the layer)"},
               {"steps", losses.size()},
               {"losses", losses}};
  if (!rows_by_rank.empty()) r.details["rows_by_rank"] = rows_by_rank;
  return r;
}

UpdateMagnitude update_magnitude(CausalLMImpl& model, const ProbeSet& data,
                                 const UpdateMagnitudeOptions& o, Progress progress) {
  if (o.snapshot_every < 0) fail("update magnitude: snapshot_every must be >= 0");
  UpdateMagnitude out;
  progress.begin("probe/update-magnitude");
  RestoreParameters restore(model);
  out.snapshot_steps.push_back(0);
  out.up_snapshots.push_back(up_projections(model));
  detail::PreliminaryOptions po;
  po.steps = o.steps;
  po.lr = o.lr;
  po.weight_decay = o.weight_decay;
  po.seed = o.seed;
  po.shard = o.shard;
  auto after_step = [&](int64_t step) {
    const bool periodic = o.snapshot_every > 0 && step % o.snapshot_every == 0;
    if (periodic || step == o.steps) {
      out.snapshot_steps.push_back(step);
      out.up_snapshots.push_back(up_projections(model));
    }
  };
  out.losses =
      detail::preliminary_finetune(model, data, po, after_step, progress, &out.rows_by_rank);

  // ‖W_T − W_0‖_F and ‖W_0‖_F per layer, over every parameter registered under the layer.
  torch::NoGradGuard no_grad;
  const int64_t n_layers = model.num_layers();
  std::vector<double> delta_sq(n_layers, 0.0), base_sq(n_layers, 0.0);
  for (const auto& s : restore.saved()) {
    for (int64_t l = 0; l < n_layers; ++l) {
      if (s.name.rfind(arch::names::layer_prefix(l), 0) != 0) continue;
      auto w0 = s.copy.to(torch::kDouble);
      delta_sq[l] += (s.param.detach().to(torch::kDouble) - w0).pow(2).sum().item<double>();
      base_sq[l] += w0.pow(2).sum().item<double>();
      break;
    }
  }
  for (int64_t l = 0; l < n_layers; ++l) {
    out.magnitude.push_back(std::sqrt(delta_sq[l]));
    out.relative.push_back(base_sq[l] > 0 ? std::sqrt(delta_sq[l] / base_sq[l]) : kMissing);
  }
  return out;
}

}  // namespace gb::importance
