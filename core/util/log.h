#pragma once
// Logging through spdlog, one logger per area ("model", "train", "store", ...). Loggers
// write to stderr (stdout of growbench-cli carries JSON progress lines) and, once
// add_log_file() is called, to that file too.

#include <memory>
#include <string>

#include <spdlog/logger.h>

namespace gb::log {

std::shared_ptr<spdlog::logger> get(const std::string& area);
void set_level(spdlog::level::level_enum level);
// Adds a file sink to every existing and future logger.
void add_file(const std::string& path);
// Sends everything at `level` or above to stderr only (default) or silences stderr.
void set_stderr_enabled(bool enabled);

}  // namespace gb::log
