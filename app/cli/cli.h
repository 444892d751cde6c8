#pragma once
// growbench-cli: one command per file (cmd_<name>.cpp). A command declares its positionals
// and options on a CLI11 app, bound to the members of its own options struct (types,
// ranges, choices, defaults, help text), and registers itself with GB_REGISTER_COMMAND.
// cli.cpp parses the command line with that declaration only: an option the command does
// not declare, a missing value, a value of the wrong type or out of range, or a flag given a
// value ("--json=1") is a usage error, and `growbench-cli COMMAND --help` is generated from
// the declaration. Commands print results on stdout (JSON where asked), logs go to stderr;
// they return the process exit code: 0 ok, 1 error, 2 usage (the message names the option
// and is followed by the command's usage line; also an unknown key in a spec, which names
// its full path: util/schema.h), 130 cancelled.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace gb::cli {

// A usage error a command finds after parsing, one the declaration cannot express (two
// options that exclude each other, a value beyond the loaded model's size): exit status 2,
// the message followed by the usage line. Name the option in the message.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& m) : std::runtime_error(m) {}
};

struct Command {
  std::string name;
  std::string synopsis;     // the usage line after "growbench-cli ": "inspect MODEL [--json]"
  std::string description;  // --help: what the command does (before the options)
  std::string footer;       // --help: after the options (exit status, notes); may be empty
  // Declares the command's positionals and options on `app`, bound to a fresh options
  // struct, and returns the function that runs the command on the values parsed into it.
  std::function<std::function<int()>(CLI::App&)> declare;
};

bool register_command(const Command& command);
const std::map<std::string, Command>& commands();

// A Command from a declaration function and a run function sharing an options struct.
template <typename Options>
Command make_command(std::string name, std::string synopsis, std::string description,
                     void (*declare)(CLI::App&, Options&), int (*run)(const Options&),
                     std::string footer = {}) {
  Command c;
  c.name = std::move(name);
  c.synopsis = std::move(synopsis);
  c.description = std::move(description);
  c.footer = std::move(footer);
  c.declare = [declare, run](CLI::App& app) -> std::function<int()> {
    auto options = std::make_shared<Options>();
    declare(app, *options);
    return [options, run] { return run(*options); };
  };
  return c;
}

// ---------------------------------------------------------------------------------------
// Declaration helpers. Every option shows a metavar ("N", "FILE") in --help, its help text,
// and the default taken from the bound variable's initial value (a member initialised to an
// empty string or an empty optional shows none; `default_str` overrides the shown text).

template <typename T>
CLI::Option* add_option(CLI::App& app, const std::string& name, T& value,
                        const std::string& metavar, const std::string& help) {
  return app.add_option(name, value, help)->type_name(metavar)->capture_default_str();
}
// A flag: present or absent, never given a value.
CLI::Option* add_flag(CLI::App& app, const std::string& name, bool& value, const std::string& help);

// Validators: --help shows their description after the option's help; a value they reject
// is a usage error "--NAME: <what they say>".
CLI::Validator at_least(int64_t min);                // an integer >= min
CLI::Validator int_range(int64_t min, int64_t max);  // an integer in [min, max]
// A finite number in [lo, hi] ((lo, ...] with lo_open, [..., hi) with hi_open); hi may be
// INFINITY (no upper bound).
CLI::Validator number_range(double lo, double hi, bool lo_open = false, bool hi_open = false);
CLI::Validator positive_number();  // a finite number > 0
// One of `choices` (listed in --help and errors) or of `aliases` (accepted, not listed).
CLI::Validator one_of(std::vector<std::string> choices, std::vector<std::string> aliases = {});

// ---------------------------------------------------------------------------------------
// Parsing (main.cpp).

// "growbench-cli VERSION (LibTorch VERSION)": what --version prints, before or after a command.
std::string version_line();

// The help text of `command`: usage line, description, arguments, options, footer.
std::string command_help(const Command& command);

// Parses `args` (after the command name) with the command's declaration. Returns the
// function that runs the command, or an empty function when the process ends here with
// `*exit_code`: 0 after --help (printed on stdout), 2 after a usage error (printed on
// stderr with the usage line).
std::function<int()> parse_command(const Command& command, const std::vector<std::string>& args,
                                   int* exit_code);

// Prints "growbench-cli COMMAND: MESSAGE", the usage line and where the options are listed on
// stderr (exit status 2).
void print_usage_error(const Command& command, const std::string& message);

}  // namespace gb::cli

#define GB_CLI_CONCAT2(a, b) a##b
#define GB_CLI_CONCAT(a, b) GB_CLI_CONCAT2(a, b)
// GB_REGISTER_COMMAND(name, synopsis, description, &declare, &run [, footer])
#define GB_REGISTER_COMMAND(...)                                     \
  static const bool GB_CLI_CONCAT(gb_cli_registered_, __COUNTER__) = \
      ::gb::cli::register_command(::gb::cli::make_command(__VA_ARGS__))
