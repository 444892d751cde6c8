#include "data/corpus.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <system_error>

#include "data/detail.h"
#include "data/random.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace gb::data {

namespace fs = std::filesystem;

namespace {

constexpr size_t kBinaryProbeBytes = 8192;

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

size_t count_non_space(const std::string& text) {
  size_t n = 0;
  for (char c : text) n += !is_space(c);
  return n;
}

// Drops leading blank lines and trailing whitespace; keeps the first line's indentation.
std::string finish_document(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string::npos) return std::string();
  const size_t newline = text.rfind('\n', first);
  const size_t begin = newline == std::string::npos ? 0 : newline + 1;
  size_t end = text.size();
  while (end > begin && is_space(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

void add_document(std::vector<Document>& out, std::string text, std::string source,
                  size_t min_chars) {
  text = finish_document(text);
  if (count_non_space(text) < std::max<size_t>(min_chars, 1)) return;
  out.push_back(Document{std::move(text), std::move(source)});
}

bool looks_binary(std::string_view data) {
  return std::memchr(data.data(), '\0', std::min(data.size(), kBinaryProbeBytes)) != nullptr;
}

bool file_looks_binary(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;  // reported when it is read
  char buf[kBinaryProbeBytes];
  in.read(buf, sizeof(buf));
  return looks_binary(std::string_view(buf, static_cast<size_t>(in.gcount())));
}

bool is_hidden(const fs::path& p) {
  const std::string name = p.filename().string();
  return !name.empty() && name[0] == '.';
}

bool has_extension(const fs::path& p, const char* ext) {
  return p.extension() == ext;
}

// Reads a text file with the common normalisation: BOM dropped, invalid UTF-8 replaced.
std::string read_text(const std::string& path, bool reject_binary) {
  if (!file_exists(path)) {
    fail("{}: no such file{}", path, is_directory(path) ? " (it is a folder)" : "");
  }
  std::string text = read_file(path);
  if (reject_binary && looks_binary(text)) {
    fail("{}: looks like a binary file (a NUL byte in the first {} bytes); expected text", path,
         kBinaryProbeBytes);
  }
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
  size_t bad_line = 0;
  size_t replaced = detail::sanitize_utf8(text, &bad_line);
  if (replaced > 0) {
    gb::log::get("data")->warn(
        "{}:{}: invalid UTF-8 ({} byte(s) in the file replaced by U+FFFD); is it Latin-1?", path,
        bad_line, replaced);
  }
  return text;
}

// Removes "x\b" overstrike pairs: a backspace deletes the code point before it.
std::string strip_overstrike(const std::string& text) {
  if (text.find('\b') == std::string::npos) return text;
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c != '\b') {
      out += c;
      continue;
    }
    // Pop one UTF-8 code point (continuation bytes, then the lead byte).
    while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) {
      out.pop_back();
    }
    if (!out.empty()) out.pop_back();
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> list_jsonl_files(const std::string& dir, bool recursive) {
  std::vector<std::string> out;
  for (const std::string& f : list_text_files(dir, recursive)) {
    if (has_extension(fs::path(f), ".jsonl")) out.push_back(f);
  }
  return out;
}

}  // namespace

const char* format_name(CorpusFormat format) {
  switch (format) {
    case CorpusFormat::Auto:
      return "auto";
    case CorpusFormat::Text:
      return "text";
    case CorpusFormat::Jsonl:
      return "jsonl";
    case CorpusFormat::Fortunes:
      return "fortunes";
  }
  return "?";
}

const char* unit_name(TextUnit unit) {
  switch (unit) {
    case TextUnit::File:
      return "file";
    case TextUnit::Paragraph:
      return "paragraph";
    case TextUnit::Line:
      return "line";
  }
  return "?";
}

CorpusSpec corpus_spec_from_json(const json::Json& j, const std::string& context) {
  json::check_keys(
      j, {"path", "format", "field", "unit", "recursive", "strip_overstrike", "min_chars"},
      context);
  CorpusSpec spec;
  spec.path = json::get<std::string>(j, "path", context);
  if (spec.path.empty()) fail("{}: 'path' must not be empty", context);
  const std::string format = json::get_or<std::string>(j, "format", "auto", context);
  bool found = false;
  for (CorpusFormat f :
       {CorpusFormat::Auto, CorpusFormat::Text, CorpusFormat::Jsonl, CorpusFormat::Fortunes}) {
    if (format == format_name(f)) {
      spec.format = f;
      found = true;
    }
  }
  if (!found) {
    fail("{}: 'format' is '{}'; expected auto, text, jsonl or fortunes", context, format);
  }
  spec.field = json::get_or<std::string>(j, "field", spec.field, context);
  if (spec.field.empty()) fail("{}: 'field' must not be empty", context);
  const std::string unit = json::get_or<std::string>(j, "unit", "file", context);
  found = false;
  for (TextUnit u : {TextUnit::File, TextUnit::Paragraph, TextUnit::Line}) {
    if (unit == unit_name(u)) {
      spec.unit = u;
      found = true;
    }
  }
  if (!found) fail("{}: 'unit' is '{}'; expected file, paragraph or line", context, unit);
  spec.recursive = json::get_or<bool>(j, "recursive", spec.recursive, context);
  spec.strip_overstrike = json::get_or<bool>(j, "strip_overstrike", true, context);
  const int64_t min_chars = json::get_or<int64_t>(j, "min_chars", 1, context);
  if (min_chars < 0) fail("{}: 'min_chars' must be >= 0, found {}", context, min_chars);
  spec.min_chars = static_cast<size_t>(min_chars);
  return spec;
}

json::Json corpus_spec_to_json(const CorpusSpec& spec) {
  return json::Json{{"path", spec.path},           {"format", format_name(spec.format)},
                    {"field", spec.field},         {"unit", unit_name(spec.unit)},
                    {"recursive", spec.recursive}, {"strip_overstrike", spec.strip_overstrike},
                    {"min_chars", spec.min_chars}};
}

CorpusFormat detect_format(const std::string& path) {
  std::error_code ec;
  const fs::path p(path);
  if (is_directory(path)) {
    bool any_dat = false;
    bool any_jsonl = false;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      if (is_hidden(e.path())) continue;
      any_dat |= has_extension(e.path(), ".dat");
      any_jsonl |= has_extension(e.path(), ".jsonl");
    }
    if (ec) fail("cannot list folder '{}': {}", path, ec.message());
    if (any_dat) return CorpusFormat::Fortunes;
    if (any_jsonl) return CorpusFormat::Jsonl;
    return CorpusFormat::Text;
  }
  if (!file_exists(path)) fail("corpus path '{}' does not exist", path);
  const std::string ext = lower(p.extension().string());
  if (ext == ".jsonl" || ext == ".json") return CorpusFormat::Jsonl;
  if (file_exists(path + ".dat")) return CorpusFormat::Fortunes;
  return CorpusFormat::Text;
}

std::vector<Document> read_corpus(const CorpusSpec& spec) {
  if (spec.path.empty()) fail("corpus: no path given");
  if (!file_exists(spec.path) && !is_directory(spec.path)) {
    fail("corpus path '{}' does not exist", spec.path);
  }
  const CorpusFormat format =
      spec.format == CorpusFormat::Auto ? detect_format(spec.path) : spec.format;
  std::vector<Document> docs;
  switch (format) {
    case CorpusFormat::Text:
      docs = is_directory(spec.path)
                 ? read_text_folder(spec.path, spec.unit, spec.recursive, spec.min_chars)
                 : read_text_file(spec.path, spec.unit, spec.min_chars);
      break;
    case CorpusFormat::Jsonl:
      if (is_directory(spec.path)) {
        for (const std::string& f : list_jsonl_files(spec.path, spec.recursive)) {
          auto part = read_jsonl(f, spec.field, spec.min_chars);
          docs.insert(docs.end(), std::make_move_iterator(part.begin()),
                      std::make_move_iterator(part.end()));
        }
      } else {
        docs = read_jsonl(spec.path, spec.field, spec.min_chars);
      }
      break;
    case CorpusFormat::Fortunes:
      docs = read_fortunes(spec.path, spec.strip_overstrike, spec.min_chars);
      break;
    case CorpusFormat::Auto:
      break;
  }
  if (docs.empty()) {
    fail("corpus '{}' (format {}) has no documents; check the path and the format", spec.path,
         format_name(format));
  }
  gb::log::get("data")->debug("read {} documents from '{}' ({})", docs.size(), spec.path,
                              format_name(format));
  return docs;
}

std::vector<Document> read_text_file(const std::string& path, TextUnit unit, size_t min_chars) {
  const std::string text = read_text(path, true);
  std::vector<Document> docs;
  if (unit == TextUnit::File) {
    std::string normalised;
    normalised.reserve(text.size());
    detail::for_each_line(text, [&](std::string_view line, size_t) {
      normalised.append(line.data(), line.size());
      normalised += '\n';
    });
    add_document(docs, std::move(normalised), path, min_chars);
    return docs;
  }
  std::string current;
  size_t first_line = 0;
  auto flush = [&]() {
    if (first_line != 0) {
      add_document(docs, std::move(current), fmt::format("{}:{}", path, first_line), min_chars);
    }
    current.clear();
    first_line = 0;
  };
  detail::for_each_line(text, [&](std::string_view line, size_t no) {
    const bool blank = line.find_first_not_of(" \t\f\v") == std::string_view::npos;
    if (unit == TextUnit::Line) {
      if (!blank) add_document(docs, std::string(line), fmt::format("{}:{}", path, no), min_chars);
      return;
    }
    if (blank) {
      flush();
      return;
    }
    if (first_line == 0) first_line = no;
    current.append(line.data(), line.size());
    current += '\n';
  });
  flush();
  return docs;
}

std::vector<std::string> list_text_files(const std::string& dir, bool recursive) {
  if (!is_directory(dir)) fail("'{}' is not a folder", dir);
  std::vector<fs::path> regular;
  std::vector<fs::path> links;
  std::error_code ec;
  auto consider = [&](const fs::directory_entry& e) {
    const fs::path& p = e.path();
    if (has_extension(p, ".dat")) return;
    std::error_code lec;
    if (e.is_symlink(lec)) {
      if (fs::is_regular_file(p, lec)) links.push_back(p);  // symlinked folders: never
      return;
    }
    if (e.is_regular_file(lec)) regular.push_back(p);
  };
  if (recursive) {
    fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (is_hidden(it->path())) {
        if (it->is_directory()) it.disable_recursion_pending();
        continue;
      }
      consider(*it);
    }
  } else {
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (!is_hidden(e.path())) consider(e);
    }
  }
  if (ec) fail("cannot list folder '{}': {}", dir, ec.message());

  // Regular files first so that a symlink to a listed file (fortunes' *.u8) is dropped.
  std::set<std::string> seen;
  std::vector<std::string> out;
  auto add = [&](const fs::path& p) {
    std::error_code cec;
    fs::path canonical = fs::canonical(p, cec);
    const std::string key = cec ? p.string() : canonical.string();
    if (!seen.insert(key).second) return;
    if (file_looks_binary(p.string())) {
      gb::log::get("data")->debug("skipping binary file '{}'", p.string());
      return;
    }
    out.push_back(p.string());
  };
  std::sort(regular.begin(), regular.end());
  std::sort(links.begin(), links.end());
  for (const auto& p : regular) add(p);
  for (const auto& p : links) add(p);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Document> read_text_folder(const std::string& dir, TextUnit unit, bool recursive,
                                       size_t min_chars) {
  std::vector<Document> docs;
  for (const std::string& f : list_text_files(dir, recursive)) {
    auto part = read_text_file(f, unit, min_chars);
    docs.insert(docs.end(), std::make_move_iterator(part.begin()),
                std::make_move_iterator(part.end()));
  }
  return docs;
}

std::vector<Document> read_jsonl(const std::string& path, const std::string& field,
                                 size_t min_chars) {
  std::vector<Document> docs;
  detail::for_each_jsonl_object(path, [&](const json::Json& j, const std::string& where) {
    auto it = j.find(field);
    if (it == j.end()) {
      std::string keys;
      for (auto k = j.begin(); k != j.end(); ++k) keys += (keys.empty() ? "" : ", ") + k.key();
      fail("{}: missing field '{}' (keys: {}); set the corpus 'field' to the text key", where,
           field, keys.empty() ? "none" : keys);
    }
    if (!it->is_string()) {
      fail("{}: field '{}' must be a string, found {}", where, field, json::type_name(*it));
    }
    add_document(docs, it->get<std::string>(), where, min_chars);
  });
  return docs;
}

std::vector<Document> read_fortune_file(const std::string& path, bool strip, size_t min_chars) {
  const std::string text = read_text(path, true);
  std::vector<Document> docs;
  std::string current;
  size_t first_line = 0;
  auto flush = [&]() {
    if (first_line != 0) {
      add_document(docs, strip ? strip_overstrike(current) : current,
                   fmt::format("{}:{}", path, first_line), min_chars);
    }
    current.clear();
    first_line = 0;
  };
  detail::for_each_line(text, [&](std::string_view line, size_t no) {
    if (line == "%") {
      flush();
      return;
    }
    if (first_line == 0) first_line = no;
    current.append(line.data(), line.size());
    current += '\n';
  });
  flush();
  return docs;
}

std::vector<Document> read_fortunes(const std::string& path, bool strip, size_t min_chars) {
  if (!is_directory(path)) return read_fortune_file(path, strip, min_chars);
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(path, ec)) {
    const fs::path& p = e.path();
    std::error_code lec;
    if (is_hidden(p) || e.is_symlink(lec) || !e.is_regular_file(lec)) continue;
    if (has_extension(p, ".dat")) continue;
    // A regular "x.u8" next to "x" is the same collection in UTF-8; read it once.
    if (has_extension(p, ".u8") && file_exists(p.parent_path() / p.stem())) continue;
    if (file_looks_binary(p.string())) {
      gb::log::get("data")->debug("skipping binary file '{}'", p.string());
      continue;
    }
    files.push_back(p);
  }
  if (ec) fail("cannot list folder '{}': {}", path, ec.message());
  std::sort(files.begin(), files.end());
  std::vector<Document> docs;
  for (const auto& f : files) {
    auto part = read_fortune_file(f.string(), strip, min_chars);
    docs.insert(docs.end(), std::make_move_iterator(part.begin()),
                std::make_move_iterator(part.end()));
  }
  return docs;
}

void write_documents_jsonl(const std::string& path, const std::vector<Document>& docs) {
  detail::ensure_parent_dir(path);
  AtomicFileWriter w(path);
  std::string buf;
  for (const Document& d : docs) {
    buf += detail::dump_line(json::Json{{"text", d.text}});
    buf += '\n';
    if (buf.size() > (1u << 20)) {
      w.write(buf.data(), buf.size());
      buf.clear();
    }
  }
  w.write(buf.data(), buf.size());
  w.commit();
}

void shuffle_documents(std::vector<Document>& docs, uint64_t seed) {
  shuffle(docs, seed);
}

void limit_documents(std::vector<Document>& docs, int64_t max_count) {
  if (max_count >= 0 && docs.size() > static_cast<size_t>(max_count)) {
    docs.resize(static_cast<size_t>(max_count));
  }
}

IndexSplit split_indices(uint64_t n, const SplitOptions& options) {
  uint64_t k = 0;
  if (options.heldout_count >= 0) {
    if (static_cast<uint64_t>(options.heldout_count) > n) {
      fail("held-out count {} exceeds the {} documents available", options.heldout_count, n);
    }
    k = static_cast<uint64_t>(options.heldout_count);
  } else {
    const double f = options.heldout_fraction;
    if (!std::isfinite(f) || f < 0.0 || f > 1.0) {
      fail("held-out fraction must be in [0, 1], found {}", f);
    }
    k = std::min<uint64_t>(n, static_cast<uint64_t>(std::llround(f * static_cast<double>(n))));
  }
  std::vector<uint64_t> perm = permutation(n, options.seed);
  IndexSplit split;
  split.heldout.assign(perm.begin(), perm.begin() + static_cast<ptrdiff_t>(k));
  split.train.assign(perm.begin() + static_cast<ptrdiff_t>(k), perm.end());
  return split;
}

DocumentSplit split_documents(std::vector<Document> docs, const SplitOptions& options) {
  const IndexSplit idx = split_indices(docs.size(), options);
  DocumentSplit split;
  split.train.reserve(idx.train.size());
  split.heldout.reserve(idx.heldout.size());
  for (uint64_t i : idx.heldout) split.heldout.push_back(std::move(docs[i]));
  for (uint64_t i : idx.train) split.train.push_back(std::move(docs[i]));
  return split;
}

}  // namespace gb::data
