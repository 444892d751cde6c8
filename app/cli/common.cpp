#include "common.h"

#include <cstdio>

#include "grow/checkpoint.h"
#include "model/runtime.h"

namespace gb::cli {

LoadOptions load_options(const Args& args) {
  LoadOptions o;
  o.device = parse_device(args.get("device", "cpu"));
  o.dtype = parse_dtype(args.get("dtype", "float32"));
  return o;
}

LoadedModel load_model_arg(const Args& args, size_t index) {
  return grow::load_model(args.positional_at(index, "MODEL"), load_options(args));
}

void print_json(const nlohmann::json& j, bool pretty) {
  std::string s = pretty ? j.dump(2) : j.dump();
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

}  // namespace gb::cli
