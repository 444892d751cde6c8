// Models of tokenizer.json: BPE, WordLevel and WordPiece, with the semantics of Hugging Face
// tokenizers (Rust). Unigram is refused with a clear message.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "model/tokenizer_components.h"
#include "util/json.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::tok {

void Model::load_vocab(const JsonAt& vocab, const RawLists* raw) {
  auto check = [&](std::string_view token, int64_t id) {
    if (id < 0 || id > kMaxTokenId)
      vocab.fail(fmt::format("token {}: id {} out of range (0 to {})",
                             Json(std::string(token)).dump(), id, kMaxTokenId));
  };
  if (raw && raw->has_vocab) {
    m_vocab.reserve(raw->vocab.size());
    for (const RawLists::VocabEntry& e : raw->vocab) {
      std::string_view token(raw->vocab_chars.data() + e.offset, e.length);
      check(token, e.id);
      m_vocab.assign(token, static_cast<int32_t>(e.id));
    }
    index_vocab();
    return;
  }
  vocab.expect_object();
  m_vocab.reserve(vocab->size());
  for (auto it = vocab->begin(); it != vocab->end(); ++it) {
    const Json& v = it.value();
    if (!v.is_number_integer() && !v.is_number_unsigned())
      vocab.fail(fmt::format("token {}: expected an integer id, got {}", Json(it.key()).dump(),
                             gb::json::type_name(v)));
    int64_t id = v.is_number_unsigned() && v.get<uint64_t>() > uint64_t{INT64_MAX}
                     ? INT64_MAX
                     : v.get<int64_t>();
    check(it.key(), id);
    m_vocab.assign(it.key(), static_cast<int32_t>(id));
  }
  index_vocab();
}

void Model::index_vocab() {
  m_max_id = -1;
  m_vocab.for_each([&](std::string_view, int32_t id) { m_max_id = std::max(m_max_id, id); });
  size_t span = static_cast<size_t>(m_max_id + 1);
  m_sparse = span > 4 * m_vocab.size() + 4096;
  m_id_to_token.clear();
  m_sparse_id_to_token.clear();
  if (!m_sparse) m_id_to_token.assign(span, std::string_view());
  m_vocab.for_each([&](std::string_view token, int32_t id) {
    std::string_view view = token.data() ? token : std::string_view("", 0);
    if (m_sparse) {
      m_sparse_id_to_token.emplace(id, view);
    } else if (!m_id_to_token[static_cast<size_t>(id)].data()) {
      m_id_to_token[static_cast<size_t>(id)] = view;
    }
  });
}

namespace {

// A bounded cache of word → ids: 2-way set-associative, one 64-byte line per entry holding the
// word (up to 22 bytes) and its ids (up to 8), so a hit costs one cache-line fetch. Longer words
// are not cached. Shared by threads; a busy lock is a miss, never a wait.
class WordCache {
 public:
  static constexpr size_t kMaxKey = 22;
  static constexpr size_t kMaxIds = 8;

  explicit WordCache(size_t slots) : m_size(slots), m_mask(slots - 1) {}

  // The key of a word, 0 when the word is too long to be cached.
  static uint64_t key(std::string_view word) {
    return word.size() > kMaxKey ? 0 : hash_bytes(word.data(), word.size()) | 1;
  }
  // Starts loading the line get(word, h) reads first.
  void prefetch(uint64_t h) const {
    const Slot* p = m_data.load(std::memory_order_relaxed);
    if (p && h) __builtin_prefetch(p + (h & m_mask));
  }

  bool get(std::string_view word, uint64_t h, std::vector<int32_t>& out) const {
    if (!h) return false;
    std::unique_lock<std::mutex> lock(m_mutex, std::try_to_lock);
    if (!lock.owns_lock() || m_slots.empty()) return false;
    size_t i = h & m_mask;
    for (size_t k : {i, i ^ 1}) {
      const Slot& s = m_slots[k];
      if (s.hash == h && s.key_len == word.size() &&
          std::memcmp(s.key, word.data(), word.size()) == 0) {
        out.insert(out.end(), s.ids, s.ids + s.n_ids);
        return true;
      }
    }
    return false;
  }

  void put(std::string_view word, uint64_t h, const int32_t* ids, size_t n) const {
    if (!h || n > kMaxIds) return;
    std::unique_lock<std::mutex> lock(m_mutex, std::try_to_lock);
    if (!lock.owns_lock()) return;
    if (m_slots.empty()) {  // allocated on first use
      m_slots.resize(m_size);
      m_data.store(m_slots.data(), std::memory_order_relaxed);
    }
    size_t i = h & m_mask;
    if (m_slots[i].hash && !m_slots[i ^ 1].hash) {
      i ^= 1;
    } else if (m_slots[i].hash) {
      m_slots[i ^ 1] = m_slots[i];  // the older entry of the set goes to the second way
    }
    Slot& s = m_slots[i];
    s.hash = h;
    s.key_len = static_cast<uint8_t>(word.size());
    s.n_ids = static_cast<uint8_t>(n);
    std::memcpy(s.key, word.data(), word.size());
    std::memcpy(s.ids, ids, n * sizeof(int32_t));
  }

 private:
  struct alignas(64) Slot {
    uint64_t hash = 0;  // 0: empty
    uint8_t key_len = 0;
    uint8_t n_ids = 0;
    char key[kMaxKey];
    int32_t ids[kMaxIds];
  };
  mutable std::mutex m_mutex;
  mutable std::vector<Slot> m_slots;
  mutable std::atomic<const Slot*> m_data{nullptr};  // m_slots.data() once allocated, for prefetch
  size_t m_size;
  size_t m_mask;
};

uint32_t next_uid() {  // never 0, the owner of an empty pair-cache entry
  static std::atomic<uint32_t> counter{1};
  uint32_t uid;
  do {
    uid = counter.fetch_add(1);
  } while (uid == 0);
  return uid;
}

std::optional<std::string> optional_string(const JsonAt& j, const char* key) {
  return j.opt_string(key);
}

class Bpe final : public Model {
 public:
  Bpe(const JsonAt& j, const RawLists* raw) : m_cache(kCacheWords) {
    load_vocab(j.at("vocab"), raw);
    m_unk = optional_string(j, "unk_token");
    auto prefix = optional_string(j, "continuing_subword_prefix");
    auto suffix = optional_string(j, "end_of_word_suffix");
    m_prefix = prefix.value_or("");
    m_suffix = suffix.value_or("");
    m_fuse_unk = j.boolean("fuse_unk", false);
    m_byte_fallback = j.boolean("byte_fallback", false);
    m_ignore_merges = j.boolean("ignore_merges", false);
    if (auto d = j.get("dropout")) {
      if (!(*d)->is_number()) d->fail("expected a number or null, got " + gb::json::type_name(**d));
      double p = (*d)->get<double>();
      if (p < 0.0 || p > 1.0) d->fail("must be between 0 and 1");
      if (p > 0.0)
        gb::log::get("tokenizer")
            ->warn("{}: {}: BPE dropout {} ignored (encoding is deterministic)", j.source(),
                   d->path(), p);
    }
    if (m_unk) {
      if (const int32_t* id = m_vocab.find(*m_unk)) {
        m_unk_id = *id;
      } else {
        gb::log::get("tokenizer")
            ->warn(
                "{}: {}.unk_token '{}' is not in the vocabulary; unknown characters are "
                "dropped",
                j.source(), j.path(), *m_unk);
      }
    }
    for (int b = 0; b < 256; ++b) {
      const int32_t* id = m_vocab.find(fmt::format("<0x{:02X}>", b));
      m_byte_ids[b] = id ? *id : -1;
    }
    m_char_ids.assign(0x10000, -1);
    m_vocab.for_each([&](std::string_view token, int32_t id) {
      if (token.empty() || token.size() > 3) return;
      size_t i = 0;
      uint32_t cp = utf8_next(token.data(), i);
      if (i == token.size() && cp < 0x10000 && m_char_ids[cp] < 0) m_char_ids[cp] = id;
    });
    load_merges(j.at("merges"), raw);
    m_merges.build();
    // Words cut at U+2581 need ▁ as a symbol of its own and no prefix or suffix decoration;
    // ignore_merges looks the whole word up first, so it keeps whole words.
    if (m_char_ids[kMeta] < 0 || !m_prefix.empty() || !m_suffix.empty() || m_ignore_merges)
      m_segment = false;
  }

  std::string type() const override { return "BPE"; }

  void tokenize(std::string_view word, std::vector<int32_t>& out) const override {
    if (word.empty()) return;
    if (m_segment && word.size() > 3) {
      // SentencePiece-style files such as Gemma 3's give the model whole lines, spaces
      // written as ▁, without a pre-tokenizer cut. No merge joins a character to a ▁ that
      // follows it (except the characters in m_joins_meta; see note_merge), so no symbol ever
      // spans such a boundary, and BPE on the parts between boundaries gives exactly the ids
      // of BPE on the whole piece: merges are picked by rank, and the ranks of the pairs inside
      // one part never depend on another part. The parts are short and repeat, so they hit
      // the cache. They are found first and their cache lines prefetched, so that the cache
      // misses of a line's parts overlap.
      thread_local std::vector<std::pair<std::string_view, uint64_t>> parts;
      parts.clear();
      auto add = [&](std::string_view part) {
        uint64_t h = WordCache::key(part);
        m_cache.prefetch(h);
        parts.emplace_back(part, h);
      };
      const char* s = word.data();
      const size_t n = word.size();
      size_t start = 0;
      for (size_t i = 1; i + 2 < n; ++i) {
        if (static_cast<unsigned char>(s[i]) != 0xE2 || static_cast<unsigned char>(s[i + 1]) != 0x96 ||
            static_cast<unsigned char>(s[i + 2]) != 0x81)
          continue;
        if (boundary_before(s, i)) {
          add(std::string_view(s + start, i - start));
          start = i;
        }
        i += 2;
      }
      add(std::string_view(s + start, n - start));
      for (const auto& [part, h] : parts) tokenize_part(part, h, out);
      return;
    }
    tokenize_part(word, WordCache::key(word), out);
  }

  void tokenize_spans(const PreTokens& words, std::vector<int32_t>& out) const override {
    if (m_segment || words.spans.size() < 2) {
      for (const Span& sp : words.spans) tokenize(words.view(sp), out);
      return;
    }
    // The word-cache lines of all the words first, so that their cache misses overlap.
    thread_local std::vector<uint64_t> keys;
    keys.resize(words.spans.size());
    for (size_t i = 0; i < words.spans.size(); ++i) {
      keys[i] = WordCache::key(words.view(words.spans[i]));
      m_cache.prefetch(keys[i]);
    }
    for (size_t i = 0; i < words.spans.size(); ++i) {
      std::string_view w = words.view(words.spans[i]);
      if (!w.empty()) tokenize_part(w, keys[i], out);
    }
  }

 private:
  static constexpr uint32_t kMeta = 0x2581;  // ▁, SentencePiece's space

  // Whether a part may end at s[i], where a ▁ starts (i > 0): the character before is not ▁
  // itself and not one that a merge joins to a following ▁.
  bool boundary_before(const char* s, size_t i) const {
    size_t p = utf8_prev(s, i);
    uint32_t prev = utf8_next(s, p);
    if (prev == kMeta) return false;
    return std::find(m_joins_meta.begin(), m_joins_meta.end(), prev) == m_joins_meta.end();
  }

  // One word (or part of one) whose cache key is h.
  void tokenize_part(std::string_view word, uint64_t h, std::vector<int32_t>& out) const {
    if (m_cache.get(word, h, out)) return;  // (results with ignore_merges cached as well)
    if (m_ignore_merges) {
      if (const int32_t* id = m_vocab.find(word)) {
        out.push_back(*id);
        m_cache.put(word, h, id, 1);
        return;
      }
    }
    thread_local std::vector<int32_t> ids;
    build_symbols(word, ids);
    merge(ids);
    m_cache.put(word, h, ids.data(), ids.size());
    out.insert(out.end(), ids.begin(), ids.end());
  }

  static constexpr size_t kCacheWords = 1 << 16;  // 64-byte lines: 4 MiB
  static constexpr int32_t kNoMerge = INT32_MAX;
  static constexpr int32_t kPending = -1;  // a rank not looked up yet (pair_ranks)
  static constexpr size_t kScanLimit = 512;

  void load_merges(const JsonAt& merges, const RawLists* raw) {
    if (raw && raw->has_merges) {
      // In batches: the three vocabulary lookups of a merge (a, b and the merged token) miss
      // the CPU caches on a large vocabulary; StringMap::find_batch overlaps those misses.
      constexpr size_t kBatch = 256;
      std::vector<std::string_view> keys(3 * kBatch);
      std::vector<const int32_t*> ids(3 * kBatch);
      std::string merged;  // merged tokens that are not a substring of merge_chars
      const size_t count = raw->merges.size();
      for (size_t base = 0; base < count; base += kBatch) {
        size_t m = std::min(kBatch, count - base), ready = m;
        size_t room = 0;
        for (size_t i = 0; i < m; ++i) room += raw->merges[base + i].length;
        merged.clear();
        merged.reserve(room);  // no reallocation below: the views into it stay valid
        for (size_t i = 0; i < m; ++i) {
          const RawLists::Merge& e = raw->merges[base + i];
          std::string_view s(raw->merge_chars.data() + e.offset, e.length);
          std::string_view a, b;
          if (e.pair) {
            a = s.substr(0, e.split);
            b = s.substr(e.split);
          } else {
            size_t sp = s.find(' ');
            if (sp == std::string_view::npos) {
              ready = i;  // reported after the merges before it, as one by one
              break;
            }
            a = s.substr(0, sp);
            b = s.substr(sp + 1);
          }
          keys[3 * i] = a;
          keys[3 * i + 1] = b;
          std::string_view tail = b;
          if (!m_prefix.empty() && b.size() >= m_prefix.size() &&
              b.compare(0, m_prefix.size(), m_prefix) == 0)
            tail = b.substr(m_prefix.size());
          if (e.pair && tail.size() == b.size()) {
            keys[3 * i + 2] = s;  // a and b are stored one after the other
          } else {
            size_t at = merged.size();
            merged.append(a.data(), a.size());
            merged.append(tail.data(), tail.size());
            keys[3 * i + 2] = std::string_view(merged.data() + at, a.size() + tail.size());
          }
        }
        m_vocab.find_batch(keys.data(), 3 * ready, ids.data());
        for (size_t i = 0; i < ready; ++i)
          add_merge_ids(merges, base + i, keys[3 * i], keys[3 * i + 1], keys[3 * i + 2],
                        ids[3 * i], ids[3 * i + 1], ids[3 * i + 2]);
        if (ready < m) {
          const RawLists::Merge& e = raw->merges[base + ready];
          fail("{}: {}[{}]: expected two tokens separated by a space, got {}", merges.source(),
               merges.path(), base + ready,
               Json(std::string(raw->merge_chars.data() + e.offset, e.length)).dump());
        }
      }
      return;
    }
    merges.expect_array();
    for (size_t r = 0; r < merges.size(); ++r) {
      const Json& m = (*merges)[r];
      if (m.is_string()) {
        const std::string& s = m.get_ref<const std::string&>();
        size_t sp = s.find(' ');
        if (sp == std::string::npos)
          merges.at(r).fail("expected two tokens separated by a space, got " + m.dump());
        add_merge(merges, r, std::string_view(s).substr(0, sp), std::string_view(s).substr(sp + 1));
      } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
        add_merge(merges, r, m[0].get_ref<const std::string&>(),
                  m[1].get_ref<const std::string&>());
      } else {
        merges.at(r).fail("expected \"a b\" or [\"a\", \"b\"], got " + m.dump());
      }
    }
  }

  void add_merge(const JsonAt& merges, size_t rank, std::string_view a, std::string_view b) {
    thread_local std::string merged;
    merged.assign(a.data(), a.size());
    size_t prefix_len = m_prefix.size();
    if (b.size() >= prefix_len && b.compare(0, prefix_len, m_prefix) == 0) {
      merged.append(b.data() + prefix_len, b.size() - prefix_len);
    } else {
      merged.append(b.data(), b.size());
    }
    add_merge_ids(merges, rank, a, b, merged, m_vocab.find(a), m_vocab.find(b),
                  m_vocab.find(merged));
  }

  // A merge whose tokens were looked up (nullptr: not in the vocabulary).
  void add_merge_ids(const JsonAt& merges, size_t rank, std::string_view a, std::string_view b,
                     std::string_view merged, const int32_t* ia, const int32_t* ib,
                     const int32_t* im) {
    auto missing = [&](const char* what, std::string_view token) {
      fail("{}: {}[{}]: {} {} is not in the vocabulary", merges.source(), merges.path(), rank, what,
           Json(std::string(token)).dump());
    };
    if (!ia) missing("token", a);
    if (!ib) missing("token", b);
    if (!im) missing("merged token", merged);
    note_merge(*ia, *ib, a, b);
    m_merges.add(static_cast<uint32_t>(*ia), static_cast<uint32_t>(*ib),
                 PairMap::Value{static_cast<int32_t>(rank), *im});
  }

  // Whether the symbol `id` (string `token`) may stand for text other than its string: a
  // byte-fallback token (one byte of a character) or the unknown token (any character).
  bool stands_for_other_text(int32_t id, std::string_view token) const {
    if (m_unk_id >= 0 && id == m_unk_id) return true;
    if (!m_byte_fallback || token.size() != 6 || token.compare(0, 3, "<0x") != 0 ||
        token[5] != '>')
      return false;
    auto hex = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    };
    int hi = hex(token[3]), lo = hex(token[4]);
    return hi >= 0 && lo >= 0 && m_byte_ids[hi * 16 + lo] == id;
  }

  // What a merge means for cutting words before ▁ (see tokenize). A merge of `a` with a `b`
  // that starts with ▁ joins the last character of `a` to a following ▁: no cut after that
  // character (m_joins_meta). A merge with a byte-fallback or unknown token makes symbols whose
  // strings are not their text, so the character before a ▁ says nothing: no cuts at all.
  void note_merge(int32_t ia, int32_t ib, std::string_view a, std::string_view b) {
    if (!m_segment) return;
    if (stands_for_other_text(ia, a) || stands_for_other_text(ib, b)) {
      m_segment = false;
      return;
    }
    static const char kMetaUtf8[] = "\xE2\x96\x81";
    if (a.empty() || b.size() < 3 || b.compare(0, 3, kMetaUtf8) != 0) return;
    size_t i = utf8_prev(a.data(), a.size());
    uint32_t last = utf8_next(a.data(), i);
    if (last == kMeta) return;
    if (std::find(m_joins_meta.begin(), m_joins_meta.end(), last) == m_joins_meta.end())
      m_joins_meta.push_back(last);
  }

  // The initial symbols of a word: one per character (with prefix/suffix), byte fallback and
  // unknown handling exactly as Hugging Face's BPE::merge_word.
  void build_symbols(std::string_view w, std::vector<int32_t>& ids) const {
    ids.clear();
    thread_local std::string decorated;
    bool have_unk = false;
    size_t n = w.size();
    for (size_t i = 0; i < n;) {
      size_t start = i;
      uint32_t cp = utf8_next(w.data(), i);
      bool first = start == 0, last = i == n;
      bool decorate = (!m_prefix.empty() && !first) || (!m_suffix.empty() && last);
      std::string_view s(w.data() + start, i - start);
      int32_t id = -1;
      if (!decorate) {
        if (cp < 0x10000) {
          id = m_char_ids[cp];
        } else if (const int32_t* p = m_vocab.find(s)) {
          id = *p;
        }
      } else {
        decorated.clear();
        if (!first) decorated += m_prefix;
        decorated.append(s.data(), s.size());
        if (last) decorated += m_suffix;
        s = decorated;
        if (const int32_t* p = m_vocab.find(s)) id = *p;
      }
      if (id >= 0) {
        if (have_unk) {
          ids.push_back(m_unk_id);
          have_unk = false;
        }
        ids.push_back(id);
        continue;
      }
      if (m_byte_fallback) {
        bool all = true;
        for (unsigned char b : s) all = all && m_byte_ids[b] >= 0;
        if (all) {
          for (unsigned char b : s) ids.push_back(m_byte_ids[b]);
          continue;
        }
      }
      if (m_unk_id >= 0) {
        if (have_unk && !m_fuse_unk) ids.push_back(m_unk_id);
        have_unk = true;
      }
    }
    if (have_unk) ids.push_back(m_unk_id);
  }

  void merge(std::vector<int32_t>& ids) const {
    if (ids.size() < 2) return;
    if (ids.size() <= kScanLimit) {
      merge_scan(ids);
    } else {
      merge_heap(ids);
    }
  }

  // A small thread-local direct-mapped cache of pair → rank sits in front of the merge table:
  // the table (8 MiB for Gemma 3's 515k merges) misses the CPU caches on almost every probe,
  // while the pairs one text needs repeat a lot. 16-byte entries, 512 KiB.
  struct PairEntry {
    uint64_t key;
    uint32_t owner;  // the model's uid (truncated): models share the thread's cache
    int32_t rank;
  };
  static constexpr size_t kPairBits = 15;
  static PairEntry* pair_cache() {
    thread_local std::vector<PairEntry> cache(size_t{1} << kPairBits, PairEntry{0, 0, kNoMerge});
    return cache.data();
  }
  static uint64_t pair_key(int32_t a, int32_t b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }
  static size_t pair_slot(uint64_t key) {
    return static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> (64 - kPairBits));
  }

  // The rank of the merge of a pair, kNoMerge when there is none.
  int32_t pair(PairEntry* cache, int32_t a, int32_t b) const {
    uint64_t key = pair_key(a, b);
    PairEntry& e = cache[pair_slot(key)];
    if (e.owner == m_uid32 && e.key == key) return e.rank;
    int32_t rank = kNoMerge;
    m_merges.find_rank(static_cast<uint32_t>(a), static_cast<uint32_t>(b), rank);
    e = PairEntry{key, m_uid32, rank};
    return rank;
  }

  // The ranks of the n - 1 adjacent pairs of id[0, n) into r, each step (cache entry, then
  // merge-table slot for the cache misses) prefetched for all pairs before it is read, so that
  // the memory latencies of a word's pairs overlap instead of adding up.
  void pair_ranks(PairEntry* cache, const int32_t* id, size_t n, int32_t* r) const {
    thread_local std::vector<uint32_t> slot;
    slot.resize(n);
    for (size_t k = 0; k + 1 < n; ++k) {
      slot[k] = static_cast<uint32_t>(pair_slot(pair_key(id[k], id[k + 1])));
      __builtin_prefetch(&cache[slot[k]]);
    }
    bool missed = false;
    for (size_t k = 0; k + 1 < n; ++k) {
      const PairEntry& e = cache[slot[k]];
      if (e.owner == m_uid32 && e.key == pair_key(id[k], id[k + 1])) {
        r[k] = e.rank;
      } else {
        r[k] = kPending;
        m_merges.prefetch(static_cast<uint32_t>(id[k]), static_cast<uint32_t>(id[k + 1]));
        missed = true;
      }
    }
    if (!missed) return;
    for (size_t k = 0; k + 1 < n; ++k) {
      if (r[k] != kPending) continue;
      int32_t rank = kNoMerge;
      m_merges.find_rank(static_cast<uint32_t>(id[k]), static_cast<uint32_t>(id[k + 1]), rank);
      cache[slot[k]] = PairEntry{pair_key(id[k], id[k + 1]), m_uid32, rank};
      r[k] = rank;
    }
  }

  // Words up to kScanLimit symbols: repeatedly merge the pair of lowest rank (leftmost among
  // equals), finding it by a linear scan over a rank array (vectorized; much cheaper than a
  // heap until words get long).
  void merge_scan(std::vector<int32_t>& ids) const {
    thread_local std::vector<int32_t> ranks;
    PairEntry* cache = pair_cache();
    size_t n = ids.size();
    ranks.resize(n);
    int32_t* r = ranks.data();
    int32_t* id = ids.data();
    pair_ranks(cache, id, n, r);
    while (n > 1) {
      int32_t best_rank = kNoMerge;
      for (size_t k = 0; k + 1 < n; ++k) best_rank = std::min(best_rank, r[k]);
      if (best_rank == kNoMerge) break;
      size_t best = 0;
      while (r[best] != best_rank) ++best;
      id[best] = m_merges.new_id(best_rank);
      std::memmove(id + best + 1, id + best + 2, (n - best - 2) * sizeof(int32_t));
      if (best + 2 < n) std::memmove(r + best + 1, r + best + 2, (n - best - 3) * sizeof(int32_t));
      --n;
      // The pairs on either side of the merged symbol changed: look both up, the left one
      // and the right one independent of each other.
      if (best > 0 && best + 1 < n) {
        m_merges.prefetch(static_cast<uint32_t>(id[best]), static_cast<uint32_t>(id[best + 1]));
        r[best - 1] = pair(cache, id[best - 1], id[best]);
        r[best] = pair(cache, id[best], id[best + 1]);
      } else if (best > 0) {
        r[best - 1] = pair(cache, id[best - 1], id[best]);
      } else if (best + 1 < n) {
        r[best] = pair(cache, id[best], id[best + 1]);
      }
    }
    ids.resize(n);
  }

  // Long words: a priority queue of (rank, position) over a linked list of symbols, as
  // Hugging Face's Word::merge_all.
  void merge_heap(std::vector<int32_t>& ids) const {
    struct Entry {
      int32_t rank;
      int32_t pos;
      int32_t left, right;  // the pair when queued; a changed pair makes the entry stale
    };
    struct Later {
      bool operator()(const Entry& x, const Entry& y) const {
        return x.rank != y.rank ? x.rank > y.rank : x.pos > y.pos;
      }
    };
    thread_local std::vector<Entry> heap;
    thread_local std::vector<int32_t> prev, next, ranks;
    PairEntry* cache = pair_cache();
    size_t n = ids.size();
    heap.clear();
    prev.resize(n);
    next.resize(n);
    for (size_t i = 0; i < n; ++i) {
      prev[i] = static_cast<int32_t>(i) - 1;
      next[i] = i + 1 < n ? static_cast<int32_t>(i + 1) : -1;
    }
    auto queue = [&](int32_t pos, int32_t rank) {
      if (rank == kNoMerge) return;
      int32_t nx = next[static_cast<size_t>(pos)];
      heap.push_back(
          Entry{rank, pos, ids[static_cast<size_t>(pos)], ids[static_cast<size_t>(nx)]});
      std::push_heap(heap.begin(), heap.end(), Later());
    };
    auto push = [&](int32_t pos) {
      int32_t nx = next[static_cast<size_t>(pos)];
      queue(pos, pair(cache, ids[static_cast<size_t>(pos)], ids[static_cast<size_t>(nx)]));
    };
    ranks.resize(n);
    pair_ranks(cache, ids.data(), n, ranks.data());
    for (size_t i = 0; i + 1 < n; ++i) queue(static_cast<int32_t>(i), ranks[i]);
    thread_local std::vector<char> alive;
    alive.assign(n, 1);
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), Later());
      Entry top = heap.back();
      heap.pop_back();
      size_t pos = static_cast<size_t>(top.pos);
      if (!alive[pos]) continue;
      int32_t nx = next[pos];
      // The same pair means the same merge (Hugging Face compares the merged id instead; a
      // position's pair only grows, so the two tests agree).
      if (nx < 0 || ids[pos] != top.left || ids[static_cast<size_t>(nx)] != top.right) continue;
      ids[pos] = m_merges.new_id(top.rank);
      alive[static_cast<size_t>(nx)] = 0;
      int32_t nn = next[static_cast<size_t>(nx)];
      next[pos] = nn;
      if (nn >= 0) prev[static_cast<size_t>(nn)] = top.pos;
      if (prev[pos] >= 0) push(prev[pos]);
      if (nn >= 0) push(top.pos);
    }
    size_t w = 0;
    for (size_t i = 0; i < n; ++i)
      if (alive[i]) ids[w++] = ids[i];
    ids.resize(w);
  }

  PairMap m_merges;
  std::vector<int32_t> m_char_ids;  // BMP code point → id of that one-character token
  int32_t m_byte_ids[256];          // byte → id of "<0xNN>", -1 when absent
  std::optional<std::string> m_unk;
  int32_t m_unk_id = -1;
  std::string m_prefix, m_suffix;
  bool m_fuse_unk = false, m_byte_fallback = false, m_ignore_merges = false;
  // Words are cut before ▁ (see tokenize) unless a merge could span the cut.
  bool m_segment = true;
  std::vector<uint32_t> m_joins_meta;  // characters that a merge joins to a following ▁
  WordCache m_cache;
  // Tags this model's entries in the thread-local pair cache.
  const uint32_t m_uid32 = next_uid();
};

class WordLevel final : public Model {
 public:
  WordLevel(const JsonAt& j, const RawLists* raw) {
    load_vocab(j.at("vocab"), raw);
    m_unk = j.string("unk_token", "<unk>");
    if (const int32_t* id = m_vocab.find(m_unk)) m_unk_id = *id;
  }
  std::string type() const override { return "WordLevel"; }
  void tokenize(std::string_view word, std::vector<int32_t>& out) const override {
    if (const int32_t* id = m_vocab.find(word)) {
      out.push_back(*id);
    } else if (m_unk_id >= 0) {
      out.push_back(m_unk_id);
    } else {
      fail(
          "WordLevel tokenizer: {} is not in the vocabulary and the unk_token '{}' is not "
          "either",
          Json(std::string(word)).dump(), m_unk);
    }
  }

 private:
  std::string m_unk;
  int32_t m_unk_id = -1;
};

class WordPiece final : public Model {
 public:
  WordPiece(const JsonAt& j, const RawLists* raw) {
    load_vocab(j.at("vocab"), raw);
    m_unk = j.string("unk_token", "[UNK]");
    m_prefix = j.string("continuing_subword_prefix", "##");
    int64_t max_chars = j.integer("max_input_chars_per_word", 100);
    if (max_chars < 0) j.fail_key("max_input_chars_per_word", "must not be negative");
    m_max_chars = static_cast<size_t>(max_chars);
    if (const int32_t* id = m_vocab.find(m_unk)) m_unk_id = *id;
  }
  std::string type() const override { return "WordPiece"; }
  void tokenize(std::string_view word, std::vector<int32_t>& out) const override {
    if (utf8_count(word) > m_max_chars) {
      push_unk(word, out);
      return;
    }
    size_t mark = out.size();
    std::string candidate;
    size_t start = 0;
    while (start < word.size()) {
      size_t end = word.size();
      int32_t found = -1;
      while (start < end) {
        candidate.clear();
        if (start > 0) candidate += m_prefix;
        candidate.append(word.data() + start, end - start);
        if (const int32_t* id = m_vocab.find(candidate)) {
          found = *id;
          break;
        }
        end = utf8_prev(word.data(), end);
      }
      if (found < 0) {
        out.resize(mark);
        push_unk(word, out);
        return;
      }
      out.push_back(found);
      start = end;
    }
  }

 private:
  void push_unk(std::string_view word, std::vector<int32_t>& out) const {
    if (m_unk_id < 0)
      fail(
          "WordPiece tokenizer: cannot encode {} and the unk_token '{}' is not in the "
          "vocabulary",
          Json(std::string(word)).dump(), m_unk);
    out.push_back(m_unk_id);
  }
  std::string m_unk, m_prefix;
  size_t m_max_chars = 100;
  int32_t m_unk_id = -1;
};

}  // namespace

std::unique_ptr<Model> make_model(const JsonAt& j, const RawLists* raw) {
  j.expect_object();
  if (!j->contains("type"))
    j.fail_key("type", "missing (expected one of BPE, WordLevel, WordPiece)");
  std::string type = j.type();
  if (type == "BPE") return std::make_unique<Bpe>(j, raw);
  if (type == "WordLevel") return std::make_unique<WordLevel>(j, raw);
  if (type == "WordPiece") return std::make_unique<WordPiece>(j, raw);
  if (type == "Unigram")
    j.fail_key("type",
               "Unigram tokenizers are not supported (supported: BPE, WordLevel, WordPiece)");
  j.fail_key("type", "unknown model type '" + type + "' (supported: BPE, WordLevel, WordPiece)");
}

}  // namespace gb::tok
