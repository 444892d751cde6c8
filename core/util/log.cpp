#include "util/log.h"

#include <mutex>
#include <unordered_map>
#include <vector>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/dist_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

namespace gb::log {
namespace {

struct Registry {
  std::mutex mutex;
  std::shared_ptr<spdlog::sinks::dist_sink_mt> dist =
      std::make_shared<spdlog::sinks::dist_sink_mt>();
  std::shared_ptr<spdlog::sinks::stderr_sink_mt> err =
      std::make_shared<spdlog::sinks::stderr_sink_mt>();
  std::unordered_map<std::string, std::shared_ptr<spdlog::logger>> loggers;
  spdlog::level::level_enum level = spdlog::level::info;
  bool stderr_enabled = true;
  Registry() { dist->add_sink(err); }
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::shared_ptr<spdlog::logger> get(const std::string& area) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.loggers.find(area);
  if (it != r.loggers.end()) return it->second;
  auto logger = std::make_shared<spdlog::logger>(area, r.dist);
  logger->set_level(r.level);
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %v");
  logger->flush_on(spdlog::level::warn);
  r.loggers.emplace(area, logger);
  return logger;
}

void set_level(spdlog::level::level_enum level) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.level = level;
  for (auto& [name, logger] : r.loggers) logger->set_level(level);
}

void add_file(const std::string& path) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path, false);
  sink->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n] [%l] %v");
  r.dist->add_sink(sink);
}

void set_stderr_enabled(bool enabled) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (enabled == r.stderr_enabled) return;
  if (enabled) {
    r.dist->add_sink(r.err);
  } else {
    r.dist->remove_sink(r.err);
  }
  r.stderr_enabled = enabled;
}

}  // namespace gb::log
