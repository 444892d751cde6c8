#include "data/detail.h"

#include <filesystem>
#include <system_error>

#include "util/error.h"
#include "util/files.h"

namespace gb::data::detail {

namespace fs = std::filesystem;

void ensure_dir(const std::string& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  fs::create_directories(fs::path(dir), ec);
  if (ec) fail("cannot create folder '{}': {}", dir, ec.message());
  if (!is_directory(dir)) fail("'{}' exists but is not a folder", dir);
}

void ensure_parent_dir(const std::string& path) {
  fs::path parent = fs::path(path).parent_path();
  if (!parent.empty()) ensure_dir(parent.string());
}

using LineFn = std::function<void(std::string_view, size_t)>;

void for_each_line(std::string_view text, const LineFn& fn) {
  size_t line_no = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    size_t next = end == std::string_view::npos ? text.size() : end + 1;
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    fn(line, ++line_no);
    pos = next;
  }
}

namespace {
// Length of the valid UTF-8 sequence starting at s[i], or 0 if it is invalid (RFC 3629:
// no overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8_sequence_length(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const size_t n = s.size();
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  auto cont = [&](size_t k) { return k < n && (b(k) & 0xC0) == 0x80; };
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (i + 1 >= n) return 0;
    unsigned char c1 = b(i + 1);
    if (c == 0xE0 && (c1 < 0xA0 || c1 > 0xBF)) return 0;
    if (c == 0xED && (c1 < 0x80 || c1 > 0x9F)) return 0;
    return cont(i + 1) && cont(i + 2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (i + 1 >= n) return 0;
    unsigned char c1 = b(i + 1);
    if (c == 0xF0 && (c1 < 0x90 || c1 > 0xBF)) return 0;
    if (c == 0xF4 && (c1 < 0x80 || c1 > 0x8F)) return 0;
    return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  }
  return 0;
}
}  // namespace

size_t sanitize_utf8(std::string& text, size_t* first_bad_line) {
  // Fast path: most corpora are valid.
  size_t i = 0;
  while (i < text.size()) {
    size_t len = utf8_sequence_length(text, i);
    if (len == 0) break;
    i += len;
  }
  if (i == text.size()) return 0;
  std::string out;
  out.reserve(text.size() + 16);
  out.append(text, 0, i);
  size_t replaced = 0;
  size_t line = 1;
  for (size_t k = 0; k < i; ++k) line += text[k] == '\n';
  while (i < text.size()) {
    size_t len = utf8_sequence_length(text, i);
    if (len == 0) {
      if (replaced == 0 && first_bad_line) *first_bad_line = line;
      ++replaced;
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (text[i] == '\n') ++line;
    out.append(text, i, len);
    i += len;
  }
  text.swap(out);
  return replaced;
}

std::string dump_line(const json::Json& j) {
  return j.dump(-1, ' ', false, json::Json::error_handler_t::replace);
}

void for_each_jsonl_object(const std::string& path,
                           const std::function<void(const json::Json&, const std::string&)>& fn) {
  if (!file_exists(path)) {
    fail("{}: no such file{}", path, is_directory(path) ? " (it is a folder)" : "");
  }
  std::string text = read_file(path);
  size_t start = 0;
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) start = 3;
  for_each_line(std::string_view(text).substr(start), [&](std::string_view line, size_t no) {
    if (line.find_first_not_of(" \t\r\f\v") == std::string_view::npos) return;
    const std::string where = fmt::format("{}:{}", path, no);
    json::Json j;
    try {
      j = json::Json::parse(line.begin(), line.end());
    } catch (const json::Json::parse_error& e) {
      // Drop nlohmann's "[json.exception...] parse error at line 1, column N: " prefix.
      std::string msg = e.what();
      const size_t column = msg.find("column ");
      const size_t colon = column == std::string::npos ? column : msg.find(": ", column);
      if (colon != std::string::npos) msg = msg.substr(colon + 2);
      fail("{}: malformed JSON at column {}: {}", where, e.byte, msg);
    }
    if (!j.is_object()) {
      fail("{}: expected a JSON object per line, found {}", where, json::type_name(j));
    }
    fn(j, where);
  });
}

}  // namespace gb::data::detail
