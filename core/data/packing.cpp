#include "data/packing.h"

#include <algorithm>
#include <cmath>

#include "data/random.h"
#include "util/error.h"

namespace gb::data {

namespace {
// Sub-stream of the mixing seed, so that mixing draws are unrelated to shuffles that happen to
// use the same seed.
constexpr uint64_t kMixStream = 0x6d69782d62617463ULL;  // "mix-batc"
// Sub-stream of the document-order seed (shuffle_documents), unrelated to the window order.
constexpr uint64_t kDocStream = 0x646f632d6f726472ULL;  // "doc-ordr"

void check_shape(int64_t seq_len, int64_t batch_size, const char* what) {
  if (seq_len < 1) fail("{}: seq_len must be >= 1, found {}", what, seq_len);
  if (batch_size < 1) fail("{}: batch_size must be >= 1, found {}", what, batch_size);
}
}  // namespace

const char* domain_name(Domain domain) {
  return domain == Domain::Original ? "original" : "new";
}

int64_t Batch::original_rows() const {
  if (row_domains.empty()) return domain == Domain::Original ? rows : 0;
  return static_cast<int64_t>(std::count(row_domains.begin(), row_domains.end(), Domain::Original));
}

uint64_t num_windows(uint64_t n_tokens, int64_t seq_len, WindowMode mode) {
  if (seq_len < 1) fail("num_windows: seq_len must be >= 1, found {}", seq_len);
  const uint64_t t = static_cast<uint64_t>(seq_len);
  if (mode == WindowMode::Overlapping) return n_tokens < 1 ? 0 : (n_tokens - 1) / t;
  return n_tokens / (t + 1);
}

uint64_t window_start(uint64_t index, int64_t seq_len, WindowMode mode) {
  const uint64_t t = static_cast<uint64_t>(seq_len);
  return mode == WindowMode::Overlapping ? index * t : index * (t + 1);
}

Batcher::Batcher(std::shared_ptr<const TokenStream> stream, const BatcherOptions& options)
    : m_stream(std::move(stream)), m_options(options) {
  if (!m_stream) fail("Batcher: no token stream");
  check_shape(options.seq_len, options.batch_size, "Batcher");
  m_windows = num_windows(m_stream->size(), options.seq_len, options.mode);
  if (!m_stream->loss_mask.empty() && m_stream->loss_mask.size() != m_stream->size()) {
    fail("Batcher: the loss mask has {} entries for {} tokens", m_stream->loss_mask.size(),
         m_stream->size());
  }
  if (m_windows == 0) {
    fail(
        "Batcher: the {} corpus has {} tokens, fewer than one window of seq_len + 1 = {}; "
        "use more data or a shorter seq_len",
        domain_name(options.domain), m_stream->size(), options.seq_len + 1);
  }
  if (options.shuffle_documents) {
    const auto& off = m_stream->offsets;
    if (off.size() < 2 || off.front() != 0 || off.back() != m_stream->size() ||
        !std::is_sorted(off.begin(), off.end())) {
      fail(
          "Batcher: shuffle_documents needs the stream's document boundaries ({} offsets for {} "
          "tokens)",
          off.size(), m_stream->size());
    }
  }
}

void Batcher::document_order_for(uint64_t epoch) const {
  if (m_doc_epoch == epoch) return;
  const auto& off = m_stream->offsets;
  const uint64_t docs = off.size() - 1;
  m_doc_order = permutation(docs, derive_seed(m_options.seed ^ kDocStream, epoch));
  m_doc_starts.resize(docs + 1);
  uint64_t pos = 0;
  for (uint64_t i = 0; i < docs; ++i) {
    m_doc_starts[i] = pos;
    pos += off[m_doc_order[i] + 1] - off[m_doc_order[i]];
  }
  m_doc_starts[docs] = pos;
  m_doc_epoch = epoch;
}

void Batcher::copy_from_epoch(uint64_t epoch, uint64_t start, uint64_t n, int32_t* tokens,
                              uint8_t* mask) const {
  document_order_for(epoch);
  const auto& off = m_stream->offsets;
  // The document holding `start`: the last one starting at or before it.
  size_t i =
      static_cast<size_t>(std::upper_bound(m_doc_starts.begin(), m_doc_starts.end() - 1, start) -
                          m_doc_starts.begin() - 1);
  uint64_t done = 0;
  while (done < n) {
    const uint64_t doc = m_doc_order[i];
    const uint64_t within = start + done - m_doc_starts[i];
    const uint64_t from = off[doc] + within;
    const uint64_t take = std::min(n - done, off[doc + 1] - from);
    std::copy(m_stream->tokens.data() + from, m_stream->tokens.data() + from + take, tokens + done);
    if (mask) {
      std::copy(m_stream->loss_mask.data() + from, m_stream->loss_mask.data() + from + take,
                mask + done);
    }
    done += take;
    ++i;
  }
}

const std::vector<uint64_t>& Batcher::permutation_for(uint64_t epoch) const {
  if (m_perm_epoch != epoch) {
    m_perm = permutation(m_windows, derive_seed(m_options.seed, epoch));
    m_perm_epoch = epoch;
  }
  return m_perm;
}

uint64_t Batcher::window_at(uint64_t g) const {
  const uint64_t epoch = g / m_windows;
  const uint64_t offset = g % m_windows;
  if (!m_options.shuffle) return offset;
  return permutation_for(epoch)[offset];
}

Batch Batcher::batch_at(uint64_t step) const {
  const int64_t b = m_options.batch_size;
  const int64_t row_len = m_options.seq_len + 1;
  Batch batch;
  batch.rows = b;
  batch.seq_len = m_options.seq_len;
  batch.domain = m_options.domain;
  batch.step = step;
  batch.tokens.resize(static_cast<size_t>(b * row_len));
  const bool masked = !m_stream->loss_mask.empty();
  if (masked) batch.loss_mask.resize(batch.tokens.size());
  const int32_t* src = m_stream->tokens.data();
  for (int64_t r = 0; r < b; ++r) {
    const uint64_t g = step * static_cast<uint64_t>(b) + static_cast<uint64_t>(r);
    const uint64_t w = window_at(g);
    const uint64_t start = window_start(w, m_options.seq_len, m_options.mode);
    if (m_options.shuffle_documents) {
      copy_from_epoch(g / m_windows, start, static_cast<uint64_t>(row_len),
                      batch.tokens.data() + r * row_len,
                      masked ? batch.loss_mask.data() + r * row_len : nullptr);
      continue;
    }
    std::copy(src + start, src + start + row_len, batch.tokens.begin() + r * row_len);
    if (masked) {
      const uint8_t* m = m_stream->loss_mask.data() + start;
      std::copy(m, m + row_len, batch.loss_mask.begin() + r * row_len);
    }
  }
  return batch;
}

Batch Batcher::next() {
  return batch_at(m_step++);
}

BatchPosition Batcher::position() const {
  const uint64_t g = m_step * static_cast<uint64_t>(m_options.batch_size);
  return BatchPosition{g / m_windows, g % m_windows};
}

void Batcher::seek(const BatchPosition& position) {
  if (position.offset >= m_windows) {
    fail("Batcher::seek: offset {} is not inside an epoch of {} windows", position.offset,
         m_windows);
  }
  const uint64_t g = position.epoch * m_windows + position.offset;
  const uint64_t b = static_cast<uint64_t>(m_options.batch_size);
  if (g % b != 0) {
    fail(
        "Batcher::seek: epoch {} offset {} is not on a batch boundary (batch size {}); was "
        "it saved with another batch size or corpus?",
        position.epoch, position.offset, b);
  }
  m_step = g / b;
}

double Batcher::epochs() const {
  return static_cast<double>(m_step) * static_cast<double>(m_options.batch_size) /
         static_cast<double>(m_windows);
}

MixedBatcher::MixedBatcher(std::unique_ptr<BatchSource> new_domain,
                           std::unique_ptr<BatchSource> original, double p, uint64_t seed)
    : m_new(std::move(new_domain)), m_original(std::move(original)), m_p(p), m_seed(seed) {
  if (!std::isfinite(p) || p < 0.0 || p > 1.0) {
    fail("mixed batches: the original-domain fraction p must be in [0, 1], found {}", p);
  }
  if (p > 0.0 && !m_original) {
    fail("mixed batches: p = {} but no original-domain data was given", p);
  }
  if (p < 1.0 && !m_new) fail("mixed batches: p = {} but no new-domain data was given", p);
}

bool MixedBatcher::is_original(uint64_t seed, double p, uint64_t step) {
  return hash_uniform01(derive_seed(seed, kMixStream), step) < p;
}

Batch MixedBatcher::next() {
  const bool orig = is_original(m_seed, m_p, m_step);
  Batch batch = orig ? m_original->next() : m_new->next();
  batch.domain = orig ? Domain::Original : Domain::New;
  batch.step = m_step++;
  return batch;
}

void MixedBatcher::seek(uint64_t step) {
  uint64_t n_orig = 0;
  for (uint64_t k = 0; k < step; ++k) n_orig += is_original(m_seed, m_p, k);
  if (m_original) m_original->seek(n_orig);
  if (m_new) m_new->seek(step - n_orig);
  m_step = step;
}

RowMixedBatcher::RowMixedBatcher(std::unique_ptr<BatchSource> new_domain,
                                 std::unique_ptr<BatchSource> original, int64_t batch_size,
                                 double p)
    : m_new(std::move(new_domain)),
      m_original(std::move(original)),
      m_batch_size(batch_size),
      m_p(p) {
  if (!std::isfinite(p) || p < 0.0 || p > 1.0) {
    fail("rows mixed per batch: the original-domain fraction p must be in [0, 1], found {}", p);
  }
  if (batch_size < 1) fail("rows mixed per batch: batch_size must be >= 1, found {}", batch_size);
  if (p > 0.0 && !m_original) {
    fail("rows mixed per batch: p = {} but no original-domain data was given", p);
  }
  if (p < 1.0 && !m_new) fail("rows mixed per batch: p = {} but no new-domain data was given", p);
}

uint64_t RowMixedBatcher::original_rows_before(double p, int64_t batch_size, uint64_t step) {
  const double share = p * static_cast<double>(batch_size);  // original rows per batch
  return static_cast<uint64_t>(std::floor(static_cast<double>(step) * share + 0.5));
}

Batch RowMixedBatcher::next() {
  const uint64_t before = original_rows_before(m_p, m_batch_size, m_step);
  const int64_t n_orig =
      static_cast<int64_t>(original_rows_before(m_p, m_batch_size, m_step + 1) - before);
  Batch batch;
  batch.rows = m_batch_size;
  batch.step = m_step++;
  std::vector<Batch> rows;
  rows.reserve(static_cast<size_t>(m_batch_size));
  for (int64_t r = 0; r < m_batch_size; ++r) {
    rows.push_back(r < n_orig ? m_original->next() : m_new->next());
    if (rows.back().rows != 1) {
      fail("rows mixed per batch: a source gave a batch of {} rows (expected one)",
           rows.back().rows);
    }
  }
  batch.seq_len = rows.front().seq_len;
  const int64_t len = batch.row_length();
  bool masked = false;
  for (const auto& b : rows) {
    if (b.seq_len != batch.seq_len) {
      fail("rows mixed per batch: rows of {} and {} tokens", batch.seq_len + 1, b.row_length());
    }
    masked = masked || !b.loss_mask.empty();
  }
  batch.tokens.reserve(static_cast<size_t>(m_batch_size * len));
  if (masked) batch.loss_mask.reserve(batch.tokens.capacity());
  for (const auto& b : rows) {
    batch.tokens.insert(batch.tokens.end(), b.tokens.begin(), b.tokens.end());
    if (!masked) continue;
    // A stream without a mask: every label counts.
    if (b.loss_mask.empty()) {
      batch.loss_mask.insert(batch.loss_mask.end(), static_cast<size_t>(len), uint8_t(1));
    } else {
      batch.loss_mask.insert(batch.loss_mask.end(), b.loss_mask.begin(), b.loss_mask.end());
    }
  }
  if (n_orig == 0 || n_orig == m_batch_size) {
    batch.domain = n_orig == 0 ? Domain::New : Domain::Original;
  } else {
    batch.domain = Domain::New;
    batch.row_domains.assign(static_cast<size_t>(m_batch_size), Domain::New);
    std::fill(batch.row_domains.begin(), batch.row_domains.begin() + n_orig, Domain::Original);
  }
  return batch;
}

void RowMixedBatcher::seek(uint64_t step) {
  const uint64_t n_orig = original_rows_before(m_p, m_batch_size, step);
  if (m_original) m_original->seek(n_orig);
  if (m_new) m_new->seek(step * static_cast<uint64_t>(m_batch_size) - n_orig);
  m_step = step;
}

std::vector<Batch> sequential_batches(const TokenStream& stream, int64_t seq_len,
                                      int64_t batch_size, int64_t max_batches, WindowMode mode,
                                      Domain domain) {
  check_shape(seq_len, batch_size, "sequential_batches");
  const uint64_t windows = num_windows(stream.size(), seq_len, mode);
  const int64_t row_len = seq_len + 1;
  std::vector<Batch> out;
  for (uint64_t w = 0; w < windows; w += static_cast<uint64_t>(batch_size)) {
    if (max_batches >= 0 && static_cast<int64_t>(out.size()) >= max_batches) break;
    Batch batch;
    batch.rows = static_cast<int64_t>(std::min<uint64_t>(batch_size, windows - w));
    batch.seq_len = seq_len;
    batch.domain = domain;
    batch.step = out.size();
    batch.tokens.resize(static_cast<size_t>(batch.rows * row_len));
    const bool masked = !stream.loss_mask.empty();
    if (masked) batch.loss_mask.resize(batch.tokens.size());
    for (int64_t r = 0; r < batch.rows; ++r) {
      const uint64_t start = window_start(w + static_cast<uint64_t>(r), seq_len, mode);
      std::copy(stream.tokens.begin() + static_cast<ptrdiff_t>(start),
                stream.tokens.begin() + static_cast<ptrdiff_t>(start + row_len),
                batch.tokens.begin() + r * row_len);
      if (masked) {
        std::copy(stream.loss_mask.begin() + static_cast<ptrdiff_t>(start),
                  stream.loss_mask.begin() + static_cast<ptrdiff_t>(start + row_len),
                  batch.loss_mask.begin() + r * row_len);
      }
    }
    out.push_back(std::move(batch));
  }
  return out;
}

}  // namespace gb::data
