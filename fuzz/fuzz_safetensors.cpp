// libFuzzer target: the safetensors header parser (core/model/safetensors.h).
// The input is a whole file. gb::Error is the expected way to reject it; any other exception,
// a crash, a sanitizer report or a broken invariant of an accepted header is a finding.
#include <cstddef>
#include <cstdint>

#include "model/safetensors.h"
#include "util/error.h"

namespace {

[[noreturn]] void broken(const char* what) {
  (void)what;
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gb::st::Header header;
  try {
    header = gb::st::parse_header(data, size, "fuzz input");
  } catch (const gb::Error&) {
    return 0;
  }
  // An accepted header promises: the data section follows the header, the tensors cover it
  // in order without holes or overlaps, and each byte range matches shape and dtype.
  if (header.header_size > size - 8) broken("header past the end");
  const uint64_t data_start = 8 + header.header_size;
  const uint64_t data_size = size - data_start;
  uint64_t pos = 0;
  volatile uint8_t sink = 0;
  for (const gb::st::TensorInfo& t : header.tensors) {
    if (t.begin != pos || t.end < t.begin || t.end > data_size) broken("bad offsets");
    if (t.numel() < 0) broken("negative numel");
    for (int64_t d : t.shape) {
      if (d < 0) broken("negative dimension");
    }
    if (static_cast<uint64_t>(t.numel()) * gb::st::dtype_size(t.dtype) != t.end - t.begin) {
      broken("size mismatch");
    }
    // Touch every byte of the tensor: ASan reports any read outside the input.
    for (uint64_t i = t.begin; i < t.end; ++i) sink = sink ^ data[data_start + i];
    pos = t.end;
  }
  if (pos != data_size) broken("data section not covered");
  return 0;
}
