// Pre-tokenizers of tokenizer.json, with the semantics of Hugging Face tokenizers (Rust).
#include "model/tokenizer_components.h"

#include "util/error.h"

namespace gb::tok {
namespace {

SplitBehavior parse_behavior(const JsonAt& j, const char* key, SplitBehavior fallback) {
  auto v = j.get(key);
  if (!v) return fallback;
  std::string s = v->str();
  if (s == "Removed") return SplitBehavior::Removed;
  if (s == "Isolated") return SplitBehavior::Isolated;
  if (s == "MergedWithPrevious") return SplitBehavior::MergedWithPrevious;
  if (s == "MergedWithNext") return SplitBehavior::MergedWithNext;
  if (s == "Contiguous") return SplitBehavior::Contiguous;
  v->fail("unknown split behavior '" + s +
          "' (supported: Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous)");
}

// Events of one piece from a match enumerator, as Hugging Face's Pattern::find_matches.
template <typename ForEachMatch>
void collect_events(const char* s, size_t n, ForEachMatch&& for_each_match,
                    std::vector<SplitEvent>& events) {
  events.clear();
  uint32_t prev = 0;
  for_each_match(s, n, [&](size_t b, size_t e) {
    if (prev != b) events.push_back(SplitEvent{prev, static_cast<uint32_t>(b), false});
    events.push_back(SplitEvent{static_cast<uint32_t>(b), static_cast<uint32_t>(e), true});
    prev = static_cast<uint32_t>(e);
  });
  if (prev != n) events.push_back(SplitEvent{prev, static_cast<uint32_t>(n), false});
}

// Splits every span of `p` in place.
template <typename ForEachMatch>
void split_spans(PreTokens& p, ForEachMatch&& for_each_match, SplitBehavior behavior, bool invert) {
  thread_local std::vector<SplitEvent> events;
  std::vector<Span> out;
  out.reserve(p.spans.size() * 2);
  for (const Span& sp : p.spans) {
    collect_events(p.text.data() + sp.begin, sp.end - sp.begin, for_each_match, events);
    apply_split_behavior(events, behavior, invert, sp.begin, out);
  }
  p.spans.swap(out);
}

// A match enumerator over single characters that satisfy `pred`.
template <typename Pred>
auto char_matches(Pred pred) {
  return [pred](const char* s, size_t n, auto&& f) {
    for (size_t i = 0; i < n;) {
      size_t start = i;
      if (pred(utf8_next(s, i))) f(start, i);
    }
  };
}

class ByteLevel final : public PreTokenizer {
 public:
  explicit ByteLevel(const JsonAt& j)
      : m_add_prefix_space(j.boolean("add_prefix_space", false)),
        m_use_regex(j.boolean("use_regex", true)) {
    if (m_use_regex) m_regex = std::make_unique<Regex>(kGpt2Pattern, j.source() + ": " + j.path());
  }
  void pre_tokenize(PreTokens& p) const override {
    const ByteLevelTable& table = byte_level_table();
    // Each byte becomes one or two UTF-8 bytes: size the output once, write through a pointer.
    thread_local std::string out;  // swapped with p.text: the buffers are reused across calls
    thread_local std::vector<Span> spans;
    thread_local std::string prefixed;
    out.resize(p.text.size() * 2 + p.spans.size() * 2);
    spans.clear();
    size_t w = 0;
    auto emit = [&](const char* s, size_t n) {
      Span sp{static_cast<uint32_t>(w), 0};
      char* o = &out[0];
      for (size_t i = 0; i < n; ++i) {
        const std::string& c = table.byte_to_utf8[static_cast<unsigned char>(s[i])];
        o[w] = c[0];
        if (c.size() > 1) o[++w] = c[1];
        ++w;
      }
      sp.end = static_cast<uint32_t>(w);
      if (sp.end > sp.begin) spans.push_back(sp);
    };
    for (const Span& sp : p.spans) {
      const char* s = p.text.data() + sp.begin;
      size_t n = sp.end - sp.begin;
      if (m_add_prefix_space && (n == 0 || s[0] != ' ')) {
        prefixed.assign(1, ' ');
        prefixed.append(s, n);
        s = prefixed.data();
        n = prefixed.size();
      }
      if (!m_use_regex) {
        emit(s, n);
        continue;
      }
      size_t prev = 0;
      m_regex->for_each_match(s, n, [&](size_t b, size_t e) {
        if (prev != b) emit(s + prev, b - prev);
        emit(s + b, e - b);
        prev = e;
      });
      if (prev != n) emit(s + prev, n - prev);
    }
    out.resize(w);
    p.text.swap(out);
    p.spans.swap(spans);
  }
  std::string describe() const override { return "ByteLevel"; }

 private:
  bool m_add_prefix_space, m_use_regex;
  std::unique_ptr<Regex> m_regex;
};

class Split final : public PreTokenizer {
 public:
  explicit Split(const JsonAt& j)
      : m_pattern(j.at("pattern")),
        m_behavior(parse_behavior(j, "behavior", SplitBehavior::Isolated)),
        m_invert(j.boolean("invert", false)) {
    if (!j->contains("behavior")) j.fail_key("behavior", "missing");
  }
  void pre_tokenize(PreTokens& p) const override {
    split_spans(
        p, [this](const char* s, size_t n, auto&& f) { m_pattern.for_each_match(s, n, f); },
        m_behavior, m_invert);
  }
  std::string describe() const override { return "Split"; }

 private:
  Pattern m_pattern;
  SplitBehavior m_behavior;
  bool m_invert;
};

class Metaspace final : public PreTokenizer {
 public:
  enum class Prepend { Always, First, Never };
  explicit Metaspace(const JsonAt& j) {
    std::string r = j.string("replacement", "\xE2\x96\x81");
    if (r.empty() || utf8_count(r) != 1) j.fail_key("replacement", "expected a single character");
    m_replacement = r;
    m_split = j.boolean("split", true);
    if (auto ps = j.get("prepend_scheme")) {
      std::string s = ps->str();
      if (s == "always") {
        m_prepend = Prepend::Always;
      } else if (s == "first") {
        m_prepend = Prepend::First;
      } else if (s == "never") {
        m_prepend = Prepend::Never;
      } else {
        ps->fail("unknown prepend_scheme '" + s + "' (supported: always, first, never)");
      }
    } else if (j->contains("add_prefix_space")) {  // files written before prepend_scheme
      m_prepend = j.boolean("add_prefix_space", true) ? Prepend::Always : Prepend::Never;
    }
  }
  void pre_tokenize(PreTokens& p) const override {
    std::string out;
    out.reserve(p.text.size() + p.spans.size() * 3 + 8);
    std::vector<Span> spans;
    spans.reserve(p.spans.size());
    for (const Span& sp : p.spans) {
      std::string_view s = p.view(sp);
      Span ns{static_cast<uint32_t>(out.size()), 0};
      bool starts = s.compare(0, std::min(s.size(), m_replacement.size()), m_replacement) == 0 &&
                    s.size() >= m_replacement.size();
      // A leading space becomes the replacement too, so it counts as "starts with".
      bool starts_space = !s.empty() && s[0] == ' ';
      bool prepend = !starts && !starts_space &&
                     (m_prepend == Prepend::Always ||
                      (m_prepend == Prepend::First && sp.begin == 0 && p.at_origin));
      if (prepend) out += m_replacement;
      for (char c : s) {
        if (c == ' ') {
          out += m_replacement;
        } else {
          out.push_back(c);
        }
      }
      ns.end = static_cast<uint32_t>(out.size());
      if (ns.end > ns.begin) spans.push_back(ns);
    }
    p.text.swap(out);
    p.spans.swap(spans);
    if (m_split) {
      const std::string& rep = m_replacement;
      split_spans(
          p,
          [&rep](const char* s, size_t n, auto&& f) {
            std::string_view t(s, n);
            for (size_t pos = 0; (pos = t.find(rep, pos)) != std::string_view::npos;
                 pos += rep.size())
              f(pos, pos + rep.size());
          },
          SplitBehavior::MergedWithNext, false);
    }
  }
  std::string describe() const override { return "Metaspace"; }

 private:
  std::string m_replacement;
  Prepend m_prepend = Prepend::Always;
  bool m_split = true;
};

class Whitespace final : public PreTokenizer {
 public:
  void pre_tokenize(PreTokens& p) const override {
    // \w+|[^\w\s]+, keeping the matches only.
    std::vector<Span> out;
    out.reserve(p.spans.size() * 2);
    for (const Span& sp : p.spans) {
      int run = 0;  // 0 none, 1 word, 2 other
      uint32_t run_start = 0;
      for (size_t i = sp.begin; i < sp.end;) {
        size_t start = i;
        uint32_t cp = utf8_next(p.text.data(), i);
        int kind = is_word_char(cp) ? 1 : is_white_space(cp) ? 0 : 2;
        if (kind != run) {
          if (run) out.push_back(Span{run_start, static_cast<uint32_t>(start)});
          run = kind;
          run_start = static_cast<uint32_t>(start);
        }
      }
      if (run) out.push_back(Span{run_start, sp.end});
    }
    p.spans.swap(out);
  }
  std::string describe() const override { return "Whitespace"; }
};

class WhitespaceSplit final : public PreTokenizer {
 public:
  void pre_tokenize(PreTokens& p) const override {
    split_spans(p, char_matches(is_white_space), SplitBehavior::Removed, false);
  }
  std::string describe() const override { return "WhitespaceSplit"; }
};

bool is_bert_punctuation(uint32_t cp) {
  return (cp < 0x80 && ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) ||
                        (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126))) ||
         is_punctuation(cp);
}

class Punctuation final : public PreTokenizer {
 public:
  explicit Punctuation(const JsonAt& j)
      : m_behavior(parse_behavior(j, "behavior", SplitBehavior::Isolated)) {}
  void pre_tokenize(PreTokens& p) const override {
    split_spans(p, char_matches(is_bert_punctuation), m_behavior, false);
  }
  std::string describe() const override { return "Punctuation"; }

 private:
  SplitBehavior m_behavior;
};

class Digits final : public PreTokenizer {
 public:
  explicit Digits(const JsonAt& j) : m_individual(j.boolean("individual_digits", false)) {}
  void pre_tokenize(PreTokens& p) const override {
    split_spans(p, char_matches(is_numeric),
                m_individual ? SplitBehavior::Isolated : SplitBehavior::Contiguous, false);
  }
  std::string describe() const override { return "Digits"; }

 private:
  bool m_individual;
};

class BertPreTokenizer final : public PreTokenizer {
 public:
  void pre_tokenize(PreTokens& p) const override {
    split_spans(p, char_matches(is_white_space), SplitBehavior::Removed, false);
    split_spans(p, char_matches(is_bert_punctuation), SplitBehavior::Isolated, false);
  }
  std::string describe() const override { return "BertPreTokenizer"; }
};

class CharDelimiterSplit final : public PreTokenizer {
 public:
  explicit CharDelimiterSplit(const JsonAt& j) {
    std::string d = j.at("delimiter").str();
    if (utf8_count(d) != 1) j.fail_key("delimiter", "expected a single character");
    size_t i = 0;
    m_delimiter = utf8_next(d.data(), i);
  }
  void pre_tokenize(PreTokens& p) const override {
    uint32_t d = m_delimiter;
    split_spans(p, char_matches([d](uint32_t c) { return c == d; }), SplitBehavior::Removed, false);
  }
  std::string describe() const override { return "CharDelimiterSplit"; }

 private:
  uint32_t m_delimiter = 0;
};

class SequencePreTokenizer final : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(const JsonAt& j) {
    JsonAt list = j.at("pretokenizers");
    list.expect_array();
    for (size_t i = 0; i < list.size(); ++i) {
      JsonAt item = list.at(i);
      if (item->is_null()) continue;
      m_items.push_back(make_pre_tokenizer(item));
    }
  }
  void pre_tokenize(PreTokens& p) const override {
    for (const auto& t : m_items) t->pre_tokenize(p);
  }
  std::string describe() const override {
    std::string d = "Sequence[";
    for (size_t i = 0; i < m_items.size(); ++i) d += (i ? ", " : "") + m_items[i]->describe();
    return d + "]";
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> m_items;
};

}  // namespace

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonAt& j) {
  std::string type = j.type();
  if (type == "ByteLevel") return std::make_unique<ByteLevel>(j);
  if (type == "Split") return std::make_unique<Split>(j);
  if (type == "Metaspace") return std::make_unique<Metaspace>(j);
  if (type == "Whitespace") return std::make_unique<Whitespace>();
  if (type == "WhitespaceSplit") return std::make_unique<WhitespaceSplit>();
  if (type == "Punctuation") return std::make_unique<Punctuation>(j);
  if (type == "Digits") return std::make_unique<Digits>(j);
  if (type == "BertPreTokenizer") return std::make_unique<BertPreTokenizer>();
  if (type == "CharDelimiterSplit") return std::make_unique<CharDelimiterSplit>(j);
  if (type == "Sequence") return std::make_unique<SequencePreTokenizer>(j);
  j.fail_key("type", "unknown type '" + type +
                         "' (supported: ByteLevel, Split, Metaspace, Whitespace, "
                         "WhitespaceSplit, Punctuation, Digits, BertPreTokenizer, "
                         "CharDelimiterSplit, Sequence)");
}

}  // namespace gb::tok
