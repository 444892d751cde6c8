// growbench-cli: the headless worker and tools of GrowBench.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>
#include <new>
#include <string>

#include <torch/torch.h>

#include "cli.h"
#include "util/allocator.h"
#include "util/error.h"
#include "util/log.h"
#include "util/log_level.h"
#include "util/memory_context.h"
#include "util/schema.h"

namespace {

void print_usage() {
  std::printf(
      "growbench-cli %s (LibTorch %s): the headless worker and tools of GrowBench\n\n"
      "Usage: growbench-cli [--log-level LEVEL] COMMAND [ARGS...]\n"
      "       growbench-cli --version | --help\n\nCommands:\n",
      GB_VERSION, TORCH_VERSION);
  for (const auto& [name, cmd] : gb::cli::commands()) {
    std::printf("  %s\n", cmd.synopsis.c_str());
  }
  std::printf(
      "\nMODEL is a Hugging Face folder (config.json, model.safetensors or a sharded\n"
      "index, tokenizer.json) or a GrowBench checkpoint folder (growbench.json).\n"
      "Run 'growbench-cli COMMAND --help' for the details of a command.\n\n"
      "Every command takes --log-level trace|debug|info|warn|error|off (messages on stderr;\n"
      "default: the environment variable GROWBENCH_LOG, else info), --version and --help.\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // "--log-level L" before the command goes to the command (which declares it; a level given
  // after the command wins). Without a command it applies here.
  std::vector<std::string> leading;
  while (!args.empty() && (args[0] == "--log-level" || args[0].rfind("--log-level=", 0) == 0)) {
    if (args[0] == "--log-level") {
      if (args.size() < 2) {
        std::fprintf(stderr, "growbench-cli: --log-level needs a value\n");
        return 2;
      }
      leading = {args[0], args[1]};
      args.erase(args.begin(), args.begin() + 2);
    } else {
      leading = {args[0]};
      args.erase(args.begin());
    }
  }
  {
    const std::string level = leading.empty()       ? std::string()
                              : leading.size() == 2 ? leading[1]
                                                    : leading[0].substr(12);
    const std::string error = gb::log::apply_level(level);
    if (!error.empty()) {
      std::fprintf(stderr, "growbench-cli: %s\n", error.c_str());
      return 2;
    }
  }
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage();
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version" || args[0] == "-V") {
    std::printf("%s\n", gb::cli::version_line().c_str());
    return 0;
  }
  const auto& cmds = gb::cli::commands();
  auto it = cmds.find(args[0]);
  if (it == cmds.end()) {
    std::fprintf(stderr, "growbench-cli: unknown command '%s'\n\n", args[0].c_str());
    print_usage();
    return 2;
  }
  const gb::cli::Command& cmd = it->second;
  int exit_code = 0;
  std::vector<std::string> command_args = leading;
  command_args.insert(command_args.end(), args.begin() + 1, args.end());
  std::function<int()> run = gb::cli::parse_command(cmd, command_args, &exit_code);
  if (!run) return exit_code;  // --help, or a usage error
  // Commands that train or back-propagate: glibc allocator tunables (util/allocator.h). The
  // re-executed process parses the same, valid, command line again.
  if (cmd.name == "run" || cmd.name == "quickstart" || cmd.name == "probe") {
    gb::reexec_with_allocator_tunables(argv);
  }
  try {
    // One intra-op thread measured fastest with OpenBLAS on the 2-core development machines;
    // GB_THREADS overrides.
    // Bounded like a spec's "threads": at least 1, at most the machine's cores.
    int threads = 1;
    if (const char* env = std::getenv("GB_THREADS")) {
      char* end = nullptr;
      const long n = std::strtol(env, &end, 10);
      if (end == env || *end != '\0' || n <= 0) {
        std::fprintf(stderr, "growbench-cli: GB_THREADS='%s' must be a whole number >= 1\n", env);
        return 2;
      }
      const long cores = std::max(1u, std::thread::hardware_concurrency());
      if (n > cores) {
        std::fprintf(stderr,
                     "growbench-cli: warning: GB_THREADS=%ld is more than the %ld cores of this "
                     "machine; using %ld\n",
                     n, cores, cores);
      }
      threads = static_cast<int>(std::min(n, cores));
    }
    torch::set_num_threads(threads);
    return run();
  } catch (const gb::cli::UsageError& e) {
    gb::cli::print_usage_error(cmd, e.what());
    return 2;
  } catch (const gb::schema::UnknownKeyError& e) {
    // A key no declaration knows (a typo in a spec): exit status 2, as a usage error.
    std::fprintf(stderr, "growbench-cli %s: error: %s\n", cmd.name.c_str(), e.what());
    return 2;
  } catch (const gb::CancelledError&) {
    std::fprintf(stderr, "growbench-cli %s: cancelled\n", cmd.name.c_str());
    return 130;
  } catch (const c10::Error& e) {
    // An allocation failure says what was being allocated, its size and what to reduce.
    const std::string oom = gb::describe_allocation_failure(e.what_without_backtrace(), false);
    std::fprintf(stderr, "growbench-cli %s: error: %s\n", cmd.name.c_str(),
                 oom.empty() ? e.what_without_backtrace() : oom.c_str());
    return 1;
  } catch (const std::bad_alloc& e) {
    const std::string oom = gb::describe_allocation_failure(e.what(), true);
    std::fprintf(stderr, "growbench-cli %s: error: %s\n", cmd.name.c_str(), oom.c_str());
    return 1;
  } catch (const std::exception& e) {
    const std::string oom = gb::describe_allocation_failure(e.what(), false);
    std::fprintf(stderr, "growbench-cli %s: error: %s\n", cmd.name.c_str(),
                 oom.empty() ? e.what() : oom.c_str());
    return 1;
  }
}
