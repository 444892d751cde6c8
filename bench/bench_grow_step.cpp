// Training-step cost of every growth variant: on one small Llama-shaped model with random
// weights (8 layers, d = 256, p = 688, 4 heads of 64, vocabulary 2048), one AdamW step
// (forward, backward, optimizer step over the variant's trainable set only, with its loss
// terms) on a batch of 8 × 128 token ids, for the base model (full fine-tuning) and for each
// plan form of grow/plan.h. Reports parameters added, trainable parameters, and the median
// step time over N steps after warm-up, relative to the base, all in one run.
// Single-threaded (torch::set_num_threads(1)), CPU, float32.
//
// Usage: bench_grow_step [steps (default 5)] [warm-up steps (default 1)]
// Variants whose operator is not in this build print "n/a" with the reason.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "grow/growth.h"
#include "grow/plan.h"
#include "model/config.h"
#include "model/modules.h"
#include "util/error.h"
#include "util/json.h"
#include "util/log.h"

namespace {

namespace F = torch::nn::functional;
namespace grow = gb::grow;

constexpr int64_t kBatch = 8;
constexpr int64_t kLength = 128;

gb::ModelConfig bench_config() {
  auto j = gb::json::parse(R"({"model_type":"llama","architectures":["LlamaForCausalLM"],
    "vocab_size":2048,"hidden_size":256,"intermediate_size":688,"num_hidden_layers":8,
    "num_attention_heads":4,"num_key_value_heads":4,"head_dim":64,
    "max_position_embeddings":256,"rms_norm_eps":1e-6,"rope_theta":10000.0,
    "tie_word_embeddings":false})",
                           "bench config");
  return gb::parse_config(j, "bench config");
}

gb::CausalLM fresh_model(const gb::ModelConfig& c) {
  torch::manual_seed(1);
  gb::CausalLM m(c);
  gb::init_weights(*m, 0.02);
  return m;
}

struct Row {
  std::string label;
  bool ok = false;
  std::string error;
  int64_t added = 0, trainable = 0, base = 0;
  double median_ms = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Row run(const gb::ModelConfig& c, const nlohmann::json* plan_json, int steps, int warmup) {
  Row row;
  gb::CausalLM model = fresh_model(c);
  row.base = gb::count_parameters(*model);
  grow::GrowthResult r;
  try {
    grow::GrowthPlan plan = plan_json ? grow::parse_plan(*plan_json)
                                      : grow::parse_plan(nlohmann::json{{"variant", "full"}});
    row.label = plan_json ? plan.label() : "base (full fine-tuning)";
    grow::ApplyContext ctx;
    ctx.seed = 3;
    if (plan.variant == grow::Variant::Ewc) {
      for (const auto& item : model->named_parameters(true)) {
        ctx.fisher[item.key()] = torch::ones_like(item.value());
      }
    }
    r = grow::apply_plan(*model, plan, ctx);
  } catch (const std::exception& e) {
    std::string msg = e.what();
    row.error = msg.substr(0, msg.find('\n'));
    if (row.label.empty()) row.label = plan_json ? plan_json->dump() : "base";
    return row;
  }
  row.added = r.added_params();
  row.trainable = r.trainable_params;
  std::vector<torch::Tensor> params;
  for (const auto& g : r.groups) {
    for (const auto& p : g.params) params.push_back(p);
  }
  torch::optim::AdamW opt(params, torch::optim::AdamWOptions(1e-4));
  auto gen = at::detail::createCPUGenerator(42);
  auto ids = torch::randint(0, c.vocab_size, {kBatch, kLength}, gen, torch::kLong);
  gb::ForwardOptions options;
  options.domain_labels = (torch::arange(kBatch) % 2).to(torch::kFloat);
  model->train();
  std::vector<double> times;
  for (int s = 0; s < warmup + steps; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<gb::AuxTerm> aux;
    options.aux = &aux;
    auto logits = model->forward(ids, options);
    auto loss = F::cross_entropy(logits.narrow(1, 0, kLength - 1).reshape({-1, c.vocab_size}),
                                 ids.narrow(1, 1, kLength - 1).reshape({-1}));
    for (const auto& a : aux) loss = loss + a.coefficient * a.value;
    for (const auto& t : r.loss_terms) loss = loss + t->coefficient() * t->compute();
    opt.zero_grad();
    loss.backward();
    opt.step();
    const auto t1 = std::chrono::steady_clock::now();
    if (s >= warmup) times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  row.median_ms = median(times);
  row.ok = true;
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const int warmup = argc > 2 ? std::max(0, std::atoi(argv[2])) : 1;
  torch::set_num_threads(1);
  gb::log::set_level(spdlog::level::warn);
  const gb::ModelConfig c = bench_config();

  // Every plan form of grow/plan.h (SCALE preserve takes no l_fp).
  const char* const kPlans[] = {
      R"({"variant":"full"})",
      R"({"variant":"freeze","bottom":2})",
      R"({"variant":"lora","rank":8,"alpha":16,"targets":["q","v","gate","up","down"]})",
      R"({"variant":"grow","mode":"freeze","k":2,"layers":[0,3]})",
      R"({"variant":"grow","mode":"freeze","k":2,"layers":"all"})",
      R"({"variant":"grow","mode":"train","k":2,"layers":[0,3]})",
      R"({"variant":"grow","mode":"train","k":2,"layers":"all"})",
      R"({"variant":"scale","mode":"preserve","d_up":64,"p_up":128,"init":"svd,zero"})",
      R"({"variant":"scale","mode":"adapt","d_up":64,"p_up":128,"l_fp":1,"init":"svd,zero"})",
      R"({"variant":"scale","mode":"route","d_up":64,"p_up":128,"l_fp":1,"tau":0.5,)"
      R"("init":"svd,zero"})",
      R"({"variant":"depth","style":"llama-pro","count":2})",
      R"({"variant":"depth","style":"adept","layers":[1,3]})",
      R"({"variant":"neutral-residues","gate":"elu","layers":"all","budget":0.2,"alpha":100})",
      R"({"variant":"neutral-residues","gate":"sigmoid","layers":"all","budget":0.2})",
      R"({"variant":"adapters","layers":"all","budget":0.2})",
      R"({"variant":"ewc","lambda":1.0})",
      R"({"variant":"loramoe","experts":4,"top_k":2,"rank":4})",
      R"({"variant":"mh-moe","heads":4,"experts":4,"top_k":1,"rank":4})",
  };

  std::printf(
      "bench_grow_step: Llama-shaped, %lld layers, d = %lld, p = %lld, vocab %lld; "
      "batch %lld x %lld; AdamW; median of %d step(s) after %d warm-up; 1 thread; "
      "LibTorch %s\n\n",
      static_cast<long long>(c.num_layers), static_cast<long long>(c.hidden_size),
      static_cast<long long>(c.intermediate_size), static_cast<long long>(c.vocab_size),
      static_cast<long long>(kBatch), static_cast<long long>(kLength), steps, warmup,
      TORCH_VERSION);
  const Row base = run(c, nullptr, steps, warmup);
  if (!base.ok) {
    std::fprintf(stderr, "base step failed: %s\n", base.error.c_str());
    return 1;
  }
  std::printf("| %-46s | %11s | %11s | %8s | %9s | %8s |\n", "variant", "added", "trainable",
              "train %", "step ms", "vs base");
  std::printf("|%s|%s|%s|%s|%s|%s|\n", std::string(48, '-').c_str(), std::string(13, '-').c_str(),
              std::string(13, '-').c_str(), std::string(10, '-').c_str(),
              std::string(11, '-').c_str(), std::string(10, '-').c_str());
  auto print = [&](const Row& r) {
    if (!r.ok) {
      std::printf("| %-46s | %11s | %11s | %8s | %9s | %8s |  %s\n", r.label.c_str(), "n/a", "n/a",
                  "n/a", "n/a", "n/a", r.error.c_str());
      return;
    }
    std::printf("| %-46s | %11lld | %11lld | %7.1f%% | %9.1f | %7.2fx |\n", r.label.c_str(),
                static_cast<long long>(r.added), static_cast<long long>(r.trainable),
                100.0 * r.trainable / r.base, r.median_ms, r.median_ms / base.median_ms);
    std::fflush(stdout);
  };
  print(base);
  for (const char* p : kPlans) {
    const nlohmann::json j = nlohmann::json::parse(p);
    print(run(c, &j, steps, warmup));
  }
  return 0;
}
