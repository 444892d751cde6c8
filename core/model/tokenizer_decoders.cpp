// Decoders and post-processors of tokenizer.json, with the semantics of Hugging Face
// tokenizers (Rust).
#include <fmt/format.h>

#include "model/tokenizer_components.h"
#include "util/error.h"

namespace gb::tok {
namespace {

std::string replace_all_literal(std::string s, std::string_view from, std::string_view to) {
  if (from.empty()) return s;
  std::string out;
  size_t last = 0, pos;
  while ((pos = s.find(from, last)) != std::string::npos) {
    out.append(s, last, pos - last);
    out.append(to.data(), to.size());
    last = pos + from.size();
  }
  if (last == 0) return s;
  out.append(s, last, std::string::npos);
  return out;
}

std::string cleanup(std::string s) {
  static const std::pair<const char*, const char*> kRules[] = {
      {" .", "."},   {" ?", "?"},     {" !", "!"},    {" ,", ","},
      {" ' ", "'"},  {" n't", "n't"}, {" 'm", "'m"},  {" do not", " don't"},
      {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
  for (const auto& [from, to] : kRules) s = replace_all_literal(std::move(s), from, to);
  return s;
}

uint32_t single_char(const JsonAt& j, const char* key, const std::string& fallback) {
  std::string s = j.string(key, fallback);
  if (utf8_count(s) != 1) j.fail_key(key, "expected a single character");
  size_t i = 0;
  return utf8_next(s.data(), i);
}

// ---- decoders ----------------------------------------------------------------------------

class ByteLevelDecoder final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    const ByteLevelTable& t = byte_level_table();
    std::string bytes;
    for (const std::string& token : tokens) {
      size_t mark = bytes.size();
      bool ok = true;
      for (size_t i = 0; i < token.size();) {
        uint32_t cp = utf8_next(token.data(), i);
        if (cp >= 512 || t.char_to_byte[cp] < 0) {
          ok = false;
          break;
        }
        bytes.push_back(static_cast<char>(t.char_to_byte[cp]));
      }
      if (!ok) {
        bytes.resize(mark);
        bytes += token;
      }
    }
    tokens.assign(1, is_valid_utf8(bytes) ? bytes : sanitize_utf8(bytes));
  }
  std::string describe() const override { return "ByteLevel"; }
};

class MetaspaceDecoder final : public Decoder {
 public:
  explicit MetaspaceDecoder(const JsonAt& j) {
    m_replacement = single_char(j, "replacement", "\xE2\x96\x81");
    if (auto ps = j.get("prepend_scheme")) {
      std::string s = ps->str();
      if (s != "always" && s != "first" && s != "never")
        ps->fail("unknown prepend_scheme '" + s + "' (supported: always, first, never)");
      m_strip_first = s != "never";
    } else {
      m_strip_first = j.boolean("add_prefix_space", true);
    }
  }
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (size_t k = 0; k < tokens.size(); ++k) {
      const std::string& token = tokens[k];
      std::string out;
      out.reserve(token.size());
      for (size_t i = 0; i < token.size();) {
        size_t start = i;
        uint32_t cp = utf8_next(token.data(), i);
        if (cp == m_replacement) {
          if (!(k == 0 && m_strip_first)) out.push_back(' ');
        } else {
          out.append(token, start, i - start);
        }
      }
      tokens[k].swap(out);
    }
  }
  std::string describe() const override { return "Metaspace"; }

 private:
  uint32_t m_replacement = 0x2581;
  bool m_strip_first = true;
};

class ByteFallbackDecoder final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    out.reserve(tokens.size());
    std::string pending;
    auto flush = [&] {
      if (pending.empty()) return;
      if (is_valid_utf8(pending)) {
        out.push_back(pending);
      } else {
        for (size_t i = 0; i < pending.size(); ++i) out.emplace_back("\xEF\xBF\xBD");
      }
      pending.clear();
    };
    for (std::string& token : tokens) {
      int byte = parse_byte(token);
      if (byte >= 0) {
        pending.push_back(static_cast<char>(byte));
      } else {
        flush();
        out.push_back(std::move(token));
      }
    }
    flush();
    tokens.swap(out);
  }
  std::string describe() const override { return "ByteFallback"; }

 private:
  static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  static int parse_byte(const std::string& t) {
    if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
    int h = hex(t[3]), l = hex(t[4]);
    return h < 0 || l < 0 ? -1 : h * 16 + l;
  }
};

class FuseDecoder final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string all;
    for (const std::string& t : tokens) all += t;
    tokens.assign(1, std::move(all));
  }
  std::string describe() const override { return "Fuse"; }
};

class StripDecoder final : public Decoder {
 public:
  explicit StripDecoder(const JsonAt& j) : m_content(single_char(j, "content", " ")) {
    int64_t start = j.integer("start", 0), stop = j.integer("stop", 0);
    if (start < 0 || stop < 0) j.fail("start and stop must not be negative");
    m_start = static_cast<size_t>(start);
    m_stop = static_cast<size_t>(stop);
  }
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::string& token : tokens) {
      std::vector<std::pair<size_t, uint32_t>> chars;  // byte offset, code point
      for (size_t i = 0; i < token.size();) {
        size_t at = i;
        chars.emplace_back(at, utf8_next(token.data(), i));
      }
      size_t start_cut = 0;
      for (size_t i = 0; i < m_start && i < chars.size(); ++i) {
        if (chars[i].second != m_content) break;
        start_cut = i + 1;
      }
      size_t stop_cut = chars.size();
      for (size_t i = 0; i < m_stop && i < chars.size(); ++i) {
        size_t index = chars.size() - i - 1;
        if (chars[index].second != m_content) break;
        stop_cut = index;
      }
      if (stop_cut <= start_cut) {
        token.clear();
        continue;
      }
      size_t b = chars[start_cut].first;
      size_t e = stop_cut < chars.size() ? chars[stop_cut].first : token.size();
      token = token.substr(b, e - b);
    }
  }
  std::string describe() const override { return "Strip"; }

 private:
  uint32_t m_content;
  size_t m_start = 0, m_stop = 0;
};

class ReplaceDecoder final : public Decoder {
 public:
  explicit ReplaceDecoder(const JsonAt& j)
      : m_pattern(j.at("pattern")), m_content(j.string("content", "")) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::string& t : tokens) t = m_pattern.replace_all(t, m_content);
  }
  std::string describe() const override { return "Replace"; }

 private:
  Pattern m_pattern;
  std::string m_content;
};

class WordPieceDecoder final : public Decoder {
 public:
  explicit WordPieceDecoder(const JsonAt& j)
      : m_prefix(j.string("prefix", "##")), m_cleanup(j.boolean("cleanup", true)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string& t = tokens[i];
      if (i != 0) {
        if (!m_prefix.empty() && t.compare(0, m_prefix.size(), m_prefix) == 0) {
          t.erase(0, m_prefix.size());
        } else {
          t.insert(0, " ");
        }
      }
      if (m_cleanup) t = cleanup(std::move(t));
    }
  }
  std::string describe() const override { return "WordPiece"; }

 private:
  std::string m_prefix;
  bool m_cleanup;
};

class BpeDecoder final : public Decoder {
 public:
  explicit BpeDecoder(const JsonAt& j) : m_suffix(j.string("suffix", "</w>")) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i)
      tokens[i] =
          replace_all_literal(std::move(tokens[i]), m_suffix, i + 1 == tokens.size() ? "" : " ");
  }
  std::string describe() const override { return "BPEDecoder"; }

 private:
  std::string m_suffix;
};

class CtcDecoder final : public Decoder {
 public:
  explicit CtcDecoder(const JsonAt& j)
      : m_pad(j.string("pad_token", "<pad>")),
        m_delimiter(j.string("word_delimiter_token", "|")),
        m_cleanup(j.boolean("cleanup", true)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (i > 0 && tokens[i] == tokens[i - 1]) continue;
      std::string t = replace_all_literal(tokens[i], m_pad, "");
      if (m_cleanup) t = replace_all_literal(cleanup(std::move(t)), m_delimiter, " ");
      if (!t.empty()) out.push_back(std::move(t));
    }
    tokens.swap(out);
  }
  std::string describe() const override { return "CTC"; }

 private:
  std::string m_pad, m_delimiter;
  bool m_cleanup;
};

class SequenceDecoder final : public Decoder {
 public:
  explicit SequenceDecoder(const JsonAt& j) {
    JsonAt list = j.at("decoders");
    list.expect_array();
    for (size_t i = 0; i < list.size(); ++i) {
      JsonAt item = list.at(i);
      if (item->is_null()) continue;
      m_items.push_back(make_decoder(item));
    }
  }
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (const auto& d : m_items) d->decode_chain(tokens);
  }
  std::string describe() const override {
    std::string d = "Sequence[";
    for (size_t i = 0; i < m_items.size(); ++i) d += (i ? ", " : "") + m_items[i]->describe();
    return d + "]";
  }

 private:
  std::vector<std::unique_ptr<Decoder>> m_items;
};

// ---- post-processors -----------------------------------------------------------------------

class TemplateProcessing final : public PostProcessor {
 public:
  explicit TemplateProcessing(const JsonAt& j) {
    JsonAt single = j.at("single");
    single.expect_array();
    std::optional<JsonAt> specials = j.get("special_tokens");
    for (size_t i = 0; i < single.size(); ++i) {
      JsonAt item = single.at(i);
      item.expect_object();
      if (auto st = item.get("SpecialToken")) {
        std::string name = st->at("id").str();
        if (!specials || !(*specials)->contains(name))
          st->fail_key("id", "'" + name + "' is not listed in " + j.child_path("special_tokens"));
        JsonAt entry = specials->at(name.c_str());
        JsonAt ids = entry.at("ids");
        ids.expect_array();
        Piece piece;
        for (size_t k = 0; k < ids.size(); ++k) {
          int64_t id = ids.at(k).int_value();
          if (id < 0 || id > kMaxTokenId) ids.at(k).fail("token id out of range");
          piece.ids.push_back(static_cast<int32_t>(id));
        }
        m_pieces.push_back(std::move(piece));
      } else if (auto seq = item.get("Sequence")) {
        std::string id = seq->at("id").str();
        if (id != "A" && id != "B")
          seq->fail_key("id", "expected \"A\" or \"B\", got '" + id + "'");
        Piece piece;
        piece.sequence = id == "A";
        piece.skip = id == "B";  // a single sequence has no B
        m_pieces.push_back(std::move(piece));
      } else {
        item.fail("expected {\"SpecialToken\": ...} or {\"Sequence\": ...}");
      }
    }
  }
  void process(std::vector<int32_t>& ids, bool add_special_tokens) const override {
    std::vector<int32_t> out;
    out.reserve(ids.size() + 4);
    for (const Piece& p : m_pieces) {
      if (p.skip) continue;
      if (p.sequence) {
        out.insert(out.end(), ids.begin(), ids.end());
      } else if (add_special_tokens) {
        out.insert(out.end(), p.ids.begin(), p.ids.end());
      }
    }
    ids.swap(out);
  }
  void collect_ids(std::vector<int32_t>& out) const override {
    for (const Piece& p : m_pieces) out.insert(out.end(), p.ids.begin(), p.ids.end());
  }
  std::string describe() const override { return "TemplateProcessing"; }

 private:
  struct Piece {
    bool sequence = false;
    bool skip = false;
    std::vector<int32_t> ids;
  };
  std::vector<Piece> m_pieces;
};

class ClsSepProcessing final : public PostProcessor {
 public:
  ClsSepProcessing(const JsonAt& j, std::string name) : m_name(std::move(name)) {
    m_cls = token_id(j.at("cls"));
    m_sep = token_id(j.at("sep"));
  }
  void process(std::vector<int32_t>& ids, bool add_special_tokens) const override {
    if (!add_special_tokens) return;
    ids.insert(ids.begin(), m_cls);
    ids.push_back(m_sep);
  }
  void collect_ids(std::vector<int32_t>& out) const override {
    out.push_back(m_cls);
    out.push_back(m_sep);
  }
  std::string describe() const override { return m_name; }

 private:
  static int32_t token_id(const JsonAt& j) {
    j.expect_array();
    if (j.size() != 2) j.fail("expected [token, id]");
    j.at(size_t{0}).str();
    int64_t id = j.at(size_t{1}).int_value();
    if (id < 0 || id > kMaxTokenId) j.at(size_t{1}).fail("token id out of range");
    return static_cast<int32_t>(id);
  }
  std::string m_name;
  int32_t m_cls = 0, m_sep = 0;
};

class NoOpProcessing final : public PostProcessor {
 public:
  explicit NoOpProcessing(std::string name) : m_name(std::move(name)) {}
  void process(std::vector<int32_t>&, bool) const override {}
  void collect_ids(std::vector<int32_t>&) const override {}
  std::string describe() const override { return m_name; }

 private:
  std::string m_name;
};

class SequenceProcessing final : public PostProcessor {
 public:
  explicit SequenceProcessing(const JsonAt& j) {
    JsonAt list = j.at("processors");
    list.expect_array();
    for (size_t i = 0; i < list.size(); ++i) {
      JsonAt item = list.at(i);
      if (item->is_null()) continue;
      m_items.push_back(make_post_processor(item));
    }
  }
  void process(std::vector<int32_t>& ids, bool add_special_tokens) const override {
    for (const auto& p : m_items) p->process(ids, add_special_tokens);
  }
  void collect_ids(std::vector<int32_t>& out) const override {
    for (const auto& p : m_items) p->collect_ids(out);
  }
  std::string describe() const override {
    std::string d = "Sequence[";
    for (size_t i = 0; i < m_items.size(); ++i) d += (i ? ", " : "") + m_items[i]->describe();
    return d + "]";
  }

 private:
  std::vector<std::unique_ptr<PostProcessor>> m_items;
};

}  // namespace

std::unique_ptr<Decoder> make_decoder(const JsonAt& j) {
  std::string type = j.type();
  if (type == "ByteLevel") return std::make_unique<ByteLevelDecoder>();
  if (type == "Metaspace") return std::make_unique<MetaspaceDecoder>(j);
  if (type == "ByteFallback") return std::make_unique<ByteFallbackDecoder>();
  if (type == "Fuse") return std::make_unique<FuseDecoder>();
  if (type == "Strip") return std::make_unique<StripDecoder>(j);
  if (type == "Replace") return std::make_unique<ReplaceDecoder>(j);
  if (type == "WordPiece") return std::make_unique<WordPieceDecoder>(j);
  if (type == "BPEDecoder") return std::make_unique<BpeDecoder>(j);
  if (type == "CTC") return std::make_unique<CtcDecoder>(j);
  if (type == "Sequence") return std::make_unique<SequenceDecoder>(j);
  j.fail_key("type", "unknown type '" + type +
                         "' (supported: ByteLevel, Metaspace, ByteFallback, Fuse, Strip, "
                         "Replace, WordPiece, BPEDecoder, CTC, Sequence)");
}

std::unique_ptr<PostProcessor> make_post_processor(const JsonAt& j) {
  std::string type = j.type();
  if (type == "TemplateProcessing") return std::make_unique<TemplateProcessing>(j);
  if (type == "BertProcessing") return std::make_unique<ClsSepProcessing>(j, type);
  if (type == "RobertaProcessing") return std::make_unique<ClsSepProcessing>(j, type);
  if (type == "ByteLevel") return std::make_unique<NoOpProcessing>(type);
  if (type == "Sequence") return std::make_unique<SequenceProcessing>(j);
  j.fail_key("type", "unknown type '" + type +
                         "' (supported: TemplateProcessing, BertProcessing, "
                         "RobertaProcessing, ByteLevel, Sequence)");
}

}  // namespace gb::tok
