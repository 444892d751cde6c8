#pragma once
// Hugging Face `tokenizer.json`, without LibTorch: BPE (byte-level, or SentencePiece style
// with byte fallback), WordLevel; added and special tokens; the normalizers,
// pre-tokenizers, post-processors and decoders that the supported families use.
// encode() matches Hugging Face tokenizers' `encode(text, add_special_tokens)` id for id.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gb::tok {

class TokenizerImpl;

class Tokenizer {
 public:
  Tokenizer();
  ~Tokenizer();
  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;

  // Loads tokenizer.json; a file path, or a folder holding tokenizer.json (and optionally
  // tokenizer_config.json for bos/eos names). Errors name the file and the JSON path of the
  // offending element (e.g. "pre_tokenizer.pretokenizers[1].type: unknown 'Foo'").
  static Tokenizer from_file(const std::string& path);
  static Tokenizer from_json(const std::string& json_text, const std::string& source);
  static Tokenizer from_json(std::string&& json_text, const std::string& source);  // no copy

  std::vector<int32_t> encode(std::string_view text, bool add_special_tokens = true) const;
  std::string decode(const std::vector<int32_t>& ids, bool skip_special_tokens = false) const;
  // The pieces the model receives, after added-token extraction, normalization and
  // pre-tokenization (byte-level pieces in their mapped form, "Ġworld"); an added token is the
  // text it matched, stripped spaces included. For inspection and tests.
  std::vector<std::string> pre_tokenize(std::string_view text) const;

  int64_t vocab_size() const;  // including added tokens: max id + 1
  std::optional<int32_t> token_to_id(std::string_view token) const;
  std::string id_to_token(int32_t id) const;
  bool is_special(int32_t id) const;
  std::optional<int32_t> bos_id() const;
  std::optional<int32_t> eos_id() const;
  std::optional<int32_t> pad_id() const;
  std::string model_type() const;        // "BPE", "WordLevel", ...
  std::string summary() const;           // one line for UIs: model, vocab, normalizer, ...
  const std::string& json_text() const;  // the source JSON, for export

 private:
  std::unique_ptr<TokenizerImpl> m_impl;
};

// Trains a byte-level BPE tokenizer (GPT-2 style pre-tokenization regex, ByteLevel
// decoder) on `texts` with `vocab_size` entries including the 256 byte symbols and the
// special tokens given, and returns its tokenizer.json text. Deterministic: ties in pair
// counts are broken by the lexicographically smallest pair. Used for built-in presets.
std::string train_byte_level_bpe(const std::vector<std::string>& texts, int vocab_size,
                                 const std::vector<std::string>& special_tokens);

}  // namespace gb::tok
