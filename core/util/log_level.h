#pragma once
// The log level of both programs: `--log-level LEVEL` on the command line, else the
// environment variable GROWBENCH_LOG, else info. Levels: trace, debug, info, warn, error, off.

#include <optional>
#include <string>
#include <vector>

#include <spdlog/common.h>

namespace gb::log {

inline constexpr char kLevelEnv[] = "GROWBENCH_LOG";

// trace, debug, info, warn, error, off.
const std::vector<std::string>& level_names();
// The level of a name of level_names(), or nothing.
std::optional<spdlog::level::level_enum> parse_level(const std::string& name);

// Sets every logger's level from `option` (a --log-level value; empty when not given), else
// from $GROWBENCH_LOG. Returns an error message naming the source and the allowed names for
// an unknown level (the level is then left unchanged), or "".
std::string apply_level(const std::string& option);

}  // namespace gb::log
