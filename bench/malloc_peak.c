/* Peak of the bytes a process holds through malloc, beside its peak RSS: a preload library
 * that counts every block malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign and
 * valloc hand out (glibc's usable size) and prints, when the process exits, the peak and the
 * bytes still held. LibTorch's CPU tensors come from posix_memalign, so the peak is that of the
 * live tensors plus everything else on the heap; where the peak RSS is much larger, the
 * difference is memory the allocator keeps after it was freed (fragmentation) or memory not
 * taken through malloc (mmap'd files, OpenBLAS's buffers, thread stacks).
 *
 *   gcc -O2 -shared -fPIC -o /tmp/malloc_peak.so bench/malloc_peak.c
 *   LD_PRELOAD=/tmp/malloc_peak.so build/bench/bench_train_step ...     # or python3 ...
 *   # stderr, last line: malloc_peak_mb 2298.2 malloc_live_at_exit_mb 41.4
 *
 * glibc only (it calls glibc's own __libc_* entry points). Counting costs two atomic
 * operations per call: fine for a memory measurement, not for a timing one. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

extern void* __libc_malloc(size_t);
extern void __libc_free(void*);
extern void* __libc_calloc(size_t, size_t);
extern void* __libc_realloc(void*, size_t);
extern void* __libc_memalign(size_t, size_t);

static _Atomic long long live_bytes, peak_bytes;

static void held(void* p) {
  if (!p) return;
  const long long n = (long long)malloc_usable_size(p);
  const long long now = atomic_fetch_add(&live_bytes, n) + n;
  long long peak = atomic_load(&peak_bytes);
  while (now > peak && !atomic_compare_exchange_weak(&peak_bytes, &peak, now)) {
  }
}

static void released(void* p) {
  if (p) atomic_fetch_sub(&live_bytes, (long long)malloc_usable_size(p));
}

void* malloc(size_t n) {
  void* p = __libc_malloc(n);
  held(p);
  return p;
}

void free(void* p) {
  released(p);
  __libc_free(p);
}

void* calloc(size_t count, size_t size) {
  void* p = __libc_calloc(count, size);
  held(p);
  return p;
}

void* realloc(void* old, size_t n) {
  const long long before = old ? (long long)malloc_usable_size(old) : 0;
  void* p = __libc_realloc(old, n);
  if (p) {
    atomic_fetch_sub(&live_bytes, before);
    held(p);
  } else if (old && n == 0) {
    atomic_fetch_sub(&live_bytes, before); /* realloc(p, 0) freed it */
  }
  return p;
}

void* memalign(size_t alignment, size_t n) {
  void* p = __libc_memalign(alignment, n);
  held(p);
  return p;
}

void* aligned_alloc(size_t alignment, size_t n) { return memalign(alignment, n); }

void* valloc(size_t n) { return memalign(4096, n); }

int posix_memalign(void** out, size_t alignment, size_t n) {
  void* p = __libc_memalign(alignment, n);
  if (!p) return ENOMEM;
  held(p);
  *out = p;
  return 0;
}

__attribute__((destructor)) static void report(void) {
  fprintf(stderr, "malloc_peak_mb %.1f malloc_live_at_exit_mb %.1f\n",
          (double)atomic_load(&peak_bytes) / 1048576.0,
          (double)atomic_load(&live_bytes) / 1048576.0);
}
