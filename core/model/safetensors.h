#pragma once
// safetensors reading and writing, without LibTorch.
//
// Format: 8-byte little-endian header length N, then N bytes of UTF-8 JSON
// {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, ...,
//  "__metadata__": {"k": "v"}}, then the data section; offsets are relative to its start.
// Every check the format allows is made, and errors name the file, the tensor and
// expected against actual.

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/files.h"

namespace gb::st {

enum class DType { BOOL, U8, I8, I16, U16, F16, BF16, I32, U32, F32, F64, I64, U64 };

const char* dtype_name(DType dtype);  // "F32", ...
size_t dtype_size(DType dtype);       // bytes per element
// Throws naming `context` for an unknown dtype string.
DType parse_dtype(const std::string& name, const std::string& context);

struct TensorInfo {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  uint64_t begin = 0;  // byte offsets relative to the start of the data section
  uint64_t end = 0;
  int64_t numel() const;
};

struct Header {
  uint64_t header_size = 0;  // N, the JSON length
  std::map<std::string, std::string> metadata;
  std::vector<TensorInfo> tensors;  // in file order of their data offsets
};

// Parses and validates the header of a whole file held in memory (`size` = file size).
// Checks: file at least 8 bytes; N within the file and below 100 MB; valid UTF-8 JSON
// object; each entry has exactly dtype/shape/data_offsets of the right types; known dtype;
// non-negative shape; end - begin == numel * dtype size (no overflow); offsets inside the
// data section; no two tensors overlapping; metadata a string→string object.
// Also: no duplicate keys anywhere in the JSON (a repeated tensor name is an error, not
// "last one wins"), and, as in the reference Rust implementation, the tensors cover the data
// section exactly (no holes, no trailing bytes). F8/F4/F6/C64 are recognised and refused as
// unsupported. `source` names the file in messages. Throws gb::Error.
Header parse_header(const uint8_t* data, size_t size, const std::string& source);

// A memory-mapped, validated .safetensors file.
class File {
 public:
  explicit File(const std::string& path);
  const std::string& path() const { return m_map.path(); }
  const Header& header() const { return m_header; }
  const TensorInfo* find(const std::string& name) const;  // nullptr when absent
  const TensorInfo& at(const std::string& name) const;    // throws naming the file
  // Pointer to the first byte of a tensor's data (not necessarily aligned).
  const uint8_t* data(const TensorInfo& info) const;

 private:
  MappedFile m_map;
  Header m_header;
  std::map<std::string, size_t> m_index;
  uint64_t m_data_start = 0;
};

// A checkpoint folder: `model.safetensors`, or `model.safetensors.index.json` with shards
// (the index's weight_map is validated: every shard exists and holds the tensors listed,
// no tensor appears in two shards, every tensor a listed shard holds is in the map; shard
// names must be plain file names in the folder). model.safetensors wins over an index when
// both exist, as in transformers. Refuses pickled checkpoints with a message that
// explains why and how to convert them.
class Checkpoint {
 public:
  // `folder` may also be the path of one .safetensors file.
  explicit Checkpoint(const std::string& folder);
  std::vector<std::string> names() const;  // sorted
  bool contains(const std::string& name) const;
  const TensorInfo& info(const std::string& name) const;
  const uint8_t* data(const std::string& name) const;
  const std::string& file_of(const std::string& name) const;
  std::map<std::string, std::string> metadata() const;  // of the first shard
  uint64_t total_bytes() const;

 private:
  void load_index(const std::string& index_path);
  std::string m_source;  // the folder or file given, for messages
  std::vector<std::unique_ptr<File>> m_files;
  std::map<std::string, size_t> m_where;  // tensor → index in m_files
};

// One tensor to write. `data` must hold numel * dtype_size bytes.
struct TensorView {
  std::string name;
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  const void* data = nullptr;
  size_t nbytes = 0;
};

// Writes a .safetensors file atomically (temporary file, fsync, rename). Tensors are laid
// out in the given order, the header padded with spaces to a multiple of 8 bytes;
// `__metadata__` is written only when `metadata` is not empty. Throws gb::Error naming the
// file and tensor for duplicate or reserved names and for nbytes != numel * dtype size.
void write(const std::string& path, const std::vector<TensorView>& tensors,
           const std::map<std::string, std::string>& metadata = {});

}  // namespace gb::st
