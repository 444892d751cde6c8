// growbench-cli score: mean next-token cross-entropy and perplexity of a text file.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "common.h"
#include "model/tokenizer.h"
#include "util/error.h"
#include "util/files.h"
#include "util/log.h"

namespace gb::cli {
namespace {

std::string read_text(const std::string& path) {
  if (path == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  if (is_directory(path)) fail("{}: is a folder; --file expects a text file", path);
  if (!file_exists(path)) fail("{}: no such file; --file expects a readable text file", path);
  return read_file(path);
}

// Windows [start, start + length) over n ids: each window starts at the last token of the
// previous one, so every token but the first is predicted exactly once, with up to
// seq_len - 1 tokens of context.
struct Window {
  int64_t start, length;
};
std::vector<Window> windows(int64_t n, int64_t seq_len) {
  std::vector<Window> w;
  for (int64_t s = 0; s + 1 < n; s += seq_len - 1) w.push_back({s, std::min(seq_len, n - s)});
  return w;
}

struct ScoreOptions {
  ModelArg model;
  std::string file;
  std::optional<int64_t> seq_len;
  int64_t batch = 1;
  bool json = false;
};

void declare_score(CLI::App& app, ScoreOptions& o) {
  declare_model(app, o.model, "dtype of the weights; logits are scored in float32");
  add_option(app, "--file", o.file, "TEXT", "the text file (UTF-8; '-' for stdin)")->required();
  add_option(app, "--seq-len", o.seq_len, "N",
             "window length (default: the model's max_position_embeddings; give a\n"
             "smaller N for long-context models on small machines)")
      ->check(at_least(2));
  add_option(app, "--batch", o.batch, "B", "windows per forward pass")->check(at_least(1));
  add_flag(app, "--json", o.json,
           "print {\"tokens\": ids in the text, \"predicted\": tokens scored,\n"
           "\"windows\", \"seq_len\", \"loss\", \"ppl\"} on one line instead of\n"
           "'loss L  ppl P  (...)'");
}

int run_score(const ScoreOptions& o) {
  const std::string& file = o.file;
  const int64_t batch = o.batch;
  const bool json_out = o.json;

  std::string tok_path = model_tokenizer_arg(o.model, "score");
  // The text before the model: a missing or empty file fails before the weights load.
  const std::string text = read_text(file);
  if (text.empty()) fail("{}: the file is empty; score needs text of at least two tokens", file);
  LoadedModel m = load_model_arg(o.model);
  if (tok_path.empty()) tok_path = m.tokenizer_file;
  if (tok_path.empty()) {
    fail("{}: no tokenizer.json; copy the base model's tokenizer.json into the folder", m.folder);
  }
  const int64_t positions = m.config.max_positions;
  const int64_t seq_len = o.seq_len.value_or(positions);
  if (seq_len < 2) throw UsageError("the model has no max positions; give --seq-len");
  if (positions > 0 && seq_len > positions) {
    throw UsageError("--seq-len " + std::to_string(seq_len) + " exceeds the model's " +
                     std::to_string(positions) + " positions");
  }

  tok::Tokenizer tok = tok::Tokenizer::from_file(tok_path);
  const std::vector<int32_t> ids32 = tok.encode(text, true);
  const int64_t n = static_cast<int64_t>(ids32.size());
  if (n < 2) {
    fail("{}: the text encodes to {} token(s); score needs at least two", file, n);
  }
  const int64_t vocab = m.config.vocab_size;
  for (int32_t id : ids32) {
    if (id < 0 || id >= vocab) {
      fail(
          "{}: the text encodes to token id {} outside the model's vocabulary of {}; the "
          "tokenizer does not belong to this model",
          tok_path, id, vocab);
    }
  }
  auto ids = torch::tensor(std::vector<int64_t>(ids32.begin(), ids32.end()), torch::kLong);

  torch::NoGradGuard no_grad;
  m.model->eval();
  const auto device = load_options(o.model).device;
  const std::vector<Window> ws = windows(n, seq_len);
  const auto t0 = std::chrono::steady_clock::now();
  double loss_sum = 0;
  int64_t targets = 0;
  for (size_t i = 0; i < ws.size();) {
    // Consecutive windows of the same length run as one batch (only the last may be shorter).
    size_t j = i;
    std::vector<torch::Tensor> rows;
    while (j < ws.size() && static_cast<int64_t>(rows.size()) < batch &&
           ws[j].length == ws[i].length) {
      rows.push_back(ids.narrow(0, ws[j].start, ws[j].length));
      ++j;
    }
    const int64_t len = ws[i].length;
    auto x = torch::stack(rows).to(device);               // (b, len)
    auto logits = m.model->forward(x).to(torch::kFloat);  // (b, len, V)
    check_finite_logits(logits, fmt::format("scoring window {} (tokens {}..{})", i + 1, ws[i].start,
                                            ws[i].start + len));
    auto loss = torch::nn::functional::cross_entropy(
        logits.narrow(1, 0, len - 1).reshape({-1, logits.size(-1)}),
        x.narrow(1, 1, len - 1).reshape({-1}),
        torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum));
    loss_sum += loss.item<double>();
    targets += static_cast<int64_t>(rows.size()) * (len - 1);
    i = j;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double loss = loss_sum / static_cast<double>(targets);
  const double ppl = std::exp(loss);
  log::get("cli")->info("scored {} tokens in {} windows of up to {} in {:.2f} s", n, ws.size(),
                        seq_len, seconds);
  if (json_out) {
    print_json({{"tokens", n},
                {"predicted", targets},
                {"windows", static_cast<int64_t>(ws.size())},
                {"seq_len", seq_len},
                {"loss", loss},
                {"ppl", ppl}});
  } else {
    std::printf("loss %.6f  ppl %.4f  (%lld tokens, %lld predicted, %zu windows of up to %lld)\n",
                loss, ppl, static_cast<long long>(n), static_cast<long long>(targets), ws.size(),
                static_cast<long long>(seq_len));
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "score", "score MODEL --file TEXT [--seq-len N] [--batch B] [--json]",
    "Perplexity of a text file under the model: the mean next-token cross-entropy over the\n"
    "whole text and its exponential.\n\n"
    "The file is encoded as one text with the model's tokenizer.json, special tokens included\n"
    "as encode() adds them (a BOS at the start for tokenizers that add one). The ids are cut\n"
    "into windows of N tokens without padding; each window starts at the last token of the\n"
    "previous one, so every token but the first is predicted exactly once (the last window\n"
    "may be shorter). The loss is the mean over all predicted tokens; it equals the\n"
    "token-weighted mean of 'forward' losses on the same windows.",
    &declare_score, &run_score,
    "Exit status: 0 success, 1 error (no tokenizer.json in MODEL, missing or empty file, text\n"
    "of fewer than two tokens), 2 usage.");

}  // namespace gb::cli
