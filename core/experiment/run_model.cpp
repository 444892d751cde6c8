#include "experiment/run_model.h"

#include <filesystem>
#include <unordered_map>

#include <fmt/format.h>
#include <torch/torch.h>

#include "experiment/preset.h"
#include "grow/checkpoint.h"
#include "model/tensor_io.h"
#include "util/error.h"
#include "util/json.h"
#include "util/progress.h"

namespace gb::experiment {

namespace fs = std::filesystem;

std::string spec_base_folder(const ExperimentSpec& spec, const std::string& cache_dir) {
  if (!spec.model.preset) return spec.model.path;
  return ensure_preset(*spec.model.preset, spec.seed, cache_dir, Progress{});
}

namespace {

RunModel rebuild(store::Store& store, int64_t run_id, const store::CheckpointInfo& ckpt,
                 const std::string& cache_dir, bool restore) {
  const store::RunInfo info = store.get_run(run_id);
  RunModel rm;
  rm.spec = parse_spec(json::parse(info.spec, fmt::format("run {} spec", run_id)));
  rm.base_folder = spec_base_folder(rm.spec, cache_dir);
  rm.step = restore ? ckpt.step : 0;
  const fs::path dir(ckpt.path);
  if (!fs::exists(dir / "trainer.json")) {
    fail("run {}: checkpoint {} (step {}) is missing or incomplete (no trainer.json)", run_id,
         ckpt.path, ckpt.step);
  }
  const auto meta = json::parse_file((dir / "trainer.json").string());
  if (!meta.contains("extra") || !meta["extra"].contains("plan")) {
    fail("run {}: checkpoint {} holds no resolved plan", run_id, ckpt.path);
  }
  grow::GrowthPlan plan = grow::parse_plan(meta["extra"]["plan"], "checkpoint plan");
  // EWC's penalty needs a Fisher; its weights are full fine-tuning's.
  if (plan.variant == grow::Variant::Ewc) plan.variant = grow::Variant::Full;
  rm.model = grow::load_model(rm.base_folder);
  grow::ApplyContext actx;
  actx.seed = rm.spec.run_seed;
  rm.growth = grow::apply_plan(*rm.model.model, plan, actx);
  if (!restore) return rm;
  auto trainable = st::read_all((dir / "trainable.safetensors").string());
  std::unordered_map<std::string, torch::Tensor> params;
  for (auto& item : rm.model.model->named_parameters(true)) params[item.key()] = item.value();
  torch::NoGradGuard no_grad;
  for (const auto& [name, value] : trainable) {
    auto it = params.find(name);
    if (it == params.end()) {
      fail("run {}: checkpoint {} holds '{}', which the plan's model does not have", run_id,
           ckpt.path, name);
    }
    if (it->second.sizes() != value.sizes()) {
      fail("run {}: checkpoint {}: '{}' has another shape than the plan's model", run_id,
           ckpt.path, name);
    }
    it->second.copy_(value);
  }
  return rm;
}

}  // namespace

RunModel load_run_model(store::Store& store, int64_t run_id,
                        const store::CheckpointInfo& checkpoint, const std::string& cache_dir) {
  return rebuild(store, run_id, checkpoint, cache_dir, true);
}

RunModel load_run_initial_model(store::Store& store, int64_t run_id,
                                const store::CheckpointInfo& checkpoint,
                                const std::string& cache_dir) {
  return rebuild(store, run_id, checkpoint, cache_dir, false);
}

}  // namespace gb::experiment
