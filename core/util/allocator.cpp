#include "util/allocator.h"

#include <cstdlib>

#if defined(__GLIBC__) && defined(__linux__)
#include <unistd.h>
#endif

namespace gb {

void reexec_with_allocator_tunables(char** argv) {
#if defined(__GLIBC__) && defined(__linux__)
  if (std::getenv("GLIBC_TUNABLES") || std::getenv("GB_NO_REEXEC")) return;
  setenv("GLIBC_TUNABLES",
         "glibc.malloc.trim_threshold=1073741824:glibc.malloc.mmap_threshold=33554432", 1);
  setenv("GB_NO_REEXEC", "1", 1);  // never loop, even if a program clears GLIBC_TUNABLES
  execv("/proc/self/exe", argv);
  // exec failed: carry on with the defaults.
  unsetenv("GLIBC_TUNABLES");
#else
  (void)argv;
#endif
}

}  // namespace gb
