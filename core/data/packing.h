#pragma once
// Packing a token stream into fixed-length training sequences, and deterministic, resumable
// batch sources (plain and mixed with original-domain replay).
//
// Windows. A stream of N tokens is cut into windows of T + 1 tokens (inputs = the first T,
// next-token labels = the last T). Default WindowMode::Overlapping: window i starts at i*T and
// shares its last token with the first token of window i + 1, so every token from position 1
// on is a label exactly once and nothing is padded; floor((N - 1) / T) windows, the tail of
// fewer than T labels is unused. WindowMode::Disjoint starts window i at i*(T+1) (no token in
// two windows, one label per window boundary lost); floor(N / (T + 1)) windows. Windows cross
// document boundaries; documents are separated by EOS in the stream (see tokenized.h).
//
// Order. Batch k holds the windows with global positions g = k*B .. k*B + B - 1; position g
// lies in epoch e = g / W (W windows per epoch) at offset g % W, and maps to window
// perm_e[g % W] with perm_e = permutation(W, derive_seed(seed, e)) (identity if not
// shuffled). So each epoch visits every window exactly once in its own order, batches may
// straddle epochs (nothing is dropped, and B > W works), and the state is one integer: the
// step k. seek(k) followed by next() gives exactly what an uninterrupted run would.
//
// Document order (shuffle_documents). By default the windows are cut from the stream in its
// own document order, every epoch. With shuffle_documents each epoch first puts the documents
// in a new order, permutation(D, derive_seed(seed ^ kDocStream, e)), and cuts the same number
// of windows from that concatenation: short documents such as QA items are then seen beside
// other neighbours every epoch, so a model cannot learn the stream's order (answering an item
// from the items before it) instead of the items themselves, which it would otherwise do with
// a few thousand short items seen for tens of epochs. Still deterministic and resumable by step.
//
// Mixing (replay, neutral residues' local loss), replay_mode "batches" (the default):
// granularity is whole batches, as in the design ("a fraction p of batches"): batch k is an
// original-domain batch iff u(seed, k) < p, where u is a uniform [0, 1) hash of (seed, k): a
// Bernoulli(p) draw that depends only on (seed, k), so the realised fraction is p up to
// sampling noise. Each source keeps its own position, so resuming replays the draws for
// steps < k (cheap) to find them.
//
// Mixing per row, replay_mode "rows" (RowMixedBatcher): every batch of B rows holds
// n_k = C(k + 1) − C(k) original-domain rows (its first rows) and B − n_k new-domain rows,
// with C(k) = floor(k·p·B + 1/2) the original rows of the batches before k (p·B rounded, the
// fraction carried over from batch to batch). So each batch holds floor(p·B) or ceil(p·B)
// original rows, the first k batches hold k·p·B rows up to half a row (the long-run fraction
// is exactly p), and which batches hold the extra row depends only on (p, B, k): no draw,
// deterministic whatever the seed. With p·B < 1 some batches hold none (p = 0.1, B = 8:
// 4 batches of every 5 hold one). Each stream is read row by row in its own global window
// order (as a Batcher of batch size 1 reads it), so resuming at k seeks the original stream
// to C(k) and the new one to k·B − C(k).

#include <cstdint>
#include <memory>
#include <vector>

#include "data/tokenized.h"

namespace gb::data {

enum class WindowMode { Overlapping, Disjoint };

// Which distribution a batch comes from.
enum class Domain : uint8_t {
  New,       // the new domain being learned
  Original,  // the base model's original domain (replay; neutral residues' local loss)
};
const char* domain_name(Domain domain);

// Number of windows of seq_len + 1 tokens in a stream of n_tokens (see above).
uint64_t num_windows(uint64_t n_tokens, int64_t seq_len, WindowMode mode);
// Offset of window `index` in the stream.
uint64_t window_start(uint64_t index, int64_t seq_len, WindowMode mode);

struct Batch {
  // (rows, seq_len + 1), row-major: inputs = [:, :seq_len], labels = [:, 1:].
  std::vector<int32_t> tokens;
  // Empty (every label is a target) or aligned with `tokens`: the label at [r, t] (t >= 1)
  // counts in the loss iff loss_mask[r, t] == 1. Comes from TokenStream::loss_mask.
  std::vector<uint8_t> loss_mask;
  int64_t rows = 0;
  int64_t seq_len = 0;
  // The domain of every row, unless `row_domains` is set (a batch mixed per row, whose
  // `domain` is then New).
  Domain domain = Domain::New;
  // Empty (every row is from `domain`) or one Domain per row: a batch mixed per row
  // (replay_mode "rows"). Set whenever the batch mixes rows of both domains, and kept by
  // slices of it (dist::slice_rows), even a slice whose rows are all from one domain.
  std::vector<Domain> row_domains;
  uint64_t step = 0;  // index of this batch in its source's sequence

  int64_t row_length() const { return seq_len + 1; }
  const int32_t* row(int64_t r) const { return tokens.data() + r * (seq_len + 1); }
  bool mixed_rows() const { return !row_domains.empty(); }
  Domain row_domain(int64_t r) const {
    return row_domains.empty() ? domain : row_domains[static_cast<size_t>(r)];
  }
  // Rows from the original domain.
  int64_t original_rows() const;
};

// Deterministic, resumable sequence of batches; the trainer only needs this interface.
class BatchSource {
 public:
  virtual ~BatchSource() = default;
  // The batch at step(), then advances.
  virtual Batch next() = 0;
  // Batches produced so far (the next batch's index).
  virtual uint64_t step() const = 0;
  // Makes next() return batch `step`, exactly as after `step` calls from the start.
  virtual void seek(uint64_t step) = 0;
};

struct BatcherOptions {
  int64_t seq_len = 256;   // T
  int64_t batch_size = 8;  // B
  uint64_t seed = 0;
  bool shuffle = true;  // false: windows in stream order every epoch
  // true: the documents in a new order each epoch before windows are cut (see above); needs
  // document boundaries (the stream's offsets).
  bool shuffle_documents = false;
  WindowMode mode = WindowMode::Overlapping;
  Domain domain = Domain::New;  // tag of every batch
};

// Where the next window is: epoch and offset within the epoch (for progress and checkpoints).
struct BatchPosition {
  uint64_t epoch = 0;
  uint64_t offset = 0;
  bool operator==(const BatchPosition& o) const { return epoch == o.epoch && offset == o.offset; }
};

// Fixed-length batches from one token stream. Not thread-safe (caches one permutation).
class Batcher : public BatchSource {
 public:
  // Throws if the stream holds no complete window (needs seq_len + 1 tokens, or more).
  Batcher(std::shared_ptr<const TokenStream> stream, const BatcherOptions& options);

  Batch next() override;
  uint64_t step() const override { return m_step; }
  void seek(uint64_t step) override { m_step = step; }

  // The batch at `step` without moving.
  Batch batch_at(uint64_t step) const;
  // The window index (into the stream) at global position g (see above).
  uint64_t window_at(uint64_t g) const;
  uint64_t windows_per_epoch() const { return m_windows; }
  // Epoch and offset of the next window.
  BatchPosition position() const;
  // Seeks to a position; throws unless it is on a batch boundary (epoch*W + offset = k*B).
  void seek(const BatchPosition& position);
  // Epochs completed so far, fractional.
  double epochs() const;
  const BatcherOptions& options() const { return m_options; }

 private:
  const std::vector<uint64_t>& permutation_for(uint64_t epoch) const;
  // shuffle_documents: the epoch's document order and where each document starts in that
  // epoch's concatenation (one cached epoch, like the window permutation).
  void document_order_for(uint64_t epoch) const;
  // Copies n tokens (and mask entries) from position `start` of the epoch's concatenation.
  void copy_from_epoch(uint64_t epoch, uint64_t start, uint64_t n, int32_t* tokens,
                       uint8_t* mask) const;

  std::shared_ptr<const TokenStream> m_stream;
  BatcherOptions m_options;
  uint64_t m_windows = 0;
  uint64_t m_step = 0;
  mutable uint64_t m_perm_epoch = UINT64_MAX;
  mutable std::vector<uint64_t> m_perm;
  mutable uint64_t m_doc_epoch = UINT64_MAX;
  mutable std::vector<uint64_t> m_doc_order;   // position -> document
  mutable std::vector<uint64_t> m_doc_starts;  // position -> start in the concatenation, + end
};

// Mixes two sources batch by batch: batch k comes from `original` with probability p
// (is_original) and from `new_domain` otherwise; batches are tagged with their
// domain and re-numbered with the mixed step. `original` may be null when p == 0, `new_domain`
// when p == 1.
class MixedBatcher : public BatchSource {
 public:
  MixedBatcher(std::unique_ptr<BatchSource> new_domain, std::unique_ptr<BatchSource> original,
               double p, uint64_t seed);

  Batch next() override;
  uint64_t step() const override { return m_step; }
  void seek(uint64_t step) override;

  // Whether mixed batch `step` is an original-domain batch for (seed, p).
  static bool is_original(uint64_t seed, double p, uint64_t step);
  double fraction() const { return m_p; }

 private:
  std::unique_ptr<BatchSource> m_new;
  std::unique_ptr<BatchSource> m_original;
  double m_p = 0.0;
  uint64_t m_seed = 0;
  uint64_t m_step = 0;
};

// Mixes two sources row by row (replay_mode "rows", see above): batch k holds n_k rows from
// `original` (first) and batch_size − n_k from `new_domain`. Both sources must give batches
// of one row (Batchers with batch_size 1). A batch whose rows all come from one domain is
// tagged with it (row_domains empty); any other has row_domains. `original` may be null
// when p == 0.
class RowMixedBatcher : public BatchSource {
 public:
  RowMixedBatcher(std::unique_ptr<BatchSource> new_domain, std::unique_ptr<BatchSource> original,
                  int64_t batch_size, double p);

  Batch next() override;
  uint64_t step() const override { return m_step; }
  void seek(uint64_t step) override;

  // C(k): original-domain rows in the batches before `step`, floor(step·p·B + 1/2).
  static uint64_t original_rows_before(double p, int64_t batch_size, uint64_t step);
  double fraction() const { return m_p; }

 private:
  std::unique_ptr<BatchSource> m_new;
  std::unique_ptr<BatchSource> m_original;
  int64_t m_batch_size = 0;
  double m_p = 0.0;
  uint64_t m_step = 0;
};

// Every window of a stream in order, in batches of up to batch_size rows (the last batch may
// be smaller), at most max_batches (< 0: all). For evaluation (perplexity) on a fixed set.
std::vector<Batch> sequential_batches(const TokenStream& stream, int64_t seq_len,
                                      int64_t batch_size, int64_t max_batches = -1,
                                      WindowMode mode = WindowMode::Overlapping,
                                      Domain domain = Domain::New);

}  // namespace gb::data
