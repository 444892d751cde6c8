#include "util/log_level.h"

#include <cstdlib>

#include "util/log.h"

namespace gb::log {

const std::vector<std::string>& level_names() {
  static const std::vector<std::string> names = {"trace", "debug", "info", "warn", "error", "off"};
  return names;
}

std::optional<spdlog::level::level_enum> parse_level(const std::string& name) {
  static const spdlog::level::level_enum levels[] = {spdlog::level::trace, spdlog::level::debug,
                                                     spdlog::level::info,  spdlog::level::warn,
                                                     spdlog::level::err,   spdlog::level::off};
  const auto& names = level_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return levels[i];
  }
  return std::nullopt;
}

std::string apply_level(const std::string& option) {
  std::string value = option, source = "--log-level";
  if (value.empty()) {
    const char* env = std::getenv(kLevelEnv);
    if (!env || !*env) return {};
    value = env;
    source = kLevelEnv;
  }
  const auto level = parse_level(value);
  if (!level) {
    std::string allowed;
    for (const auto& n : level_names()) allowed += (allowed.empty() ? "" : ", ") + n;
    return source + ": unknown log level '" + value + "' (one of " + allowed + ")";
  }
  set_level(*level);
  return {};
}

}  // namespace gb::log
