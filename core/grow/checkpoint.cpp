// Saving and loading grown models (contract in grow/checkpoint.h).
//
// A GrowBench checkpoint is rebuilt generically: base config → CausalLM (SkipInitGuard) →
// apply_plan with ApplyContext::structure_only (every operator creates its modules with the
// right shapes and sets requires_grad as the plan prescribes) → every parameter and buffer
// from model.safetensors under its registered name. Nothing here knows any variant: a new
// operator is saved and reloaded correctly as long as it registers its tensors and honours
// structure_only.
#include "grow/checkpoint.h"

#include <filesystem>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <torch/torch.h>

#include "model/safetensors.h"
#include "model/tensor_io.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"

namespace gb::grow {

namespace fs = std::filesystem;

namespace {

constexpr const char* kMarker = "growbench.json";
constexpr const char* kFormat = "growbench-checkpoint";
constexpr const char* kWeights = "model.safetensors";
constexpr int kVersion = 1;

std::string shape_str(c10::IntArrayRef s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string list_some(const std::vector<std::string>& names) {
  std::string list;
  for (size_t i = 0; i < names.size() && i < 8; ++i) list += (i ? ", " : "") + names[i];
  if (names.size() > 8) list += fmt::format(", ... ({} in all)", names.size());
  return list;
}

// Every defined parameter and buffer of the model under its registered name, each tensor
// once: a tensor registered under two names (shared weights) is stored under the first.
std::vector<std::pair<std::string, torch::Tensor>> state_tensors(CausalLMImpl& model) {
  std::vector<std::pair<std::string, torch::Tensor>> out;
  std::unordered_set<const void*> seen;
  auto add = [&](const std::string& name, const torch::Tensor& t) {
    if (!t.defined()) return;
    if (!seen.insert(t.unsafeGetTensorImpl()).second) return;
    out.emplace_back(name, t);
  };
  for (const auto& item : model.named_parameters(true)) add(item.key(), item.value());
  for (const auto& item : model.named_buffers(true)) add(item.key(), item.value());
  return out;
}

void copy_tokenizer_files(const std::string& source, const std::string& out_dir) {
  for (const auto& f : tokenizer_files(source)) {
    fs::path dst = fs::path(out_dir) / fs::path(f).filename();
    if (fs::exists(dst) && fs::equivalent(f, dst)) continue;
    fs::copy_file(f, dst, fs::copy_options::overwrite_existing);
  }
}

SavedModel save_growbench(CausalLMImpl& model, const ModelConfig& base_config,
                          const GrowthPlan* plan, const std::string& out_dir,
                          const std::string& tokenizer_source) {
  torch::NoGradGuard no_grad;
  std::vector<std::pair<std::string, torch::Tensor>> tensors;
  for (auto& [name, t] : state_tensors(model)) tensors.emplace_back(name, t.detach());
  // Written as a whole (util/files.h): no stale config.json or weights of an earlier model
  // survive next to these, and a kill leaves the old folder intact.
  StagedFolder staged(out_dir);
  const fs::path dir(staged.path());
  st::write_tensors((dir / kWeights).string(), tensors, {{"format", "pt"}, {"growbench", kFormat}});
  nlohmann::json meta = {{"format", kFormat},
                         {"version", kVersion},
                         {"base_config", to_hf_json(base_config)},
                         {"plan", plan ? to_json(*plan) : nlohmann::json()},
                         {"growbench_version", GB_VERSION}};
  write_file_atomic((dir / kMarker).string(), meta.dump(2) + "\n");
  copy_tokenizer_files(tokenizer_source, dir.string());
  staged.commit();
  log::get("grow")->info("wrote GrowBench checkpoint ({} tensors) to {}", tensors.size(), out_dir);
  SavedModel s;
  s.folder = out_dir;
  s.format = SaveFormat::GrowBench;
  return s;
}

LoadedModel load_growbench(const std::string& folder, const LoadOptions& options) {
  const std::string marker = (fs::path(folder) / kMarker).string();
  const nlohmann::json meta = json::parse_file(marker);
  if (!meta.is_object() || meta.value("format", std::string()) != kFormat) {
    fail("{}: 'format' must be \"{}\"; this file was not written by GrowBench's save_model", marker,
         kFormat);
  }
  const int version = json::get<int>(meta, "version", marker);
  if (version != kVersion) {
    fail("{}: checkpoint format version {} is not supported (this GrowBench reads version {})",
         marker, version, kVersion);
  }
  LoadedModel lm;
  lm.folder = folder;
  lm.config = parse_config(json::get<nlohmann::json>(meta, "base_config", marker),
                           marker + " (base_config)");
  {
    SkipInitGuard skip;
    lm.model = CausalLM(lm.config);
  }
  const nlohmann::json plan_json = meta.contains("plan") ? meta["plan"] : nlohmann::json();
  if (!plan_json.is_null()) {
    GrowthPlan plan = parse_plan(plan_json, marker + " (plan)");
    ApplyContext ctx;
    ctx.structure_only = true;
    GrowthResult r = apply_plan(*lm.model, plan, ctx);
    lm.plan = to_json(r.plan);
  }

  const std::string weights = (fs::path(folder) / kWeights).string();
  if (!file_exists(weights)) {
    fail("{}: no {} next to {}; the checkpoint is incomplete", folder, kWeights, kMarker);
  }
  st::Checkpoint ck(weights);
  std::vector<std::string> missing;
  std::set<std::string> consumed;
  torch::NoGradGuard no_grad;
  std::unordered_set<const void*> filled;
  auto fill = [&](const std::string& name, torch::Tensor& t, bool is_param) {
    if (!t.defined()) return;
    if (!filled.insert(t.unsafeGetTensorImpl()).second) return;  // shared: filled already
    if (!ck.contains(name)) {
      missing.push_back(name);
      return;
    }
    const st::TensorInfo& info = ck.info(name);
    if (c10::IntArrayRef(info.shape) != t.sizes()) {
      fail(
          "{}: tensor '{}' has shape {} but the model rebuilt from the base config and plan "
          "expects {}; hint: was {} edited, or written by another version?",
          weights, name, shape_str(info.shape), shape_str(t.sizes()), kMarker);
    }
    consumed.insert(name);
    c10::optional<torch::ScalarType> dtype;
    if (is_param && t.is_floating_point()) dtype = options.dtype;
    t.set_data(st::to_tensor(info, ck.data(name), dtype, options.device));
  };
  for (auto& item : lm.model->named_parameters(true)) fill(item.key(), item.value(), true);
  for (auto& item : lm.model->named_buffers(true)) fill(item.key(), item.value(), false);
  if (!missing.empty()) {
    fail(
        "{}: {} tensor(s) of the grown model ({} plan) are missing: {}; hint: the checkpoint "
        "does not match its {}",
        weights, missing.size(),
        plan_json.is_null() ? std::string("no") : plan_json.value("variant", std::string("?")),
        list_some(missing), kMarker);
  }
  std::vector<std::string> unexpected;
  for (const auto& n : ck.names()) {
    if (!consumed.count(n)) unexpected.push_back(n);
  }
  if (!unexpected.empty()) {
    fail("{}: {} unexpected tensor(s) that the base config and plan in {} do not describe: {}",
         weights, unexpected.size(), kMarker, list_some(unexpected));
  }
  lm.model->to(options.device);
  lm.model->eval();
  lm.tokenizer_file = find_tokenizer(folder);
  if (options.check_finite) check_finite_weights(*lm.model, folder);
  log::get("grow")->info("loaded GrowBench checkpoint {} ({} parameters, {} trainable)", folder,
                         count_parameters(*lm.model), count_parameters(*lm.model, true));
  return lm;
}

}  // namespace

bool is_growbench_checkpoint(const std::string& folder) {
  return file_exists((fs::path(folder) / kMarker).string());
}

SavedModel save_model(CausalLMImpl& model, const ModelConfig& base_config, const GrowthPlan* plan,
                      const std::string& out_dir, const std::string& tokenizer_source,
                      SaveFormat format) {
  std::string reason;
  const bool expressible = is_hf_expressible(model, &reason);
  if (format == SaveFormat::HuggingFace && !expressible) {
    fail("cannot write a plain {} checkpoint to {}: {}; save a GrowBench checkpoint instead",
         model.config.model_type, out_dir, reason);
  }
  if (format == SaveFormat::HuggingFace || (format == SaveFormat::Auto && expressible)) {
    export_hf(model, out_dir, tokenizer_source);  // a staged folder: no stale marker survives
    SavedModel s;
    s.folder = out_dir;
    s.format = SaveFormat::HuggingFace;
    return s;
  }
  if (!plan && !expressible) {
    fail(
        "cannot save to {}: the model is grown ({}) but no plan was given; a GrowBench "
        "checkpoint needs the plan to rebuild its structure",
        out_dir, reason);
  }
  SavedModel s = save_growbench(model, base_config, plan, out_dir, tokenizer_source);
  s.reason = format == SaveFormat::GrowBench ? "GrowBench format requested" : reason;
  return s;
}

LoadedModel load_model(const std::string& folder, const LoadOptions& options) {
  if (is_growbench_checkpoint(folder)) return load_growbench(folder, options);
  return load_hf_model(folder, options);
}

}  // namespace gb::grow
