#include "experiment/run_model.h"

#include <filesystem>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <torch/torch.h>

#include "experiment/preset.h"
#include "grow/checkpoint.h"
#include "grow/variant.h"
#include "model/tensor_io.h"
#include "data/tokenized.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"
#include "util/progress.h"

namespace gb::experiment {

namespace fs = std::filesystem;

std::string spec_base_folder(const ExperimentSpec& spec, const std::string& cache_dir) {
  if (!spec.model.preset) return spec.model.path;
  return ensure_preset(*spec.model.preset, spec.seed, cache_dir, Progress{});
}

namespace {

std::string shape_text(const torch::Tensor& t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
  return s + "]";
}

RunModel rebuild(store::Store& store, int64_t run_id, const store::CheckpointInfo& ckpt,
                 const std::string& cache_dir, bool restore, const LoadOptions& options = {}) {
  const store::RunInfo info = store.get_run(run_id);
  RunModel rm;
  rm.run_id = run_id;
  rm.checkpoint = ckpt.path;
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
  // The trained A and B of a plan made from a PEFT adapter are in the checkpoint: the
  // adapter folder is not needed again.
  nlohmann::json plan_json = meta["extra"]["plan"];
  plan_json.erase("from_peft");
  grow::GrowthPlan plan = grow::parse_plan(plan_json, "checkpoint plan");
  // A variant whose operator needs more than the weights (EWC's penalty, a Fisher) rebuilds
  // them as another's (RunHooks::weights_as).
  if (const auto& as = grow::variant_module(plan.variant).run.weights_as; !as.empty()) {
    plan.variant = as;
  }
  rm.model = grow::load_model(rm.base_folder, options);
  if (!rm.model.plan.is_null()) {
    fail("run {}: its base model {} is itself a grown GrowBench checkpoint", run_id,
         rm.base_folder);
  }
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
      fail("run {}: checkpoint {} holds '{}' with shape {}, the plan's model {}", run_id, ckpt.path,
           name, shape_text(value), shape_text(it->second));
    }
    it->second.copy_(value);
  }
  for (auto& item : rm.model.model->named_parameters(true)) {
    if (item.value().requires_grad() && !trainable.count(item.key())) {
      fail("run {}: checkpoint {} lacks the trained tensor '{}' of its plan", run_id, ckpt.path,
           item.key());
    }
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

RunModel load_latest_run_model(const std::string& db_path, int64_t run_id,
                               const LoadOptions& options, const std::string& cache_dir) {
  if (!file_exists(db_path)) fail("no run store at '{}'", db_path);
  store::Store store = store::Store::open(db_path, store::OpenMode::ReadOnly);
  const store::RunInfo info = store.get_run(run_id);
  const auto ckpt = store.latest_checkpoint(run_id);
  if (!ckpt) {
    fail("run {} ({}, status {}) has no checkpoint yet: its trained weights were never saved",
         run_id, info.name, store::to_string(info.status));
  }
  RunModel rm = rebuild(store, run_id, *ckpt,
                        cache_dir.empty() ? data::default_cache_dir() : cache_dir, true, options);
  for (auto& p : rm.model.model->parameters(true)) p.set_requires_grad(false);
  rm.model.model->eval();
  return rm;
}

}  // namespace gb::experiment
