#pragma once
// What the program is allocating memory for, so that an allocation failure caught at a
// command boundary says which tensor or buffer failed, how large it was, and what to reduce
// instead of the allocator's raw text.
//
//   MemoryContext mc("a training step: batch 8 x 512 tokens", "train.batch_size or seq_len");
//
// Contexts nest (thread-local). One that is left by an exception is remembered
// until the boundary reads it. Implemented in
// torch_memory_context.cpp so that it lives in growbench_core only: one copy of the
// thread-local state for the library and the programs that link it.

#include <cstdint>
#include <optional>
#include <string>

namespace gb {

class MemoryContext {
 public:
  MemoryContext(std::string what, std::string reduce);
  ~MemoryContext();
  MemoryContext(const MemoryContext&) = delete;
  MemoryContext& operator=(const MemoryContext&) = delete;

 private:
  int m_uncaught;
};

// When `message` (an exception's text; `bad_alloc` for std::bad_alloc) is an allocation
// failure: "out of memory while allocating <what> (<size>, the allocator's request); reduce
// <what to reduce>", from the innermost context the exception left (or a generic hint).
// Empty otherwise. Reading it clears the remembered context.
std::string describe_allocation_failure(const std::string& message, bool bad_alloc);

// "1.5 GB", "640 KB": sizes for messages.
std::string format_bytes(double bytes);

}  // namespace gb
