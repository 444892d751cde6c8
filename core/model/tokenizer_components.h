#pragma once
// Private to the tokenizer: the pipeline stages of a Hugging Face tokenizer.json
// (normalizer → pre-tokenizer → model → post-processor; decoder for the way back), built
// from the JSON by the make_* factories. Every load error names the file and the JSON path.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/tokenizer_text.h"

namespace gb::tok {

using Json = nlohmann::json;

// A JSON value and where it sits in its file ("pre_tokenizer.pretokenizers[1]").
class JsonAt {
 public:
  JsonAt(const Json& j, std::string path, const std::string& source)
      : m_j(&j), m_path(std::move(path)), m_source(&source) {}
  const Json& operator*() const { return *m_j; }
  const Json* operator->() const { return m_j; }
  const std::string& path() const { return m_path; }
  const std::string& source() const { return *m_source; }

  // Throws gb::Error "<source>: <path>: <message>".
  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void fail_key(const char* key, const std::string& message) const;
  std::string child_path(const char* key) const;

  void expect_object() const;
  void expect_array() const;
  JsonAt at(const char* key) const;                  // required member
  std::optional<JsonAt> get(const char* key) const;  // absent or null → nullopt
  JsonAt at(size_t index) const;                     // array element
  size_t size() const { return m_j->size(); }

  bool boolean(const char* key, bool fallback) const;
  std::string string(const char* key, const std::string& fallback) const;
  std::optional<std::string> opt_string(const char* key) const;
  int64_t integer(const char* key, int64_t fallback) const;
  std::string str() const;    // this value, which must be a string
  int64_t int_value() const;  // this value, which must be an integer
  std::string type() const;   // the required "type" member

 private:
  const Json* m_j;
  std::string m_path;
  const std::string* m_source;
};

// Largest token id accepted (keeps a hostile file from allocating gigabytes).
constexpr int64_t kMaxTokenId = (int64_t{1} << 24) - 1;

// ---- the string being pre-tokenized ------------------------------------------------------

struct Span {
  uint32_t begin;
  uint32_t end;
};

// One piece of input text cut into spans (words). Pre-tokenizers either cut spans further
// (same buffer) or rewrite them into a new buffer.
struct PreTokens {
  std::string text;
  std::vector<Span> spans;
  bool at_origin = true;  // a span starting at 0 starts at offset 0 of the original input
  std::string_view view(const Span& s) const {
    return std::string_view(text.data() + s.begin, s.end - s.begin);
  }
};

// A match produced while splitting: [begin, end) relative to the piece, and whether it is a
// pattern match (true) or the text between matches (false).
struct SplitEvent {
  uint32_t begin;
  uint32_t end;
  bool is_match;
};

enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };

// Applies a split behaviour (Hugging Face NormalizedString::split) to the events covering
// one piece; appends the kept non-empty spans, shifted by `base`, to `out`.
void apply_split_behavior(const std::vector<SplitEvent>& events, SplitBehavior behavior,
                          bool invert, uint32_t base, std::vector<Span>& out);

// A "pattern" member: {"String": "..."} (literal) or {"Regex": "..."}.
class Pattern {
 public:
  explicit Pattern(const JsonAt& j);
  // Calls f(begin, end) for every non-overlapping match in s[0, n).
  template <typename F>
  void for_each_match(const char* s, size_t n, F&& f) const {
    if (m_regex) {
      m_regex->for_each_match(s, n, f);
      return;
    }
    if (m_literal.empty()) return;
    std::string_view text(s, n);
    size_t pos = 0;
    while ((pos = text.find(m_literal, pos)) != std::string_view::npos) {
      f(pos, pos + m_literal.size());
      pos += m_literal.size();
    }
  }
  std::string replace_all(std::string_view s, std::string_view content) const;
  std::string describe() const;

 private:
  std::string m_literal;
  std::unique_ptr<Regex> m_regex;
};

// model.vocab and model.merges as read by the streaming loader, without a JSON DOM (the
// large files hold hundreds of thousands of entries; a DOM of them costs seconds).
struct RawLists {
  struct VocabEntry {
    uint32_t offset;
    uint32_t length;
    int64_t id;
  };
  struct Merge {
    uint32_t offset;
    uint32_t length;
    uint32_t split;  // [a, b] form: a is [offset, offset + split); 0 for the "a b" form
    bool pair;
  };
  bool has_vocab = false;
  std::string vocab_chars;
  std::vector<VocabEntry> vocab;
  bool has_merges = false;
  std::string merge_chars;
  std::vector<Merge> merges;
};

// Parses tokenizer.json text into a DOM, with model.vocab and model.merges (when they are an
// object and an array) streamed into `raw` and left empty in the DOM. Throws gb::Error naming
// `source` on malformed JSON or ill-typed vocab/merge entries.
Json parse_tokenizer_json(const std::string& text, const std::string& source, RawLists& raw);

// ---- stages ------------------------------------------------------------------------------

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(std::string& s) const = 0;
  virtual std::string describe() const = 0;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  virtual void pre_tokenize(PreTokens& p) const = 0;
  virtual std::string describe() const = 0;
};

class Model {
 public:
  virtual ~Model() = default;
  // Appends the ids of one pre-tokenized word.
  virtual void tokenize(std::string_view word, std::vector<int32_t>& out) const = 0;
  // Appends the ids of every word of `words`, in order (a model may start on several at once).
  virtual void tokenize_spans(const PreTokens& words, std::vector<int32_t>& out) const {
    for (const Span& sp : words.spans) tokenize(words.view(sp), out);
  }
  virtual std::string type() const = 0;

  const int32_t* token_to_id(std::string_view token) const { return m_vocab.find(token); }
  // nullptr when the id has no token.
  const std::string_view* id_to_token(int32_t id) const {
    if (id < 0 || id > m_max_id) return nullptr;
    if (!m_sparse) {
      const std::string_view* t = &m_id_to_token[static_cast<size_t>(id)];
      return t->data() ? t : nullptr;
    }
    auto it = m_sparse_id_to_token.find(id);
    return it == m_sparse_id_to_token.end() ? nullptr : &it->second;
  }
  int64_t max_id() const { return m_max_id; }
  size_t vocab_count() const { return m_vocab.size(); }

 protected:
  // Reads a {token: id} object (from `raw` when the loader streamed it) into m_vocab and
  // m_id_to_token.
  void load_vocab(const JsonAt& vocab, const RawLists* raw);
  void index_vocab();
  StringMap m_vocab;
  int32_t m_max_id = -1;
  // id → token, views into m_vocab's arena: a table, or a map when the ids are sparse.
  bool m_sparse = false;
  std::vector<std::string_view> m_id_to_token;
  std::unordered_map<int32_t, std::string_view> m_sparse_id_to_token;
};

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  virtual void process(std::vector<int32_t>& ids, bool add_special_tokens) const = 0;
  // Every id it may add, for the load-time check that they are in the vocabulary.
  virtual void collect_ids(std::vector<int32_t>& out) const = 0;
  virtual std::string describe() const = 0;
};

class Decoder {
 public:
  virtual ~Decoder() = default;
  virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
  virtual std::string describe() const = 0;
};

std::unique_ptr<Normalizer> make_normalizer(const JsonAt& j);
std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonAt& j);
std::unique_ptr<Model> make_model(const JsonAt& j, const RawLists* raw);
std::unique_ptr<PostProcessor> make_post_processor(const JsonAt& j);
std::unique_ptr<Decoder> make_decoder(const JsonAt& j);

// The 256 byte ↔ character table of GPT-2's byte-level BPE.
struct ByteLevelTable {
  std::string byte_to_utf8[256];  // UTF-8 of the character standing for each byte
  int16_t char_to_byte[512];      // code point (< 512) → byte, -1 when none
};
const ByteLevelTable& byte_level_table();

// GPT-2's pre-tokenization regex, as Hugging Face's ByteLevel pre-tokenizer uses it.
extern const char* const kGpt2Pattern;

}  // namespace gb::tok
