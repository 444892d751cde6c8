#include "util/files.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.h"

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
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open '{}': {}", path, errno_text());
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) fail("error reading '{}'", path);
  return ss.str();
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
