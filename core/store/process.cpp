#include "store/process.h"

#include <cerrno>
#include <fstream>
#include <sstream>
#include <vector>

#include <signal.h>
#include <unistd.h>

namespace gb::store::detail {
namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (in) std::getline(in, line);
  return line;
}

// Fields of /proc/<pid>/stat after the "(comm)" field: [0] = state (field 3), [19] = start
// time (field 22). comm may contain spaces and parentheses, so split after the last ')'.
std::vector<std::string> stat_fields(int64_t pid) {
  std::string line = read_first_line("/proc/" + std::to_string(pid) + "/stat");
  std::vector<std::string> fields;
  auto close = line.rfind(')');
  if (close == std::string::npos) return fields;
  std::istringstream rest(line.substr(close + 1));
  std::string f;
  while (rest >> f) fields.push_back(f);
  return fields;
}

const std::string& boot_id() {
  static const std::string id = read_first_line("/proc/sys/kernel/random/boot_id");
  return id;
}

}  // namespace

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

std::string process_start_token(int64_t pid) {
  std::vector<std::string> fields = stat_fields(pid);
  if (fields.size() < 20 || boot_id().empty()) return "";
  return boot_id() + ":" + fields[19];
}

ProcessIdentity this_process() {
  static const std::string host = host_name();
  ProcessIdentity id;
  id.pid = static_cast<int64_t>(getpid());
  id.host = host;
  id.start = process_start_token(id.pid);
  return id;
}

bool process_alive(int64_t pid, const std::string& start) {
  if (pid <= 0) return false;
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno != EPERM) return false;
  std::vector<std::string> fields = stat_fields(pid);
  if (!fields.empty() && (fields[0] == "Z" || fields[0] == "X")) return false;  // zombie
  if (start.empty()) return true;
  std::string now = process_start_token(pid);
  return now.empty() || now == start;
}

}  // namespace gb::store::detail
