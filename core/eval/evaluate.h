#pragma once
// Evaluation of a (possibly grown) model: next-token loss and perplexity on packed token
// sets, multiple-choice accuracy by log-likelihood (sum, and normalised by the choice's
// length in characters, as lm-evaluation-harness's acc_norm), exact match of greedy answers
// and hard first-token accuracy for QA (the biography benchmark), representation drift
// (cosine of final hidden states to a reference), and OP/BWT of a task-sequence accuracy
// matrix. All evaluation runs without gradients and in eval mode.

#include <cstdint>
#include <string>
#include <vector>

#include "data/packing.h"
#include "data/tasks.h"
#include "data/tokenized.h"
#include "model/modules.h"

namespace gb::eval {

struct LmResult {
  double loss = 0;  // mean next-token cross-entropy over target tokens
  double ppl = 0;   // exp(loss)
  int64_t tokens = 0;
};
// A batch whose float32 logits would exceed kEvalLogitBytes is evaluated a few rows at a
// time (lm_eval_rows), so a large vocabulary's logits and their log-softmax never exceed
// it (151 936 × 256 tokens is 148 MiB a row); smaller batches run whole, as before.
constexpr int64_t kEvalLogitBytes = 256LL << 20;
int64_t lm_eval_rows(int64_t rows, int64_t seq_len, int64_t vocab);
LmResult lm_eval(CausalLMImpl& model, const std::vector<data::Batch>& batches,
                 const c10::Device& device);

// A multiple-choice item tokenised for scoring: the context, and each choice's continuation
// tokens (the target delimiter " " and the choice, scored given the context) with the length
// of the choice text in characters (Unicode code points, without the delimiter): what
// lm-evaluation-harness divides the log-likelihood by for acc_norm.
struct McTokens {
  std::vector<int32_t> context;
  std::vector<std::vector<int32_t>> choices;
  std::vector<int64_t> choice_chars;
  int answer = 0;
};
// Unicode code points of UTF-8 text (Python's len() of the decoded string).
int64_t utf8_length(const std::string& text);
std::vector<McTokens> tokenize_mc(const std::vector<data::McItem>& items,
                                  const data::TextEncoder& encoder);

struct McResult {
  double acc = 0;       // argmax of the summed log-likelihood
  double acc_norm = 0;  // argmax of log-likelihood / choice characters (lm-evaluation-harness)
  int64_t n = 0;
};
// The summed log-likelihood of each choice's continuation given the context.
std::vector<double> mc_loglikelihoods(CausalLMImpl& model, const McTokens& item,
                                      const c10::Device& device, int64_t max_len);
// The index of the largest score (the first on ties, as numpy's argmax).
int argmax(const std::vector<double>& scores);
McResult mc_eval(CausalLMImpl& model, const std::vector<McTokens>& items, const c10::Device& device,
                 int64_t max_len);

struct QaTokens {
  std::vector<int32_t> prompt;
  std::vector<int32_t> answer;  // continuation tokens (" answer"), without EOS
  std::string answer_text;
};
std::vector<QaTokens> tokenize_qa_items(const std::vector<data::QaItem>& items,
                                        const data::TextEncoder& encoder);

struct QaResult {
  double first_token_acc = 0;  // argmax after the prompt == first answer token
  double exact_match = 0;      // greedy continuation reproduces every answer token (-1 if off)
  double answer_loss = 0;      // mean cross-entropy over the answer tokens
  int64_t n = 0;
};
// exact_match greedily decodes len(answer) tokens when `exact_match` is set. Items (and the
// choices of multiple-choice items) are scored in right-padded batches sorted by length.
QaResult qa_eval(CausalLMImpl& model, const std::vector<QaTokens>& items, const c10::Device& device,
                 bool exact_match);

// Final normalised hidden states of the first `width` features (the original stream of a
// widened model), concatenated over batches: (N, width) for N = rows × T positions.
torch::Tensor final_hidden(CausalLMImpl& model, const std::vector<data::Batch>& batches,
                           const c10::Device& device, int64_t width);
// Mean cosine similarity of corresponding rows.
double mean_cosine(const torch::Tensor& a, const torch::Tensor& b);
// max |a − reference| / max |reference| over all entries, in double: how far hidden states
// moved, relative to the reference's largest magnitude (SCALE's original-stream drift;
// exactly 0 when a equals the reference).
double relative_max_change(const torch::Tensor& a, const torch::Tensor& reference);

struct SequenceMetrics {
  double op = 0;   // mean_j R[n][j]
  double bwt = 0;  // mean_{j<n} (R[n][j] − R[j][j])
};
// R[i][j]: accuracy on task j after training task i (square, n × n).
SequenceMetrics op_bwt(const std::vector<std::vector<double>>& r);

}  // namespace gb::eval
