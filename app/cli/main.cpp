// growbench-cli: the headless worker and tools of GrowBench.
#include <cstdio>
#include <exception>
#include <iostream>

#include <torch/torch.h>

#include "cli.h"
#include "util/allocator.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::cli {

namespace {
std::map<std::string, Command>& registry() {
  static std::map<std::string, Command> r;
  return r;
}
}  // namespace

bool register_command(const Command& command) {
  registry()[command.name] = command;
  return true;
}

const std::map<std::string, Command>& commands() {
  return registry();
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = options.find(name);
  return it == options.end() ? fallback : it->second;
}

std::string Args::required(const std::string& name) const {
  auto it = options.find(name);
  if (it == options.end()) throw UsageError("missing required option --" + name);
  return it->second;
}

int64_t Args::get_int(const std::string& name, int64_t fallback) const {
  auto it = options.find(name);
  if (it == options.end()) return fallback;
  try {
    size_t pos = 0;
    long long v = std::stoll(it->second, &pos);
    if (pos != it->second.size()) throw std::invalid_argument("trailing");
    return v;
  } catch (const std::exception&) {
    throw UsageError("--" + name + " expects an integer, got '" + it->second + "'");
  }
}

double Args::get_double(const std::string& name, double fallback) const {
  auto it = options.find(name);
  if (it == options.end()) return fallback;
  try {
    size_t pos = 0;
    double v = std::stod(it->second, &pos);
    if (pos != it->second.size()) throw std::invalid_argument("trailing");
    return v;
  } catch (const std::exception&) {
    throw UsageError("--" + name + " expects a number, got '" + it->second + "'");
  }
}

const std::string& Args::positional_at(size_t index, const char* what) const {
  if (index >= positional.size()) throw UsageError(std::string("missing argument ") + what);
  return positional[index];
}

Args parse_args(const std::vector<std::string>& argv, const std::set<std::string>& flags) {
  Args a;
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& s = argv[i];
    if (s.size() > 2 && s.compare(0, 2, "--") == 0) {
      std::string name = s.substr(2);
      auto eq = name.find('=');
      if (eq != std::string::npos) {
        a.options[name.substr(0, eq)] = name.substr(eq + 1);
      } else if (flags.count(name)) {
        a.flags.insert(name);
      } else {
        if (i + 1 >= argv.size()) throw UsageError("option --" + name + " needs a value");
        a.options[name] = argv[++i];
      }
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

}  // namespace gb::cli

namespace {

void print_usage() {
  std::printf(
      "growbench-cli %s (LibTorch %s): the headless worker and tools of GrowBench\n\n"
      "Usage: growbench-cli COMMAND [ARGS...]\n\nCommands:\n",
      GB_VERSION, TORCH_VERSION);
  for (const auto& [name, cmd] : gb::cli::commands()) {
    std::printf("  %s\n", cmd.synopsis.c_str());
  }
  std::printf(
      "\nMODEL is a Hugging Face folder (config.json, model.safetensors or a sharded\n"
      "index, tokenizer.json) or a GrowBench checkpoint folder (growbench.json).\n"
      "Run 'growbench-cli COMMAND --help' for the details of a command.\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_usage();
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    std::printf("growbench-cli %s (LibTorch %s)\n", GB_VERSION, TORCH_VERSION);
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
  std::vector<std::string> rest(args.begin() + 1, args.end());
  for (const auto& a : rest) {
    if (a == "--help" || a == "-h") {
      std::printf("Usage: growbench-cli %s\n\n%s\n", cmd.synopsis.c_str(), cmd.help.c_str());
      return 0;
    }
  }
  // Commands that train or back-propagate: glibc allocator tunables (util/allocator.h).
  if (args[0] == "run" || args[0] == "quickstart" || args[0] == "probe") {
    gb::reexec_with_allocator_tunables(argv);
  }
  try {
    // One intra-op thread measured fastest with OpenBLAS on the 2-core development machines;
    // GB_THREADS overrides.
    const char* threads = std::getenv("GB_THREADS");
    torch::set_num_threads(threads ? std::max(1, std::atoi(threads)) : 1);
    gb::cli::Args parsed = gb::cli::parse_args(rest, cmd.flags);
    return cmd.run(parsed);
  } catch (const gb::cli::UsageError& e) {
    std::fprintf(stderr, "growbench-cli %s: %s\nUsage: growbench-cli %s\n", cmd.name.c_str(),
                 e.what(), cmd.synopsis.c_str());
    return 2;
  } catch (const gb::CancelledError&) {
    std::fprintf(stderr, "growbench-cli %s: cancelled\n", cmd.name.c_str());
    return 130;
  } catch (const c10::Error& e) {
    std::fprintf(stderr, "growbench-cli %s: error: %s\n", cmd.name.c_str(),
                 e.what_without_backtrace());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "growbench-cli %s: error: %s\n", cmd.name.c_str(), e.what());
    return 1;
  }
}
