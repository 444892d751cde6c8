#pragma once
// growbench-cli: one command per file (cmd_<name>.cpp), each registering itself with
// GB_REGISTER_COMMAND. Commands print results on stdout (JSON where asked), logs go to
// stderr; they return the process exit code (0 ok, 1 error, 2 usage).

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace gb::cli {

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;  // --key value
  std::set<std::string> flags;                 // --flag

  bool flag(const std::string& name) const { return flags.count(name) > 0; }
  bool has(const std::string& name) const { return options.count(name) > 0; }
  std::string get(const std::string& name, const std::string& fallback = {}) const;
  std::string required(const std::string& name) const;  // throws UsageError
  int64_t get_int(const std::string& name, int64_t fallback) const;
  double get_double(const std::string& name, double fallback) const;
  const std::string& positional_at(size_t index, const char* what) const;
};

class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& m) : std::runtime_error(m) {}
};

struct Command {
  std::string name;
  std::string synopsis;         // one line: "inspect MODEL [--json]"
  std::string help;             // the full description printed by --help
  std::set<std::string> flags;  // options that take no value
  int (*run)(const Args&);
};

bool register_command(const Command& command);
const std::map<std::string, Command>& commands();

// Parses argv after the command name. Options listed in `flags` take no value; every other
// --name takes the next argument ("--name=value" also works).
Args parse_args(const std::vector<std::string>& argv, const std::set<std::string>& flags);

}  // namespace gb::cli

#define GB_CLI_CONCAT2(a, b) a##b
#define GB_CLI_CONCAT(a, b) GB_CLI_CONCAT2(a, b)
#define GB_REGISTER_COMMAND(...)                                  \
  static const bool GB_CLI_CONCAT(gb_cli_registered_, __LINE__) = \
      ::gb::cli::register_command(::gb::cli::Command{__VA_ARGS__})
