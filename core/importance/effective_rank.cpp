#include "importance/effective_rank.h"

#include <cmath>
#include <filesystem>

#include <torch/torch.h>

#include "grow/checkpoint.h"
#include "model/arch.h"
#include "util/error.h"

namespace gb::importance {

double effective_rank(const torch::Tensor& matrix) {
  if (matrix.dim() != 2) {
    fail("effective rank: expected a matrix, found a tensor with {} dimensions", matrix.dim());
  }
  torch::NoGradGuard no_grad;
  auto s = at::linalg_svdvals(matrix.detach().to(torch::kCPU, torch::kDouble));
  const double total = s.sum().item<double>();
  if (!(total > 0)) return 0.0;  // the zero matrix (see the header)
  auto p = s / total;
  auto positive = p.masked_select(p > 0);
  const double entropy = -(positive * positive.log()).sum().item<double>();
  return std::exp(entropy);
}

namespace {
std::string shape_of(const torch::Tensor& t) {
  std::string s;
  for (int64_t d : t.sizes()) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}
}  // namespace

ProbeResult EffectiveRankStages::result() const {
  ProbeResult r;
  r.method = methods::kEffectiveRank;
  r.stage_names = stage_names;
  r.stage_steps = stage_steps;
  r.stages = values;
  r.layers.assign(values.size(), kMissing);
  for (size_t l = 0; l < values.size(); ++l) {
    if (!values[l].empty()) r.layers[l] = values[l].back();
  }
  r.details = {{"reference", delta_reference_name(reference)}, {"unit", "up"}};
  return r;
}

std::vector<torch::Tensor> up_projections(CausalLMImpl& model) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> out;
  for (int64_t l = 0; l < model.num_layers(); ++l) {
    out.push_back(model.layer(l)
                      ->mlp->up_proj->dense_weight()
                      .detach()
                      .to(torch::kCPU, torch::kFloat)
                      .clone());
  }
  return out;
}

std::vector<torch::Tensor> up_projections(const std::map<std::string, torch::Tensor>& state,
                                          const std::string& context) {
  std::vector<torch::Tensor> out;
  for (int64_t l = 0;; ++l) {
    const std::string name =
        arch::names::layer_prefix(l) + arch::names::unit_path("up") + ".weight";
    auto it = state.find(name);
    if (it == state.end()) break;
    out.push_back(it->second.detach().to(torch::kCPU, torch::kFloat));
  }
  if (out.empty()) {
    fail(
        "{}: no up projection found (expected tensors named like "
        "'model.layers.0.mlp.up_proj.weight')",
        context);
  }
  return out;
}

EffectiveRankStages effective_rank_stages(const std::vector<torch::Tensor>& base,
                                          const std::vector<std::vector<torch::Tensor>>& stages,
                                          const std::vector<std::string>& stage_names,
                                          DeltaReference reference) {
  if (stage_names.size() != stages.size()) {
    fail("effective rank: {} stage names for {} stages", stage_names.size(), stages.size());
  }
  const size_t n_layers = base.size();
  EffectiveRankStages out;
  out.reference = reference;
  out.stage_names = stage_names;
  out.values.assign(n_layers, std::vector<double>(stages.size(), kMissing));
  for (size_t s = 0; s < stages.size(); ++s) {
    if (stages[s].size() != n_layers) {
      fail("effective rank: stage '{}' has {} layers, the base model {}", stage_names[s],
           stages[s].size(), n_layers);
    }
    const auto& previous = reference == DeltaReference::Base || s == 0 ? base : stages[s - 1];
    for (size_t l = 0; l < n_layers; ++l) {
      if (stages[s][l].sizes() != previous[l].sizes()) {
        fail(
            "effective rank: the up projection of layer {} at stage '{}' has shape {}, the "
            "reference {} (checkpoints must share the architecture)",
            l, stage_names[s], shape_of(stages[s][l]), shape_of(previous[l]));
      }
      out.values[l][s] =
          effective_rank(stages[s][l].to(torch::kDouble) - previous[l].to(torch::kDouble));
    }
  }
  return out;
}

EffectiveRankStages effective_rank_of_checkpoints(CausalLMImpl& base,
                                                  const std::vector<std::string>& folders,
                                                  DeltaReference reference, Progress progress) {
  if (folders.empty()) fail("effective rank: no checkpoints given");
  progress.begin("probe/effective-rank");
  auto base_up = up_projections(base);
  std::vector<std::vector<torch::Tensor>> stages;
  std::vector<std::string> names;
  for (size_t i = 0; i < folders.size(); ++i) {
    LoadedModel m = grow::load_model(folders[i]);
    stages.push_back(up_projections(*m.model));
    names.push_back(std::filesystem::path(folders[i]).filename().string());
    if (names.back().empty()) names.back() = folders[i];
    progress.report(static_cast<double>(i + 1) / static_cast<double>(folders.size()), names.back());
  }
  return effective_rank_stages(base_up, stages, names, reference);
}

}  // namespace gb::importance
