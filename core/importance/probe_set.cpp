#include "importance/probe_set.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>

#include <fmt/format.h>
#include <torch/torch.h>

#include "data/corpus.h"
#include "data/packing.h"
#include "data/random.h"
#include "data/tasks.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"

namespace gb::importance {

namespace F = torch::nn::functional;

const char* format_name(ProbeFormat f) {
  switch (f) {
    case ProbeFormat::Auto:
      return "auto";
    case ProbeFormat::Text:
      return "text";
    case ProbeFormat::Jsonl:
      return "jsonl";
    case ProbeFormat::MultipleChoice:
      return "mc";
  }
  return "auto";
}

ProbeFormat parse_probe_format(const std::string& name) {
  if (name == "auto") return ProbeFormat::Auto;
  if (name == "text") return ProbeFormat::Text;
  if (name == "jsonl") return ProbeFormat::Jsonl;
  if (name == "mc" || name == "multiple-choice") return ProbeFormat::MultipleChoice;
  fail("unknown probe-set format '{}' (expected auto, text, jsonl or mc)", name);
}

const char* layout_name(ProbeLayout l) {
  return l == ProbeLayout::Packed ? "packed" : "bucketed";
}

int64_t ProbeSet::rows() const {
  int64_t n = 0;
  for (const auto& b : batches) n += b.rows();
  return n;
}

ProbeSet ProbeSet::to(const torch::Device& device) const {
  ProbeSet out = *this;
  for (auto& b : out.batches) {
    b.ids = b.ids.to(device);
    b.targets = b.targets.to(device);
  }
  return out;
}

uint64_t ProbeSet::fingerprint() const {
  uint64_t h = fnv1a64(nullptr, 0);
  for (const auto& b : batches) {
    for (const auto* t : {&b.ids, &b.targets}) {
      auto c = t->to(torch::kCPU, torch::kLong).contiguous();
      const int64_t shape[2] = {c.size(0), c.size(1)};
      h = fnv1a64(shape, sizeof(shape), h);
      h = fnv1a64(c.data_ptr<int64_t>(), static_cast<size_t>(c.numel()) * sizeof(int64_t), h);
    }
  }
  return h;
}

nlohmann::json ProbeSet::summary() const {
  return {{"description", description},
          {"layout", layout_name(layout)},
          {"batches", batches.size()},
          {"rows", rows()},
          {"examples", examples},
          {"scored_tokens", scored_tokens},
          {"input_tokens", input_tokens},
          {"padding_tokens", padding_tokens},
          {"dropped_tokens", dropped_tokens}};
}

namespace {

// Rows of equal length → one batch.
ProbeBatch make_batch(const std::vector<std::vector<int64_t>>& ids,
                      const std::vector<std::vector<int64_t>>& targets) {
  const int64_t b = static_cast<int64_t>(ids.size());
  const int64_t t = static_cast<int64_t>(ids.front().size());
  std::vector<int64_t> flat_ids, flat_targets;
  flat_ids.reserve(b * t);
  flat_targets.reserve(b * t);
  ProbeBatch batch;
  for (int64_t r = 0; r < b; ++r) {
    flat_ids.insert(flat_ids.end(), ids[r].begin(), ids[r].end());
    flat_targets.insert(flat_targets.end(), targets[r].begin(), targets[r].end());
    for (int64_t v : targets[r]) batch.scored += v != kIgnoreTarget;
  }
  batch.ids = torch::tensor(flat_ids, torch::kLong).view({b, t});
  batch.targets = torch::tensor(flat_targets, torch::kLong).view({b, t});
  return batch;
}

void check_options(const ProbeSetOptions& o) {
  if (o.seq_len < 1) fail("probe set: seq_len must be at least 1, found {}", o.seq_len);
  if (o.batch_size < 1) fail("probe set: batch_size must be at least 1, found {}", o.batch_size);
}

void finish(ProbeSet& s) {
  s.scored_tokens = 0;
  s.input_tokens = 0;
  for (const auto& b : s.batches) {
    s.scored_tokens += b.scored;
    s.input_tokens += b.rows() * b.length();
  }
  if (s.scored_tokens == 0) {
    fail("probe set {}: no token is scored (the data is empty or too short)", s.description);
  }
}

}  // namespace

ProbeSet pack_stream(const data::TokenStream& stream, const ProbeSetOptions& o,
                     const std::string& description) {
  check_options(o);
  if (o.max_tokens >= 0 && stream.size() > static_cast<uint64_t>(o.max_tokens)) {
    // The token budget: the stream's first max_tokens tokens (a run's probe and Fisher sets
    // come from whole corpora, and a training stream can hold millions of tokens).
    data::TokenStream cut = stream;
    data::limit_tokens(cut, o.max_tokens);
    return pack_stream(cut, o, description);
  }
  const uint64_t n = stream.size();
  if (n < 2) fail("probe set {}: needs at least 2 tokens, found {}", description, n);
  const bool masked = !stream.loss_mask.empty();
  if (masked && stream.loss_mask.size() != n) {
    fail("probe set {}: the loss mask has {} entries for {} tokens", description,
         stream.loss_mask.size(), n);
  }
  int64_t t = o.seq_len;
  uint64_t windows = data::num_windows(n, t, data::WindowMode::Overlapping);
  if (windows == 0) {  // shorter than one window: one shorter row
    t = static_cast<int64_t>(n) - 1;
    windows = 1;
  }
  ProbeSet s;
  s.layout = ProbeLayout::Packed;
  s.description = description;
  s.examples = static_cast<int64_t>(stream.num_documents());
  s.dropped_tokens = static_cast<int64_t>(n - (windows * t + 1));
  std::vector<std::vector<int64_t>> ids, targets;
  for (uint64_t w = 0; w < windows; ++w) {
    const uint64_t start = data::window_start(w, t, data::WindowMode::Overlapping);
    std::vector<int64_t> row_ids(t), row_targets(t);
    for (int64_t i = 0; i < t; ++i) {
      row_ids[i] = stream.tokens[start + i];
      const uint64_t label = start + i + 1;
      row_targets[i] = masked && !stream.loss_mask[label] ? kIgnoreTarget : stream.tokens[label];
    }
    ids.push_back(std::move(row_ids));
    targets.push_back(std::move(row_targets));
    if (static_cast<int64_t>(ids.size()) == o.batch_size || w + 1 == windows) {
      s.batches.push_back(make_batch(ids, targets));
      ids.clear();
      targets.clear();
    }
  }
  finish(s);
  return s;
}

ProbeSet bucket_examples(const std::vector<ScoredExample>& examples, const ProbeSetOptions& o,
                         const std::string& description) {
  check_options(o);
  ProbeSet s;
  s.layout = ProbeLayout::Bucketed;
  s.description = description;
  // Every example as a sequence with the index where its continuation starts.
  struct Row {
    std::vector<int64_t> tokens;
    size_t first_scored;  // index into tokens of the first continuation token
    size_t order;
  };
  std::vector<Row> rows;
  const size_t max_len = static_cast<size_t>(o.seq_len) + 1;
  for (size_t i = 0; i < examples.size(); ++i) {
    const auto& e = examples[i];
    if (e.continuation.empty()) continue;
    Row r;
    r.tokens.assign(e.context.begin(), e.context.end());
    r.tokens.insert(r.tokens.end(), e.continuation.begin(), e.continuation.end());
    r.first_scored = e.context.size();
    r.order = i;
    if (r.tokens.size() > max_len) {
      // Keep the end: the continuation is what is scored.
      const size_t cut = r.tokens.size() - max_len;
      s.dropped_tokens += static_cast<int64_t>(cut);
      r.tokens.erase(r.tokens.begin(), r.tokens.begin() + static_cast<std::ptrdiff_t>(cut));
      r.first_scored = r.first_scored > cut ? r.first_scored - cut : 0;
    }
    if (r.tokens.size() < 2) continue;  // nothing to predict
    rows.push_back(std::move(r));
  }
  s.examples = static_cast<int64_t>(rows.size());
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.tokens.size() < b.tokens.size(); });
  for (size_t begin = 0; begin < rows.size(); begin += static_cast<size_t>(o.batch_size)) {
    const size_t end = std::min(rows.size(), begin + static_cast<size_t>(o.batch_size));
    const size_t t = rows[end - 1].tokens.size() - 1;  // longest row of the bucket
    std::vector<std::vector<int64_t>> ids, targets;
    for (size_t i = begin; i < end; ++i) {
      const Row& r = rows[i];
      const size_t len = r.tokens.size() - 1;
      std::vector<int64_t> row_ids(t, 0), row_targets(t, kIgnoreTarget);
      for (size_t p = 0; p < len; ++p) {
        row_ids[p] = r.tokens[p];
        // Target p is token p + 1; it counts when it belongs to the continuation.
        if (p + 1 >= r.first_scored) row_targets[p] = r.tokens[p + 1];
      }
      // Padding ids (0) sit after every real token; causal attention keeps them invisible.
      s.padding_tokens += static_cast<int64_t>(t - len);
      ids.push_back(std::move(row_ids));
      targets.push_back(std::move(row_targets));
    }
    s.batches.push_back(make_batch(ids, targets));
  }
  finish(s);
  return s;
}

ProbeFormat detect_probe_format(const std::string& path) {
  namespace fs = std::filesystem;
  if (!fs::exists(path)) fail("probe data '{}' does not exist", path);
  auto fmt = data::detect_format(path);
  if (fmt != data::CorpusFormat::Jsonl) return ProbeFormat::Text;
  if (fs::is_directory(path)) return ProbeFormat::Jsonl;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() &&
        (j.contains("choices") || j.contains("endings") || j.contains("options"))) {
      return ProbeFormat::MultipleChoice;
    }
    break;
  }
  return ProbeFormat::Jsonl;
}

ProbeSet load_probe_set(const std::string& path, const data::TextEncoder& encoder,
                        const ProbeSetOptions& o) {
  check_options(o);
  ProbeFormat format = o.format == ProbeFormat::Auto ? detect_probe_format(path) : o.format;
  auto log = log::get("importance");
  if (format == ProbeFormat::MultipleChoice) {
    auto items = data::read_mc_jsonl(path);
    if (o.shuffle) data::shuffle(items, o.seed);
    if (o.max_examples >= 0 && static_cast<int64_t>(items.size()) > o.max_examples) {
      items.resize(static_cast<size_t>(o.max_examples));
    }
    std::vector<ScoredExample> examples;
    int64_t tokens = 0;
    for (const auto& item : items) {
      auto pair = data::tokenize_pair(
          encoder, item.context, data::mc_continuation(item.context, item.choices.at(item.answer)));
      const int64_t len = static_cast<int64_t>(pair.prompt.size() + pair.continuation.size());
      if (o.max_tokens >= 0 && tokens + len > o.max_tokens) break;
      tokens += len;
      examples.push_back({std::move(pair.prompt), std::move(pair.continuation)});
    }
    auto desc =
        fmt::format("{} (multiple choice, {} items, seed {})", path, examples.size(), o.seed);
    auto s = bucket_examples(examples, o, desc);
    log->info("probe set {}: {} rows in {} batches, {} scored tokens, {:.1f}% padding", desc,
              s.rows(), s.batches.size(), s.scored_tokens,
              100.0 * s.padding_tokens / std::max<int64_t>(1, s.input_tokens));
    return s;
  }
  data::CorpusSpec spec;
  spec.path = path;
  spec.field = o.field;
  if (format == ProbeFormat::Jsonl) {
    spec.format = data::CorpusFormat::Jsonl;
  } else {
    // A plain text file is cut into paragraphs, so that --examples counts something.
    spec.format = data::CorpusFormat::Text;
    spec.unit = data::TextUnit::Paragraph;
  }
  auto docs = data::read_corpus(spec);
  if (o.shuffle) data::shuffle_documents(docs, o.seed);
  data::limit_documents(docs, o.max_examples);
  data::TokenizeOptions topt;
  auto stream = data::tokenize_documents(docs, encoder, topt);
  data::limit_tokens(stream, o.max_tokens);
  auto desc = fmt::format("{} ({}, {} documents, {} tokens, seed {})", path, format_name(format),
                          stream.num_documents(), stream.size(), o.seed);
  auto s = pack_stream(stream, o, desc);
  log->info("probe set {}: {} rows of {} tokens in {} batches, {} scored tokens", desc, s.rows(),
            s.batches.front().length(), s.batches.size(), s.scored_tokens);
  return s;
}

torch::Tensor summed_nll(const torch::Tensor& logits, const torch::Tensor& targets) {
  const int64_t v = logits.size(-1);
  return F::cross_entropy(
      logits.reshape({-1, v}).to(torch::kFloat), targets.reshape({-1}),
      F::CrossEntropyFuncOptions().ignore_index(kIgnoreTarget).reduction(torch::kSum));
}

}  // namespace gb::importance
