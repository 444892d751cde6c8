#include "model/safetensors.h"

// Torch-free on purpose: this file is part of growbench_base and of the fuzz build.

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <limits>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "util/error.h"
#include "util/json.h"
#include "util/log.h"

namespace gb::st {
namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

// The limit of the reference implementation (the Rust `safetensors` crate): a header larger
// than this is treated as corruption rather than parsed.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct DTypeRow {
  DType dtype;
  const char* name;
  size_t size;
};

constexpr DTypeRow kDTypes[] = {
    {DType::BOOL, "BOOL", 1}, {DType::U8, "U8", 1},   {DType::I8, "I8", 1},
    {DType::I16, "I16", 2},   {DType::U16, "U16", 2}, {DType::F16, "F16", 2},
    {DType::BF16, "BF16", 2}, {DType::I32, "I32", 4}, {DType::U32, "U32", 4},
    {DType::F32, "F32", 4},   {DType::F64, "F64", 8}, {DType::I64, "I64", 8},
    {DType::U64, "U64", 8},
};

// Types the format defines that GrowBench does not read (8-bit and smaller floats, complex).
constexpr const char* kUnsupportedDTypes[] = {"F8_E4M3", "F8_E5M2", "F8_E8M0", "F4",
                                              "F6_E2M3", "F6_E3M2", "C64"};

const char* const kPickleHint =
    "GrowBench does not load pickled PyTorch checkpoints (.bin/.pt/.pth/.ckpt): unpickling "
    "can execute arbitrary code hidden in the file. GrowBench reads only safetensors. Convert "
    "the checkpoint once, in a Python environment you trust, for example:\n"
    "  python3 -c \"from transformers import AutoModelForCausalLM, AutoTokenizer; "
    "d, out = '{0}', '{0}-safetensors'; "
    "AutoModelForCausalLM.from_pretrained(d).save_pretrained(out, safe_serialization=True); "
    "AutoTokenizer.from_pretrained(d).save_pretrained(out)\"\n"
    "then open the new folder.";

std::string list_names(const std::vector<std::string>& names, size_t limit = 8) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; ++i) {
    out += (i ? ", " : "") + ("'" + names[i] + "'");
  }
  if (names.size() > limit) out += fmt::format(", ... ({} in all)", names.size());
  return out;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

// Short, printable rendering of a JSON value for messages.
std::string excerpt(const Json& j) {
  std::string s = j.dump(-1, ' ', true, Json::error_handler_t::replace);
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

// Parses JSON text and rejects objects with duplicate keys. nlohmann::json keeps the last of
// duplicate keys silently; for a safetensors header that would hide a second tensor entry
// (and for an index, a second shard assignment), so the parser callback checks every key.
Json parse_json_strict(const char* begin, const char* end, const std::string& source,
                       const char* what) {
  struct Level {
    std::set<std::string> keys;
    std::string key;  // the key being parsed at this level
  };
  std::vector<Level> stack;
  auto path = [&stack]() {
    std::string p;
    for (size_t i = 0; i + 1 < stack.size(); ++i) p += (p.empty() ? "" : ".") + stack[i].key;
    return p;
  };
  Json::parser_callback_t callback = [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
      case Json::parse_event_t::object_start:
        stack.emplace_back();
        break;
      case Json::parse_event_t::object_end:
        if (!stack.empty()) stack.pop_back();
        break;
      case Json::parse_event_t::key: {
        if (stack.empty()) break;
        std::string key = parsed.get<std::string>();
        if (!stack.back().keys.insert(key).second) {
          std::string where = path();
          if (where.empty()) {
            fail(
                "{}: key '{}' appears twice in the {} (a JSON object must not repeat a key; "
                "a reader would silently keep only one of them)",
                source, key, what);
          }
          fail(
              "{}: key '{}' appears twice in '{}' of the {} (a JSON object must not repeat a "
              "key)",
              source, key, where, what);
        }
        stack.back().key = std::move(key);
        break;
      }
      default:
        break;
    }
    return true;
  };
  try {
    return Json::parse(begin, end, callback);
  } catch (const Json::parse_error& e) {
    fail("{}: the {} is not valid JSON (error at byte {} of {}): {}", source, what, e.byte,
         end - begin, e.what());
  } catch (const Json::exception& e) {
    fail("{}: the {} is not valid JSON: {}", source, what, e.what());
  }
}

uint64_t read_le64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void put_le64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// A JSON number that is a non-negative integer, as uint64.
bool as_u64(const Json& j, uint64_t& out) {
  if (j.is_number_unsigned()) {
    out = j.get<uint64_t>();
    return true;
  }
  if (j.is_number_integer() && j.get<int64_t>() >= 0) {
    out = static_cast<uint64_t>(j.get<int64_t>());
    return true;
  }
  return false;
}

// numel * element size with overflow checks; false on overflow (numel must fit int64).
bool checked_nbytes(const std::vector<int64_t>& shape, size_t elem, uint64_t& numel,
                    uint64_t& nbytes) {
  numel = 1;
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(numel, static_cast<uint64_t>(d), &numel)) return false;
  }
  if (numel > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
  return !__builtin_mul_overflow(numel, static_cast<uint64_t>(elem), &nbytes);
}

TensorInfo parse_entry(const std::string& name, const Json& e, uint64_t data_size,
                       const std::string& source) {
  const std::string ctx = fmt::format("{}: tensor '{}'", source, name);
  if (!e.is_object()) {
    fail("{}: expected an object with dtype, shape and data_offsets, found {} ({})", ctx,
         json::type_name(e), excerpt(e));
  }
  for (const char* key : {"dtype", "shape", "data_offsets"}) {
    if (!e.contains(key)) {
      fail("{}: missing '{}' (every entry needs dtype, shape and data_offsets)", ctx, key);
    }
  }
  for (auto it = e.begin(); it != e.end(); ++it) {
    const std::string& k = it.key();
    if (k != "dtype" && k != "shape" && k != "data_offsets") {
      fail("{}: unexpected key '{}' (an entry has exactly dtype, shape and data_offsets)", ctx, k);
    }
  }
  TensorInfo info;
  info.name = name;

  const Json& dtype = e["dtype"];
  if (!dtype.is_string()) {
    fail("{}: 'dtype' must be a string such as \"F32\", found {} ({})", ctx, json::type_name(dtype),
         excerpt(dtype));
  }
  info.dtype = parse_dtype(dtype.get<std::string>(), ctx);

  const Json& shape = e["shape"];
  if (!shape.is_array()) {
    fail("{}: 'shape' must be an array of non-negative integers, found {} ({})", ctx,
         json::type_name(shape), excerpt(shape));
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const Json& d = shape[i];
    uint64_t v = 0;
    if (d.is_number_integer() && !d.is_number_unsigned() && d.get<int64_t>() < 0) {
      fail("{}: dimension {} of shape {} is negative ({}); dimensions must be >= 0", ctx, i,
           excerpt(shape), d.get<int64_t>());
    }
    if (!as_u64(d, v)) {
      fail("{}: dimension {} of shape {} must be a non-negative integer, found {} ({})", ctx, i,
           excerpt(shape), json::type_name(d), excerpt(d));
    }
    if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      fail("{}: dimension {} of shape {} is {}, beyond the largest supported size {}", ctx, i,
           excerpt(shape), v, std::numeric_limits<int64_t>::max());
    }
    info.shape.push_back(static_cast<int64_t>(v));
  }

  const Json& offsets = e["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !as_u64(offsets[0], info.begin) ||
      !as_u64(offsets[1], info.end)) {
    fail(
        "{}: 'data_offsets' must be an array of two non-negative integers [begin, end], "
        "found {}",
        ctx, excerpt(offsets));
  }
  if (info.end < info.begin) {
    fail("{}: data_offsets [{}, {}] end before they begin", ctx, info.begin, info.end);
  }

  uint64_t numel = 0, nbytes = 0;
  const size_t elem = dtype_size(info.dtype);
  if (!checked_nbytes(info.shape, elem, numel, nbytes)) {
    fail(
        "{}: shape {} of {} overflows: its element count times {} bytes does not fit in 64 "
        "bits",
        ctx, shape_text(info.shape), dtype_name(info.dtype), elem);
  }
  if (info.end - info.begin != nbytes) {
    fail(
        "{}: shape {} of {} needs {} bytes ({} elements x {} bytes), but data_offsets [{}, {}] "
        "span {} bytes",
        ctx, shape_text(info.shape), dtype_name(info.dtype), nbytes, numel, elem, info.begin,
        info.end, info.end - info.begin);
  }
  if (info.end > data_size) {
    fail(
        "{}: data_offsets [{}, {}] reach past the end of the data section, which holds {} bytes "
        "(the file is truncated or the offsets are wrong)",
        ctx, info.begin, info.end, data_size);
  }
  return info;
}

std::map<std::string, std::string> parse_metadata(const Json& m, const std::string& source) {
  std::map<std::string, std::string> out;
  if (m.is_null()) return out;
  if (!m.is_object()) {
    fail("{}: '__metadata__' must be an object of string values, found {} ({})", source,
         json::type_name(m), excerpt(m));
  }
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (!it->is_string()) {
      fail("{}: '__metadata__' value of '{}' must be a string, found {} ({})", source, it.key(),
           json::type_name(*it), excerpt(*it));
    }
    out.emplace(it.key(), it->get<std::string>());
  }
  return out;
}

bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_pickle_name(const std::string& name) {
  return has_suffix(name, ".bin") || has_suffix(name, ".pt") || has_suffix(name, ".pth") ||
         has_suffix(name, ".ckpt") || has_suffix(name, ".pkl") ||
         name == "pytorch_model.bin.index.json";
}

std::vector<std::string> folder_entries(const std::string& folder) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

[[noreturn]] void fail_no_checkpoint(const std::string& folder) {
  std::vector<std::string> entries = folder_entries(folder);
  std::vector<std::string> pickled, safetensors;
  for (const auto& n : entries) {
    if (is_pickle_name(n)) pickled.push_back(n);
    if (has_suffix(n, ".safetensors")) safetensors.push_back(n);
  }
  if (safetensors.empty() && !pickled.empty()) {
    fail(
        "{}: the folder holds only pickled PyTorch weights ({}) and no model.safetensors or "
        "model.safetensors.index.json. {}",
        folder, list_names(pickled), fmt::format(fmt::runtime(kPickleHint), folder));
  }
  if (!safetensors.empty()) {
    fail(
        "{}: no model.safetensors or model.safetensors.index.json; the folder holds {} (pass "
        "the path of one .safetensors file to open it directly)",
        folder, list_names(safetensors));
  }
  fail("{}: no model.safetensors or model.safetensors.index.json in the folder (it holds: {})",
       folder, entries.empty() ? std::string("nothing") : list_names(entries));
}

}  // namespace

const char* dtype_name(DType dtype) {
  for (const auto& row : kDTypes) {
    if (row.dtype == dtype) return row.name;
  }
  return "?";
}

size_t dtype_size(DType dtype) {
  for (const auto& row : kDTypes) {
    if (row.dtype == dtype) return row.size;
  }
  return 0;
}

DType parse_dtype(const std::string& name, const std::string& context) {
  for (const auto& row : kDTypes) {
    if (name == row.name) return row.dtype;
  }
  std::vector<std::string> known;
  for (const auto& row : kDTypes) known.push_back(row.name);
  for (const char* u : kUnsupportedDTypes) {
    if (name == u) {
      fail(
          "{}: dtype '{}' is not supported by GrowBench (supported: {}); convert the "
          "checkpoint to BF16, F16 or F32 first",
          context, name, fmt::join(known, ", "));
    }
  }
  fail("{}: unknown dtype '{}' (expected one of {})", context, name, fmt::join(known, ", "));
}

int64_t TensorInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Header parse_header(const uint8_t* data, size_t size, const std::string& source) {
  if (size < 8) {
    fail(
        "{}: the file is {} bytes, shorter than the 8-byte header length that starts every "
        "safetensors file (truncated, or not a safetensors file)",
        source, size);
  }
  Header h;
  h.header_size = read_le64(data);
  if (h.header_size > kMaxHeaderBytes) {
    fail(
        "{}: header length {} bytes is absurdly large (limit {} bytes, 100 MB); the file is "
        "corrupt or not a safetensors file",
        source, h.header_size, kMaxHeaderBytes);
  }
  if (h.header_size > size - 8) {
    fail(
        "{}: header length {} bytes points past the end of the file, which has only {} bytes "
        "after the 8-byte length (truncated, or not a safetensors file)",
        source, h.header_size, size - 8);
  }
  const char* text = reinterpret_cast<const char*>(data + 8);
  Json j = parse_json_strict(text, text + h.header_size, source, "safetensors header");
  if (!j.is_object()) {
    fail("{}: the safetensors header must be a JSON object of tensor entries, found {} ({})",
         source, json::type_name(j), excerpt(j));
  }

  const uint64_t data_size = size - 8 - h.header_size;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "__metadata__") {
      h.metadata = parse_metadata(*it, source);
      continue;
    }
    h.tensors.push_back(parse_entry(it.key(), *it, data_size, source));
  }
  std::sort(h.tensors.begin(), h.tensors.end(), [](const TensorInfo& a, const TensorInfo& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });

  // Coverage of the data section. The reference implementation (the Rust `safetensors`
  // crate, Metadata::validate and read_metadata) sorts the entries by data_offsets and
  // requires each to start exactly where the previous one ended, the first at 0 and the last
  // to end at the end of the file: the byte buffer must be entirely indexed. We follow that
  // rule rather than tolerating holes: a hole or trailing bytes mean a writer bug or a
  // tampered file, and a file we accept should load everywhere else too. Overlaps are
  // reported separately from holes because they point to a different bug.
  uint64_t pos = 0;
  const TensorInfo* prev = nullptr;
  for (const TensorInfo& t : h.tensors) {
    if (t.begin < pos) {
      fail(
          "{}: tensors '{}' (bytes [{}, {})) and '{}' (bytes [{}, {})) overlap; every tensor "
          "needs its own bytes",
          source, prev->name, prev->begin, prev->end, t.name, t.begin, t.end);
    }
    if (t.begin > pos) {
      fail(
          "{}: bytes [{}, {}) of the data section, before tensor '{}', belong to no tensor; "
          "the format requires the tensors to cover the data section without holes",
          source, pos, t.begin, t.name);
    }
    pos = t.end;
    prev = &t;
  }
  if (pos != data_size) {
    fail(
        "{}: the data section has {} bytes but the tensors cover only the first {}; {} "
        "trailing bytes belong to no tensor (the format requires full coverage)",
        source, data_size, pos, data_size - pos);
  }
  return h;
}

// ---------------------------------------------------------------------------------------
// File

File::File(const std::string& path) : m_map(path) {
  m_header = parse_header(m_map.data(), m_map.size(), path);
  m_data_start = 8 + m_header.header_size;
  for (size_t i = 0; i < m_header.tensors.size(); ++i) {
    m_index.emplace(m_header.tensors[i].name, i);
  }
}

const TensorInfo* File::find(const std::string& name) const {
  auto it = m_index.find(name);
  return it == m_index.end() ? nullptr : &m_header.tensors[it->second];
}

const TensorInfo& File::at(const std::string& name) const {
  if (const TensorInfo* info = find(name)) return *info;
  std::vector<std::string> names;
  for (const auto& t : m_header.tensors) names.push_back(t.name);
  fail("{}: no tensor '{}' in the file (it holds {} tensors: {})", path(), name, names.size(),
       list_names(names, 5));
}

const uint8_t* File::data(const TensorInfo& info) const {
  return m_map.data() + m_data_start + info.begin;
}

// ---------------------------------------------------------------------------------------
// Checkpoint

Checkpoint::Checkpoint(const std::string& folder) : m_source(folder) {
  const fs::path dir(folder);
  if (file_exists(folder)) {
    // A single file given directly.
    if (is_pickle_name(dir.filename().string())) {
      fail("{}: this is a pickled PyTorch checkpoint. {}", folder,
           fmt::format(fmt::runtime(kPickleHint), dir.parent_path().string()));
    }
    m_files.push_back(std::make_unique<File>(folder));
  } else if (!is_directory(folder)) {
    fail(
        "checkpoint '{}' does not exist (expected a folder with model.safetensors or "
        "model.safetensors.index.json, or a .safetensors file)",
        folder);
  } else if (std::string single = (dir / "model.safetensors").string(); file_exists(single)) {
    m_files.push_back(std::make_unique<File>(single));
  } else if (std::string index = (dir / "model.safetensors.index.json").string();
             file_exists(index)) {
    load_index(index);
  } else {
    fail_no_checkpoint(folder);
  }
  if (m_where.empty()) {
    for (size_t i = 0; i < m_files.size(); ++i) {
      for (const auto& t : m_files[i]->header().tensors) m_where.emplace(t.name, i);
    }
  }
  log::get("model")->debug("checkpoint {}: {} tensors in {} file(s), {} bytes", folder,
                           m_where.size(), m_files.size(), total_bytes());
}

void Checkpoint::load_index(const std::string& index_path) {
  const std::string text = read_file(index_path);
  Json j = parse_json_strict(text.data(), text.data() + text.size(), index_path, "index");
  if (!j.is_object()) {
    fail("{}: the index must be a JSON object with a 'weight_map', found {}", index_path,
         json::type_name(j));
  }
  auto wm = j.find("weight_map");
  if (wm == j.end()) {
    fail(
        "{}: no 'weight_map' (expected {{\"weight_map\": {{\"tensor name\": \"shard file\", "
        "...}}}})",
        index_path);
  }
  if (!wm->is_object()) {
    fail("{}: 'weight_map' must be an object mapping tensor names to shard files, found {}",
         index_path, json::type_name(*wm));
  }
  if (wm->empty()) fail("{}: 'weight_map' lists no tensors", index_path);

  const fs::path dir = fs::path(index_path).parent_path();
  std::map<std::string, std::vector<std::string>> by_shard;  // shard → tensors listed for it
  std::map<std::string, std::string> shard_of;               // tensor → shard
  for (auto it = wm->begin(); it != wm->end(); ++it) {
    if (!it->is_string()) {
      fail("{}: weight_map entry of tensor '{}' must be a shard file name, found {} ({})",
           index_path, it.key(), json::type_name(*it), excerpt(*it));
    }
    const std::string shard = it->get<std::string>();
    if (shard.empty() || shard.find('/') != std::string::npos ||
        shard.find('\\') != std::string::npos || shard == "." || shard == "..") {
      fail(
          "{}: weight_map puts tensor '{}' in shard '{}', which is not a plain file name; "
          "shards must lie in the folder of the index",
          index_path, it.key(), shard);
    }
    by_shard[shard].push_back(it.key());
    shard_of.emplace(it.key(), shard);
  }

  for (const auto& [shard, listed] : by_shard) {
    const std::string path = (dir / shard).string();
    if (!file_exists(path)) {
      fail("{}: weight_map lists shard '{}' (for {} tensors, e.g. '{}'), but {} does not exist",
           index_path, shard, listed.size(), listed.front(), path);
    }
    if (is_pickle_name(shard)) {
      fail("{}: weight_map lists shard '{}', a pickled PyTorch file. {}", index_path, shard,
           fmt::format(fmt::runtime(kPickleHint), dir.string()));
    }
    m_files.push_back(std::make_unique<File>(path));
    const File& file = *m_files.back();
    const size_t index = m_files.size() - 1;
    for (const std::string& name : listed) {
      if (!file.find(name)) {
        fail(
            "{}: weight_map puts tensor '{}' in shard '{}', but that shard does not hold it "
            "(it holds {} tensors)",
            index_path, name, shard, file.header().tensors.size());
      }
    }
    for (const TensorInfo& t : file.header().tensors) {
      auto where = shard_of.find(t.name);
      if (where == shard_of.end()) {
        fail(
            "{}: shard '{}' holds tensor '{}', which the weight_map does not list (the index "
            "is stale or incomplete)",
            index_path, shard, t.name);
      }
      if (where->second != shard) {
        fail(
            "{}: tensor '{}' is stored in shard '{}' and the weight_map places it in shard "
            "'{}'; a tensor must be stored in exactly one shard",
            index_path, t.name, shard, where->second);
      }
      m_where.emplace(t.name, index);
    }
  }
}

std::vector<std::string> Checkpoint::names() const {
  std::vector<std::string> out;
  out.reserve(m_where.size());
  for (const auto& [name, _] : m_where) out.push_back(name);
  return out;
}

bool Checkpoint::contains(const std::string& name) const {
  return m_where.count(name) > 0;
}

const TensorInfo& Checkpoint::info(const std::string& name) const {
  auto it = m_where.find(name);
  if (it == m_where.end()) {
    fail("{}: the checkpoint has no tensor '{}' ({} tensors in {} file(s))", m_source, name,
         m_where.size(), m_files.size());
  }
  return m_files[it->second]->at(name);
}

const uint8_t* Checkpoint::data(const std::string& name) const {
  const TensorInfo& i = info(name);
  return m_files[m_where.at(name)]->data(i);
}

const std::string& Checkpoint::file_of(const std::string& name) const {
  info(name);  // throws naming the tensor when absent
  return m_files[m_where.at(name)]->path();
}

std::map<std::string, std::string> Checkpoint::metadata() const {
  return m_files.empty() ? std::map<std::string, std::string>{}
                         : m_files.front()->header().metadata;
}

uint64_t Checkpoint::total_bytes() const {
  uint64_t total = 0;
  for (const auto& f : m_files) {
    for (const auto& t : f->header().tensors) total += t.end - t.begin;
  }
  return total;
}

// ---------------------------------------------------------------------------------------
// write

void write(const std::string& path, const std::vector<TensorView>& tensors,
           const std::map<std::string, std::string>& metadata) {
  // The header is built as text so that the entries keep the given order (nlohmann::json
  // sorts object keys); nlohmann only escapes the strings.
  auto quote = [&path](const std::string& s, const char* what) {
    try {
      return Json(s).dump(-1, ' ', false, Json::error_handler_t::strict);
    } catch (const Json::exception&) {
      fail("{}: {} '{}' is not valid UTF-8", path, what, s);
    }
  };
  std::string header = "{";
  if (!metadata.empty()) {
    header += "\"__metadata__\":{";
    bool first = true;
    for (const auto& [k, v] : metadata) {
      header += (first ? "" : ",") + quote(k, "metadata key") + ":" + quote(v, "metadata value");
      first = false;
    }
    header += "}";
  }
  std::set<std::string> seen;
  uint64_t offset = 0;
  for (const TensorView& t : tensors) {
    const std::string ctx = fmt::format("{}: tensor '{}'", path, t.name);
    if (t.name == "__metadata__") fail("{}: the name '__metadata__' is reserved", ctx);
    if (!seen.insert(t.name).second) fail("{}: given twice; tensor names must be unique", ctx);
    if (dtype_size(t.dtype) == 0) fail("{}: invalid dtype value", ctx);
    for (int64_t d : t.shape) {
      if (d < 0) fail("{}: shape {} has a negative dimension", ctx, shape_text(t.shape));
    }
    uint64_t numel = 0, nbytes = 0;
    if (!checked_nbytes(t.shape, dtype_size(t.dtype), numel, nbytes)) {
      fail("{}: shape {} of {} overflows 64 bits", ctx, shape_text(t.shape), dtype_name(t.dtype));
    }
    if (t.nbytes != nbytes) {
      fail("{}: shape {} of {} needs {} bytes, but {} bytes were given", ctx, shape_text(t.shape),
           dtype_name(t.dtype), nbytes, t.nbytes);
    }
    if (nbytes > 0 && t.data == nullptr) fail("{}: no data pointer for {} bytes", ctx, nbytes);
    header += fmt::format("{}{}:{{\"dtype\":\"{}\",\"shape\":[{}],\"data_offsets\":[{},{}]}}",
                          header.size() > 1 ? "," : "", quote(t.name, "tensor name"),
                          dtype_name(t.dtype), fmt::join(t.shape, ","), offset, offset + nbytes);
    offset += nbytes;
  }
  header += "}";
  // Pad with spaces (valid JSON whitespace) so the data section starts 8-byte aligned.
  header.append((8 - header.size() % 8) % 8, ' ');
  if (header.size() > kMaxHeaderBytes) {
    fail("{}: the header would be {} bytes, beyond the {} bytes readers accept", path,
         header.size(), kMaxHeaderBytes);
  }

  AtomicFileWriter out(path);
  uint8_t len[8];
  put_le64(len, header.size());
  out.write(len, sizeof len);
  out.write(header.data(), header.size());
  for (const TensorView& t : tensors) {
    if (t.nbytes > 0) out.write(t.data, t.nbytes);
  }
  out.commit();
  log::get("model")->debug("wrote {}: {} tensors, {} bytes of data", path, tensors.size(), offset);
}

}  // namespace gb::st
