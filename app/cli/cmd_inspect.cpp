#include <cstdio>

#include "common.h"
#include "model/summary.h"

namespace gb::cli {
namespace {

int run_inspect(const Args& args) {
  LoadedModel m = load_model_arg(args);
  ModelSummary s = summarize(*m.model);
  if (args.flag("json")) {
    nlohmann::json j = to_json(s);
    j["folder"] = m.folder;
    j["tokenizer"] = m.tokenizer_file;
    print_json(j, true);
  } else {
    std::string text = to_text(s);
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND("inspect", "inspect MODEL [--json] [--device D] [--dtype T]",
                    "Loads MODEL and prints its family, sizes, and a table of layers x units\n"
                    "with shapes and parameter counts.\n\n"
                    "  --json        one JSON object: model_type, family, sizes, parameters,\n"
                    "                trainable_parameters, outer (embeddings, final norm, head)\n"
                    "                and layers[{index, attention, params, units[{name, kind,\n"
                    "                path, params, tensors[{name, shape, params, trainable}]}]}]\n"
                    "  --device D    cpu (default), cuda, cuda:N\n"
                    "  --dtype T     float32 (default), bfloat16, float16",
                    {"json"}, &run_inspect);

}  // namespace gb::cli
