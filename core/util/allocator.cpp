#include "util/allocator.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace gb {

void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace gb
