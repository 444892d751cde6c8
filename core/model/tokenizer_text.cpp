#include "model/tokenizer_text.h"

#include <algorithm>
#include <cstdlib>

#include <pcre2.h>
#include <utf8proc.h>

#include "util/error.h"

namespace gb::tok {

// ---- UTF-8 -------------------------------------------------------------------------------

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string utf8_encode(uint32_t cp) {
  std::string s;
  append_utf8(s, cp);
  return s;
}

size_t utf8_count(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

namespace {

// Length of the well-formed sequence at s[i], or 0 with `bad_end` set to the end of the
// maximal ill-formed subpart.
size_t well_formed_at(const unsigned char* s, size_t n, size_t i, size_t& bad_end) {
  unsigned char b = s[i];
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b >= 0xC2 && b <= 0xDF) {
    need = 1;
  } else if (b == 0xE0) {
    need = 2;
    lo = 0xA0;
  } else if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) {
    need = 2;
  } else if (b == 0xED) {
    need = 2;
    hi = 0x9F;
  } else if (b == 0xF0) {
    need = 3;
    lo = 0x90;
  } else if (b >= 0xF1 && b <= 0xF3) {
    need = 3;
  } else if (b == 0xF4) {
    need = 3;
    hi = 0x8F;
  } else {
    bad_end = i + 1;
    return 0;
  }
  size_t j = i + 1;
  for (size_t k = 0; k < need; ++k, ++j) {
    if (j >= n) {
      bad_end = j;
      return 0;
    }
    unsigned char c = s[j];
    unsigned char l = k == 0 ? lo : 0x80, h = k == 0 ? hi : 0xBF;
    if (c < l || c > h) {
      bad_end = j;
      return 0;
    }
  }
  return need + 1;
}

}  // namespace

bool is_valid_utf8(std::string_view sv) {
  const auto* s = reinterpret_cast<const unsigned char*>(sv.data());
  size_t n = sv.size(), i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      uint64_t v;
      std::memcpy(&v, s + i, 8);
      if ((v & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    if (s[i] < 0x80) {
      ++i;
      continue;
    }
    size_t bad_end = 0;
    size_t len = well_formed_at(s, n, i, bad_end);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::string sanitize_utf8(std::string_view sv) {
  const auto* s = reinterpret_cast<const unsigned char*>(sv.data());
  size_t n = sv.size(), i = 0;
  std::string out;
  out.reserve(n + 8);
  while (i < n) {
    if (s[i] < 0x80) {
      out.push_back(static_cast<char>(s[i++]));
      continue;
    }
    size_t bad_end = 0;
    size_t len = well_formed_at(s, n, i, bad_end);
    if (len) {
      out.append(sv.data() + i, len);
      i += len;
    } else {
      out.append("\xEF\xBF\xBD");
      i = bad_end;
    }
  }
  return out;
}

// ---- Unicode properties -------------------------------------------------------------------

namespace {
int category(uint32_t cp) {
  return utf8proc_category(static_cast<utf8proc_int32_t>(cp));
}
}  // namespace

bool is_white_space(uint32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

bool is_punctuation(uint32_t cp) {
  int c = category(cp);
  return c >= UTF8PROC_CATEGORY_PC && c <= UTF8PROC_CATEGORY_PO;
}

bool is_numeric(uint32_t cp) {
  int c = category(cp);
  return c == UTF8PROC_CATEGORY_ND || c == UTF8PROC_CATEGORY_NL || c == UTF8PROC_CATEGORY_NO;
}

bool is_mark(uint32_t cp) {
  int c = category(cp);
  return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_MC || c == UTF8PROC_CATEGORY_ME;
}

bool is_nonspacing_mark(uint32_t cp) {
  return category(cp) == UTF8PROC_CATEGORY_MN;
}

bool is_word_char(uint32_t cp) {
  if (cp < 0x80)
    return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') ||
           cp == '_';
  int c = category(cp);
  return (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_ME) || c == UTF8PROC_CATEGORY_ND ||
         c == UTF8PROC_CATEGORY_NL || c == UTF8PROC_CATEGORY_PC || cp == 0x200C || cp == 0x200D;
}

bool is_other_category(uint32_t cp) {
  int c = category(cp);
  return c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF || c == UTF8PROC_CATEGORY_CN ||
         c == UTF8PROC_CATEGORY_CO;
}

bool is_chinese_char(uint32_t c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_bert_whitespace(uint32_t cp) {
  return cp == '\t' || cp == '\n' || cp == '\r' || cp == ' ' ||
         category(cp) == UTF8PROC_CATEGORY_ZS;
}

void unicode_normalize(std::string& s, NormForm form) {
  // Code points below these bounds are unchanged by the form (its quick-check is Yes).
  uint32_t stable_below = 0x80;
  utf8proc_option_t options = UTF8PROC_STABLE;
  switch (form) {
    case NormForm::NFC:
      stable_below = 0x300;
      options = static_cast<utf8proc_option_t>(options | UTF8PROC_COMPOSE);
      break;
    case NormForm::NFD:
      stable_below = 0xC0;
      options = static_cast<utf8proc_option_t>(options | UTF8PROC_DECOMPOSE);
      break;
    case NormForm::NFKC:
      stable_below = 0xA0;
      options = static_cast<utf8proc_option_t>(options | UTF8PROC_COMPOSE | UTF8PROC_COMPAT);
      break;
    case NormForm::NFKD:
      stable_below = 0xA0;
      options = static_cast<utf8proc_option_t>(options | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT);
      break;
  }
  bool stable = true;
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    if (utf8_next(s.data(), i) >= stable_below) {
      stable = false;
      break;
    }
  }
  if (stable) return;
  utf8proc_uint8_t* out = nullptr;
  utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()),
                                    static_cast<utf8proc_ssize_t>(s.size()), &out, options);
  if (n < 0) {
    std::free(out);
    fail("tokenizer: Unicode normalization failed: {}", utf8proc_errmsg(n));
  }
  s.assign(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
  std::free(out);
}

namespace {

bool is_cased(uint32_t cp) {
  int c = category(cp);
  return c == UTF8PROC_CATEGORY_LU || c == UTF8PROC_CATEGORY_LL || c == UTF8PROC_CATEGORY_LT;
}

bool is_case_ignorable(uint32_t cp) {
  switch (cp) {
    case 0x27:
    case 0x2E:
    case 0x3A:
    case 0x5E:
    case 0x60:
    case 0xA8:
    case 0xAD:
    case 0xAF:
    case 0xB4:
    case 0xB7:
    case 0xB8:
    case 0x2018:
    case 0x2019:
    case 0x2024:
    case 0x2027:
      return true;
    default:
      break;
  }
  int c = category(cp);
  return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_ME || c == UTF8PROC_CATEGORY_CF ||
         c == UTF8PROC_CATEGORY_LM || c == UTF8PROC_CATEGORY_SK;
}

}  // namespace

std::string unicode_lowercase(std::string_view sv) {
  std::string out;
  out.reserve(sv.size());
  const char* s = sv.data();
  size_t n = sv.size();
  for (size_t i = 0; i < n;) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      out.push_back(b >= 'A' && b <= 'Z' ? static_cast<char>(b + 32) : static_cast<char>(b));
      ++i;
      continue;
    }
    size_t start = i;
    uint32_t cp = utf8_next(s, i);
    if (cp == 0x130) {  // İ → i̇
      out.append("i\xCC\x87");
      continue;
    }
    if (cp == 0x3A3) {  // Σ: final sigma when after a cased letter and not before one
      bool before = false;
      for (size_t j = start; j > 0;) {
        j = utf8_prev(s, j);
        size_t k = j;
        uint32_t p = utf8_next(s, k);
        if (is_case_ignorable(p)) continue;
        before = is_cased(p);
        break;
      }
      bool after = false;
      for (size_t j = i; j < n;) {
        uint32_t q = utf8_next(s, j);
        if (is_case_ignorable(q)) continue;
        after = is_cased(q);
        break;
      }
      append_utf8(out, before && !after ? 0x3C2 : 0x3C3);
      continue;
    }
    append_utf8(out, static_cast<uint32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp))));
  }
  return out;
}

// ---- regular expressions ---------------------------------------------------------------

namespace {

// Match state per thread: match data, a JIT stack and limits against pathological patterns.
struct MatchScratch {
  pcre2_match_data* data = nullptr;
  pcre2_match_context* context = nullptr;
  pcre2_jit_stack* stack = nullptr;
  MatchScratch() {
    data = pcre2_match_data_create(1, nullptr);
    context = pcre2_match_context_create(nullptr);
    stack = pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr);
    if (context && stack) pcre2_jit_stack_assign(context, nullptr, stack);
    if (context) {
      pcre2_set_match_limit(context, 20'000'000);
      pcre2_set_depth_limit(context, 100'000);
      pcre2_set_heap_limit(context, 256 * 1024);  // KiB
    }
  }
  ~MatchScratch() {
    pcre2_match_data_free(data);
    pcre2_match_context_free(context);
    pcre2_jit_stack_free(stack);
  }
};

MatchScratch& match_scratch() {
  thread_local MatchScratch scratch;
  return scratch;
}

std::string pcre2_message(int code) {
  PCRE2_UCHAR buffer[256];
  int n = pcre2_get_error_message(code, buffer, sizeof(buffer));
  if (n < 0) return "error " + std::to_string(code);
  return std::string(reinterpret_cast<const char*>(buffer), static_cast<size_t>(n));
}

const char* kWordClass = "\\p{L}\\p{M}\\p{Nd}\\p{Pc}";

bool is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

}  // namespace

std::string translate_oniguruma(const std::string& p) {
  std::string out;
  out.reserve(p.size() + 16);
  bool in_class = false;
  size_t class_start = 0;  // index in p of the first member of the current class
  for (size_t i = 0; i < p.size();) {
    char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      char n = p[i + 1];
      switch (n) {
        case 's':
          out += "\\p{White_Space}";
          i += 2;
          continue;
        case 'S':
          out += "\\P{White_Space}";
          i += 2;
          continue;
        case 'w':
          out += in_class ? std::string(kWordClass) : "[" + std::string(kWordClass) + "]";
          i += 2;
          continue;
        case 'W':
          out += in_class ? "\\W" : "[^" + std::string(kWordClass) + "]";
          i += 2;
          continue;
        case 'h':
          out += in_class ? "0-9A-Fa-f" : "[0-9A-Fa-f]";
          i += 2;
          continue;
        case 'H':
          out += in_class ? "\\x{0}-\\x{2F}\\x{3A}-\\x{40}\\x{47}-\\x{60}\\x{67}-\\x{10FFFF}"
                          : "[^0-9A-Fa-f]";
          i += 2;
          continue;
        case 'u':
          if (i + 6 <= p.size() && is_hex(p[i + 2]) && is_hex(p[i + 3]) && is_hex(p[i + 4]) &&
              is_hex(p[i + 5])) {
            out += "\\x{" + p.substr(i + 2, 4) + "}";
            i += 6;
            continue;
          }
          break;
        default:
          break;
      }
      // Copy the escape and the whole (possibly multi-byte) escaped character.
      size_t len = utf8_seq_len(static_cast<unsigned char>(n));
      out.append(p, i, 1 + len);
      i += 1 + len;
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      out.push_back(c);
      ++i;
      if (i < p.size() && p[i] == '^') {
        out.push_back('^');
        ++i;
      }
      class_start = i;
      continue;
    }
    if (in_class && c == '[' && i + 1 < p.size() && p[i + 1] == ':') {
      size_t end = p.find(":]", i + 2);
      if (end != std::string::npos) {
        out.append(p, i, end + 2 - i);
        i = end + 2;
        continue;
      }
    }
    if (in_class && c == ']' && i != class_start) {
      in_class = false;
      out.push_back(c);
      ++i;
      continue;
    }
    out.push_back(c);
    ++i;
  }
  return out;
}

Regex::Regex(const std::string& pattern, const std::string& where) : m_pattern(pattern) {
  compile(translate_oniguruma(pattern), where);
}

Regex Regex::literal(const std::string& text, const std::string& where) {
  Regex r;
  r.m_pattern = text;
  r.compile("\\Q" + text + "\\E", where);
  return r;
}

void Regex::compile(const std::string& translated, const std::string& where) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  pcre2_compile_context* cc = pcre2_compile_context_create(nullptr);
  if (cc) pcre2_set_newline(cc, PCRE2_NEWLINE_LF);
  pcre2_code* code = pcre2_compile(
      reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
      PCRE2_UTF | PCRE2_UCP | PCRE2_MULTILINE | PCRE2_ALT_CIRCUMFLEX, &error, &offset, cc);
  pcre2_compile_context_free(cc);
  if (!code)
    fail("{}: invalid regular expression '{}' at offset {}: {}", where, m_pattern, offset,
         pcre2_message(error));
  m_jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  m_code = code;
}

Regex::~Regex() {
  pcre2_code_free(static_cast<pcre2_code*>(m_code));
}

Regex::Regex(Regex&& other) noexcept
    : m_pattern(std::move(other.m_pattern)), m_code(other.m_code), m_jit(other.m_jit) {
  other.m_code = nullptr;
}

Regex& Regex::operator=(Regex&& other) noexcept {
  if (this != &other) {
    pcre2_code_free(static_cast<pcre2_code*>(m_code));
    m_pattern = std::move(other.m_pattern);
    m_code = other.m_code;
    m_jit = other.m_jit;
    other.m_code = nullptr;
  }
  return *this;
}

bool Regex::search(const char* s, size_t len, size_t start, size_t& match_begin,
                   size_t& match_end) const {
  MatchScratch& ms = match_scratch();
  if (!ms.data || !ms.context) fail("tokenizer: out of memory for regular expression matching");
  auto* code = static_cast<const pcre2_code*>(m_code);
  int rc;
  if (m_jit) {
    rc = pcre2_jit_match(code, reinterpret_cast<PCRE2_SPTR>(s), len, start, 0, ms.data, ms.context);
  } else {
    rc = pcre2_match(code, reinterpret_cast<PCRE2_SPTR>(s), len, start, PCRE2_NO_UTF_CHECK, ms.data,
                     ms.context);
  }
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc < 0)
    fail("tokenizer: regular expression '{}' failed while matching: {}", m_pattern,
         pcre2_message(rc));
  PCRE2_SIZE* ov = pcre2_get_ovector_pointer(ms.data);
  match_begin = ov[0];
  match_end = ov[1];
  // \K can move the start after the end; treat such a match as empty at its end.
  if (match_begin > match_end) match_begin = match_end;
  return true;
}

// ---- hashing and flat tables ------------------------------------------------------------

namespace {
inline uint64_t mix64(uint64_t h) {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDULL;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53ULL;
  h ^= h >> 33;
  return h;
}
}  // namespace

uint64_t hash_bytes(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xC2B2AE3D27D4EB4FULL);
  while (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    h = (h ^ (v * 0x87C37B91114253D5ULL)) * 0x4CF5AD432745937FULL;
    h = (h << 31) | (h >> 33);
    p += 8;
    n -= 8;
  }
  if (n) {
    uint64_t v = 0;
    std::memcpy(&v, p, n);
    h = (h ^ (v * 0x87C37B91114253D5ULL)) * 0x4CF5AD432745937FULL;
  }
  return mix64(h);
}

void StringMap::reserve(size_t n) {
  m_entries.reserve(n);
  size_t want = 16;
  while (want < n * 2) want <<= 1;
  if (want > m_slots.size()) {
    m_slots.assign(want, 0);
    m_mask = want - 1;
    for (size_t e = 0; e < m_entries.size(); ++e) {
      size_t i = m_entries[e].hash & m_mask;
      while (m_slots[i]) i = (i + 1) & m_mask;
      m_slots[i] = static_cast<uint32_t>(e + 1);
    }
  }
}

void StringMap::grow() {
  reserve(std::max<size_t>(16, m_entries.size() * 2 + 2));
}

int32_t* StringMap::lookup(std::string_view key, uint64_t h, size_t& slot) const {
  uint32_t h32 = static_cast<uint32_t>(h);
  size_t i = h32 & m_mask;
  while (true) {
    uint32_t e = m_slots[i];
    if (!e) {
      slot = i;
      return nullptr;
    }
    const Entry& en = m_entries[e - 1];
    if (en.hash == h32 && en.len == key.size() &&
        std::memcmp(m_arena.data() + en.off, key.data(), key.size()) == 0) {
      slot = i;
      return const_cast<int32_t*>(&en.value);
    }
    i = (i + 1) & m_mask;
  }
}

bool StringMap::insert(std::string_view key, int32_t value) {
  if ((m_entries.size() + 1) * 2 > m_slots.size()) grow();
  uint64_t h = hash_bytes(key.data(), key.size());
  size_t slot = 0;
  if (lookup(key, h, slot)) return false;
  if (m_arena.size() + key.size() > 0xFFFFFFFFULL)
    fail("tokenizer: vocabulary strings exceed 4 GiB");
  Entry e{static_cast<uint32_t>(m_arena.size()), static_cast<uint32_t>(key.size()), value,
          static_cast<uint32_t>(h)};
  m_arena.append(key.data(), key.size());
  m_entries.push_back(e);
  m_slots[slot] = static_cast<uint32_t>(m_entries.size());
  return true;
}

void StringMap::assign(std::string_view key, int32_t value) {
  if (!insert(key, value)) {
    size_t slot = 0;
    *lookup(key, hash_bytes(key.data(), key.size()), slot) = value;
  }
}

const int32_t* StringMap::find(std::string_view key) const {
  if (m_entries.empty()) return nullptr;
  size_t slot = 0;
  return lookup(key, hash_bytes(key.data(), key.size()), slot);
}

void StringMap::find_batch(const std::string_view* keys, size_t n, const int32_t** out) const {
  constexpr size_t kChunk = 32;
  uint64_t h[kChunk];
  uint32_t first[kChunk];
  for (size_t base = 0; base < n; base += kChunk) {
    size_t m = std::min(kChunk, n - base);
    if (m_entries.empty()) {
      for (size_t i = 0; i < m; ++i) out[base + i] = nullptr;
      continue;
    }
    // Slot, then entry, then key bytes: each step prefetched for all keys before it is used.
    for (size_t i = 0; i < m; ++i) {
      const std::string_view& k = keys[base + i];
      h[i] = hash_bytes(k.data(), k.size());
      __builtin_prefetch(&m_slots[static_cast<uint32_t>(h[i]) & m_mask]);
    }
    for (size_t i = 0; i < m; ++i) {
      first[i] = m_slots[static_cast<uint32_t>(h[i]) & m_mask];
      if (first[i]) __builtin_prefetch(&m_entries[first[i] - 1]);
    }
    for (size_t i = 0; i < m; ++i) {
      if (!first[i]) continue;
      const Entry& en = m_entries[first[i] - 1];
      if (en.hash == static_cast<uint32_t>(h[i])) __builtin_prefetch(m_arena.data() + en.off);
    }
    for (size_t i = 0; i < m; ++i) {
      size_t slot = 0;
      out[base + i] = lookup(keys[base + i], h[i], slot);
    }
  }
}

void StringMap::clear() {
  m_arena.clear();
  m_entries.clear();
  std::fill(m_slots.begin(), m_slots.end(), 0);
}

size_t StringMap::memory_bytes() const {
  return m_arena.capacity() + m_entries.capacity() * sizeof(Entry) +
         m_slots.capacity() * sizeof(uint32_t);
}

void PairMap::build() {
  size_t capacity = 16;
  while (capacity < m_pending.size() * 2) capacity <<= 1;
  int bits = 0;
  while ((size_t{1} << bits) < capacity) ++bits;
  m_mask = capacity - 1;
  m_shift = 64 - bits;
  m_compact = true;
  int32_t max_rank = -1;
  for (const Pending& p : m_pending) {
    if (p.a >= (1u << 20) || p.b >= (1u << 20) || p.value.rank < 0 || p.value.rank >= 0xFFFFFF)
      m_compact = false;
    max_rank = std::max(max_rank, p.value.rank);
  }
  m_size = 0;
  m_new_id.assign(static_cast<size_t>(max_rank + 1), -1);
  for (const Pending& p : m_pending) m_new_id[static_cast<size_t>(p.value.rank)] = p.value.new_id;
  if (m_compact) {
    m_compact_slots.assign(capacity, kEmpty);
    for (const Pending& p : m_pending) {
      uint64_t key = (static_cast<uint64_t>(p.a) << 20) | p.b;
      size_t i = static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> m_shift);
      while (m_compact_slots[i] != kEmpty && (m_compact_slots[i] >> 24) != key)
        i = (i + 1) & m_mask;
      if (m_compact_slots[i] == kEmpty) ++m_size;
      m_compact_slots[i] = (key << 24) | static_cast<uint64_t>(p.value.rank);
    }
  } else {
    m_slots.assign(capacity, Slot{kEmpty, 0});
    for (const Pending& p : m_pending) {
      uint64_t key = (static_cast<uint64_t>(p.a) << 32) | p.b;
      size_t i = static_cast<size_t>((key * 0x9E3779B97F4A7C15ULL) >> m_shift);
      while (m_slots[i].key != kEmpty && m_slots[i].key != key) i = (i + 1) & m_mask;
      if (m_slots[i].key == kEmpty) ++m_size;
      m_slots[i] = Slot{key, p.value.rank};
    }
  }
  m_pending.clear();
  m_pending.shrink_to_fit();
}

}  // namespace gb::tok
