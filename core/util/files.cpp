#include "util/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"
#include "util/log.h"

namespace gb {
namespace {
std::string errno_text() {
  return std::strerror(errno);
}
}  // namespace

MappedFile::MappedFile(const std::string& path) : m_path(path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open '{}': {}", path, errno_text());
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string e = errno_text();
    ::close(fd);
    fail("cannot stat '{}': {}", path, e);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    fail("'{}' is a directory, expected a file", path);
  }
  m_size = static_cast<size_t>(st.st_size);
  if (m_size > 0) {
    void* p = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      std::string e = errno_text();
      ::close(fd);
      fail("cannot memory-map '{}': {}", path, e);
    }
    m_data = static_cast<const uint8_t*>(p);
  }
  ::close(fd);
}

MappedFile::~MappedFile() {
  release();
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : m_path(std::move(other.m_path)), m_data(other.m_data), m_size(other.m_size) {
  other.m_data = nullptr;
  other.m_size = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    release();
    m_path = std::move(other.m_path);
    m_data = other.m_data;
    m_size = other.m_size;
    other.m_data = nullptr;
    other.m_size = 0;
  }
  return *this;
}

void MappedFile::release() {
  if (m_data) ::munmap(const_cast<uint8_t*>(m_data), m_size);
  m_data = nullptr;
  m_size = 0;
}

std::string read_file(const std::string& path) {
  if (is_directory(path)) fail("'{}' is a directory, expected a file", path);
  // read(2) into a string sized from fstat (a stream copied through an ostringstream costs
  // two copies and the growth of a 33 MB tokenizer.json); files whose size the kernel does not
  // know (/proc) are read to the end all the same.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail("cannot open '{}': {}", path, errno_text());
  struct stat st {};
  size_t size = ::fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<size_t>(st.st_size) : 0;
  std::string out(size + 1, '\0');  // one spare byte: reaching it means the file grew
  size_t n = 0;
  while (true) {
    if (n == out.size()) out.resize(out.size() * 2 + 4096);
    ssize_t r = ::read(fd, &out[n], out.size() - n);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) {
      int err = errno;
      ::close(fd);
      errno = err;
      fail("error reading '{}': {}", path, errno_text());
    }
    if (r == 0) break;
    n += static_cast<size_t>(r);
  }
  ::close(fd);
  out.resize(n);
  return out;
}

bool file_exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

AtomicFileWriter::AtomicFileWriter(const std::string& path)
    : m_path(path), m_tmp(path + ".tmp-" + std::to_string(::getpid())) {
  m_fd = ::open(m_tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (m_fd < 0) fail("cannot create '{}': {}", m_tmp, errno_text());
}

AtomicFileWriter::~AtomicFileWriter() {
  if (m_fd >= 0) ::close(m_fd);
  if (!m_committed) ::unlink(m_tmp.c_str());
}

void AtomicFileWriter::write(const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = ::write(m_fd, p, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("cannot write '{}': {} (is the disk full?)", m_path, errno_text());
    }
    p += n;
    size -= static_cast<size_t>(n);
  }
}

void AtomicFileWriter::commit() {
  if (::fsync(m_fd) != 0) fail("cannot flush '{}': {} (is the disk full?)", m_path, errno_text());
  if (::close(m_fd) != 0) {
    m_fd = -1;
    fail("cannot close '{}': {}", m_path, errno_text());
  }
  m_fd = -1;
  if (::rename(m_tmp.c_str(), m_path.c_str()) != 0) {
    fail("cannot rename '{}' to '{}': {}", m_tmp, m_path, errno_text());
  }
  m_committed = true;
}

void write_file_atomic(const std::string& path, std::string_view bytes) {
  AtomicFileWriter w(path);
  w.write(bytes.data(), bytes.size());
  w.commit();
}

namespace {

namespace fs = std::filesystem;

// The pid of a "<name>.tmp-<pid>" entry, or -1.
long temporary_pid(const std::string& name) {
  const auto at = name.rfind(".tmp-");
  if (at == std::string::npos || at + 5 >= name.size()) return -1;
  const std::string digits = name.substr(at + 5);
  if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) return -1;
  return std::stol(digits);
}

bool pid_alive(long pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM);
}

// Files of a model (weights, config, tokenizer) that must not survive next to another
// model's: an export writes its own or none.
bool is_model_file(const std::string& n) {
  auto ends = [&](const char* suffix) {
    const size_t k = std::strlen(suffix);
    return n.size() >= k && n.compare(n.size() - k, k, suffix) == 0;
  };
  static const std::set<std::string> kNames = {"config.json",
                                               "growbench.json",
                                               "tokenizer.json",
                                               "tokenizer_config.json",
                                               "special_tokens_map.json",
                                               "generation_config.json",
                                               "vocab.json",
                                               "merges.txt",
                                               "tokenizer.model",
                                               "added_tokens.json",
                                               "chat_template.jinja",
                                               "chat_template.json"};
  return kNames.count(n) || ends(".safetensors") || ends(".safetensors.index.json") ||
         ends(".bin") || ends(".bin.index.json");
}

}  // namespace

std::vector<std::string> remove_stale_temporaries(const std::string& folder, int depth,
                                                  const std::string& prefix) {
  std::vector<std::string> removed;
  std::error_code ec;
  if (depth < 1 || !fs::is_directory(folder, ec)) return removed;
  std::vector<fs::path> subfolders;
  for (auto it = fs::directory_iterator(folder, ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const long pid = temporary_pid(name);
    std::error_code ec2;
    if (!prefix.empty() && name.rfind(prefix, 0) != 0) continue;
    if (pid > 0 && !pid_alive(pid)) {
      std::error_code rm;
      fs::remove_all(it->path(), rm);
      if (!rm) removed.push_back(it->path().string());
    } else if (it->is_directory(ec2) && pid < 0) {
      subfolders.push_back(it->path());
    }
  }
  for (const auto& sub : subfolders) {
    auto more = remove_stale_temporaries(sub.string(), depth - 1, prefix);
    removed.insert(removed.end(), more.begin(), more.end());
  }
  return removed;
}

StagedFolder::StagedFolder(const std::string& folder) {
  fs::path f = fs::path(folder).lexically_normal();
  if (f.filename().empty()) f = f.parent_path();  // "out/" -> "out"
  std::error_code link_ec;
  if (fs::is_symlink(f, link_ec)) f = fs::canonical(f);  // the folder the link names
  m_folder = f.string();
  const fs::path parent = fs::absolute(f).parent_path();
  fs::create_directories(parent);
  // This folder's own leftovers: staged copies beside it, atomic-write files inside it.
  auto removed = remove_stale_temporaries(parent.string(), 1, f.filename().string() + ".tmp-");
  for (const auto& p : remove_stale_temporaries(m_folder)) removed.push_back(p);
  for (const auto& p : removed) {
    log::get("files")->warn("removed {}, left behind by a writer that ended before finishing", p);
  }
  m_tmp = m_folder + ".tmp-" + std::to_string(::getpid());
  std::error_code ec;
  fs::remove_all(m_tmp, ec);
  fs::create_directories(m_tmp);
}

StagedFolder::~StagedFolder() {
  if (m_committed) return;
  std::error_code ec;
  fs::remove_all(m_tmp, ec);
}

void StagedFolder::commit() {
  std::error_code ec;
  const bool exists = fs::exists(m_folder, ec);
  if (exists && !fs::is_directory(m_folder, ec)) {
    fail("cannot write the folder '{}': a file of that name exists", m_folder);
  }
  if (exists) {
    // What the old folder holds beyond the model's files (notes, a README) stays with it.
    std::set<std::string> written;
    for (const auto& e : fs::directory_iterator(m_tmp)) written.insert(e.path().filename());
    for (const auto& e : fs::directory_iterator(m_folder)) {
      const std::string n = e.path().filename().string();
      if (written.count(n) || is_model_file(n)) continue;
      fs::path dst = fs::path(m_tmp) / n;
      if (e.is_directory()) {
        fs::copy(e.path(), dst, fs::copy_options::recursive);
      } else {
        fs::copy_file(e.path(), dst);
      }
    }
  }
  // Every file of the new folder is on disk before it takes the name.
  for (const auto& e : fs::directory_iterator(m_tmp)) {
    if (!e.is_regular_file()) continue;
    const int fd = ::open(e.path().c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      const int r = ::fsync(fd);
      ::close(fd);
      if (r != 0)
        fail("cannot flush '{}': {} (is the disk full?)", e.path().string(), errno_text());
    }
  }
  if (!exists) {
    if (::rename(m_tmp.c_str(), m_folder.c_str()) != 0) {
      fail("cannot rename '{}' to '{}': {}", m_tmp, m_folder, errno_text());
    }
  } else {
    if (::renameat2(AT_FDCWD, m_tmp.c_str(), AT_FDCWD, m_folder.c_str(), RENAME_EXCHANGE) != 0) {
      fail("cannot put '{}' in place of '{}': {}", m_tmp, m_folder, errno_text());
    }
    // m_tmp now holds the old folder: removed (a kill here leaves a *.tmp-PID leftover,
    // removed by the next writer).
    fs::remove_all(m_tmp, ec);
  }
  m_committed = true;
}

uint64_t fnv1a64(const void* data, size_t size, uint64_t seed) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t h = seed;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 1099511628211ULL;
  }
  return h;
}

uint64_t hash_file(const std::string& path) {
  MappedFile f(path);
  return fnv1a64(f.data(), f.size());
}

std::string hex64(uint64_t value) {
  return fmt::format("{:016x}", value);
}

}  // namespace gb
