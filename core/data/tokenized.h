#pragma once
// Tokenised corpora: documents -> one token stream, cached on disk.
//
// Stream layout. Each document contributes encode(text, add_special_tokens = true), exactly
// what Hugging Face's tokenizer(text) gives: the post-processor's BOS (Llama-style) or nothing
// (GPT-2 / byte-level style). Then, when the tokenizer has an EOS token, EOS is appended after
// every document (also the last) unless the encoding already ends with it. So documents are
// separated by EOS and, where the tokenizer adds one, each starts with BOS.
//
// Cache. Key = FNV-1a 64 over (format version, the tokenizer's identity text = its
// tokenizer.json, its EOS id, the tokenisation options, and every document's text,
// length-prefixed). The documents are the product of the files and the reader options, so
// editing a file, changing reader options, the split seed or the tokenizer all change the key;
// moving a corpus does not (paths are not part of the key). Hashing the text costs far less
// than tokenising it, and needs no file stat bookkeeping that could go stale. File:
// <dir>/tokens/<label>-<key>.gbtok, written atomically (gb::AtomicFileWriter). Layout, native
// little-endian:
//   header (64 bytes): magic "GBTOKCAC", u32 version, u32 endianness tag 0x01020304,
//     u64 key, u64 token count, u64 document count, u64 payload checksum (FNV-1a 64),
//     u64 flags (bit 0: a loss mask follows), 8 reserved zero bytes
//   u64 document offsets [documents + 1]   (offsets[0] = 0, offsets[docs] = tokens)
//   i32 tokens [token count]
//   u8 loss mask [token count]             (only with flag bit 0)
// On read everything is validated (magic, version, key, exact size, checksum, offsets
// monotone); a missing, truncated or corrupt file is logged and rebuilt, never trusted.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data/corpus.h"
#include "data/tasks.h"

namespace gb::tok {
class Tokenizer;
}

namespace gb::data {

// What tokenisation needs from a tokenizer. encoder_for() adapts gb::tok::Tokenizer; tests
// and tools may supply their own.
struct TextEncoder {
  // Token ids of `text`; add_special_tokens as in Hugging Face's encode().
  std::function<std::vector<int32_t>(std::string_view text, bool add_special_tokens)> encode;
  std::optional<int32_t> eos_id;
  // Hashed into cache keys: must change whenever encode() would (the tokenizer.json text).
  std::string identity;
};

// Adapts a tokenizer (kept by reference: it must outlive the encoder). Identity = json_text().
TextEncoder encoder_for(const tok::Tokenizer& tokenizer);

struct TokenStream {
  std::vector<int32_t> tokens;
  // Document boundaries: document i is tokens[offsets[i], offsets[i + 1]); size = docs + 1.
  std::vector<uint64_t> offsets{0};
  // Empty: every token is a training target when it appears as a label. Otherwise one entry
  // per token: 1 = a target, 0 = context only (QA prompts, see tokenize_qa).
  std::vector<uint8_t> loss_mask;

  uint64_t num_documents() const { return offsets.empty() ? 0 : offsets.size() - 1; }
  uint64_t size() const { return tokens.size(); }
};

struct TokenizeOptions {
  bool add_special_tokens = true;  // passed to encode() for every document
  bool append_eos = true;          // append EOS after each document (if the encoder has one)
  // Worker threads (0: one per hardware thread). With more than one, encode() is called
  // concurrently and must be thread-safe (gb::tok::Tokenizer is). The result is identical.
  int threads = 0;
};

// Tokenises documents in order into one stream (layout above).
TokenStream tokenize_documents(const std::vector<Document>& docs, const TextEncoder& encoder,
                               const TokenizeOptions& options = {});
// QA items as one stream for fine-tuning: per item, the prompt (qa_prompt, with special
// tokens), the continuation (qa_continuation, without) and EOS, as tokenize_pair gives them.
// With mask_prompt the loss mask marks only continuation and EOS tokens as targets (loss on the
// answer, as in Zheng et al.'s QA fine-tuning); otherwise no mask. Not cached (QA sets are
// small).
TokenStream tokenize_qa(const std::vector<QaItem>& items, const TextEncoder& encoder,
                        bool mask_prompt = true, int threads = 0);
// Truncates the stream to at most `max_tokens` tokens (a token budget); the last document may
// be cut. Negative: no limit.
void limit_tokens(TokenStream& stream, int64_t max_tokens);

// A prompt and its continuation tokenised separately, as the evaluators score them: the prompt
// with special tokens, the continuation without.
struct TokenizedPair {
  std::vector<int32_t> prompt;
  std::vector<int32_t> continuation;
};
TokenizedPair tokenize_pair(const TextEncoder& encoder, std::string_view prompt,
                            std::string_view continuation);

// $GROWBENCH_CACHE_DIR if set, else $XDG_CACHE_HOME/growbench, else ~/.cache/growbench
// (a folder under the system temp folder if HOME is unset too).
std::string default_cache_dir();

struct CacheOptions {
  std::string dir;               // empty: default_cache_dir()
  std::string label = "corpus";  // file name prefix, for people browsing the cache
  bool enabled = true;           // false: always tokenise, never read or write
};

struct CachedTokens {
  TokenStream stream;
  bool cache_hit = false;
  std::string path;  // the cache file (empty when the cache is disabled)
  uint64_t key = 0;
};

// The cache key of (documents, encoder, options), as described above.
uint64_t token_cache_key(const std::vector<Document>& docs, const TextEncoder& encoder,
                         const TokenizeOptions& options = {});
// Tokenises through the cache: a valid cache file is loaded; otherwise the documents are
// tokenised and the file (re)written. Failing to write the cache only logs a warning.
CachedTokens tokenize_cached(const std::vector<Document>& docs, const TextEncoder& encoder,
                             const CacheOptions& cache = {}, const TokenizeOptions& options = {});

// Low-level cache I/O. write_token_cache throws on I/O errors; read_token_cache returns
// nullopt (and logs the reason at warning level, except for a missing file) when the file is
// missing, has another key, or fails validation.
void write_token_cache(const std::string& path, uint64_t key, const TokenStream& stream);
std::optional<TokenStream> read_token_cache(const std::string& path, uint64_t key);

}  // namespace gb::data
