#include <cstdio>

#include "common.h"

namespace gb::cli {
namespace {

struct ExportOptions {
  ModelArg model;
  std::string out;
  bool force = false;
};

void declare_export(CLI::App& app, ExportOptions& o) {
  declare_model(app, o.model, "dtype of the written weights");
  add_option(app, "--out", o.out, "DIR", "the folder to write (created)")->required();
  declare_force(app, o.force);
}

int run_export(const ExportOptions& o) {
  refuse_output_over_input(o.model.path, o.out, o.force);
  LoadedModel m = load_model_arg(o.model);
  export_hf(*m.model, o.out, m.folder);
  std::printf("exported %s to %s\n", m.config.model_type.c_str(), o.out.c_str());
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND("export", "export MODEL --out DIR [--dtype T] [--force]",
                    "Writes MODEL as a complete Hugging Face folder: config.json,\n"
                    "model.safetensors and the tokenizer files of MODEL's folder. A model that\n"
                    "loads back from DIR gives bit-identical tensors and logits.",
                    &declare_export, &run_export);

}  // namespace gb::cli
