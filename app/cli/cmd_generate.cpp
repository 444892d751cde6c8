// growbench-cli generate: continue a prompt with the model, greedily or by temperature and
// nucleus (top-p) sampling, with a key/value cache (one prefill, then one token per step).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "common.h"
#include "model/tokenizer.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"

namespace gb::cli {
namespace {

namespace fs = std::filesystem;

void add_ids(const nlohmann::json& j, std::set<int64_t>& out) {
  if (j.is_number_integer()) {
    out.insert(j.get<int64_t>());
  } else if (j.is_array()) {
    for (const auto& v : j) {
      if (v.is_number_integer()) out.insert(v.get<int64_t>());
    }
  }
}

// Token ids that end generation: every eos_token_id of config.json (Llama 3.1 lists several)
// and of generation_config.json next to it, and the tokenizer's EOS.
std::set<int64_t> stop_ids(const LoadedModel& m, const tok::Tokenizer& tok) {
  std::set<int64_t> ids;
  if (m.config.eos_token_id) ids.insert(*m.config.eos_token_id);
  if (m.config.raw.is_object() && m.config.raw.contains("eos_token_id")) {
    add_ids(m.config.raw["eos_token_id"], ids);
  }
  const std::string gen = (fs::path(m.folder) / "generation_config.json").string();
  if (!m.folder.empty() && file_exists(gen)) {
    auto j = json::parse_file(gen);
    if (j.is_object() && j.contains("eos_token_id")) add_ids(j["eos_token_id"], ids);
  }
  if (auto e = tok.eos_id()) ids.insert(*e);
  return ids;
}

struct Sampler {
  double temperature = 0;  // 0: greedy
  double top_p = 1.0;
  int64_t usable = 0;  // ids >= usable (beyond the tokenizer's vocabulary) never drawn
  at::Generator gen;

  // logits (V) → the next token id.
  int64_t pick(torch::Tensor logits) {
    logits = logits.to(torch::kCPU, torch::kFloat);
    if (usable > 0 && usable < logits.size(0)) logits = logits.narrow(0, 0, usable);
    if (temperature <= 0) return logits.argmax().item<int64_t>();
    auto probs = torch::softmax(logits / temperature, -1);
    if (top_p >= 1.0) return torch::multinomial(probs, 1, false, gen).item<int64_t>();
    // Nucleus: the most probable tokens whose cumulative probability first reaches top_p
    // (the top token always stays), renormalised by multinomial's normalisation.
    auto sorted = torch::sort(probs, /*stable=*/true, /*dim=*/-1, /*descending=*/true);
    auto p = std::get<0>(sorted);
    auto order = std::get<1>(sorted);
    auto keep = (p.cumsum(-1) - p) < top_p;
    auto choice = torch::multinomial(p * keep.to(p.scalar_type()), 1, false, gen);
    return order[choice.item<int64_t>()].item<int64_t>();
  }
};

// The text the generated ids add to the prompt: decoded together with the prompt (so that a
// SentencePiece word boundary at the start keeps its space), alone as a fall-back.
std::string completion_text(const tok::Tokenizer& tok, const std::vector<int32_t>& prompt,
                            const std::vector<int32_t>& generated) {
  const std::string head = tok.decode(prompt, true);
  std::vector<int32_t> all = prompt;
  all.insert(all.end(), generated.begin(), generated.end());
  const std::string full = tok.decode(all, true);
  if (full.compare(0, head.size(), head) == 0) return full.substr(head.size());
  return tok.decode(generated, true);
}

struct GenerateOptions {
  ModelArg model;
  std::string prompt;
  int64_t max_new = 32;
  double temperature = 0;
  std::optional<double> top_p;
  std::optional<int64_t> seed;
  bool json = false;
};

void declare_generate(CLI::App& app, GenerateOptions& o) {
  declare_model(app, o.model);
  add_option(app, "--prompt", o.prompt, "STR", "the text to continue")->required();
  add_option(app, "--max-new", o.max_new, "N",
             "generate at most N new tokens; generation also stops at an EOS token\n"
             "(eos_token_id of config.json and generation_config.json, and the\n"
             "tokenizer's EOS) or when the sequence fills the model's\n"
             "max_position_embeddings")
      ->check(at_least(1));
  add_option(app, "--temperature", o.temperature, "T",
             "0: greedy, the most probable token every step, deterministic;\n"
             "T > 0: sample from softmax(logits / T)")
      ->check(number_range(0, INFINITY));
  add_option(app, "--top-p", o.top_p, "P",
             "with T > 0: nucleus sampling, draw only from the most probable tokens\n"
             "whose cumulative probability reaches P (1: all)")
      ->default_str("1")
      ->check(number_range(0, 1, /*lo_open=*/true));
  add_option(app, "--seed", o.seed, "S",
             "seed of the sampling generator; the same seed, prompt and options give\n"
             "the same output")
      ->default_str("0")
      ->check(at_least(0));
  add_flag(app, "--json", o.json,
           "print {\"prompt\", \"completion\", \"tokens\": [generated ids, a final EOS\n"
           "included], \"prompt_tokens\", \"stop\": \"max_new\" | \"eos\" | \"context\",\n"
           "\"seconds\", \"tokens_per_s\": generated tokens per second, prompt\n"
           "processing included} on one line instead");
}

int run_generate(const GenerateOptions& o) {
  const std::string& prompt = o.prompt;
  const int64_t max_new = o.max_new;
  Sampler sampler;
  sampler.temperature = o.temperature;
  sampler.top_p = o.top_p.value_or(1.0);
  sampler.gen = at::detail::createCPUGenerator(static_cast<uint64_t>(o.seed.value_or(0)));
  if (sampler.temperature == 0 && (o.top_p || o.seed)) {
    log::get("cli")->warn(
        "--top-p and --seed apply only with --temperature > 0; decoding greedily");
  }

  std::string tok_path = model_tokenizer_arg(o.model, "generate");
  LoadedModel m = load_model_arg(o.model);
  if (tok_path.empty()) tok_path = m.tokenizer_file;
  if (tok_path.empty()) {
    fail("{}: no tokenizer.json; copy the base model's tokenizer.json into the folder", m.folder);
  }
  tok::Tokenizer tok = tok::Tokenizer::from_file(tok_path);
  const int64_t vocab = m.config.vocab_size;
  sampler.usable = std::min<int64_t>(vocab, tok.vocab_size());
  const std::set<int64_t> stops = stop_ids(m, tok);

  std::vector<int32_t> prompt_ids = tok.encode(prompt, true);
  if (prompt_ids.empty()) {
    fail(
        "the prompt encodes to no tokens and this tokenizer adds no BOS; give a non-empty "
        "--prompt");
  }
  for (int32_t id : prompt_ids) {
    if (id < 0 || id >= vocab) {
      fail(
          "{}: the prompt holds token id {} outside the model's vocabulary of {}; the "
          "tokenizer does not belong to this model",
          tok_path, id, vocab);
    }
  }
  const int64_t context = m.config.max_positions;
  const int64_t n_prompt = static_cast<int64_t>(prompt_ids.size());
  if (context > 0 && n_prompt >= context) {
    fail("the prompt is {} tokens long but the model has {} positions; shorten the prompt",
         n_prompt, context);
  }

  torch::NoGradGuard no_grad;
  CausalLMImpl& model = *m.model;
  model.eval();
  const auto device = load_options(o.model).device;
  // A routed forward pass (SCALE Route) runs the model twice per call and cannot share one
  // cache: it recomputes the whole sequence every step instead.
  const bool use_cache = !model.forward_override;
  KVCache cache;
  ForwardOptions fo;
  if (use_cache) fo.cache = &cache;
  // Logits (V) of the next token after `ids` (the new ids only, when the cache holds the rest).
  auto last_logits = [&](const std::vector<int64_t>& ids) {
    auto t = torch::tensor(ids, torch::kLong).unsqueeze(0).to(device);  // (1, T)
    if (!use_cache) return model.forward(t, fo)[0][-1];
    auto h = model.hidden_states(t, fo);  // (1, T, d)
    return model.logits_from_hidden(h.narrow(1, h.size(1) - 1, 1), fo)[0][0];
  };

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<int64_t> seq(prompt_ids.begin(), prompt_ids.end());
  std::vector<int32_t> generated;
  std::string stop = "max_new";
  torch::Tensor logits = last_logits(seq);  // prefill
  while (true) {
    // NaN logits would pick an arbitrary token (and "stop: eos"): exit 1 naming the step.
    check_finite_logits(logits, generated.empty()
                                    ? std::string("generation step 0 (the prompt)")
                                    : fmt::format("generation step {}", generated.size()));
    const int64_t id = sampler.pick(logits);
    generated.push_back(static_cast<int32_t>(id));
    seq.push_back(id);
    if (stops.count(id)) {
      stop = "eos";
      break;
    }
    if (static_cast<int64_t>(generated.size()) >= max_new) break;
    if (context > 0 && static_cast<int64_t>(seq.size()) >= context) {
      stop = "context";
      break;
    }
    logits = last_logits(use_cache ? std::vector<int64_t>{id} : seq);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double tps = seconds > 0 ? static_cast<double>(generated.size()) / seconds : 0.0;
  std::vector<int32_t> text_ids = generated;
  if (stop == "eos") text_ids.pop_back();
  const std::string completion = completion_text(tok, prompt_ids, text_ids);
  log::get("cli")->info("generated {} tokens in {:.3f} s ({:.1f} tokens/s, stop: {}{})",
                        generated.size(), seconds, tps, stop, use_cache ? "" : ", no cache");
  if (o.json) {
    print_json({{"prompt", prompt},
                {"completion", completion},
                {"tokens", generated},
                {"prompt_tokens", n_prompt},
                {"stop", stop},
                {"seconds", seconds},
                {"tokens_per_s", tps}});
  } else {
    std::fwrite(completion.data(), 1, completion.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "generate",
    "generate MODEL --prompt STR [--max-new N] [--temperature T --top-p P --seed S] [--json]",
    "Continues a prompt with the model and prints the continuation (without the prompt) on\n"
    "stdout. The prompt is encoded with the model's tokenizer.json, special tokens included\n"
    "as encode() adds them (a BOS, for tokenizers that add one). The model runs once over the\n"
    "prompt, then once per new token on a key/value cache.",
    &declare_generate, &run_generate,
    "The completion is decoded without special tokens; the EOS that stopped generation is\n"
    "not part of it. A summary (tokens, time) goes to stderr.\n"
    "Exit status: 0 success, 1 error (no tokenizer.json in MODEL, unreadable model, prompt\n"
    "longer than the model's context), 2 usage.");

}  // namespace gb::cli
