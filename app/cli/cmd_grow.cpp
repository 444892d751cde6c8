// growbench-cli grow: applies a growth plan to a model, reports parameter counts and
// function preservation on a fixed random batch, and writes the grown model.
#include <algorithm>
#include <cctype>
#include <cstdio>

#include <torch/torch.h>

#include "common.h"
#include "human_events.h"
#include "grow/checkpoint.h"
#include "grow/growth.h"
#include "grow/lora.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"

namespace gb::cli {
namespace {

constexpr int64_t kBatch = 2;
constexpr int64_t kLength = 16;

// --plan: inline JSON (starts with '{') or the path of a JSON file.
nlohmann::json read_plan_arg(const std::string& value) {
  auto first =
      std::find_if(value.begin(), value.end(), [](unsigned char c) { return !std::isspace(c); });
  if (first != value.end() && *first == '{') return json::parse(value, "--plan");
  if (!file_exists(value)) {
    throw UsageError("--plan '" + value +
                     "' is neither inline JSON (starting with '{') nor an existing file");
  }
  return json::parse_file(value);
}

grow::SaveFormat parse_format(const std::string& s) {
  if (s == "auto") return grow::SaveFormat::Auto;
  if (s == "hf" || s == "huggingface") return grow::SaveFormat::HuggingFace;
  return grow::SaveFormat::GrowBench;  // "growbench": the declaration allows no other value
}

const char* format_name(grow::SaveFormat f) {
  switch (f) {
    case grow::SaveFormat::HuggingFace:
      return "huggingface";
    case grow::SaveFormat::GrowBench:
      return "growbench";
    case grow::SaveFormat::Auto:
      return "auto";
  }
  return "?";
}

std::string with_commas(int64_t n) {
  std::string s = std::to_string(n < 0 ? -n : n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(i, ",");
  return n < 0 ? "-" + s : s;
}

struct GrowOptions {
  ModelArg model;
  std::string plan, peft, out, format = "auto";
  int64_t seed = 0;
  bool json = false;
  bool force = false;
};

void declare_grow(CLI::App& app, GrowOptions& o) {
  declare_model(app, o.model);
  add_option(app, "--plan", o.plan, "PLAN",
             "a plan file, or inline JSON such as\n"
             "'{\"variant\":\"grow\",\"mode\":\"freeze\",\"k\":2,\"layers\":\"all\"}'\n"
             "(growbench-cli variants and docs/plans.md list every variant and key).\n"
             "Layer policies ({\"policy\": ...}) need importance probes: use\n"
             "growbench-cli run, or give explicit layers here.");
  add_option(app, "--peft", o.peft, "DIR",
             "instead of --plan: a PEFT LoRA adapter folder (adapter_config.json,\n"
             "adapter_model.safetensors), applied and merged into the weights");
  add_option(app, "--out", o.out, "DIR",
             "output folder (created; tokenizer files are copied from MODEL)")
      ->required();
  add_flag(app, "--json", o.json,
           "print one JSON object: plan, label, base_params, total_params,\n"
           "added_params, trainable_params, trainable_share, max_abs_logit_diff,\n"
           "function_preserving, format, format_reason, out, new_layers,\n"
           "unit_lr_layers (ADEPT stage 2's layers), loss_terms, groups");
  add_option(app, "--seed", o.seed, "S",
             "seed of the random batch and of new parameters' initialisation")
      ->check(at_least(0));
  add_option(app, "--format", o.format, "F",
             "auto: plain when expressible, else GrowBench; hf: plain or fail;\n"
             "growbench: always a GrowBench checkpoint (keeps LoRA adapters and the\n"
             "trainable split of grown projections)")
      ->check(one_of({"auto", "hf", "growbench"}, {"huggingface"}));
  declare_force(app, o.force);
}

int run_grow(const GrowOptions& o) {
  const std::string& model_path = o.model.path;
  const std::string& out = o.out;
  if (o.plan.empty() == o.peft.empty()) {
    throw UsageError(o.plan.empty() ? "missing required option --plan (or --peft DIR)"
                                    : "give --plan or --peft, not both");
  }
  if (!o.peft.empty() && o.format == "growbench") {
    throw UsageError(
        "--peft merges the adapter into a plain folder; to keep the LoRA units in a GrowBench "
        "checkpoint give --plan '{\"variant\": \"lora\", \"from_peft\": DIR}' --format "
        "growbench");
  }
  // A PEFT adapter is a LoRA plan whose A and B come from the adapter (grow/peft.h).
  const nlohmann::json plan_json = o.peft.empty()
                                       ? read_plan_arg(o.plan)
                                       : nlohmann::json{{"variant", "lora"}, {"from_peft", o.peft}};
  const int64_t seed = o.seed;
  const grow::SaveFormat format = parse_format(o.format);
  const bool as_json = o.json;
  refuse_output_over_input(model_path, out, o.force);

  grow::GrowthPlan plan = grow::parse_plan(plan_json);
  if (const grow::LayerSelection* sel = plan.layers()) {
    if (sel->kind == grow::LayerSelection::Kind::Policy) {
      fail(
          "plan: the layer policy {} is resolved from importance probes by `growbench-cli run` "
          "(an experiment); `grow` needs explicit layers: a list such as [0, 3] or \"all\"",
          sel->policy.dump());
    }
  }

  // On a terminal: each stage on one line in place, cleared before the summary.
  TerminalProgress terminal = TerminalProgress::on_terminal();
  terminal.stage("loading " + model_path);
  LoadedModel m = grow::load_model(model_path, load_options(o.model));
  if (!m.plan.is_null()) {
    fail(
        "{} is a GrowBench checkpoint, already grown by the plan {}; `grow` applies a plan to "
        "a plain model (a Hugging Face folder, or a grown model exported as one)",
        model_path, m.plan.dump());
  }
  CausalLMImpl& model = *m.model;
  model.eval();

  // A fixed random batch (seeded): the base model's logits, then the grown model's.
  const auto device = load_options(o.model).device;
  const int64_t length = std::min<int64_t>(kLength, std::max<int64_t>(1, m.config.max_positions));
  auto gen = at::detail::createCPUGenerator(static_cast<uint64_t>(seed));
  auto ids = torch::randint(0, m.config.vocab_size, {kBatch, length}, gen, torch::kLong).to(device);
  torch::Tensor base_logits;
  terminal.stage("the base model's logits on a random batch");
  {
    torch::NoGradGuard no_grad;
    base_logits = model.forward(ids).to(torch::kFloat);
  }
  const ModelConfig base_config = m.config;

  grow::ApplyContext ctx;
  ctx.seed = static_cast<uint64_t>(seed);
  terminal.stage("applying " + plan.label());
  grow::GrowthResult r = grow::apply_plan(model, plan, ctx);
  terminal.stage("the grown model's logits");
  model.eval();
  double max_diff = 0;
  {
    torch::NoGradGuard no_grad;
    auto grown = model.forward(ids).to(torch::kFloat);
    max_diff = (grown - base_logits).abs().max().item<double>();
  }

  if (!o.peft.empty()) {
    // Merged: every LoRA unit becomes a dense W + (alpha / r) B A.
    grow::merge_lora(model);
  }
  terminal.stage("writing " + out);
  grow::SavedModel saved = grow::save_model(model, base_config, &r.plan, out, m.folder, format);
  terminal.clear();
  const double share = r.base_params > 0 ? double(r.trainable_params) / r.base_params : 0.0;
  const double added_share = r.base_params > 0 ? double(r.added_params()) / r.base_params : 0.0;
  nlohmann::json summary = r.to_json();

  if (as_json) {
    nlohmann::json j = {{"plan", summary["plan"]},
                        {"label", summary["label"]},
                        {"base_params", r.base_params},
                        {"total_params", r.total_params},
                        {"added_params", r.added_params()},
                        {"trainable_params", r.trainable_params},
                        {"trainable_share", share},
                        {"max_abs_logit_diff", max_diff},
                        {"function_preserving", r.function_preserving},
                        {"format", format_name(saved.format)},
                        {"format_reason", saved.reason},
                        {"out", saved.folder},
                        {"new_layers", r.new_layers},
                        {"unit_lr_layers", r.unit_lr_layers},
                        {"loss_terms", summary["loss_terms"]},
                        {"groups", summary["groups"]}};
    print_json(j);
    return 0;
  }
  std::printf("plan:              %s\n", r.plan.label().c_str());
  std::printf("base parameters:   %s\n", with_commas(r.base_params).c_str());
  std::printf("added parameters:  %s (%.2f%% of the base)\n", with_commas(r.added_params()).c_str(),
              100.0 * added_share);
  std::printf("total parameters:  %s\n", with_commas(r.total_params).c_str());
  std::printf("trainable:         %s (%.2f%% of the base) in %zu group(s)\n",
              with_commas(r.trainable_params).c_str(), 100.0 * share, r.groups.size());
  std::printf("max |logit diff|:  %.3g on a random batch of %lld x %lld tokens (seed %lld)\n",
              max_diff, static_cast<long long>(kBatch), static_cast<long long>(length),
              static_cast<long long>(seed));
  std::printf("function preserving at initialisation: %s by the method%s\n",
              r.function_preserving ? "claimed" : "not claimed",
              r.function_preserving ? (max_diff <= 1e-5 ? " (holds)" : " (DOES NOT HOLD)") : "");
  if (saved.format == grow::SaveFormat::HuggingFace) {
    std::printf("wrote a plain Hugging Face folder to %s (the grown model is a plain %s)\n",
                saved.folder.c_str(), model.config.model_type.c_str());
  } else {
    std::printf("wrote a GrowBench checkpoint to %s (%s); GrowBench reloads it exactly\n",
                saved.folder.c_str(), saved.reason.c_str());
  }
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "grow",
    "grow MODEL --plan PLAN|--peft DIR --out DIR [--json] [--seed S] "
    "[--format auto|hf|growbench] [--device D] [--dtype T] [--force]",
    "Applies a growth plan to MODEL and writes the grown model.\n\n"
    "Prints the parameters added and the trainable parameters (absolute and as a share of the\n"
    "base model), the maximum absolute difference between the base and the grown model's\n"
    "logits on a fixed random batch (2 x 16 token ids drawn with --seed), and whether the\n"
    "variant claims to preserve the function at initialisation (grow, depth, lora, full,\n"
    "freeze, scale preserve/adapt and the adapters do; SCALE Route does not).\n\n"
    "The grown model is written as a plain Hugging Face folder when it is expressible in its\n"
    "family's architecture (Grow on every layer: larger intermediate_size; depth expansion:\n"
    "more layers; LoRA: merged weights; full/freeze: unchanged), otherwise as a GrowBench\n"
    "checkpoint (growbench.json + model.safetensors) that every growbench-cli command loads.\n"
    "The output says which and why.\n\n"
    "--peft DIR merges a PEFT LoRA adapter into MODEL's weights (W + scaling B A, scaling =\n"
    "lora_alpha / r, or lora_alpha / sqrt(r) with use_rslora) and writes a plain folder.",
    &declare_grow, &run_grow,
    "EWC needs the Fisher information of a probe and runs only through growbench-cli run.");

}  // namespace gb::cli
