#include "common.h"

#include <csignal>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "grow/checkpoint.h"
#include "model/runtime.h"
#include "util/error.h"
#include "util/files.h"

namespace gb::cli {

namespace {

// cpu, cuda or cuda:N (whether CUDA is there is checked when the model loads: exit 1).
CLI::Validator device_name() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (s == "cpu" || s == "cuda") return {};
        if (s.rfind("cuda:", 0) == 0 && s.size() > 5 &&
            s.find_first_not_of("0123456789", 5) == std::string::npos) {
          return {};
        }
        return "must be cpu, cuda or cuda:N, got '" + s + "'";
      },
      "cpu, cuda or cuda:N");
}

}  // namespace

void declare_device_dtype(CLI::App& app, ModelArg& model, const std::string& dtype_help) {
  add_option(app, "--device", model.device, "D", "where the model runs")
      ->check(device_name())
      ->group("Model options");
  add_option(app, "--dtype", model.dtype, "T", dtype_help)
      ->check(one_of(
          {"float32", "bfloat16", "float16"},
          {"f32", "fp32", "float", "bf16", "f16", "fp16", "half", "float64", "f64", "double"}))
      ->group("Model options");
}

void declare_model(CLI::App& app, ModelArg& model, const std::string& dtype_help) {
  app.add_option("MODEL", model.path,
                 "a Hugging Face folder (config.json, model.safetensors or a sharded index,\n"
                 "tokenizer.json) or a GrowBench checkpoint folder (growbench.json)")
      ->required()
      ->type_name("MODEL");
  declare_device_dtype(app, model, dtype_help);
}

LoadOptions load_options(const ModelArg& model) {
  LoadOptions o;
  o.device = parse_device(model.device);
  o.dtype = parse_dtype(model.dtype);
  return o;
}

LoadedModel load_model_arg(const ModelArg& model) {
  return grow::load_model(model.path, load_options(model));
}

std::string model_tokenizer_arg(const ModelArg& model, const std::string& command) {
  const std::string& folder = model.path;
  namespace fs = std::filesystem;
  const bool model_folder = file_exists((fs::path(folder) / "config.json").string()) ||
                            grow::is_growbench_checkpoint(folder);
  if (!model_folder) return {};  // load_model_arg says what is wrong with the path
  std::string tok = find_tokenizer(folder);
  if (tok.empty()) {
    fail(
        "{}: the model folder has no tokenizer.json, which '{}' needs to turn text into "
        "token ids; copy the base model's tokenizer.json (and tokenizer_config.json) into it",
        folder, command);
  }
  return tok;
}

void print_json(const nlohmann::json& j, bool pretty) {
  std::string s = j.dump(pretty ? 2 : -1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

namespace {
CancelToken* g_signal_token = nullptr;
void on_cancel_signal(int) {
  if (g_signal_token) g_signal_token->cancel();
}
}  // namespace

void cancel_on_signals(CancelToken& token) {
  g_signal_token = &token;
  struct sigaction sa {};
  sa.sa_handler = on_cancel_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

void refuse_output_over_input(const std::string& input, const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path in = fs::weakly_canonical(fs::absolute(input), ec);
  const fs::path out = fs::weakly_canonical(fs::absolute(output), ec);
  auto within = [](const fs::path& inner, const fs::path& outer) {
    auto i = inner.begin();
    for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
      if (o->empty()) continue;
      if (i == inner.end() || *i != *o) return false;
    }
    return true;
  };
  if (within(out, in) || within(in, out)) {
    throw UsageError(
        fmt::format("--out {} would overwrite the input model {} (the same folder, inside it or "
                    "containing it); write to another folder",
                    out.string(), in.string()));
  }
}

}  // namespace gb::cli
