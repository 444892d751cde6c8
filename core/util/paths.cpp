#include "util/paths.h"

#include <cstdlib>
#include <filesystem>

namespace gb {

std::string default_workspace_dir() {
  if (const char* w = std::getenv("GROWBENCH_WORKSPACE"); w && *w) return w;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) {
    return (std::filesystem::path(x) / "growbench").string();
  }
  if (const char* h = std::getenv("HOME"); h && *h) {
    return (std::filesystem::path(h) / ".local" / "share" / "growbench").string();
  }
  return (std::filesystem::temp_directory_path() / "growbench").string();
}

std::string default_store_path() {
  return (std::filesystem::path(default_workspace_dir()) / "growbench.db").string();
}

}  // namespace gb
