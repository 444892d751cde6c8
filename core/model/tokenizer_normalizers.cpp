// Normalizers of tokenizer.json, with the semantics of Hugging Face tokenizers (Rust).
#include "model/tokenizer_components.h"

#include "util/error.h"

namespace gb::tok {
namespace {

class UnicodeNormalizer final : public Normalizer {
 public:
  UnicodeNormalizer(NormForm form, std::string name) : m_form(form), m_name(std::move(name)) {}
  void normalize(std::string& s) const override { unicode_normalize(s, m_form); }
  std::string describe() const override { return m_name; }

 private:
  NormForm m_form;
  std::string m_name;
};

class Lowercase final : public Normalizer {
 public:
  void normalize(std::string& s) const override { s = unicode_lowercase(s); }
  std::string describe() const override { return "Lowercase"; }
};

class Strip final : public Normalizer {
 public:
  Strip(bool left, bool right) : m_left(left), m_right(right) {}
  void normalize(std::string& s) const override {
    size_t b = 0, e = s.size();
    if (m_left) {
      while (b < e) {
        size_t i = b;
        if (!is_white_space(utf8_next(s.data(), i))) break;
        b = i;
      }
    }
    if (m_right) {
      while (e > b) {
        size_t p = utf8_prev(s.data(), e), i = p;
        if (!is_white_space(utf8_next(s.data(), i))) break;
        e = p;
      }
    }
    if (b != 0 || e != s.size()) s = s.substr(b, e - b);
  }
  std::string describe() const override { return "Strip"; }

 private:
  bool m_left, m_right;
};

class StripAccents final : public Normalizer {
 public:
  void normalize(std::string& s) const override {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
      size_t start = i;
      uint32_t cp = utf8_next(s.data(), i);
      if (cp < 0x300 || !is_mark(cp)) out.append(s, start, i - start);
    }
    s.swap(out);
  }
  std::string describe() const override { return "StripAccents"; }
};

class Replace final : public Normalizer {
 public:
  explicit Replace(const JsonAt& j)
      : m_pattern(j.at("pattern")), m_content(j.string("content", "")) {}
  void normalize(std::string& s) const override { s = m_pattern.replace_all(s, m_content); }
  std::string describe() const override { return "Replace"; }

 private:
  Pattern m_pattern;
  std::string m_content;
};

class Prepend final : public Normalizer {
 public:
  explicit Prepend(std::string prepend) : m_prepend(std::move(prepend)) {}
  void normalize(std::string& s) const override {
    if (!s.empty()) s.insert(0, m_prepend);
  }
  std::string describe() const override { return "Prepend"; }

 private:
  std::string m_prepend;
};

class ByteLevelNormalizer final : public Normalizer {
 public:
  void normalize(std::string& s) const override {
    const ByteLevelTable& t = byte_level_table();
    std::string out;
    out.reserve(s.size() * 2);
    for (unsigned char b : s) out += t.byte_to_utf8[b];
    s.swap(out);
  }
  std::string describe() const override { return "ByteLevel"; }
};

class Nmt final : public Normalizer {
 public:
  void normalize(std::string& s) const override {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
      size_t start = i;
      uint32_t c = utf8_next(s.data(), i);
      if ((c >= 0x01 && c <= 0x08) || c == 0x0B || (c >= 0x0E && c <= 0x1F) || c == 0x7F ||
          c == 0x8F || c == 0x9F)
        continue;
      if (c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x1680 ||
          (c >= 0x200B && c <= 0x200F) || c == 0x2028 || c == 0x2029 || c == 0x2581 ||
          c == 0xFEFF || c == 0xFFFD) {
        out.push_back(' ');
        continue;
      }
      out.append(s, start, i - start);
    }
    s.swap(out);
  }
  std::string describe() const override { return "Nmt"; }
};

class BertNormalizer final : public Normalizer {
 public:
  explicit BertNormalizer(const JsonAt& j)
      : m_clean_text(j.boolean("clean_text", true)),
        m_chinese(j.boolean("handle_chinese_chars", true)),
        m_lowercase(j.boolean("lowercase", true)) {
    auto sa = j.get("strip_accents");
    if (sa && !(*sa)->is_boolean()) sa->fail("expected a boolean or null");
    m_strip_accents = sa ? (*sa)->get<bool>() : m_lowercase;
  }
  void normalize(std::string& s) const override {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
      size_t start = i;
      uint32_t c = utf8_next(s.data(), i);
      if (m_clean_text) {
        if (c == 0 || c == 0xFFFD) continue;
        if (c != '\t' && c != '\n' && c != '\r' && is_other_category(c)) continue;
        if (is_bert_whitespace(c)) {
          out.push_back(' ');
          continue;
        }
      }
      if (m_chinese && is_chinese_char(c)) {
        out.push_back(' ');
        out.append(s, start, i - start);
        out.push_back(' ');
        continue;
      }
      out.append(s, start, i - start);
    }
    if (m_strip_accents) {
      unicode_normalize(out, NormForm::NFD);
      std::string kept;
      kept.reserve(out.size());
      for (size_t i = 0; i < out.size();) {
        size_t start = i;
        if (!is_nonspacing_mark(utf8_next(out.data(), i))) kept.append(out, start, i - start);
      }
      out.swap(kept);
    }
    if (m_lowercase) out = unicode_lowercase(out);
    s.swap(out);
  }
  std::string describe() const override { return "BertNormalizer"; }

 private:
  bool m_clean_text, m_chinese, m_lowercase, m_strip_accents;
};

class SequenceNormalizer final : public Normalizer {
 public:
  explicit SequenceNormalizer(const JsonAt& j) {
    JsonAt list = j.at("normalizers");
    list.expect_array();
    for (size_t i = 0; i < list.size(); ++i) {
      JsonAt item = list.at(i);
      if (item->is_null()) continue;
      m_items.push_back(make_normalizer(item));
    }
  }
  void normalize(std::string& s) const override {
    for (const auto& n : m_items) n->normalize(s);
  }
  std::string describe() const override {
    std::string d = "Sequence[";
    for (size_t i = 0; i < m_items.size(); ++i) d += (i ? ", " : "") + m_items[i]->describe();
    return d + "]";
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> m_items;
};

}  // namespace

std::unique_ptr<Normalizer> make_normalizer(const JsonAt& j) {
  std::string type = j.type();
  if (type == "NFC") return std::make_unique<UnicodeNormalizer>(NormForm::NFC, type);
  if (type == "NFD") return std::make_unique<UnicodeNormalizer>(NormForm::NFD, type);
  if (type == "NFKC") return std::make_unique<UnicodeNormalizer>(NormForm::NFKC, type);
  if (type == "NFKD") return std::make_unique<UnicodeNormalizer>(NormForm::NFKD, type);
  if (type == "Lowercase") return std::make_unique<Lowercase>();
  if (type == "Strip")
    return std::make_unique<Strip>(j.boolean("strip_left", true), j.boolean("strip_right", true));
  if (type == "StripAccents") return std::make_unique<StripAccents>();
  if (type == "Replace") return std::make_unique<Replace>(j);
  if (type == "Prepend") return std::make_unique<Prepend>(j.at("prepend").str());
  if (type == "ByteLevel") return std::make_unique<ByteLevelNormalizer>();
  if (type == "Nmt") return std::make_unique<Nmt>();
  if (type == "BertNormalizer") return std::make_unique<BertNormalizer>(j);
  if (type == "Sequence") return std::make_unique<SequenceNormalizer>(j);
  if (type == "Precompiled")
    j.fail_key("type", "the 'Precompiled' normalizer (SentencePiece charsmap) is not supported");
  j.fail_key("type", "unknown type '" + type +
                         "' (supported: NFC, NFD, NFKC, NFKD, Lowercase, Strip, StripAccents, "
                         "Replace, Prepend, ByteLevel, Nmt, BertNormalizer, Sequence)");
}

}  // namespace gb::tok
