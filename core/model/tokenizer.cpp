// Hugging Face tokenizer.json: loading, added tokens, and the encode/decode pipelines.
// The stages live in tokenizer_{normalizers,pretokenizers,models,decoders}.cpp.
#include "model/tokenizer.h"

#include <algorithm>
#include <array>
#include <unordered_map>

#include <fmt/format.h>

#include "model/tokenizer_components.h"
#include "util/json.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace gb::tok {

namespace {

struct AddedToken {
  std::string content;
  int32_t id = 0;
  bool special = false;
  bool lstrip = false;
  bool rstrip = false;
  bool single_word = false;
  bool normalized = true;
};

// Leftmost-longest matching of a set of strings (the added tokens), byte trie.
class TokenTrie {
 public:
  TokenTrie() { m_root.fill(0); }
  void add(std::string_view pattern, int32_t value) {
    if (pattern.empty()) return;
    uint32_t node = root_child(static_cast<unsigned char>(pattern[0]), true);
    for (size_t i = 1; i < pattern.size(); ++i)
      node = child(node, static_cast<unsigned char>(pattern[i]), true);
    if (m_nodes[node].value < 0) m_nodes[node].value = value;
    m_empty = false;
  }
  bool empty() const { return m_empty; }
  bool can_start(unsigned char b) const { return m_root[b] != 0; }
  // Length of the longest pattern at s[i] (0: none) and its value.
  size_t longest_at(const char* s, size_t n, size_t i, int32_t& value) const {
    uint32_t node = m_root[static_cast<unsigned char>(s[i])];
    if (!node) return 0;
    size_t best = 0;
    size_t j = i + 1;
    while (true) {
      if (m_nodes[node].value >= 0) {
        best = j - i;
        value = m_nodes[node].value;
      }
      if (j >= n) break;
      node = child(node, static_cast<unsigned char>(s[j]), false);
      if (!node) break;
      ++j;
    }
    return best;
  }

 private:
  struct Node {
    int32_t value = -1;
    std::vector<std::pair<unsigned char, uint32_t>> children;  // sorted by byte
  };
  uint32_t root_child(unsigned char b, bool create) {
    if (!m_root[b] && create) {
      m_nodes.emplace_back();
      m_root[b] = static_cast<uint32_t>(m_nodes.size() - 1);
    }
    return m_root[b];
  }
  uint32_t child(uint32_t node, unsigned char b, bool create) const {
    const auto& ch = m_nodes[node].children;
    auto it = std::lower_bound(ch.begin(), ch.end(), std::make_pair(b, uint32_t{0}));
    if (it != ch.end() && it->first == b) return it->second;
    if (!create) return 0;
    auto& self = const_cast<TokenTrie&>(*this);
    self.m_nodes.emplace_back();
    uint32_t id = static_cast<uint32_t>(self.m_nodes.size() - 1);
    auto& chm = self.m_nodes[node].children;
    chm.insert(std::lower_bound(chm.begin(), chm.end(), std::make_pair(b, uint32_t{0})),
               std::make_pair(b, id));
    return id;
  }
  std::vector<Node> m_nodes = std::vector<Node>(1);  // node 0 is "none"
  std::array<uint32_t, 256> m_root;
  bool m_empty = true;
};

// A piece of text: either an added token (token >= 0, its index) or text to tokenize.
struct Piece {
  size_t begin;
  size_t end;
  int32_t token;
};

bool ends_with_word(std::string_view s) {
  if (s.empty()) return false;
  size_t i = utf8_prev(s.data(), s.size());
  return is_word_char(utf8_next(s.data(), i));
}

bool starts_with_word(std::string_view s) {
  if (s.empty()) return false;
  size_t i = 0;
  return is_word_char(utf8_next(s.data(), i));
}

std::string token_name(const Json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object()) {
    auto it = j.find("content");
    if (it != j.end() && it->is_string()) return it->get<std::string>();
  }
  return {};
}

}  // namespace

class TokenizerImpl {
 public:
  std::string source;
  std::string json_text;
  std::unique_ptr<Normalizer> normalizer;
  std::unique_ptr<PreTokenizer> pre_tokenizer;
  std::unique_ptr<Model> model;
  std::unique_ptr<PostProcessor> post_processor;
  std::unique_ptr<Decoder> decoder;
  std::vector<AddedToken> added;
  std::unordered_map<int32_t, size_t> added_by_id;
  StringMap added_by_content;
  std::vector<std::string> special_contents;
  TokenTrie raw_trie;         // added tokens matched on the raw text
  TokenTrie normalized_trie;  // added tokens matched on normalized text
  std::optional<int32_t> bos, eos, pad;
  int64_t vocab_size = 0;

  void load(const std::string& text);
  void load_added_tokens(const JsonAt& list);
  void guess_special_ids();

  std::vector<Piece> split_added(std::string_view s, const TokenTrie& trie) const;
  // Runs added-token extraction, normalization and pre-tokenization over valid UTF-8 text:
  // on_added(token index, matched text) and on_words(pre-tokens: the words of one piece) in
  // order.
  template <typename OnAdded, typename OnWords>
  void walk(std::string_view text, OnAdded&& on_added, OnWords&& on_words) const;
  void encode_text(std::string_view text, std::vector<int32_t>& ids) const;
};

void TokenizerImpl::load(const std::string& text) {
  RawLists raw;
  Json root = parse_tokenizer_json(text, source, raw);
  JsonAt r(root, "", source);
  if (!root.is_object())
    r.fail("expected a tokenizer.json object at the top level, got " + gb::json::type_name(root));
  auto m = r.get("model");
  if (!m) r.fail("model: missing (a tokenizer.json needs a \"model\" object)");
  model = make_model(*m, &raw);
  if (auto n = r.get("normalizer")) normalizer = make_normalizer(*n);
  if (auto p = r.get("pre_tokenizer")) pre_tokenizer = make_pre_tokenizer(*p);
  if (auto p = r.get("post_processor")) post_processor = make_post_processor(*p);
  if (auto d = r.get("decoder")) decoder = make_decoder(*d);
  if (auto a = r.get("added_tokens")) load_added_tokens(*a);
  vocab_size = model->max_id() + 1;
  for (const AddedToken& t : added) vocab_size = std::max<int64_t>(vocab_size, t.id + 1);
  if (post_processor) {
    std::vector<int32_t> ids;
    post_processor->collect_ids(ids);
    for (int32_t id : ids) {
      if (!model->id_to_token(id) && !added_by_id.count(id))
        r.fail(fmt::format("post_processor: token id {} is not in the vocabulary", id));
    }
  }
}

void TokenizerImpl::load_added_tokens(const JsonAt& list) {
  list.expect_array();
  for (size_t i = 0; i < list.size(); ++i) {
    JsonAt item = list.at(i);
    item.expect_object();
    AddedToken t;
    int64_t id = item.at("id").int_value();
    if (id < 0 || id > kMaxTokenId)
      item.fail_key("id", fmt::format("{} out of range (0 to {})", id, kMaxTokenId));
    t.id = static_cast<int32_t>(id);
    t.content = item.at("content").str();
    t.special = item.boolean("special", false);
    t.lstrip = item.boolean("lstrip", false);
    t.rstrip = item.boolean("rstrip", false);
    t.single_word = item.boolean("single_word", false);
    t.normalized = item.boolean("normalized", !t.special);
    if (t.content.empty()) continue;  // Hugging Face ignores empty added tokens
    size_t index = added.size();
    added.push_back(t);
    added_by_id.emplace(t.id, index);
    added_by_content.insert(t.content, t.id);
    if (t.special) special_contents.push_back(t.content);
  }
  // Special tokens first, then the others, as Hugging Face builds its matchers.
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t k = 0; k < added.size(); ++k) {
      const AddedToken& t = added[k];
      if (t.special != (pass == 0)) continue;
      if (t.normalized && normalizer) {
        std::string n = t.content;
        normalizer->normalize(n);
        normalized_trie.add(n, static_cast<int32_t>(k));
      } else if (t.normalized) {
        normalized_trie.add(t.content, static_cast<int32_t>(k));
      } else {
        raw_trie.add(t.content, static_cast<int32_t>(k));
      }
    }
  }
}

void TokenizerImpl::guess_special_ids() {
  auto special_id = [&](std::initializer_list<const char*> names) -> std::optional<int32_t> {
    for (const char* n : names) {
      const int32_t* id = added_by_content.find(n);
      if (id && added[added_by_id.at(*id)].special) return *id;
    }
    return std::nullopt;
  };
  if (!bos) bos = special_id({"<s>", "<bos>", "<|begin_of_text|>", "<|startoftext|>", "[CLS]"});
  if (!eos) eos = special_id({"</s>", "<eos>", "<|end_of_text|>", "<|endoftext|>", "[SEP]"});
  if (!pad) pad = special_id({"<pad>", "[PAD]", "<|pad|>"});
}

std::vector<Piece> TokenizerImpl::split_added(std::string_view s, const TokenTrie& trie) const {
  std::vector<Piece> pieces;
  if (trie.empty()) {
    pieces.push_back(Piece{0, s.size(), -1});
    return pieces;
  }
  size_t start_offset = 0;
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    if (!trie.can_start(static_cast<unsigned char>(s[i]))) {
      ++i;
      continue;
    }
    int32_t index = -1;
    size_t len = trie.longest_at(s.data(), n, i, index);
    if (!len) {
      ++i;
      continue;
    }
    size_t start = i, stop = i + len;
    const AddedToken& t = added[static_cast<size_t>(index)];
    i = stop;
    if (t.single_word) {
      bool start_space = start == 0 || !ends_with_word(s.substr(0, start));
      bool stop_space = stop == n || !starts_with_word(s.substr(stop));
      if (!start_space || !stop_space) continue;
    }
    if (t.lstrip) {
      size_t b = start;
      while (b > 0) {
        size_t p = utf8_prev(s.data(), b), q = p;
        if (!is_white_space(utf8_next(s.data(), q))) break;
        b = p;
      }
      start = std::max(b, start_offset);
    }
    if (t.rstrip) {
      while (stop < n) {
        size_t q = stop;
        if (!is_white_space(utf8_next(s.data(), q))) break;
        stop = q;
      }
      i = stop;
    }
    if (start_offset < start) pieces.push_back(Piece{start_offset, start, -1});
    pieces.push_back(Piece{start, stop, index});
    start_offset = stop;
  }
  if (start_offset != n) pieces.push_back(Piece{start_offset, n, -1});
  return pieces;
}

template <typename OnAdded, typename OnWords>
void TokenizerImpl::walk(std::string_view text, OnAdded&& on_added, OnWords&& on_words) const {
  thread_local PreTokens p;  // buffers reused across calls (walk does not recurse)
  thread_local std::string normalized;
  for (const Piece& raw : split_added(text, raw_trie)) {
    if (raw.token >= 0) {
      on_added(raw.token, text.substr(raw.begin, raw.end - raw.begin));
      continue;
    }
    if (raw.end == raw.begin) continue;
    normalized.assign(text.data() + raw.begin, raw.end - raw.begin);
    if (normalizer) normalizer->normalize(normalized);
    if (normalized.empty()) continue;
    for (const Piece& sub : split_added(normalized, normalized_trie)) {
      if (sub.token >= 0) {
        on_added(sub.token, std::string_view(normalized).substr(sub.begin, sub.end - sub.begin));
        continue;
      }
      if (sub.end == sub.begin) continue;
      p.text.assign(normalized, sub.begin, sub.end - sub.begin);
      p.spans.assign(1, Span{0, static_cast<uint32_t>(p.text.size())});
      p.at_origin = raw.begin == 0 && sub.begin == 0;
      if (pre_tokenizer) pre_tokenizer->pre_tokenize(p);
      on_words(p);
    }
  }
}

void TokenizerImpl::encode_text(std::string_view text, std::vector<int32_t>& ids) const {
  walk(
      text,
      [&](int32_t token, std::string_view) { ids.push_back(added[static_cast<size_t>(token)].id); },
      [&](const PreTokens& words) { model->tokenize_spans(words, ids); });
}

// ---- Tokenizer -----------------------------------------------------------------------------

Tokenizer::Tokenizer() = default;
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

Tokenizer Tokenizer::from_json(const std::string& json_text, const std::string& source) {
  return from_json(std::string(json_text), source);
}

Tokenizer Tokenizer::from_json(std::string&& json_text, const std::string& source) {
  auto impl = std::make_unique<TokenizerImpl>();
  impl->source = source;
  if (json_text.size() > 0xFFFFFFFFULL) fail("{}: file too large for a tokenizer", source);
  impl->load(json_text);
  impl->json_text = std::move(json_text);
  impl->guess_special_ids();
  Tokenizer t;
  t.m_impl = std::move(impl);
  return t;
}

Tokenizer Tokenizer::from_file(const std::string& path) {
  std::string file = path;
  if (is_directory(path)) {
    file = path + (path.empty() || path.back() == '/' ? "" : "/") + "tokenizer.json";
    if (!file_exists(file))
      fail(
          "{}: no tokenizer.json in this folder (expected a Hugging Face model folder or a "
          "tokenizer.json file)",
          path);
  } else if (!file_exists(path)) {
    fail("{}: no such file (expected a tokenizer.json or a folder holding one)", path);
  }
  Tokenizer t = from_json(read_file(file), file);
  // tokenizer_config.json next to it names bos/eos/pad.
  std::string dir = file.substr(0, file.find_last_of('/') + 1);
  std::string config = dir + "tokenizer_config.json";
  if (file_exists(config)) {
    try {
      Json c = Json::parse(read_file(config));
      TokenizerImpl& impl = *t.m_impl;
      auto resolve = [&](const char* key, std::optional<int32_t>& slot) {
        auto it = c.find(key);
        if (it == c.end()) return;
        std::string name = token_name(*it);
        if (name.empty()) return;
        if (auto id = t.token_to_id(name)) slot = *id;
      };
      resolve("bos_token", impl.bos);
      resolve("eos_token", impl.eos);
      resolve("pad_token", impl.pad);
    } catch (const std::exception& e) {
      gb::log::get("tokenizer")->warn("{}: ignored ({})", config, e.what());
    }
  }
  gb::log::get("tokenizer")->debug("{}: {}", file, t.summary());
  return t;
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  if (!m_impl) fail("tokenizer: encode() on an empty Tokenizer (load one with from_file)");
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 4);
  if (is_valid_utf8(text)) {
    m_impl->encode_text(text, ids);
  } else {
    std::string fixed = sanitize_utf8(text);
    m_impl->encode_text(fixed, ids);
  }
  if (m_impl->post_processor) m_impl->post_processor->process(ids, add_special_tokens);
  return ids;
}

std::string Tokenizer::decode(const std::vector<int32_t>& ids, bool skip_special_tokens) const {
  if (!m_impl) fail("tokenizer: decode() on an empty Tokenizer (load one with from_file)");
  const TokenizerImpl& impl = *m_impl;
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (int32_t id : ids) {
    std::string_view token;
    auto it = impl.added_by_id.find(id);
    if (it != impl.added_by_id.end()) {
      token = impl.added[it->second].content;
    } else if (const std::string_view* t = impl.model->id_to_token(id)) {
      token = *t;
    } else {
      continue;  // unknown ids are skipped, as Hugging Face does
    }
    if (skip_special_tokens) {
      const int32_t* added_id = impl.added_by_content.find(token);
      if (added_id && impl.added[impl.added_by_id.at(*added_id)].special) continue;
    }
    tokens.emplace_back(token);
  }
  if (!impl.decoder) {
    std::string out;
    for (size_t i = 0; i < tokens.size(); ++i) {
      if (i) out.push_back(' ');
      out += tokens[i];
    }
    return out;
  }
  impl.decoder->decode_chain(tokens);
  std::string out;
  for (const std::string& t : tokens) out += t;
  return out;
}

std::vector<std::string> Tokenizer::pre_tokenize(std::string_view text) const {
  if (!m_impl) fail("tokenizer: pre_tokenize() on an empty Tokenizer (load one with from_file)");
  std::vector<std::string> pieces;
  std::string fixed;
  if (!is_valid_utf8(text)) {
    fixed = sanitize_utf8(text);
    text = fixed;
  }
  m_impl->walk(
      text, [&](int32_t, std::string_view matched) { pieces.emplace_back(matched); },
      [&](const PreTokens& words) {
        for (const Span& sp : words.spans) pieces.emplace_back(words.view(sp));
      });
  return pieces;
}

int64_t Tokenizer::vocab_size() const {
  return m_impl ? m_impl->vocab_size : 0;
}

std::optional<int32_t> Tokenizer::token_to_id(std::string_view token) const {
  if (!m_impl) return std::nullopt;
  if (const int32_t* id = m_impl->added_by_content.find(token)) return *id;
  if (const int32_t* id = m_impl->model->token_to_id(token)) return *id;
  return std::nullopt;
}

std::string Tokenizer::id_to_token(int32_t id) const {
  if (!m_impl) return {};
  auto it = m_impl->added_by_id.find(id);
  if (it != m_impl->added_by_id.end()) return m_impl->added[it->second].content;
  if (const std::string_view* t = m_impl->model->id_to_token(id)) return std::string(*t);
  return {};
}

bool Tokenizer::is_special(int32_t id) const {
  if (!m_impl) return false;
  auto it = m_impl->added_by_id.find(id);
  return it != m_impl->added_by_id.end() && m_impl->added[it->second].special;
}

std::optional<int32_t> Tokenizer::bos_id() const {
  return m_impl ? m_impl->bos : std::nullopt;
}
std::optional<int32_t> Tokenizer::eos_id() const {
  return m_impl ? m_impl->eos : std::nullopt;
}
std::optional<int32_t> Tokenizer::pad_id() const {
  return m_impl ? m_impl->pad : std::nullopt;
}

std::string Tokenizer::model_type() const {
  return m_impl ? m_impl->model->type() : "";
}

std::string Tokenizer::summary() const {
  if (!m_impl) return "no tokenizer";
  const TokenizerImpl& i = *m_impl;
  std::string s = fmt::format("{}, vocab {} ({} added, {} special)", i.model->type(), i.vocab_size,
                              i.added.size(), i.special_contents.size());
  if (i.normalizer) s += ", normalizer " + i.normalizer->describe();
  if (i.pre_tokenizer) s += ", pre-tokenizer " + i.pre_tokenizer->describe();
  if (i.post_processor) s += ", post-processor " + i.post_processor->describe();
  if (i.decoder) s += ", decoder " + i.decoder->describe();
  return s;
}

const std::string& Tokenizer::json_text() const {
  static const std::string empty;
  return m_impl ? m_impl->json_text : empty;
}

}  // namespace gb::tok
