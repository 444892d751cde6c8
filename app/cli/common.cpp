#include "common.h"

#include <csignal>
#include <cstdio>
#include <filesystem>

#include "grow/checkpoint.h"
#include "model/runtime.h"
#include "util/error.h"
#include "util/files.h"

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

std::string model_tokenizer_arg(const Args& args, const std::string& command, size_t index) {
  const std::string& folder = args.positional_at(index, "MODEL");
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

}  // namespace gb::cli
