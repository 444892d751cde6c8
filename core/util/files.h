#pragma once
// File helpers: read-only memory maps, whole-file reads, and atomic writes (write a
// temporary file next to the target, fsync, rename) so that a full disk or a killed
// process never leaves a half-written file under the real name.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gb {

class MappedFile {
 public:
  MappedFile() = default;
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;

  const uint8_t* data() const { return m_data; }
  size_t size() const { return m_size; }
  const std::string& path() const { return m_path; }

 private:
  void release();
  std::string m_path;
  const uint8_t* m_data = nullptr;
  size_t m_size = 0;
};

std::string read_file(const std::string& path);
bool file_exists(const std::string& path);
bool is_directory(const std::string& path);
// Writes `bytes` to `path` atomically; throws gb::Error naming the path and errno text.
void write_file_atomic(const std::string& path, std::string_view bytes);

// Streaming atomic writer for large files: write() chunks, then commit() renames into place.
// Destroying an uncommitted writer removes the temporary file.
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(const std::string& path);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;
  void write(const void* data, size_t size);
  void commit();

 private:
  std::string m_path;
  std::string m_tmp;
  int m_fd = -1;
  bool m_committed = false;
};

// 64-bit FNV-1a; used for cache keys (tokenised corpora), not for security.
uint64_t fnv1a64(const void* data, size_t size, uint64_t seed = 1469598103934665603ULL);
uint64_t hash_file(const std::string& path);
std::string hex64(uint64_t value);

}  // namespace gb
