#include "model/tokenizer_components.h"

#include <algorithm>

#include <fmt/format.h>

#include "util/error.h"
#include "util/json.h"

namespace gb::tok {

// ---- JsonAt ------------------------------------------------------------------------------

void JsonAt::fail(const std::string& message) const {
  if (m_path.empty()) throw Error(fmt::format("{}: {}", *m_source, message));
  throw Error(fmt::format("{}: {}: {}", *m_source, m_path, message));
}

std::string JsonAt::child_path(const char* key) const {
  return m_path.empty() ? std::string(key) : m_path + "." + key;
}

void JsonAt::fail_key(const char* key, const std::string& message) const {
  JsonAt(*m_j, child_path(key), *m_source).fail(message);
}

void JsonAt::expect_object() const {
  if (!m_j->is_object()) fail("expected an object, got " + gb::json::type_name(*m_j));
}

void JsonAt::expect_array() const {
  if (!m_j->is_array()) fail("expected an array, got " + gb::json::type_name(*m_j));
}

JsonAt JsonAt::at(const char* key) const {
  expect_object();
  auto it = m_j->find(key);
  if (it == m_j->end()) fail_key(key, "missing");
  return JsonAt(*it, child_path(key), *m_source);
}

std::optional<JsonAt> JsonAt::get(const char* key) const {
  expect_object();
  auto it = m_j->find(key);
  if (it == m_j->end() || it->is_null()) return std::nullopt;
  return JsonAt(*it, child_path(key), *m_source);
}

JsonAt JsonAt::at(size_t index) const {
  expect_array();
  return JsonAt((*m_j)[index], m_path + "[" + std::to_string(index) + "]", *m_source);
}

bool JsonAt::boolean(const char* key, bool fallback) const {
  auto v = get(key);
  if (!v) return fallback;
  if (!(*v)->is_boolean()) v->fail("expected a boolean, got " + gb::json::type_name(**v));
  return (*v)->get<bool>();
}

std::string JsonAt::string(const char* key, const std::string& fallback) const {
  auto v = get(key);
  return v ? v->str() : fallback;
}

std::optional<std::string> JsonAt::opt_string(const char* key) const {
  auto v = get(key);
  if (!v) return std::nullopt;
  return v->str();
}

int64_t JsonAt::integer(const char* key, int64_t fallback) const {
  auto v = get(key);
  return v ? v->int_value() : fallback;
}

std::string JsonAt::str() const {
  if (!m_j->is_string()) fail("expected a string, got " + gb::json::type_name(*m_j));
  return m_j->get<std::string>();
}

int64_t JsonAt::int_value() const {
  if (m_j->is_number_unsigned()) {
    uint64_t u = m_j->get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) fail("integer out of range");
    return static_cast<int64_t>(u);
  }
  if (!m_j->is_number_integer()) fail("expected an integer, got " + gb::json::type_name(*m_j));
  return m_j->get<int64_t>();
}

std::string JsonAt::type() const {
  expect_object();
  auto it = m_j->find("type");
  if (it == m_j->end()) fail_key("type", "missing");
  if (!it->is_string()) fail_key("type", "expected a string, got " + gb::json::type_name(*it));
  return it->get<std::string>();
}

// ---- splitting ---------------------------------------------------------------------------

void apply_split_behavior(const std::vector<SplitEvent>& events, SplitBehavior behavior,
                          bool invert, uint32_t base, std::vector<Span>& out) {
  // Kept pieces as [begin, end), merged as the behaviour says; mirrors Hugging Face's
  // NormalizedString::split, including its treatment of consecutive matches.
  size_t first_out = out.size();
  auto push = [&](uint32_t b, uint32_t e) { out.push_back(Span{base + b, base + e}); };
  switch (behavior) {
    case SplitBehavior::Removed:
      for (const SplitEvent& ev : events)
        if (ev.is_match == invert) push(ev.begin, ev.end);
      break;
    case SplitBehavior::Isolated:
      for (const SplitEvent& ev : events) push(ev.begin, ev.end);
      break;
    case SplitBehavior::Contiguous: {
      bool previous_match = false;
      bool any = false;
      for (const SplitEvent& ev : events) {
        bool m = ev.is_match != invert;
        if (m == previous_match && any) {
          out.back().end = base + ev.end;
        } else {
          push(ev.begin, ev.end);
          any = true;
        }
        previous_match = m;
      }
      break;
    }
    case SplitBehavior::MergedWithPrevious: {
      bool previous_match = false;
      bool any = false;
      for (const SplitEvent& ev : events) {
        bool m = ev.is_match != invert;
        if (m && !previous_match && any) {
          out.back().end = base + ev.end;
        } else {
          push(ev.begin, ev.end);
          any = true;
        }
        previous_match = m;
      }
      break;
    }
    case SplitBehavior::MergedWithNext: {
      bool previous_match = false;
      bool any = false;
      size_t start = out.size();
      for (size_t k = events.size(); k-- > 0;) {
        const SplitEvent& ev = events[k];
        bool m = ev.is_match != invert;
        if (m && !previous_match && any) {
          out.back().begin = base + ev.begin;
        } else {
          push(ev.begin, ev.end);
          any = true;
        }
        previous_match = m;
      }
      std::reverse(out.begin() + static_cast<std::ptrdiff_t>(start), out.end());
      break;
    }
  }
  // Drop empty pieces (Hugging Face filters them out of the pre-tokenized string).
  size_t w = first_out;
  for (size_t r = first_out; r < out.size(); ++r)
    if (out[r].end > out[r].begin) out[w++] = out[r];
  out.resize(w);
}

// ---- Pattern -----------------------------------------------------------------------------

Pattern::Pattern(const JsonAt& j) {
  j.expect_object();
  if (auto s = j.get("String")) {
    m_literal = s->str();
  } else if (auto r = j.get("Regex")) {
    m_regex = std::make_unique<Regex>(r->str(), r->source() + ": " + r->path());
  } else {
    j.fail("expected {\"String\": ...} or {\"Regex\": ...}");
  }
}

std::string Pattern::replace_all(std::string_view s, std::string_view content) const {
  std::string out;
  out.reserve(s.size());
  size_t last = 0;
  for_each_match(s.data(), s.size(), [&](size_t b, size_t e) {
    out.append(s.data() + last, b - last);
    out.append(content.data(), content.size());
    last = e;
  });
  out.append(s.data() + last, s.size() - last);
  return out;
}

std::string Pattern::describe() const {
  return m_regex ? "Regex '" + m_regex->pattern() + "'" : "String '" + m_literal + "'";
}

// ---- byte-level table --------------------------------------------------------------------

const ByteLevelTable& byte_level_table() {
  static const ByteLevelTable table = [] {
    ByteLevelTable t;
    for (auto& c : t.char_to_byte) c = -1;
    int n = 0;
    for (int b = 0; b < 256; ++b) {
      bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE);
      uint32_t cp = printable ? static_cast<uint32_t>(b) : static_cast<uint32_t>(256 + n++);
      t.byte_to_utf8[b] = utf8_encode(cp);
      t.char_to_byte[cp] = static_cast<int16_t>(b);
    }
    return t;
  }();
  return table;
}

const char* const kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

}  // namespace gb::tok
