#include <cstdio>

#include "common.h"
#include "model/summary.h"

namespace gb::cli {
namespace {

struct InspectOptions {
  ModelArg model;
  bool json = false;
};

void declare_inspect(CLI::App& app, InspectOptions& o) {
  declare_model(app, o.model);
  add_flag(app, "--json", o.json,
           "one JSON object: model_type, family, sizes, parameters,\n"
           "trainable_parameters, outer (embeddings, final norm, head) and\n"
           "layers[{index, attention, params, units[{name, kind, path, params,\n"
           "tensors[{name, shape, params, trainable}]}]}]");
}

int run_inspect(const InspectOptions& o) {
  LoadedModel m = load_model_arg(o.model);
  ModelSummary s = summarize(*m.model);
  if (o.json) {
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
                    "with shapes and parameter counts.",
                    &declare_inspect, &run_inspect);

}  // namespace gb::cli
