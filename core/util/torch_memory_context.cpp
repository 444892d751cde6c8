#include "util/memory_context.h"

#include <cstdlib>
#include <exception>
#include <regex>
#include <vector>

#include <fmt/format.h>

namespace gb {

namespace {

struct Context {
  std::string what, reduce;
};
thread_local std::vector<Context> t_stack;
thread_local std::optional<Context> t_failed;

}  // namespace

MemoryContext::MemoryContext(std::string what, std::string reduce)
    : m_uncaught(std::uncaught_exceptions()) {
  t_stack.push_back({std::move(what), std::move(reduce)});
}

MemoryContext::~MemoryContext() {
  // Left by an exception: the innermost context is the one that failed.
  if (std::uncaught_exceptions() > m_uncaught && !t_failed) t_failed = t_stack.back();
  t_stack.pop_back();
}

std::string format_bytes(double b) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB", "PB"};
  int u = 0;
  while (b >= 1024 && u < 5) {
    b /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{:.0f} bytes", b) : fmt::format("{:.1f} {}", b, units[u]);
}

std::string describe_allocation_failure(const std::string& message, bool bad_alloc) {
  // LibTorch: "DefaultCPUAllocator: not enough memory: you tried to allocate N bytes" (CPU),
  // "CUDA out of memory. Tried to allocate 2.00 GiB ..." (CUDA).
  const bool oom = bad_alloc || message.find("not enough memory") != std::string::npos ||
                   message.find("out of memory") != std::string::npos ||
                   message.find("Cannot allocate memory") != std::string::npos;
  std::optional<Context> ctx = t_failed;
  t_failed.reset();
  if (!oom) return {};
  std::string size;
  std::smatch m;
  static const std::regex bytes_re(R"(allocate (\d+) bytes)");
  static const std::regex cuda_re(R"([Tt]ried to allocate ([0-9.]+ [KMGT]?i?B))");
  if (std::regex_search(message, m, bytes_re)) {
    size = format_bytes(std::strtod(m[1].str().c_str(), nullptr));
  } else if (std::regex_search(message, m, cuda_re)) {
    size = m[1].str();
  }
  const std::string what = ctx ? ctx->what : "a tensor or buffer";
  const std::string reduce =
      ctx ? ctx->reduce : "the batch size, the sequence length or the threads";
  return fmt::format(
      "out of memory while allocating {}{}; reduce {}", what,
      size.empty() ? std::string(" (the allocator refused)") : fmt::format(" ({} requested)", size),
      reduce);
}

}  // namespace gb
