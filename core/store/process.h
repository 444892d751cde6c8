#pragma once
// Internal to core/store: who the worker process is, and whether it still exists, for
// marking runs whose worker died as interrupted.

#include <cstdint>
#include <string>

namespace gb::store::detail {

struct ProcessIdentity {
  int64_t pid = 0;
  std::string host;
  // "<boot id>:<start time in clock ticks>" on Linux, "" elsewhere: tells a live worker
  // from an unrelated process that got the same pid later (or after a reboot).
  std::string start;
};

// The calling process (computed on each call: a fork changes it).
ProcessIdentity this_process();
std::string host_name();
// The start token of a pid ("" when unknown or gone).
std::string process_start_token(int64_t pid);
// True when a process with this pid exists, is not a zombie and, when `start` is not
// empty, is the same process that recorded `start`.
bool process_alive(int64_t pid, const std::string& start);

}  // namespace gb::store::detail
