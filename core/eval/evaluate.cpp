#include "eval/evaluate.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <torch/torch.h>

#include "data/torch_batch.h"
#include "util/error.h"
#include "util/memory_context.h"

namespace gb::eval {

namespace {

struct EvalMode {
  explicit EvalMode(CausalLMImpl& m) : model(m), was_training(m.is_training()) { m.eval(); }
  ~EvalMode() {
    if (was_training) model.train();
  }
  CausalLMImpl& model;
  bool was_training;
};

// A scoring row: the tokens of context + continuation (the oldest context dropped beyond
// max_len), of which the last n are scored.
struct ScoreRow {
  std::vector<int64_t> ids;
  int64_t n = 0;
};

ScoreRow make_row(const std::vector<int32_t>& context, const std::vector<int32_t>& target,
                  int64_t max_len) {
  ScoreRow r;
  r.ids.assign(context.begin(), context.end());
  r.ids.insert(r.ids.end(), target.begin(), target.end());
  if (max_len > 0 && static_cast<int64_t>(r.ids.size()) > max_len) {
    r.ids.erase(r.ids.begin(), r.ids.end() - max_len);  // keep the end, drop the oldest context
  }
  r.n = static_cast<int64_t>(target.size());
  if (static_cast<int64_t>(r.ids.size()) <= r.n) {
    fail("scoring: a continuation of {} tokens needs at least one token of context before it", r.n);
  }
  return r;
}

// Log-probability of each scored token and the argmax at its position, for every row:
// (n) and (n) on the CPU. Rows are sorted by length and scored in right-padded batches (a
// real token never attends to a later position under causal attention, so padding changes
// nothing; the pad is the row's own last token). A batch holds at most 64 rows and at most
// 2^26 logits (256 MB in float32), so large vocabularies get smaller batches.
std::vector<std::pair<torch::Tensor, torch::Tensor>> score_rows(CausalLMImpl& model,
                                                                const std::vector<ScoreRow>& rows,
                                                                const c10::Device& device) {
  std::vector<std::pair<torch::Tensor, torch::Tensor>> out(rows.size());
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return rows[a].ids.size() < rows[b].ids.size(); });
  const int64_t vocab = std::max<int64_t>(1, model.config.vocab_size);
  constexpr int64_t kMaxRows = 64, kMaxLogits = int64_t(1) << 26;
  for (size_t i = 0; i < order.size();) {
    size_t j = i + 1;
    while (j < order.size() && static_cast<int64_t>(j - i) < kMaxRows &&
           static_cast<int64_t>(j - i + 1) * static_cast<int64_t>(rows[order[j]].ids.size()) *
                   vocab <=
               kMaxLogits) {
      ++j;
    }
    const int64_t b = static_cast<int64_t>(j - i);
    const int64_t t = static_cast<int64_t>(rows[order[j - 1]].ids.size());
    std::vector<int64_t> flat(static_cast<size_t>(b * t));
    for (int64_t k = 0; k < b; ++k) {
      const auto& ids = rows[order[i + static_cast<size_t>(k)]].ids;
      std::copy(ids.begin(), ids.end(), flat.begin() + k * t);
      std::fill(flat.begin() + k * t + static_cast<int64_t>(ids.size()), flat.begin() + (k + 1) * t,
                ids.back());
    }
    auto input = torch::tensor(flat, torch::kLong).view({b, t}).to(device);
    auto logits = model.forward(input);  // (b, t, V)
    for (int64_t k = 0; k < b; ++k) {
      const size_t r = order[i + static_cast<size_t>(k)];
      const ScoreRow& row = rows[r];
      const int64_t len = static_cast<int64_t>(row.ids.size());
      // Target i is predicted at position len - n - 1 + i.
      auto pred = logits[k].narrow(0, len - row.n - 1, row.n).to(torch::kFloat);  // (n, V)
      auto tgt =
          torch::tensor(std::vector<int64_t>(row.ids.end() - row.n, row.ids.end()), torch::kLong)
              .to(device);
      auto lp = torch::log_softmax(pred, -1).gather(1, tgt.unsqueeze(1)).squeeze(1);
      out[r] = {lp.cpu(), pred.argmax(-1).cpu()};
    }
    i = j;
  }
  return out;
}

// All choices of all items in batches; lls[item][choice] = summed log-likelihood.
std::vector<std::vector<double>> mc_scores(CausalLMImpl& model, const std::vector<McTokens>& items,
                                           const c10::Device& device, int64_t max_len) {
  std::vector<ScoreRow> rows;
  for (const auto& it : items) {
    for (const auto& c : it.choices) rows.push_back(make_row(it.context, c, max_len));
  }
  const auto scored = score_rows(model, rows, device);
  std::vector<std::vector<double>> lls;
  size_t k = 0;
  for (const auto& it : items) {
    std::vector<double> item;
    for (size_t c = 0; c < it.choices.size(); ++c) {
      item.push_back(scored[k++].first.sum().item<double>());
    }
    lls.push_back(std::move(item));
  }
  return lls;
}

}  // namespace

int64_t lm_eval_rows(int64_t rows, int64_t seq_len, int64_t vocab) {
  const int64_t per_row = std::max<int64_t>(1, 4 * seq_len * vocab);
  if (rows * per_row <= kEvalLogitBytes) return rows;
  return std::clamp<int64_t>(kEvalLogitBytes / per_row, 1, rows);
}

LmResult lm_eval(CausalLMImpl& model, const std::vector<data::Batch>& batches,
                 const c10::Device& device) {
  EvalMode mode(model);
  torch::NoGradGuard no_grad;
  double sum = 0;
  int64_t tokens = 0;
  auto summed_loss = [&](const torch::Tensor& inputs, const torch::Tensor& labels) {
    auto logits = model.forward(inputs);
    const int64_t v = logits.size(-1);
    auto loss = torch::nn::functional::cross_entropy(
        logits.reshape({-1, v}).to(torch::kFloat), labels.reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100).reduction(torch::kSum));
    return loss.item<double>();
  };
  for (const auto& b : batches) {
    const int64_t vocab = model.config.vocab_size;
    const int64_t at_once = lm_eval_rows(b.rows, b.seq_len, vocab);
    MemoryContext mc(
        fmt::format("an evaluation batch ({} x {} tokens, logits of {} x {} x {}: {})", b.rows,
                    b.seq_len, at_once, b.seq_len, vocab,
                    format_bytes(4.0 * static_cast<double>(at_once * b.seq_len) *
                                 static_cast<double>(vocab))),
        "eval.batch_size (the evaluation's batch; --batch for the commands) or the sequence "
        "length");
    auto bt = data::to_tensors(b, device);
    if (at_once >= b.rows) {
      sum += summed_loss(bt.inputs, bt.labels);
    } else {
      for (int64_t r = 0; r < b.rows; r += at_once) {
        const int64_t n = std::min(at_once, b.rows - r);
        sum += summed_loss(bt.inputs.narrow(0, r, n), bt.labels.narrow(0, r, n));
      }
    }
    tokens += bt.targets;
  }
  LmResult r;
  r.tokens = tokens;
  r.loss = tokens > 0 ? sum / tokens : 0.0;
  r.ppl = std::exp(r.loss);
  return r;
}

std::vector<McTokens> tokenize_mc(const std::vector<data::McItem>& items,
                                  const data::TextEncoder& encoder) {
  std::vector<McTokens> out;
  out.reserve(items.size());
  for (const auto& it : items) {
    McTokens m;
    m.answer = it.answer;
    m.context = encoder.encode(it.context, true);
    for (const auto& c : it.choices) {
      std::string cont = data::mc_continuation(it.context, c);
      m.choices.push_back(encoder.encode(cont, false));
      m.choice_chars.push_back(utf8_length(c));
      if (m.choices.back().empty())
        fail("multiple choice item {}: a choice encodes to no tokens", it.source);
    }
    out.push_back(std::move(m));
  }
  return out;
}

int64_t utf8_length(const std::string& text) {
  int64_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80;  // every byte but continuation bytes
  return n;
}

int argmax(const std::vector<double>& scores) {
  int arg = 0;
  for (size_t i = 1; i < scores.size(); ++i) {
    if (scores[i] > scores[static_cast<size_t>(arg)]) arg = static_cast<int>(i);
  }
  return arg;
}

std::vector<double> mc_loglikelihoods(CausalLMImpl& model, const McTokens& item,
                                      const c10::Device& device, int64_t max_len) {
  EvalMode mode(model);
  torch::NoGradGuard no_grad;
  return mc_scores(model, {item}, device, max_len).front();
}

McResult mc_eval(CausalLMImpl& model, const std::vector<McTokens>& items, const c10::Device& device,
                 int64_t max_len) {
  EvalMode mode(model);
  torch::NoGradGuard no_grad;
  McResult r;
  int64_t hits = 0, hits_norm = 0;
  bool finite = true;
  const auto all = mc_scores(model, items, device, max_len);
  for (size_t i = 0; i < items.size(); ++i) {
    const McTokens& it = items[i];
    // As lm-evaluation-harness: acc = argmax ll, acc_norm = argmax ll / len(choice), the
    // length in characters of the choice text without the target delimiter.
    const std::vector<double>& lls = all[i];
    std::vector<double> norm(lls.size());
    for (size_t c = 0; c < lls.size(); ++c) {
      finite = finite && std::isfinite(lls[c]);
      norm[c] = lls[c] / static_cast<double>(std::max<int64_t>(1, it.choice_chars[c]));
    }
    hits += argmax(lls) == it.answer;
    hits_norm += argmax(norm) == it.answer;
  }
  r.n = static_cast<int64_t>(items.size());
  if (r.n > 0) {
    r.acc = static_cast<double>(hits) / r.n;
    r.acc_norm = static_cast<double>(hits_norm) / r.n;
  }
  // Non-finite logits give NaN log-likelihoods, and an argmax over NaN would still pick a
  // choice: the accuracy is not a number then, so that no caller reports one.
  if (!finite) r.acc = r.acc_norm = std::nan("");
  return r;
}

std::vector<QaTokens> tokenize_qa_items(const std::vector<data::QaItem>& items,
                                        const data::TextEncoder& encoder) {
  std::vector<QaTokens> out;
  out.reserve(items.size());
  for (const auto& it : items) {
    QaTokens q;
    q.prompt = encoder.encode(data::qa_prompt(it.question), true);
    q.answer = encoder.encode(data::qa_continuation(it.answer), false);
    q.answer_text = it.answer;
    if (q.answer.empty()) fail("QA item {}: the answer encodes to no tokens", it.source);
    out.push_back(std::move(q));
  }
  return out;
}

QaResult qa_eval(CausalLMImpl& model, const std::vector<QaTokens>& items, const c10::Device& device,
                 bool exact_match) {
  EvalMode mode(model);
  torch::NoGradGuard no_grad;
  QaResult r;
  int64_t first = 0, exact = 0, answer_tokens = 0;
  double nll = 0;
  std::vector<ScoreRow> rows;
  for (const auto& it : items) rows.push_back(make_row(it.prompt, it.answer, 0));
  const auto scored = score_rows(model, rows, device);
  for (size_t i = 0; i < items.size(); ++i) {
    const QaTokens& it = items[i];
    // Teacher-forced scoring of the whole answer: the argmax at every answer position equal
    // to the answer token means greedy decoding reproduces the answer exactly.
    const auto& [lp, am] = scored[i];
    first += am[0].item<int64_t>() == it.answer[0];
    nll -= lp.sum().item<double>();
    answer_tokens += static_cast<int64_t>(it.answer.size());
    if (exact_match) {
      bool all = true;
      for (size_t i = 0; i < it.answer.size(); ++i) all &= am[i].item<int64_t>() == it.answer[i];
      exact += all;
    }
  }
  r.n = static_cast<int64_t>(items.size());
  if (r.n > 0) {
    r.first_token_acc = static_cast<double>(first) / r.n;
    r.exact_match = exact_match ? static_cast<double>(exact) / r.n : -1.0;
    r.answer_loss = answer_tokens > 0 ? nll / answer_tokens : 0.0;
  }
  // Non-finite logits: the argmax-based accuracies mean nothing (see mc_eval).
  if (!std::isfinite(nll)) r.first_token_acc = r.exact_match = std::nan("");
  return r;
}

torch::Tensor final_hidden(CausalLMImpl& model, const std::vector<data::Batch>& batches,
                           const c10::Device& device, int64_t width) {
  EvalMode mode(model);
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> parts;
  int64_t rows = 0;
  for (const auto& b : batches) rows += b.rows * b.seq_len;
  MemoryContext mc(
      fmt::format("the final hidden states of the drift measure ({} positions x {} values)", rows,
                  width),
      "eval.tokens, or switch the measure off (eval.drift: false)");
  for (const auto& b : batches) {
    auto bt = data::to_tensors(b, device);
    auto h = model.hidden_states(bt.inputs);
    h = h.narrow(-1, 0, std::min<int64_t>(width, h.size(-1)));
    parts.push_back(h.reshape({-1, h.size(-1)}).to(torch::kFloat).cpu());
  }
  if (parts.empty()) return torch::Tensor();
  return torch::cat(parts, 0);
}

double relative_max_change(const torch::Tensor& a, const torch::Tensor& reference) {
  if (!a.defined() || !reference.defined() || a.sizes() != reference.sizes()) {
    fail("original-stream drift: hidden states of different shapes");
  }
  const auto r = reference.to(torch::kDouble);
  const double diff = (a.to(torch::kDouble) - r).abs().max().item<double>();
  const double scale = r.abs().max().item<double>();
  if (diff == 0.0) return 0.0;
  return scale > 0.0 ? diff / scale : std::numeric_limits<double>::infinity();
}

double mean_cosine(const torch::Tensor& a, const torch::Tensor& b) {
  if (!a.defined() || !b.defined() || a.sizes() != b.sizes()) {
    fail("representation drift: hidden states of different shapes");
  }
  return torch::nn::functional::cosine_similarity(
             a.to(torch::kDouble), b.to(torch::kDouble),
             torch::nn::functional::CosineSimilarityFuncOptions().dim(1))
      .mean()
      .item<double>();
}

SequenceMetrics op_bwt(const std::vector<std::vector<double>>& r) {
  const size_t n = r.size();
  if (n == 0) fail("OP/BWT: empty accuracy matrix");
  for (const auto& row : r) {
    if (row.size() != n) fail("OP/BWT: the accuracy matrix must be square ({} rows)", n);
  }
  SequenceMetrics m;
  for (size_t j = 0; j < n; ++j) m.op += r[n - 1][j];
  m.op /= static_cast<double>(n);
  if (n > 1) {
    for (size_t j = 0; j + 1 < n; ++j) m.bwt += r[n - 1][j] - r[j][j];
    m.bwt /= static_cast<double>(n - 1);
  }
  return m;
}

}  // namespace gb::eval
