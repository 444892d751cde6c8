#include "data/tokenized.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <thread>

#include "data/detail.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace gb::data {

namespace {

constexpr char kMagic[8] = {'G', 'B', 'T', 'O', 'K', 'C', 'A', 'C'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kEndianTag = 0x01020304;
constexpr size_t kHeaderSize = 64;

struct Header {
  char magic[8];
  uint32_t version;
  uint32_t endian;
  uint64_t key;
  uint64_t n_tokens;
  uint64_t n_docs;
  uint64_t checksum;
  uint64_t flags;
  uint64_t reserved;
};
constexpr uint64_t kFlagLossMask = 1;
static_assert(sizeof(Header) == kHeaderSize, "cache header must be 64 bytes");

uint64_t payload_checksum(const TokenStream& s) {
  uint64_t h = fnv1a64(s.offsets.data(), s.offsets.size() * sizeof(uint64_t));
  h = fnv1a64(s.tokens.data(), s.tokens.size() * sizeof(int32_t), h);
  return fnv1a64(s.loss_mask.data(), s.loss_mask.size(), h);
}

// The output of one worker: its documents' tokens, lengths and (optionally) mask.
struct Chunk {
  std::vector<int32_t> tokens;
  std::vector<uint64_t> lengths;
  std::vector<uint8_t> mask;
};

// Runs fn(begin, end, chunk) over contiguous ranges of [0, n) on up to `threads` threads
// (0: hardware threads) and returns the chunks in order. Exceptions are rethrown here.
std::vector<Chunk> run_chunks(size_t n, int threads,
                              const std::function<void(size_t, size_t, Chunk&)>& fn) {
  size_t t = threads > 0 ? static_cast<size_t>(threads)
                         : std::max(1u, std::thread::hardware_concurrency());
  t = std::max<size_t>(1, std::min(t, n / 64));  // at least 64 documents per worker
  std::vector<Chunk> chunks(t);
  if (t == 1) {
    fn(0, n, chunks[0]);
    return chunks;
  }
  std::vector<std::exception_ptr> errors(t);
  std::vector<std::thread> pool;
  pool.reserve(t);
  for (size_t k = 0; k < t; ++k) {
    const size_t begin = n * k / t;
    const size_t end = n * (k + 1) / t;
    pool.emplace_back([&, k, begin, end] {
      try {
        fn(begin, end, chunks[k]);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    });
  }
  for (auto& th : pool) th.join();
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return chunks;
}

TokenStream assemble(std::vector<Chunk>&& chunks, bool with_mask) {
  TokenStream stream;
  size_t total = 0;
  size_t docs = 0;
  for (const auto& c : chunks) {
    total += c.tokens.size();
    docs += c.lengths.size();
  }
  stream.tokens.reserve(total);
  stream.offsets.reserve(docs + 1);
  if (with_mask) stream.loss_mask.reserve(total);
  for (auto& c : chunks) {
    stream.tokens.insert(stream.tokens.end(), c.tokens.begin(), c.tokens.end());
    if (with_mask) stream.loss_mask.insert(stream.loss_mask.end(), c.mask.begin(), c.mask.end());
    for (uint64_t len : c.lengths) stream.offsets.push_back(stream.offsets.back() + len);
    c = Chunk();
  }
  return stream;
}

std::string sanitize_label(const std::string& label) {
  std::string out;
  for (char c : label) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    out += ok ? c : '_';
  }
  if (out.empty() || out[0] == '.') out.insert(out.begin(), 'c');
  return out.substr(0, 64);
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

}  // namespace

TokenStream tokenize_documents(const std::vector<Document>& docs, const TextEncoder& encoder,
                               const TokenizeOptions& options) {
  if (!encoder.encode) fail("tokenize_documents: the encoder has no encode function");
  auto chunks = run_chunks(docs.size(), options.threads, [&](size_t b, size_t e, Chunk& c) {
    for (size_t i = b; i < e; ++i) {
      const size_t before = c.tokens.size();
      std::vector<int32_t> ids = encoder.encode(docs[i].text, options.add_special_tokens);
      c.tokens.insert(c.tokens.end(), ids.begin(), ids.end());
      if (options.append_eos && encoder.eos_id && (ids.empty() || ids.back() != *encoder.eos_id)) {
        c.tokens.push_back(*encoder.eos_id);
      }
      c.lengths.push_back(c.tokens.size() - before);
    }
  });
  return assemble(std::move(chunks), false);
}

TokenStream tokenize_qa(const std::vector<QaItem>& items, const TextEncoder& encoder,
                        bool mask_prompt, int threads) {
  if (!encoder.encode) fail("tokenize_qa: the encoder has no encode function");
  auto chunks = run_chunks(items.size(), threads, [&](size_t b, size_t e, Chunk& c) {
    for (size_t i = b; i < e; ++i) {
      const TokenizedPair pair =
          tokenize_pair(encoder, qa_prompt(items[i].question), qa_continuation(items[i].answer));
      c.tokens.insert(c.tokens.end(), pair.prompt.begin(), pair.prompt.end());
      c.tokens.insert(c.tokens.end(), pair.continuation.begin(), pair.continuation.end());
      c.mask.insert(c.mask.end(), pair.prompt.size(), 0);
      c.mask.insert(c.mask.end(), pair.continuation.size(), 1);
      size_t len = pair.prompt.size() + pair.continuation.size();
      if (encoder.eos_id) {
        c.tokens.push_back(*encoder.eos_id);
        c.mask.push_back(1);
        ++len;
      }
      c.lengths.push_back(len);
    }
  });
  return assemble(std::move(chunks), mask_prompt);
}

void limit_tokens(TokenStream& stream, int64_t max_tokens) {
  if (max_tokens < 0 || stream.tokens.size() <= static_cast<uint64_t>(max_tokens)) return;
  const uint64_t n = static_cast<uint64_t>(max_tokens);
  stream.tokens.resize(n);
  if (!stream.loss_mask.empty()) stream.loss_mask.resize(n);
  // Keep the documents that start before the cut; the last one ends at the cut.
  std::vector<uint64_t> offsets{0};
  for (size_t i = 1; i < stream.offsets.size() && stream.offsets[i - 1] < n; ++i) {
    offsets.push_back(std::min(stream.offsets[i], n));
  }
  stream.offsets.swap(offsets);
}

TokenizedPair tokenize_pair(const TextEncoder& encoder, std::string_view prompt,
                            std::string_view continuation) {
  if (!encoder.encode) fail("tokenize_pair: the encoder has no encode function");
  return TokenizedPair{encoder.encode(prompt, true), encoder.encode(continuation, false)};
}

std::string default_cache_dir() {
  namespace fs = std::filesystem;
  std::string dir = env("GROWBENCH_CACHE_DIR");
  if (!dir.empty()) return dir;
  dir = env("XDG_CACHE_HOME");
  if (!dir.empty() && dir[0] == '/') return (fs::path(dir) / "growbench").string();
  dir = env("HOME");
  if (!dir.empty()) return (fs::path(dir) / ".cache" / "growbench").string();
  std::error_code ec;
  return (fs::temp_directory_path(ec) / "growbench-cache").string();
}

uint64_t token_cache_key(const std::vector<Document>& docs, const TextEncoder& encoder,
                         const TokenizeOptions& options) {
  uint64_t h = fnv1a64(kMagic, sizeof(kMagic));
  h = fnv1a64(&kVersion, sizeof(kVersion), h);
  const uint64_t id_len = encoder.identity.size();
  h = fnv1a64(&id_len, sizeof(id_len), h);
  h = fnv1a64(encoder.identity.data(), encoder.identity.size(), h);
  const int64_t eos = encoder.eos_id ? *encoder.eos_id : -1;
  h = fnv1a64(&eos, sizeof(eos), h);
  const uint8_t flags[2] = {options.add_special_tokens, options.append_eos};
  h = fnv1a64(flags, sizeof(flags), h);
  const uint64_t n = docs.size();
  h = fnv1a64(&n, sizeof(n), h);
  for (const Document& d : docs) {
    const uint64_t len = d.text.size();
    h = fnv1a64(&len, sizeof(len), h);
    h = fnv1a64(d.text.data(), d.text.size(), h);
  }
  return h;
}

void write_token_cache(const std::string& path, uint64_t key, const TokenStream& stream) {
  if (stream.offsets.empty() || stream.offsets.front() != 0 ||
      stream.offsets.back() != stream.tokens.size()) {
    fail("write_token_cache('{}'): inconsistent stream (offsets do not cover the tokens)", path);
  }
  detail::ensure_parent_dir(path);
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof(kMagic));
  h.version = kVersion;
  h.endian = kEndianTag;
  h.key = key;
  h.n_tokens = stream.tokens.size();
  h.n_docs = stream.num_documents();
  if (!stream.loss_mask.empty() && stream.loss_mask.size() != stream.tokens.size()) {
    fail("write_token_cache('{}'): the loss mask has {} entries for {} tokens", path,
         stream.loss_mask.size(), stream.tokens.size());
  }
  h.checksum = payload_checksum(stream);
  h.flags = stream.loss_mask.empty() ? 0 : kFlagLossMask;
  AtomicFileWriter w(path);
  w.write(&h, sizeof(h));
  w.write(stream.offsets.data(), stream.offsets.size() * sizeof(uint64_t));
  w.write(stream.tokens.data(), stream.tokens.size() * sizeof(int32_t));
  w.write(stream.loss_mask.data(), stream.loss_mask.size());
  w.commit();
}

std::optional<TokenStream> read_token_cache(const std::string& path, uint64_t key) {
  if (!file_exists(path)) return std::nullopt;
  auto logger = gb::log::get("data");
  auto reject = [&](const std::string& why) -> std::optional<TokenStream> {
    logger->warn("token cache '{}' is invalid ({}); rebuilding it", path, why);
    return std::nullopt;
  };
  try {
    MappedFile file(path);
    if (file.size() < kHeaderSize) {
      return reject(
          fmt::format("{} bytes, shorter than the {}-byte header", file.size(), kHeaderSize));
    }
    Header h{};
    std::memcpy(&h, file.data(), sizeof(h));
    if (std::memcmp(h.magic, kMagic, sizeof(kMagic)) != 0) return reject("bad magic");
    if (h.endian != kEndianTag) return reject("written on a machine of other endianness");
    if (h.version != kVersion) {
      return reject(fmt::format("version {}, expected {}", h.version, kVersion));
    }
    if (h.key != key) {
      return reject(fmt::format("key {}, expected {}", hex64(h.key), hex64(key)));
    }
    // Sizes: guard the arithmetic against absurd counts before multiplying.
    const uint64_t limit = file.size();
    if (h.n_docs >= limit / sizeof(uint64_t) || h.n_tokens > limit / sizeof(int32_t)) {
      return reject("counts larger than the file");
    }
    if ((h.flags & ~kFlagLossMask) != 0 || h.reserved != 0) return reject("unknown flags");
    const bool has_mask = (h.flags & kFlagLossMask) != 0;
    const uint64_t expected = kHeaderSize + (h.n_docs + 1) * sizeof(uint64_t) +
                              h.n_tokens * (sizeof(int32_t) + (has_mask ? 1 : 0));
    if (expected != file.size()) {
      return reject(fmt::format("{} bytes, expected {} (truncated?)", file.size(), expected));
    }
    TokenStream stream;
    stream.offsets.resize(h.n_docs + 1);
    stream.tokens.resize(h.n_tokens);
    const uint8_t* p = file.data() + kHeaderSize;
    std::memcpy(stream.offsets.data(), p, stream.offsets.size() * sizeof(uint64_t));
    p += stream.offsets.size() * sizeof(uint64_t);
    std::memcpy(stream.tokens.data(), p, stream.tokens.size() * sizeof(int32_t));
    p += stream.tokens.size() * sizeof(int32_t);
    if (has_mask) stream.loss_mask.assign(p, p + h.n_tokens);
    const uint64_t sum = payload_checksum(stream);
    if (sum != h.checksum) return reject("checksum mismatch (corrupt file)");
    if (stream.offsets.front() != 0 || stream.offsets.back() != h.n_tokens) {
      return reject("document offsets do not cover the tokens");
    }
    for (size_t i = 1; i < stream.offsets.size(); ++i) {
      if (stream.offsets[i] < stream.offsets[i - 1]) return reject("offsets not monotone");
    }
    return stream;
  } catch (const std::exception& e) {
    return reject(e.what());
  }
}

CachedTokens tokenize_cached(const std::vector<Document>& docs, const TextEncoder& encoder,
                             const CacheOptions& cache, const TokenizeOptions& options) {
  CachedTokens out;
  if (!cache.enabled) {
    out.stream = tokenize_documents(docs, encoder, options);
    return out;
  }
  auto logger = gb::log::get("data");
  out.key = token_cache_key(docs, encoder, options);
  const std::string dir = cache.dir.empty() ? default_cache_dir() : cache.dir;
  out.path = (std::filesystem::path(dir) / "tokens" /
              (sanitize_label(cache.label) + "-" + hex64(out.key) + ".gbtok"))
                 .string();
  if (auto cached = read_token_cache(out.path, out.key)) {
    out.stream = std::move(*cached);
    out.cache_hit = true;
    logger->debug("token cache hit: '{}' ({} tokens, {} documents)", out.path, out.stream.size(),
                  out.stream.num_documents());
    return out;
  }
  out.stream = tokenize_documents(docs, encoder, options);
  try {
    write_token_cache(out.path, out.key, out.stream);
    logger->debug("token cache written: '{}' ({} tokens, {} documents)", out.path,
                  out.stream.size(), out.stream.num_documents());
  } catch (const std::exception& e) {
    logger->warn("could not write the token cache: {}", e.what());
  }
  return out;
}

}  // namespace gb::data
