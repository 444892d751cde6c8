// growbench-cli: the command registry, the declaration helpers and validators, the help
// text generated from a command's declaration, and parsing with CLI11 (cli.h).
#include "cli.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include <torch/version.h>

#include "util/log_level.h"

namespace gb::cli {

namespace {

std::map<std::string, Command>& registry() {
  static std::map<std::string, Command> r;
  return r;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (const auto& i : items) s += (s.empty() ? "" : sep) + i;
  return s;
}

std::string number_text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

// A whole base-10 integer (no leading '+', no hex or octal), or nothing.
bool parse_int(const std::string& s, int64_t* out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0])) || s[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno == ERANGE || end != s.c_str() + s.size()) return false;
  *out = v;
  return true;
}

bool parse_number(const std::string& s, double* out) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s[0]))) return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

// --log-level of the command being parsed (one command per process).
std::string& log_level_option() {
  static std::string value;
  return value;
}

// Every declared command line starts alike: -h/--help, --version, --log-level, options given
// twice keep the last value (as the hand-written parser did), flags reject values.
void prepare(CLI::App& app) {
  app.set_help_flag("-h,--help", "print this help and exit");
  app.set_version_flag("--version", version_line(), "print the version and exit");
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  std::vector<std::string> levels = log::level_names();
  add_option(app, "--log-level", log_level_option(), "LEVEL",
             "messages on stderr from this level up (default: $GROWBENCH_LOG, else info)")
      ->check(one_of(levels));
}

bool is_flag(const CLI::Option* opt) {
  return opt->get_expected_max() == 0;  // add_flag sets expected(0)
}

// The metavar of an option (get_type_name() appends the validators' descriptions after ':').
std::string metavar(const CLI::Option* opt) {
  const std::string t = opt->get_type_name();
  return t.substr(0, t.find(':'));
}
std::string validator_text(const CLI::Option* opt) {
  const std::string t = opt->get_type_name();
  const auto colon = t.find(':');
  return colon == std::string::npos ? std::string() : t.substr(colon + 1);
}

std::string left_column(const CLI::Option* opt) {
  if (opt->get_positional()) return opt->get_name(true);
  std::vector<std::string> names;
  for (const auto& s : opt->get_snames()) names.push_back("-" + s);
  for (const auto& l : opt->get_lnames()) names.push_back("--" + l);
  std::string s = join(names, ", ");
  if (!is_flag(opt) && !metavar(opt).empty()) s += " " + metavar(opt);
  return s;
}

std::string option_text(const CLI::Option* opt) {
  std::vector<std::string> facts;
  if (opt->get_required()) facts.push_back("required");
  if (!is_flag(opt) && !opt->get_default_str().empty()) {
    facts.push_back("default: " + opt->get_default_str());
  }
  const std::string v = validator_text(opt);
  if (!v.empty()) facts.push_back(v);
  std::string text = opt->get_description();
  if (facts.empty()) return text;
  const std::string suffix = "[" + join(facts, "; ") + "]";
  const auto last_line = text.rfind('\n');
  const size_t last = text.size() - (last_line == std::string::npos ? 0 : last_line + 1);
  if (text.empty()) return suffix;
  return text + (last + suffix.size() + 1 > 72 ? "\n" : " ") + suffix;
}

void format_rows(std::string& out, const std::vector<const CLI::Option*>& opts, size_t width) {
  for (const CLI::Option* opt : opts) {
    std::string name = "  " + left_column(opt);
    std::string line = name;
    if (name.size() + 1 > width) {
      line += "\n" + std::string(width, ' ');
    } else {
      line += std::string(width - name.size(), ' ');
    }
    for (char c : option_text(opt)) {
      line += c;
      if (c == '\n') line += std::string(width, ' ');
    }
    out += line + "\n";
  }
}

std::string help_text(const Command& cmd, const CLI::App& app) {
  std::string out = "Usage: growbench-cli " + cmd.synopsis + "\n";
  if (!cmd.description.empty()) out += "\n" + cmd.description + "\n";
  // Sections: the arguments, the options of the default group (closed by --log-level,
  // --version and --help), then the other groups (e.g. "Model options") in the order
  // declared.
  std::vector<const CLI::Option*> positionals;
  std::vector<std::pair<std::string, std::vector<const CLI::Option*>>> groups = {{"Options", {}}};
  const CLI::Option* help = nullptr;
  std::vector<const CLI::Option*> common;  // --log-level, --version: before --help
  size_t width = 0;
  for (const CLI::Option* opt : app.get_options()) {
    if (opt->get_group().empty()) continue;  // hidden
    width = std::max(width, left_column(opt).size() + 4);
    if (opt->get_lnames().size() == 1 && opt->get_lnames()[0] == "help") {
      help = opt;
    } else if (opt->get_lnames().size() == 1 &&
               (opt->get_lnames()[0] == "version" || opt->get_lnames()[0] == "log-level")) {
      common.push_back(opt);
    } else if (opt->get_positional()) {
      positionals.push_back(opt);
    } else {
      auto g = std::find_if(groups.begin(), groups.end(),
                            [&](const auto& e) { return e.first == opt->get_group(); });
      if (g == groups.end()) g = groups.insert(groups.end(), {opt->get_group(), {}});
      g->second.push_back(opt);
    }
  }
  // --log-level, --version and --help close the general options.
  for (const CLI::Option* opt : common) groups.front().second.push_back(opt);
  if (help) groups.front().second.push_back(help);
  width = std::min<size_t>(width, 24);
  if (!positionals.empty()) {
    out += "\nArguments:\n";
    format_rows(out, positionals, width);
  }
  for (const auto& [name, opts] : groups) {
    if (opts.empty()) continue;
    out += "\n" + name + ":\n";
    format_rows(out, opts, width);
  }
  if (!cmd.footer.empty()) out += "\n" + cmd.footer + "\n";
  return out;
}

// A flag given a value ("--json=1", "--json=true") is an error: CLI11 would take 1/true/0.
void reject_flag_values(const CLI::App& app, const std::vector<std::string>& args) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") return;
    if (a.size() < 3 || a.compare(0, 2, "--") != 0) continue;
    const auto eq = a.find('=');
    const std::string name = a.substr(0, eq);
    const CLI::Option* opt = app.get_option_no_throw(name);
    if (!opt) continue;
    if (eq != std::string::npos && is_flag(opt)) {
      throw UsageError(name + " is a flag and takes no value, got '" + a + "'");
    }
    if (eq == std::string::npos && !is_flag(opt)) ++i;  // its value, whatever it looks like
  }
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}
bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The message of a CLI11 parse error, naming the option, in the words of this program.
std::string parse_error_message(const CLI::App& app, const CLI::ParseError& e) {
  const std::string what = e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    std::vector<std::string> unknown, unexpected;
    for (const auto& a : app.remaining()) {
      double number = 0;
      if (a.size() > 1 && a[0] == '-' && !parse_number(a, &number)) {
        unknown.push_back(a.substr(0, a.find('=')));
      } else {
        unexpected.push_back("'" + a + "'");
      }
    }
    std::vector<std::string> parts;
    if (!unknown.empty()) {
      parts.push_back((unknown.size() == 1 ? "unknown option " : "unknown options ") +
                      join(unknown, ", "));
    }
    if (!unexpected.empty()) {
      parts.push_back((unexpected.size() == 1 ? "unexpected argument " : "unexpected arguments ") +
                      join(unexpected, ", "));
    }
    return parts.empty() ? what : join(parts, "; ");
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e) && ends_with(what, " is required")) {
    const std::string name = what.substr(0, what.size() - 12);
    if (name.find(' ') == std::string::npos) {
      return (starts_with(name, "-") ? "missing required option " : "missing argument ") + name;
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && ends_with(what, " missing") &&
      what.find(" required ") != std::string::npos && what.find(':') != std::string::npos) {
    return what.substr(0, what.find(':')) + " needs a value";  // "--plan: 1 required PLAN missing"
  }
  return what;
}

}  // namespace

std::string version_line() {
  return std::string("growbench-cli ") + GB_VERSION + " (LibTorch " + TORCH_VERSION + ")";
}

bool register_command(const Command& command) {
  registry()[command.name] = command;
  return true;
}

const std::map<std::string, Command>& commands() {
  return registry();
}

CLI::Option* add_flag(CLI::App& app, const std::string& name, bool& value,
                      const std::string& help) {
  return app.add_flag(name, value, help)->disable_flag_override();
}

CLI::Validator at_least(int64_t min) {
  return int_range(min, INT64_MAX);
}

CLI::Validator int_range(int64_t min, int64_t max) {
  std::string desc = max == INT64_MAX ? "at least " + std::to_string(min)
                                      : std::to_string(min) + " to " + std::to_string(max);
  return CLI::Validator(
      [min, max](std::string& s) -> std::string {
        int64_t v = 0;
        if (!parse_int(s, &v)) return "expects an integer, got '" + s + "'";
        if (v < min) return "must be at least " + std::to_string(min) + ", got " + s;
        if (v > max) return "must be at most " + std::to_string(max) + ", got " + s;
        s = std::to_string(v);  // CLI11 reads "010" as octal; this is decimal
        return {};
      },
      desc);
}

CLI::Validator number_range(double lo, double hi, bool lo_open, bool hi_open) {
  std::string allowed;
  if (std::isinf(hi)) {
    allowed = (lo_open ? "greater than " : "at least ") + number_text(lo);
  } else {
    allowed = std::string("in ") + (lo_open ? "(" : "[") + number_text(lo) + ", " +
              number_text(hi) + (hi_open ? ")" : "]");
  }
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        double v = 0;
        if (!parse_number(s, &v)) return "expects a number, got '" + s + "'";
        if (v < lo || v > hi || (lo_open && v == lo) || (hi_open && v == hi)) {
          return "must be " + allowed + ", got " + s;
        }
        return {};
      },
      allowed);
}

CLI::Validator positive_number() {
  return number_range(0, INFINITY, /*lo_open=*/true);
}

CLI::Validator one_of(std::vector<std::string> choices, std::vector<std::string> aliases) {
  const std::string listed = join(choices, ", ");
  std::vector<std::string> all = choices;
  all.insert(all.end(), aliases.begin(), aliases.end());
  return CLI::Validator(
      [all, listed](std::string& s) -> std::string {
        for (const auto& c : all) {
          if (s == c) return {};
        }
        return "must be one of " + listed + ", got '" + s + "'";
      },
      "one of " + listed);
}

std::string command_help(const Command& command) {
  CLI::App app(command.description, "growbench-cli " + command.name);
  prepare(app);
  command.declare(app);
  return help_text(command, app);
}

void print_usage_error(const Command& command, const std::string& message) {
  std::fprintf(stderr,
               "growbench-cli %s: %s\nUsage: growbench-cli %s\n"
               "Run 'growbench-cli %s --help' for the options.\n",
               command.name.c_str(), message.c_str(), command.synopsis.c_str(),
               command.name.c_str());
}

std::function<int()> parse_command(const Command& command, const std::vector<std::string>& args,
                                   int* exit_code) {
  CLI::App app(command.description, "growbench-cli " + command.name);
  prepare(app);
  std::function<int()> run = command.declare(app);
  try {
    bool help = false;
    for (const auto& a : args) {
      if (a == "--") break;
      help |= a == "-h" || a == "--help";
    }
    if (!help) reject_flag_values(app, args);
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
    app.parse(reversed);
    const std::string level_error = log::apply_level(log_level_option());
    if (!level_error.empty()) throw UsageError(level_error);
    // Worker processes this command starts (run --jobs) log at the same level.
    if (!log_level_option().empty()) ::setenv("GROWBENCH_LOG", log_level_option().c_str(), 1);
    return run;
  } catch (const CLI::CallForVersion&) {
    std::printf("%s\n", version_line().c_str());
    std::fflush(stdout);
    *exit_code = 0;
  } catch (const CLI::CallForHelp&) {
    const std::string text = help_text(command, app);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    *exit_code = 0;
  } catch (const CLI::ParseError& e) {
    print_usage_error(command, parse_error_message(app, e));
    *exit_code = 2;
  } catch (const UsageError& e) {
    print_usage_error(command, e.what());
    *exit_code = 2;
  }
  return {};
}

}  // namespace gb::cli
