#include <cstdio>

#include "common.h"

namespace gb::cli {
namespace {

int run_export(const Args& args) {
  LoadedModel m = load_model_arg(args);
  const std::string out = args.required("out");
  export_hf(*m.model, out, m.folder);
  std::printf("exported %s to %s\n", m.config.model_type.c_str(), out.c_str());
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND("export", "export MODEL --out DIR [--dtype T]",
                    "Writes MODEL as a complete Hugging Face folder: config.json,\n"
                    "model.safetensors and the tokenizer files of MODEL's folder. A model that\n"
                    "loads back from DIR gives bit-identical tensors and logits.\n\n"
                    "  --dtype T   dtype of the written weights: float32 (default), bfloat16,\n"
                    "              float16",
                    {}, &run_export);

}  // namespace gb::cli
