#pragma once
// Errors in the core are exceptions with actionable messages: what failed, where (file,
// tensor, key), expected against actual, and a hint where one helps.

#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

namespace gb {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

// Thrown when a long operation notices that cancellation was requested.
class CancelledError : public Error {
 public:
  CancelledError() : Error("cancelled") {}
};

template <typename... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw Error(fmt::format(format, std::forward<Args>(args)...));
}

}  // namespace gb
