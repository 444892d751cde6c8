// Benchmark of the importance probes (core/importance):
//  1. masking probe, cached (one base pass per batch, restarts from cached layer inputs)
//     against the naive loop (a full pass per bypassed layer): same model, same probe set,
//     same run, runs interleaved; the best of R runs each.
//  2. a full unit probe (Taylor: gradients of the probe-set loss for every unit of every
//     layer) on a random-weight Llama-shaped model of at least 50M parameters, with 1 and 2
//     intra-op threads.
// Usage: bench_probe [--repeats R] [--unit-repeats R] [--skip-units]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>

#include <torch/torch.h>

#include "importance/masking.h"
#include "importance/probe_set.h"
#include "importance/unit_importance.h"
#include "model/config.h"
#include "model/modules.h"
#include "util/log.h"

namespace imp = gb::importance;

namespace {

gb::ModelConfig llama_config(int64_t d, int64_t heads, int64_t p, int64_t layers, int64_t vocab) {
  nlohmann::json j = {{"model_type", "llama"},
                      {"architectures", {"LlamaForCausalLM"}},
                      {"hidden_size", d},
                      {"intermediate_size", p},
                      {"num_hidden_layers", layers},
                      {"num_attention_heads", heads},
                      {"num_key_value_heads", heads},
                      {"vocab_size", vocab},
                      {"max_position_embeddings", 2048},
                      {"rms_norm_eps", 1e-6},
                      {"rope_theta", 10000.0},
                      {"tie_word_embeddings", false}};
  return gb::parse_config(j, "bench config");
}

gb::CausalLM random_model(const gb::ModelConfig& c) {
  torch::manual_seed(1);
  gb::CausalLM m(c);
  gb::init_weights(*m, 0.02);
  m->eval();
  return m;
}

imp::ProbeSet random_probes(int64_t vocab, int64_t rows, int64_t t, int64_t b) {
  auto gen = at::detail::createCPUGenerator(42);
  auto ids = torch::randint(3, vocab, {rows * t + 1}, gen, torch::kLong);
  gb::data::TokenStream s;
  for (int64_t i = 0; i < ids.size(0); ++i) {
    s.tokens.push_back(static_cast<int32_t>(ids[i].item<int64_t>()));
  }
  s.offsets = {0, s.tokens.size()};
  imp::ProbeSetOptions o;
  o.seq_len = t;
  o.batch_size = b;
  return imp::pack_stream(s, o, "random tokens");
}

template <typename F>
double seconds(F&& f) {
  auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 3;
  int unit_repeats = 1;
  bool skip_units = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) repeats = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--unit-repeats") && i + 1 < argc) {
      unit_repeats = std::atoi(argv[++i]);
    }
    if (!std::strcmp(argv[i], "--skip-units")) skip_units = true;
  }
  gb::log::set_level(spdlog::level::warn);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // figures appear as they are measured
  torch::set_num_threads(1);
  std::printf("LibTorch %s, %d intra-op thread(s) unless stated\n\n", TORCH_VERSION,
              torch::get_num_threads());

  // 1. Masking: cached against naive. 24 layers (the ratio of layer forwards grows with L
  // towards 2); sizes fit the 2-core development machines.
  {
    auto c = llama_config(128, 4, 352, 24, 1024);
    auto m = random_model(c);
    auto probes = random_probes(c.vocab_size, 32, 128, 8);
    std::printf(
        "masking probe: Llama-shaped, L=%lld d=%lld p=%lld V=%lld, %lld parameters;\n"
        "probe set %lld rows x %lld tokens in %zu batches (%lld scored tokens)\n",
        (long long)c.num_layers, (long long)c.hidden_size, (long long)c.intermediate_size,
        (long long)c.vocab_size, (long long)gb::count_parameters(*m), (long long)probes.rows(),
        (long long)probes.batches[0].length(), probes.batches.size(),
        (long long)probes.scored_tokens);
    imp::MaskingResult cached, naive;
    auto run_cached = [&] {
      cached = imp::masking_importance(*m, probes, imp::MaskingMode::Cached);
    };
    auto run_naive = [&] { naive = imp::masking_importance(*m, probes, imp::MaskingMode::Naive); };
    run_cached();  // warm-up
    double best_cached = 1e30, best_naive = 1e30;
    for (int r = 0; r < repeats; ++r) {  // interleaved, so both see the same machine load
      best_cached = std::min(best_cached, seconds(run_cached));
      best_naive = std::min(best_naive, seconds(run_naive));
    }
    double max_diff = 0;
    for (size_t l = 0; l < cached.importance.size(); ++l) {
      max_diff = std::max(max_diff, std::abs(cached.importance[l] - naive.importance[l]));
    }
    std::printf("  cached: %.3f s (%lld layer forwards)\n", best_cached,
                (long long)cached.layer_forwards);
    std::printf("  naive:  %.3f s (%lld layer forwards)\n", best_naive,
                (long long)naive.layer_forwards);
    std::printf(
        "  speed-up cached vs naive: %.2fx (layer-forward ratio %.2fx); max |diff| %.2e;"
        " best of %d\n\n",
        best_naive / best_cached, double(naive.layer_forwards) / double(cached.layer_forwards),
        max_diff, repeats);
  }

  // 2. Full unit probe (Taylor) on >= 50M parameters.
  if (!skip_units) {
    auto c = llama_config(512, 8, 1536, 8, 32000);
    auto m = random_model(c);
    auto probes = random_probes(c.vocab_size, 4, 128, 2);
    std::printf(
        "unit probe (Taylor, signed and absolute, every unit of every layer):\n"
        "  Llama-shaped, L=%lld d=%lld p=%lld V=%lld, %.1fM parameters; %lld rows x "
        "%lld tokens in %zu batches\n",
        (long long)c.num_layers, (long long)c.hidden_size, (long long)c.intermediate_size,
        (long long)c.vocab_size, gb::count_parameters(*m) / 1e6, (long long)probes.rows(),
        (long long)probes.batches[0].length(), probes.batches.size());
    imp::UnitOptions o;
    o.fisher = false;
    auto run = [&] { imp::unit_importance(*m, probes, o); };
    for (int threads : {1, 2}) {
      torch::set_num_threads(threads);
      run();  // warm-up
      double best = 1e30;
      for (int r = 0; r < unit_repeats; ++r) best = std::min(best, seconds(run));
      std::printf("  %d thread(s): %.2f s (%.0f tokens/s), best of %d\n", threads, best,
                  probes.scored_tokens / best, unit_repeats);
    }
    torch::set_num_threads(1);
    o.fisher = true;
    o.fisher_mode = imp::FisherMode::PerBatch;
    std::printf("  Taylor + Fisher (per batch), 1 thread: %.2f s\n", seconds(run));
  }
  return 0;
}
