#include "common.h"

#include <csignal>
#include <unistd.h>
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include <torch/torch.h>

#include "grow/checkpoint.h"
#include "model/runtime.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

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
  add_flag(app, "--no-check", model.no_check,
           "skip the check that every weight is finite (one pass over the weights\n"
           "on load; for very large models)")
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
  o.check_finite = !model.no_check;
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

void check_sequence_length(const ModelConfig& c, int64_t length, const std::string& what) {
  if (c.max_positions <= 0 || length <= c.max_positions) return;
  const bool declared = c.family == Family::Gpt2 || c.raw.contains("max_position_embeddings");
  if (declared) {
    fail("{}: {} tokens exceed the model's {} positions; positions beyond them are wrong", what,
         length, c.max_positions);
  }
  log::get("cli")->warn(
      "{}: {} tokens are beyond the {} positions assumed for this model (its config declares "
      "no max_position_embeddings)",
      what, length, c.max_positions);
}

void check_finite_logits(const torch::Tensor& logits, const std::string& what) {
  const torch::Tensor finite = torch::isfinite(logits);
  if (finite.all().item<bool>()) return;
  const int64_t bad = finite.numel() - finite.sum().item<int64_t>();
  fail(
      "{}: the model's logits hold {} non-finite value(s) (NaN or Inf) of {}; its weights or "
      "its arithmetic (dtype) overflow, so no output of it means anything",
      what, bad, logits.numel());
}

void print_json(const nlohmann::json& j, bool pretty) {
  std::string s = j.dump(pretty ? 2 : -1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

namespace {
CancelToken* g_signal_token = nullptr;
volatile std::sig_atomic_t g_signals = 0;
// The first signal cancels gracefully (the current step ends, a checkpoint is written, the
// run is marked cancelled); a second one exits at once. The store stays consistent either
// way (SQLite in WAL mode survives any exit; the run is marked interrupted on the next
// start and resumes from its last checkpoint). Async-signal-safe: write(2) and _exit(2).
void on_cancel_signal(int) {
  if (g_signals++ > 0) {
    static const char kMsg[] = "growbench-cli: second signal: exiting now\n";
    ssize_t ignored = ::write(2, kMsg, sizeof kMsg - 1);
    (void)ignored;
    ::_exit(130);
  }
  if (g_signal_token) g_signal_token->cancel();
}
// The cancel of a `run --jobs` pool to its workers: only ever a clean cancel (a SIGTERM
// sent to every process by a service manager must not count as the worker's second).
void on_pool_cancel_signal(int) {
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
  struct sigaction pool {};
  pool.sa_handler = on_pool_cancel_signal;
  sigemptyset(&pool.sa_mask);
  sigaction(kPoolCancelSignal, &pool, nullptr);
  // A worker of `run --jobs` starts with these blocked (util/worker_pool.h): a cancel that
  // came before the handlers were in place is delivered now, to them.
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, kPoolCancelSignal}) sigaddset(&set, sig);
  sigprocmask(SIG_UNBLOCK, &set, nullptr);
}

void refuse_output_over_input(const std::string& input, const std::string& output, bool force) {
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
  const bool out_in_in = within(out, in), in_in_out = within(in, out);
  if (in_in_out && !(force && out_in_in)) {
    throw UsageError(fmt::format(
        "--out {} would overwrite the input model {} ({}); write to another folder{}", out.string(),
        in.string(), out_in_in ? "the same folder" : "a folder containing it",
        out_in_in ? ", or give --force to replace the model folder as a whole" : ""));
  }
  if (out_in_in && !force) {
    throw UsageError(
        fmt::format("--out {} lies inside the input model {}; write to another folder, or give "
                    "--force",
                    out.string(), in.string()));
  }
}

void declare_force(CLI::App& app, bool& force) {
  add_flag(app, "--force", force,
           "allow --out to be MODEL itself or a folder inside it: MODEL is read\n"
           "completely first, then replaced as a whole (never written over file by file)");
}

}  // namespace gb::cli
