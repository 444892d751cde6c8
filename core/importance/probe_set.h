#pragma once
// Probe sets: the token batches importance probes run on, and the loss they measure.
//
// Sources. Plain text (a file cut into paragraphs, or a folder of text files), JSONL with a
// text field ({"text": ...}), or multiple-choice JSONL ({"context", "choices", "answer"}, the
// aliases of data/tasks.h): the context followed by the CORRECT choice, scored only on the
// continuation tokens (the context with special tokens, the continuation without, as the
// multiple-choice evaluators tokenise them: data::tokenize_pair).
//
// Selection (deterministic). Documents or items are shuffled with the seed (data::shuffle),
// the first `max_examples` kept, then the token budget `max_tokens` applied (text: the
// token stream is truncated; multiple choice: items are kept while their tokens fit).
//
// Layout, chosen so that no compute is wasted on padding:
//   Packed (text and JSONL). Documents are tokenised into one stream (data/tokenized.h:
//     BOS per document where the tokenizer adds one, EOS after each) and cut into
//     overlapping windows of T + 1 tokens (data/packing.h WindowMode::Overlapping): inputs
//     are the first T, targets the last T, every stream token from position 1 on is a target
//     exactly once. Every row has exactly T tokens (a stream shorter than T + 1 tokens gives
//     one shorter row); the tail of fewer than T targets is dropped. No padding at all, so
//     the masking probe runs on full-length rows.
//   Bucketed (multiple choice). Each item is its own row (packing would let an item attend
//     to the previous one). Rows are sorted by length (ties by selection order) and cut into
//     batches of B, so rows of a batch have nearly equal lengths; shorter rows are padded on
//     the RIGHT and their padded targets ignored. With causal attention a real token never
//     attends to a later (padded) position, so no attention mask is needed and results equal
//     unpadded ones; the only waste is the few padded positions (reported).
//
// Loss. The mean next-token cross-entropy over all scored targets of the whole probe set
// (token-weighted: Σ over batches of the summed NLL, divided by the total number of scored
// targets), computed in float32. ADEPT's eq. 1 averages a per-example loss over the probe
// examples; with the packed layout every row has exactly T scored targets, so the token mean
// and the mean over rows coincide. For multiple choice we keep the token mean, so that a
// long answer weighs by its tokens as in the training loss.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <torch/types.h>

#include "data/tokenized.h"

namespace gb::importance {

inline constexpr int64_t kIgnoreTarget = -100;  // target value that does not count

struct ProbeBatch {
  torch::Tensor ids;      // (B, T) int64 inputs
  torch::Tensor targets;  // (B, T) int64 next-token targets, kIgnoreTarget where not scored
  int64_t scored = 0;     // number of targets that count
  int64_t rows() const { return ids.size(0); }
  int64_t length() const { return ids.size(1); }
};

enum class ProbeFormat { Auto, Text, Jsonl, MultipleChoice };
enum class ProbeLayout { Packed, Bucketed };
const char* format_name(ProbeFormat format);  // "auto", "text", "jsonl", "mc"
ProbeFormat parse_probe_format(const std::string& name);
const char* layout_name(ProbeLayout layout);  // "packed", "bucketed"

struct ProbeSetOptions {
  ProbeFormat format = ProbeFormat::Auto;
  std::string field = "text";  // JSONL: the field holding the text
  int64_t seq_len = 128;       // T: packed row length, and the longest bucketed row
  int64_t batch_size = 8;      // B: rows per batch
  int64_t max_tokens = -1;     // token budget (< 0: none)
  int64_t max_examples = -1;   // documents or items (< 0: all)
  uint64_t seed = 0;           // selection order
  bool shuffle = true;         // false: documents in file order
};

struct ProbeSet {
  std::vector<ProbeBatch> batches;
  ProbeLayout layout = ProbeLayout::Packed;
  std::string description;     // human-readable: source, format, sizes
  int64_t examples = 0;        // documents or items that went in
  int64_t scored_tokens = 0;   // Σ scored targets (the loss denominator)
  int64_t input_tokens = 0;    // Σ rows · length over batches (what the model computes)
  int64_t padding_tokens = 0;  // positions that are padding (bucketed only)
  int64_t dropped_tokens = 0;  // stream tokens left out (packed tail, truncated items)

  int64_t rows() const;
  bool empty() const { return batches.empty(); }
  // A copy with every tensor on `device`.
  ProbeSet to(const torch::Device& device) const;
  // FNV-1a 64 over ids and targets: identifies the probe data (store dataset hash).
  uint64_t fingerprint() const;
  nlohmann::json summary() const;  // sizes, layout and description
};

// Packed layout from a token stream (already selected). The token budget
// options.max_tokens applies here too: only the stream's first max_tokens tokens are packed.
// The stream's loss mask, if any, marks which targets count.
ProbeSet pack_stream(const data::TokenStream& stream, const ProbeSetOptions& options,
                     const std::string& description = {});

// A multiple-choice style example: the context is not scored, the continuation is.
struct ScoredExample {
  std::vector<int32_t> context;
  std::vector<int32_t> continuation;
};

// Bucketed layout from examples, kept in the given order for selection (no shuffling here).
// An example longer than seq_len + 1 tokens loses tokens at the START of its context (the
// continuation is kept whole when it fits).
ProbeSet bucket_examples(const std::vector<ScoredExample>& examples, const ProbeSetOptions& options,
                         const std::string& description = {});

// The format Auto resolves to for `path`: *.jsonl / *.json whose first object has a choice
// list ("choices", "endings" or "options") → MultipleChoice; other *.jsonl / *.json → Jsonl;
// anything else → Text.
ProbeFormat detect_probe_format(const std::string& path);

// Reads, selects, tokenises and lays out a probe set from a file (see above).
ProbeSet load_probe_set(const std::string& path, const data::TextEncoder& encoder,
                        const ProbeSetOptions& options);

// Σ over scored targets of −log softmax(logits)[target], as a float32 scalar tensor.
// logits (B, T, V), targets (B, T) with kIgnoreTarget for ignored positions.
torch::Tensor summed_nll(const torch::Tensor& logits, const torch::Tensor& targets);

}  // namespace gb::importance
