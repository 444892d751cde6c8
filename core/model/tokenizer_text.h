#pragma once
// Private to the tokenizer: UTF-8 and Unicode helpers, Unicode normalization forms (utf8proc),
// regular expressions with Oniguruma semantics on PCRE2 (JIT), and the flat hash tables the
// hot paths use (string → id, (id, id) → merge).

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gb::tok {

// ---- UTF-8 -------------------------------------------------------------------------------

// Length of the UTF-8 sequence starting with `lead` (valid UTF-8 assumed); 1 for stray bytes.
inline size_t utf8_seq_len(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

// Decodes the code point at s[i] of valid UTF-8 and advances i past it.
inline uint32_t utf8_next(const char* s, size_t& i) {
  const auto* u = reinterpret_cast<const unsigned char*>(s);
  uint32_t c = u[i];
  if (c < 0x80) {
    ++i;
    return c;
  }
  if (c < 0xE0) {
    c = ((c & 0x1F) << 6) | (u[i + 1] & 0x3F);
    i += 2;
  } else if (c < 0xF0) {
    c = ((c & 0x0F) << 12) | ((u[i + 1] & 0x3F) << 6) | (u[i + 2] & 0x3F);
    i += 3;
  } else {
    c = ((c & 0x07) << 18) | ((u[i + 1] & 0x3F) << 12) | ((u[i + 2] & 0x3F) << 6) |
        (u[i + 3] & 0x3F);
    i += 4;
  }
  return c;
}

// Start of the code point that ends at s[end) (valid UTF-8, end > 0).
inline size_t utf8_prev(const char* s, size_t end) {
  size_t i = end - 1;
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return i;
}

void append_utf8(std::string& out, uint32_t cp);
std::string utf8_encode(uint32_t cp);
size_t utf8_count(std::string_view s);  // code points

// True when `s` is well-formed UTF-8 (no overlongs, surrogates or code points > U+10FFFF).
bool is_valid_utf8(std::string_view s);
// Replaces every ill-formed subsequence by U+FFFD, one per maximal subpart (the WHATWG and
// Rust `from_utf8_lossy` rule), so the result is valid UTF-8.
std::string sanitize_utf8(std::string_view s);

// ---- Unicode properties (utf8proc) ----------------------------------------------------------

bool is_white_space(uint32_t cp);  // the Unicode White_Space property (Rust char::is_whitespace)
bool is_punctuation(uint32_t cp);  // general category P*
bool is_numeric(uint32_t cp);      // general category N* (Rust char::is_numeric)
bool is_mark(uint32_t cp);         // general category M*
bool is_nonspacing_mark(uint32_t cp);  // Mn
bool is_word_char(uint32_t cp);        // regex \w: letters, marks, Nd, Pc, join controls
bool is_other_category(uint32_t cp);   // Cc, Cf, Cn, Co (BERT's "control")
bool is_chinese_char(uint32_t cp);     // the CJK blocks BERT pads with spaces
bool is_bert_whitespace(uint32_t cp);  // \t \n \r, space, Zs

enum class NormForm { NFC, NFD, NFKC, NFKD };
// Unicode normalization of valid UTF-8, in place.
void unicode_normalize(std::string& s, NormForm form);
// Full lowercase mapping (as Rust str::to_lowercase and JS toLowerCase): İ → i̇, final sigma.
std::string unicode_lowercase(std::string_view s);

// ---- regular expressions ---------------------------------------------------------------

// A compiled regular expression written for Oniguruma (what Hugging Face tokenizers uses),
// run by PCRE2 with JIT. \s, \w, \h and friends are translated to their Oniguruma meaning.
// Thread-safe: match state lives in thread-local scratch.
class Regex {
 public:
  // Throws gb::Error "<where>: invalid regular expression at offset N: <reason>".
  Regex(const std::string& pattern, const std::string& where);
  // A literal (escaped) pattern.
  static Regex literal(const std::string& text, const std::string& where);
  ~Regex();
  Regex(const Regex&) = delete;
  Regex& operator=(const Regex&) = delete;
  Regex(Regex&& other) noexcept;
  Regex& operator=(Regex&& other) noexcept;

  // Finds the leftmost match in s[start, len); false when there is none. Throws gb::Error when
  // the match exceeds PCRE2's limits (pathological patterns).
  bool search(const char* s, size_t len, size_t start, size_t& match_begin,
              size_t& match_end) const;

  // Calls f(begin, end) for every match, Oniguruma's find_iter rules for empty matches.
  template <typename F>
  void for_each_match(const char* s, size_t len, F&& f) const {
    size_t last_end = 0;
    bool have_last = false;
    size_t last_match_end = 0;
    while (last_end <= len) {
      size_t b = 0, e = 0;
      if (!search(s, len, last_end, b, e)) break;
      if (b == e && have_last && last_match_end == e) {
        if (last_end >= len) break;
        last_end += utf8_seq_len(static_cast<unsigned char>(s[last_end]));
        continue;
      }
      last_end = e;
      have_last = true;
      last_match_end = e;
      f(b, e);
    }
  }

  const std::string& pattern() const { return m_pattern; }

 private:
  Regex() = default;
  void compile(const std::string& translated, const std::string& where);
  std::string m_pattern;
  void* m_code = nullptr;  // pcre2_code_8
  bool m_jit = false;
};

// Rewrites an Oniguruma (Ruby syntax) pattern into the PCRE2 equivalent.
std::string translate_oniguruma(const std::string& pattern);

// ---- hashing and flat tables ------------------------------------------------------------

uint64_t hash_bytes(const void* data, size_t n);

// string → int32, open addressing; keys live in one arena (no per-key allocation).
class StringMap {
 public:
  void reserve(size_t n);
  // Inserts; returns false (and keeps the old value) when the key is present.
  bool insert(std::string_view key, int32_t value);
  void assign(std::string_view key, int32_t value);  // insert or overwrite
  const int32_t* find(std::string_view key) const;
  // out[i] = find(keys[i]) for n keys at once: the table misses the CPU caches on almost every
  // lookup of a large vocabulary, and prefetching each step for all keys first overlaps those
  // misses (loading Gemma 3 looks up 1.5 million merge tokens).
  void find_batch(const std::string_view* keys, size_t n, const int32_t** out) const;
  size_t size() const { return m_entries.size(); }
  void clear();
  size_t memory_bytes() const;
  template <typename F>
  void for_each(F&& f) const {
    for (const Entry& e : m_entries) f(std::string_view(m_arena.data() + e.off, e.len), e.value);
  }

 private:
  struct Entry {
    uint32_t off;
    uint32_t len;
    int32_t value;
    uint32_t hash;
  };
  int32_t* lookup(std::string_view key, uint64_t h, size_t& slot) const;
  void grow();
  std::string m_arena;
  std::vector<Entry> m_entries;
  std::vector<uint32_t> m_slots;  // entry index + 1; 0 = empty
  size_t m_mask = 0;
};

// (id, id) → (rank, merged id) for BPE merges: filled with add(), then build() freezes it into
// an open-addressing table of pair → rank; the merged id comes from a rank-indexed array, read
// only for the merges applied. When ids fit in 20 bits and ranks in 24, a slot is 8 bytes,
// which halves the memory the lookups stream through (Gemma 3: 8 MiB instead of 16).
class PairMap {
 public:
  struct Value {
    int32_t rank;
    int32_t new_id;
  };
  void add(uint32_t a, uint32_t b, Value v) { m_pending.push_back(Pending{a, b, v}); }
  void build();
  // The rank of the merge of (a, b); false when there is none. Its merged token: new_id(rank).
  bool find_rank(uint32_t a, uint32_t b, int32_t& rank) const {
    if (m_compact) {
      if ((a | b) >= (1u << 20)) return false;
      uint64_t key = (static_cast<uint64_t>(a) << 20) | b;
      size_t i = static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> m_shift);
      while (true) {
        uint64_t s = m_compact_slots[i];
        if ((s >> 24) == key && s != kEmpty) {
          rank = static_cast<int32_t>(s & 0xFFFFFF);
          return true;
        }
        if (s == kEmpty) return false;
        i = (i + 1) & m_mask;
      }
    }
    if (m_slots.empty()) return false;
    uint64_t key = (static_cast<uint64_t>(a) << 32) | b;
    size_t i = static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> m_shift);
    while (true) {
      const Slot& s = m_slots[i];
      if (s.key == key) {
        rank = s.rank;
        return true;
      }
      if (s.key == kEmpty) return false;
      i = (i + 1) & m_mask;
    }
  }
  bool find(uint32_t a, uint32_t b, Value& out) const {
    if (!find_rank(a, b, out.rank)) return false;
    out.new_id = new_id(out.rank);
    return true;
  }
  int32_t new_id(int32_t rank) const { return m_new_id[static_cast<size_t>(rank)]; }
  // Starts loading the slot find_rank(a, b) reads first.
  void prefetch(uint32_t a, uint32_t b) const {
    if (m_compact) {
      if ((a | b) >= (1u << 20)) return;
      uint64_t key = (static_cast<uint64_t>(a) << 20) | b;
      __builtin_prefetch(&m_compact_slots[static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> m_shift)]);
    } else if (!m_slots.empty()) {
      uint64_t key = (static_cast<uint64_t>(a) << 32) | b;
      __builtin_prefetch(&m_slots[static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> m_shift)]);
    }
  }
  size_t size() const { return m_size; }
  bool compact() const { return m_compact; }

 private:
  static constexpr uint64_t kEmpty = ~0ULL;
  struct Pending {
    uint32_t a, b;
    Value value;
  };
  struct Slot {
    uint64_t key;
    int32_t rank;
  };
  std::vector<Pending> m_pending;
  bool m_compact = false;
  std::vector<uint64_t> m_compact_slots;  // pair (40 bits) << 24 | rank (24 bits)
  std::vector<int32_t> m_new_id;          // rank → merged id
  std::vector<Slot> m_slots;              // wide form: pair → rank
  size_t m_mask = 0;
  int m_shift = 63;
  size_t m_size = 0;
};

}  // namespace gb::tok
