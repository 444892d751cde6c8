#pragma once
// File helpers: read-only memory maps, whole-file reads, and atomic writes (write a
// temporary file next to the target, fsync, rename) so that a full disk or a killed
// process never leaves a half-written file under the real name.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// Writes a folder as a whole (a model export: config, tokenizer, weight shards, index), so
// that a kill or a full disk never leaves a folder that mixes two models: the files go into
// the temporary sibling "<folder>.tmp-<pid>" (path()), and commit() puts it in place in one
// step (an existing folder is swapped with it atomically, renameat2 RENAME_EXCHANGE, and its
// old content removed afterwards). Files of the existing folder that the new one does not
// write are carried over, except model files (config.json, growbench.json, *.safetensors,
// *.safetensors.index.json, *.bin, the tokenizer files), which would not match the new model.
// Destroying an uncommitted one removes the temporary folder. Leftovers of killed writers next to
// the folder are removed first (remove_stale_temporaries), each named in a warning.
class StagedFolder {
 public:
  explicit StagedFolder(const std::string& folder);
  ~StagedFolder();
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;
  const std::string& path() const { return m_tmp; }
  void commit();

 private:
  std::string m_folder, m_tmp;
  bool m_committed = false;
};

// Removes "*.tmp-<pid>" files and folders in `folder` (and `depth` - 1 levels below) whose
// process no longer exists: what a killed atomic write or staged export leaves. Only names
// starting with `prefix` (when given) are considered. Returns the paths removed (the caller
// warns); problems removing one are skipped, never thrown.
std::vector<std::string> remove_stale_temporaries(const std::string& folder, int depth = 1,
                                                  const std::string& prefix = {});

// 64-bit FNV-1a; used for cache keys (tokenised corpora), not for security.
uint64_t fnv1a64(const void* data, size_t size, uint64_t seed = 1469598103934665603ULL);
uint64_t hash_file(const std::string& path);
std::string hex64(uint64_t value);

}  // namespace gb
