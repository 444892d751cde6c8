#pragma once
// Helpers shared by the test executables (no LibTorch).
#include <exception>
#include <functional>
#include <string>

#include "util/error.h"

namespace gb::test {

// The message of the gb::Error `f` throws; "UNEXPECTED EXCEPTION TYPE: ..." for any other
// exception and "NO ERROR" when nothing is thrown, so that a comparison against an expected
// message fails readably in every case.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const gb::Error& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("UNEXPECTED EXCEPTION TYPE: ") + e.what();
  }
  return "NO ERROR";
}

}  // namespace gb::test
