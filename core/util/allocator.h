#pragma once
// Process-wide memory allocator settings for training processes.

namespace gb {

// Training frees and re-allocates the same activation buffers every step. With glibc's
// defaults they go back to the kernel (heap trim, mmap for large blocks) and fault in again
// on the next step: 8-18 % lower throughput than PyTorch from Python on the same model
// (bench/train_step_compare.sh; perf shows the difference in page faults). glibc only honours
// the fix (trim threshold 1 GiB, mmap threshold 32 MiB) when it is in GLIBC_TUNABLES at
// process start (mallopt() in main() measured no gain), so this re-executes the running
// program once with the tunables set. It returns (doing nothing) when GLIBC_TUNABLES is
// already set, GB_NO_REEXEC is set, outside glibc/Linux, or when the exec fails.
void reexec_with_allocator_tunables(char** argv);

}  // namespace gb
