#pragma once
// Conversion between safetensors data (core/model/safetensors.h, torch-free) and LibTorch
// tensors: reading a tensor out of a memory-mapped file, writing a list of tensors.
//
// Every tensor returned owns its memory (the data is copied out of the map, so it stays valid
// after the File or Checkpoint is gone). Data is little-endian, as the format prescribes.
//
// Unsigned types without a torch counterpart in LibTorch 1.13 are widened exactly:
// U16 → int32, U32 → int64, U64 → int64 (values ≥ 2^63 are refused). BOOL bytes other than 0
// read as true.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>

#include "model/safetensors.h"

namespace gb::st {

// The torch dtype a safetensors dtype reads as (see the widening rule above).
torch::ScalarType torch_dtype(DType dtype);
// The safetensors dtype of a torch dtype; throws naming `context` for dtypes the format
// cannot hold (complex, quantized, ...).
DType from_torch_dtype(torch::ScalarType type, const std::string& context);

// Copies a tensor out of `data` (the first byte of its data, any alignment; see
// File::data), converts it to `target_dtype` when given and moves it to `device`. On the CPU,
// data aligned to its element size takes one pass: torch's copy kernel reads the map,
// converts and writes the result (large results are backed by transparent huge pages where
// Linux allows it); unaligned data is first copied out with memcpy. To a GPU, the data is
// transferred as stored and converted there.
torch::Tensor to_tensor(const TensorInfo& info, const uint8_t* data,
                        c10::optional<torch::ScalarType> target_dtype = c10::nullopt,
                        torch::Device device = torch::kCPU);
// Same, by name from a checkpoint (throws naming the checkpoint and tensor when absent).
torch::Tensor to_tensor(const Checkpoint& checkpoint, const std::string& name,
                        c10::optional<torch::ScalarType> target_dtype = c10::nullopt,
                        torch::Device device = torch::kCPU);

// Writes tensors (any device, any layout: moved to the CPU and made contiguous first) to a
// .safetensors file atomically, in the given order.
void write_tensors(const std::string& path,
                   const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                   const std::map<std::string, std::string>& metadata = {});

// Every tensor of a .safetensors file or checkpoint folder (see Checkpoint), on the CPU,
// converted to `target` when given.
std::map<std::string, torch::Tensor> read_all(
    const std::string& path_or_folder, c10::optional<torch::ScalarType> target = c10::nullopt);

}  // namespace gb::st
