#include "model/tensor_io.h"

#include <cstring>

#ifdef __linux__
#include <sys/mman.h>
#endif

#include "util/error.h"

namespace gb::st {
namespace {

// A fresh result tensor that is about to be written in full. Most of a load's time goes into
// first-touch page faults on the result, one per 4 KB page; on Linux, where transparent huge
// pages are usually enabled only on request ("madvise"), asking for them on the 2 MB-aligned
// interior of large results cuts the number of faults 512-fold (bench_load on the 2-vCPU
// development VM: a 533 MB float32 load went from 1.0 s to 0.23-0.30 s). A hint: errors are
// ignored.
torch::Tensor fresh_result(const std::vector<int64_t>& shape, torch::ScalarType dtype) {
  torch::Tensor t = torch::empty(shape, torch::TensorOptions().dtype(dtype));
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHuge = uintptr_t{2} << 20;
  const auto p = reinterpret_cast<uintptr_t>(t.data_ptr());
  const uintptr_t begin = (p + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (p + t.nbytes()) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
  return t;
}

// The torch dtype the stored bytes are copied into before any fix-up (same bit width).
torch::ScalarType storage_dtype(DType dtype) {
  switch (dtype) {
    case DType::BOOL:
      return torch::kByte;
    case DType::U16:
      return torch::kShort;
    case DType::U32:
      return torch::kInt;
    case DType::U64:
      return torch::kLong;
    default:
      return torch_dtype(dtype);
  }
}

// True where the stored bytes are already the torch representation (no fix-up needed).
bool is_native(DType dtype) {
  return dtype != DType::BOOL && dtype != DType::U16 && dtype != DType::U32 && dtype != DType::U64;
}

// An owning CPU tensor of the stored bytes, with the exact widening of unsigned types. The
// slow path (one thread, and a second pass for a conversion): for data that is not aligned
// to its element size, and for the BOOL and unsigned types.
torch::Tensor copy_out(const TensorInfo& info, const uint8_t* data) {
  torch::Tensor raw = fresh_result(info.shape, storage_dtype(info.dtype));
  const uint64_t nbytes = info.end - info.begin;
  if (nbytes > 0) std::memcpy(raw.data_ptr(), data, nbytes);
  switch (info.dtype) {
    case DType::BOOL:
      return raw.ne(0);
    case DType::U16:
      return raw.to(torch::kInt).bitwise_and(0xFFFF);
    case DType::U32:
      return raw.to(torch::kLong).bitwise_and(int64_t{0xFFFFFFFF});
    case DType::U64:
      if (raw.numel() > 0 && raw.lt(0).any().item<bool>()) {
        fail(
            "tensor '{}': a U64 value is 2^63 or larger and does not fit in int64, the widest "
            "integer type LibTorch offers",
            info.name);
      }
      return raw;
    default:
      return raw;
  }
}

}  // namespace

torch::ScalarType torch_dtype(DType dtype) {
  switch (dtype) {
    case DType::BOOL:
      return torch::kBool;
    case DType::U8:
      return torch::kByte;
    case DType::I8:
      return torch::kChar;
    case DType::I16:
      return torch::kShort;
    case DType::U16:
      return torch::kInt;
    case DType::F16:
      return torch::kHalf;
    case DType::BF16:
      return torch::kBFloat16;
    case DType::I32:
      return torch::kInt;
    case DType::U32:
      return torch::kLong;
    case DType::F32:
      return torch::kFloat;
    case DType::F64:
      return torch::kDouble;
    case DType::I64:
      return torch::kLong;
    case DType::U64:
      return torch::kLong;
  }
  fail("invalid safetensors dtype value {}", static_cast<int>(dtype));
}

DType from_torch_dtype(torch::ScalarType type, const std::string& context) {
  switch (type) {
    case torch::kBool:
      return DType::BOOL;
    case torch::kByte:
      return DType::U8;
    case torch::kChar:
      return DType::I8;
    case torch::kShort:
      return DType::I16;
    case torch::kHalf:
      return DType::F16;
    case torch::kBFloat16:
      return DType::BF16;
    case torch::kInt:
      return DType::I32;
    case torch::kFloat:
      return DType::F32;
    case torch::kDouble:
      return DType::F64;
    case torch::kLong:
      return DType::I64;
    default:
      break;
  }
  fail(
      "{}: torch dtype {} cannot be stored in safetensors by GrowBench (supported: bool, "
      "uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)",
      context, c10::toString(type));
}

torch::Tensor to_tensor(const TensorInfo& info, const uint8_t* data,
                        c10::optional<torch::ScalarType> target_dtype, torch::Device device) {
  const uint64_t nbytes = static_cast<uint64_t>(info.numel()) * dtype_size(info.dtype);
  if (info.end - info.begin != nbytes) {
    fail("tensor '{}': {} bytes of data for {} elements of {} ({} bytes expected)", info.name,
         info.end - info.begin, info.numel(), dtype_name(info.dtype), nbytes);
  }
  const torch::ScalarType stored = torch_dtype(info.dtype);
  const torch::ScalarType target = target_dtype.value_or(stored);
  // torch kernels may read the mapped bytes in place only when they are aligned to the
  // element size, which the format does not promise (offsets are byte offsets; writers that
  // pad the header to 8 bytes and sort by alignment give aligned data, others may not).
  const bool aligned = reinterpret_cast<uintptr_t>(data) % dtype_size(info.dtype) == 0;
  if (is_native(info.dtype) && aligned && nbytes > 0) {
    torch::Tensor mapped = torch::from_blob(const_cast<uint8_t*>(data), info.shape,
                                            torch::TensorOptions().dtype(stored));
    if (device.is_cpu()) {
      // One pass: read the map, convert if asked, write the result; torch's copy kernel is
      // vectorised and runs on the intra-op thread pool.
      return fresh_result(info.shape, target).copy_(mapped);
    }
    // To an accelerator: transfer the stored (often narrower) bytes, convert there.
    torch::Tensor t = mapped.to(device);
    return target == t.scalar_type() ? t : t.to(target);
  }
  torch::Tensor t = copy_out(info, data);
  if (!device.is_cpu()) t = t.to(device);
  return target == t.scalar_type() ? t : t.to(target);
}

torch::Tensor to_tensor(const Checkpoint& checkpoint, const std::string& name,
                        c10::optional<torch::ScalarType> target_dtype, torch::Device device) {
  return to_tensor(checkpoint.info(name), checkpoint.data(name), target_dtype, device);
}

void write_tensors(const std::string& path,
                   const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                   const std::map<std::string, std::string>& metadata) {
  std::vector<torch::Tensor> keep;  // the CPU contiguous tensors the views point into
  std::vector<TensorView> views;
  keep.reserve(tensors.size());
  views.reserve(tensors.size());
  for (const auto& [name, tensor] : tensors) {
    const std::string context = fmt::format("{}: tensor '{}'", path, name);
    if (!tensor.defined()) fail("{}: the tensor is undefined (empty handle)", context);
    torch::Tensor t = tensor.detach().to(torch::kCPU).contiguous();
    TensorView v;
    v.name = name;
    v.dtype = from_torch_dtype(t.scalar_type(), context);
    v.shape = t.sizes().vec();
    v.data = t.data_ptr();
    v.nbytes = t.nbytes();
    views.push_back(std::move(v));
    keep.push_back(std::move(t));
  }
  write(path, views, metadata);
}

std::map<std::string, torch::Tensor> read_all(const std::string& path_or_folder,
                                              c10::optional<torch::ScalarType> target) {
  Checkpoint checkpoint(path_or_folder);
  std::map<std::string, torch::Tensor> out;
  for (const std::string& name : checkpoint.names()) {
    out.emplace(name, to_tensor(checkpoint, name, target));
  }
  return out;
}

}  // namespace gb::st
