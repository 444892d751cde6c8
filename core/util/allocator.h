#pragma once
// Process-wide memory allocator settings for training processes.

namespace gb {

// Training frees and re-allocates the same activation buffers every step. With glibc's
// defaults they go back to the kernel (heap trim, mmap for large blocks) and fault in again
// on the next step: about 100k extra page faults per 10 steps and 8-18 % lower throughput
// than PyTorch from Python on the same model (bench/train_step_compare.sh). This keeps
// blocks up to 32 MiB in the heap and trims only above 1 GiB free. No-op without glibc.
void keep_freed_memory_for_reuse();

}  // namespace gb
