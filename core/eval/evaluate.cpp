#include "eval/evaluate.h"

#include <cmath>

#include <torch/torch.h>

#include "train/trainer.h"
#include "util/error.h"

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

// Log-probabilities of `target` tokens following `context` (one sequence, batch of 1):
// returns (log-prob per target token (n), argmax per target position (n)).
std::pair<torch::Tensor, torch::Tensor> score_continuation(CausalLMImpl& model,
                                                           const std::vector<int32_t>& context,
                                                           const std::vector<int32_t>& target,
                                                           const c10::Device& device,
                                                           int64_t max_len) {
  std::vector<int64_t> ids(context.begin(), context.end());
  ids.insert(ids.end(), target.begin(), target.end());
  const int64_t n = static_cast<int64_t>(target.size());
  int64_t start = 0;
  if (max_len > 0 && static_cast<int64_t>(ids.size()) > max_len) {
    start = static_cast<int64_t>(ids.size()) - max_len;  // keep the end, drop the oldest context
  }
  std::vector<int64_t> window(ids.begin() + start, ids.end());
  auto input = torch::tensor(window, torch::kLong).unsqueeze(0).to(device);
  auto logits = model.forward(input).squeeze(0).to(torch::kFloat);  // (T, V)
  const int64_t t = logits.size(0);
  // Target i is predicted at position t - n - 1 + i.
  auto pred = logits.narrow(0, t - n - 1, n);
  auto logp = torch::log_softmax(pred, -1);
  auto tgt =
      torch::tensor(std::vector<int64_t>(target.begin(), target.end()), torch::kLong).to(device);
  auto lp = logp.gather(1, tgt.unsqueeze(1)).squeeze(1);
  return {lp.cpu(), pred.argmax(-1).cpu()};
}

}  // namespace

LmResult lm_eval(CausalLMImpl& model, const std::vector<data::Batch>& batches,
                 const c10::Device& device) {
  EvalMode mode(model);
  torch::NoGradGuard no_grad;
  double sum = 0;
  int64_t tokens = 0;
  for (const auto& b : batches) {
    auto bt = train::to_tensors(b, device);
    auto logits = model.forward(bt.inputs);
    const int64_t v = logits.size(-1);
    auto loss = torch::nn::functional::cross_entropy(
        logits.reshape({-1, v}).to(torch::kFloat), bt.labels.reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions().ignore_index(-100).reduction(torch::kSum));
    sum += loss.item<double>();
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
  std::vector<double> lls;
  for (const auto& choice : item.choices) {
    lls.push_back(score_continuation(model, item.context, choice, device, max_len)
                      .first.sum()
                      .item<double>());
  }
  return lls;
}

McResult mc_eval(CausalLMImpl& model, const std::vector<McTokens>& items, const c10::Device& device,
                 int64_t max_len) {
  McResult r;
  int64_t hits = 0, hits_norm = 0;
  bool finite = true;
  for (const auto& it : items) {
    // As lm-evaluation-harness: acc = argmax ll, acc_norm = argmax ll / len(choice), the
    // length in characters of the choice text without the target delimiter.
    const std::vector<double> lls = mc_loglikelihoods(model, it, device, max_len);
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
  for (const auto& it : items) {
    // Teacher-forced scoring of the whole answer: the argmax at every answer position equal
    // to the answer token means greedy decoding reproduces the answer exactly.
    auto [lp, am] = score_continuation(model, it.prompt, it.answer, device, 0);
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
  for (const auto& b : batches) {
    auto bt = train::to_tensors(b, device);
    auto h = model.hidden_states(bt.inputs);
    h = h.narrow(-1, 0, std::min<int64_t>(width, h.size(-1)));
    parts.push_back(h.reshape({-1, h.size(-1)}).to(torch::kFloat).cpu());
  }
  if (parts.empty()) return torch::Tensor();
  return torch::cat(parts, 0);
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
