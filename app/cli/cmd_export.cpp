#include <cstdio>
#include <optional>

#include <fmt/format.h>

#include "common.h"
#include "experiment/run_model.h"
#include "grow/peft.h"
#include "util/paths.h"

namespace gb::cli {
namespace {

struct ExportOptions {
  ModelArg model;
  std::optional<int64_t> run;
  std::string db;
  std::string out;
  std::string format = "hf";
  bool force = false;
};

void declare_export(CLI::App& app, ExportOptions& o) {
  app.add_option("MODEL", o.model.path,
                 "a Hugging Face folder (config.json, model.safetensors or a sharded index,\n"
                 "tokenizer.json) or a GrowBench checkpoint folder (growbench.json); or\n"
                 "give --run")
      ->type_name("MODEL");
  declare_device_dtype(app, o.model, "dtype of the written weights");
  add_option(app, "--run", o.run, "ID", "export run ID of --db at its latest checkpoint")
      ->check(at_least(1));
  add_option(app, "--db", o.db, "DB",
             "the run store of --run (default: the default workspace's growbench.db)");
  add_option(app, "--out", o.out, "DIR", "the folder to write (created)")->required();
  add_option(app, "--format", o.format, "F",
             "hf: a Hugging Face folder (LoRA merged into the weights); peft: a\n"
             "PEFT LoRA adapter folder (adapter_config.json, adapter_model.safetensors)")
      ->check(one_of({"hf", "peft"}, {"huggingface"}));
  declare_force(app, o.force);
}

int run_export(const ExportOptions& o) {
  if (o.run && !o.model.path.empty()) throw UsageError("give MODEL or --run ID, not both");
  if (!o.run && o.model.path.empty()) throw UsageError("missing argument MODEL (or --run ID)");
  if (!o.run && !o.db.empty()) throw UsageError("--db applies with --run only");
  LoadedModel m;
  std::string base_folder, what;
  if (o.run) {
    const std::string db = o.db.empty() ? default_store_path() : o.db;
    experiment::RunModel rm = experiment::load_latest_run_model(db, *o.run, load_options(o.model));
    base_folder = rm.base_folder;
    refuse_output_over_input(base_folder, o.out, o.force);
    what = fmt::format("run {} (checkpoint of step {})", *o.run, rm.step);
    m = std::move(rm.model);
  } else {
    m = load_model_arg(o.model);
    refuse_output_over_input(o.model.path, o.out, o.force);
    what = m.config.model_type;
  }
  if (o.format == "peft") {
    // A plain MODEL is its own base; a GrowBench checkpoint's base folder is not recorded.
    const std::string base =
        o.run ? base_folder : (m.plan.is_null() ? o.model.path : std::string());
    const grow::peft::ExportResult r = grow::peft::export_adapter(*m.model, o.out, base);
    std::printf(
        "exported %s as a PEFT LoRA adapter to %s: r = %lld, lora_alpha = %g, %lld "
        "tensors, target_modules %s\n",
        what.c_str(), o.out.c_str(), static_cast<long long>(r.rank), r.alpha,
        static_cast<long long>(r.tensors), nlohmann::json(r.target_modules).dump().c_str());
    return 0;
  }
  export_hf(*m.model, o.out, o.run ? base_folder : m.folder);
  std::printf("exported %s to %s\n", what.c_str(), o.out.c_str());
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "export", "export MODEL|--run ID [--db DB] --out DIR [--format hf|peft] [--dtype T] [--force]",
    "Writes MODEL, or run ID's latest checkpoint (the run's base model with its\n"
    "plan and trained tensors), as a complete Hugging Face folder: config.json,\n"
    "model.safetensors and the tokenizer files of the base model's folder. A\n"
    "plain model that loads back from DIR gives bit-identical tensors and\n"
    "logits (LoRA units are merged: W + (alpha/r) B A).\n\n"
    "--format peft writes a LoRA model (a LoRA run, or a GrowBench checkpoint\n"
    "of a LoRA plan) as a PEFT adapter folder instead: adapter_config.json\n"
    "(peft_type LORA, r, lora_alpha, target_modules, ...) and\n"
    "adapter_model.safetensors (base_model.model.<module>.lora_A.weight, ...),\n"
    "which PEFT's PeftModel.from_pretrained loads onto the base model.",
    &declare_export, &run_export);

}  // namespace gb::cli
