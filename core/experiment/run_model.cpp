// The model of a stored run at its latest checkpoint (experiment/run_model.h).
#include "experiment/run_model.h"

#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <torch/torch.h>

#include "data/tokenized.h"
#include "experiment/preset.h"
#include "experiment/spec.h"
#include "grow/checkpoint.h"
#include "grow/growth.h"
#include "model/tensor_io.h"
#include "store/store.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"

namespace gb::experiment {

namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {
std::string shape_text(const torch::Tensor& t) {
  std::string s = "[";
  for (int64_t i = 0; i < t.dim(); ++i) s += (i ? ", " : "") + std::to_string(t.size(i));
  return s + "]";
}
}  // namespace

RunModel load_run_model(const std::string& db_path, int64_t run_id, const LoadOptions& options,
                        const std::string& cache_dir) {
  if (!file_exists(db_path)) fail("no run store at '{}'", db_path);
  store::Store store = store::Store::open(db_path, store::OpenMode::ReadOnly);
  const store::RunInfo info = store.get_run(run_id);
  const auto ckpt = store.latest_checkpoint(run_id);
  if (!ckpt) {
    fail("run {} ({}, status {}) has no checkpoint yet: its trained weights were never saved",
         run_id, info.name, store::to_string(info.status));
  }
  const fs::path meta_path = fs::path(ckpt->path) / "trainer.json";
  if (!file_exists(meta_path.string())) {
    fail("run {}: its checkpoint folder {} is gone or incomplete (no trainer.json)", run_id,
         ckpt->path);
  }
  const ExperimentSpec spec = parse_spec(json::parse(info.spec, fmt::format("run {} spec", run_id)),
                                         "", fmt::format("run {} spec", run_id));
  RunModel r;
  r.run_id = run_id;
  r.step = ckpt->step;
  r.checkpoint = ckpt->path;
  if (spec.model.preset) {
    r.base_folder = ensure_preset(*spec.model.preset, spec.seed,
                                  cache_dir.empty() ? data::default_cache_dir() : cache_dir, {});
  } else {
    r.base_folder = spec.model.path;
  }
  r.loaded = grow::load_model(r.base_folder, options);
  if (!r.loaded.plan.is_null()) {
    fail("run {}: its base model {} is itself a grown GrowBench checkpoint", run_id, r.base_folder);
  }

  // The checkpoint's resolved plan (layers explicit). The trained A and B of a plan made from
  // a PEFT adapter are in the checkpoint: the adapter folder is not needed again.
  Json plan_json = json::parse_file(meta_path.string()).at("extra").at("plan");
  plan_json.erase("from_peft");
  const grow::GrowthPlan plan = grow::parse_plan(plan_json, fmt::format("run {} plan", run_id));
  grow::ApplyContext ctx;
  ctx.seed = spec.run_seed;
  // EWC is full fine-tuning plus a penalty: every parameter is in the checkpoint, and the
  // penalty (which needs a Fisher) plays no part in the weights.
  ctx.structure_only = plan.variant == grow::Variant::Ewc;
  CausalLMImpl& model = *r.loaded.model;
  const grow::GrowthResult grown = grow::apply_plan(model, plan, ctx);
  r.plan = grow::to_json(grown.plan);

  const auto trainable = st::read_all((fs::path(ckpt->path) / "trainable.safetensors").string());
  std::set<std::string> expected;
  torch::NoGradGuard no_grad;
  for (auto& item : model.named_parameters(true)) {
    if (!item.value().requires_grad()) continue;
    expected.insert(item.key());
    auto it = trainable.find(item.key());
    if (it == trainable.end()) {
      fail("run {}: checkpoint {} lacks the trained tensor '{}' of its plan", run_id, ckpt->path,
           item.key());
    }
    if (it->second.sizes() != item.value().sizes()) {
      fail("run {}: checkpoint {} holds '{}' with shape {}, the plan's model {}", run_id,
           ckpt->path, item.key(), shape_text(it->second), shape_text(item.value()));
    }
    item.value().copy_(it->second);
  }
  for (const auto& [name, t] : trainable) {
    if (!expected.count(name)) {
      fail("run {}: checkpoint {} holds '{}', which the plan does not train", run_id, ckpt->path,
           name);
    }
  }
  for (auto& p : model.parameters(true)) p.set_requires_grad(false);
  model.eval();
  return r;
}

}  // namespace gb::experiment
