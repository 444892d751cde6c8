#include <torch/torch.h>

#include "common.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"

namespace gb::cli {
namespace {

nlohmann::json row(const torch::Tensor& t) {  // 1-D float tensor → JSON array
  auto c = t.to(torch::kCPU, torch::kFloat).contiguous();
  const float* p = c.data_ptr<float>();
  return nlohmann::json(std::vector<float>(p, p + c.numel()));
}

struct ForwardCommandOptions {
  ModelArg model;
  std::string input, output;
  bool all_positions = false;
};

void declare_forward(CLI::App& app, ForwardCommandOptions& o) {
  declare_model(app, o.model);
  add_option(app, "--input", o.input, "IDS.json",
             "{\"input_ids\": [[...], ...]}; sequences may differ in length; each\n"
             "runs alone (batch of one, positions 0..T-1)")
      ->required();
  add_option(app, "--output", o.output, "OUT.json",
             "{\"logits_last\": [[V floats] per sequence], \"loss\": [per sequence\n"
             "mean next-token cross-entropy, null for length 1], and with\n"
             "--all-positions \"logits\": [[[V floats] per position] per sequence]}")
      ->required();
  add_flag(app, "--all-positions", o.all_positions, "also write the logits of every position");
}

int run_forward(const ForwardCommandOptions& o) {
  const std::string& input_path = o.input;
  const std::string& output_path = o.output;
  auto in = json::parse_file(input_path);
  if (!in.is_object() || !in.contains("input_ids") || !in["input_ids"].is_array()) {
    fail("{}: expected {{\"input_ids\": [[...], ...]}}", input_path);
  }
  std::vector<std::vector<int64_t>> seqs;
  for (size_t i = 0; i < in["input_ids"].size(); ++i) {
    const auto& s = in["input_ids"][i];
    if (!s.is_array() || s.empty())
      fail("{}: input_ids[{}] must be a non-empty array", input_path, i);
    std::vector<int64_t> ids;
    for (const auto& v : s) {
      if (!v.is_number_integer()) fail("{}: input_ids[{}] holds a non-integer", input_path, i);
      ids.push_back(v.get<int64_t>());
    }
    seqs.push_back(std::move(ids));
  }
  LoadedModel m = load_model_arg(o.model);
  const int64_t vocab = m.config.vocab_size;
  const bool all = o.all_positions;
  torch::NoGradGuard no_grad;
  nlohmann::json logits_last = nlohmann::json::array(), losses = nlohmann::json::array(),
                 all_logits = nlohmann::json::array();
  const auto device = load_options(o.model).device;
  for (size_t i = 0; i < seqs.size(); ++i) {
    for (int64_t id : seqs[i]) {
      if (id < 0 || id >= vocab) {
        fail("{}: input_ids[{}] holds token id {} outside the vocabulary [0, {})", input_path, i,
             id, vocab);
      }
    }
    check_sequence_length(m.config, static_cast<int64_t>(seqs[i].size()),
                          fmt::format("{}: input_ids[{}]", input_path, i));
    // Each sequence alone as a batch of one: no padding, positions 0..T-1.
    auto ids = torch::tensor(seqs[i], torch::kLong).unsqueeze(0).to(device);
    auto logits = m.model->forward(ids).squeeze(0).to(torch::kFloat);  // (T, V)
    check_finite_logits(logits, fmt::format("forward of input_ids[{}]", i));
    logits_last.push_back(row(logits[-1]));
    const int64_t t = ids.size(1);
    if (t >= 2) {
      auto loss = torch::nn::functional::cross_entropy(logits.narrow(0, 0, t - 1),
                                                       ids.squeeze(0).narrow(0, 1, t - 1));
      losses.push_back(loss.item<double>());
    } else {
      losses.push_back(nullptr);
    }
    if (all) {
      nlohmann::json rows = nlohmann::json::array();
      for (int64_t p = 0; p < t; ++p) rows.push_back(row(logits[p]));
      all_logits.push_back(std::move(rows));
    }
  }
  nlohmann::json out = {{"logits_last", logits_last}, {"loss", losses}};
  if (all) out["logits"] = all_logits;
  write_file_atomic(output_path, out.dump());
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "forward",
    "forward MODEL --input IDS.json --output OUT.json [--all-positions] [--device D] [--dtype T]",
    "Runs MODEL on token ids and writes logits and losses.", &declare_forward, &run_forward);

}  // namespace gb::cli
