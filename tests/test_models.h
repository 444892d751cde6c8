#pragma once
// Models for tests: the Hugging Face reference fixtures of every family, and a Gemma 3 text
// model (no fixture exists for it) built from a config with random weights.

#include <algorithm>
#include <string>
#include <vector>

#include <torch/torch.h>

#include "model/config.h"
#include "model/hf_io.h"
#include "model/modules.h"
#include "util/json.h"
#include "util/log.h"

namespace gb::test {

inline std::string fixture_dir(const std::string& family) {
  return std::string(GB_SHARED_DIR) + "/fixtures/hf-reference/" + family;
}

// Every family the core loads: the six fixtures plus "gemma3_text".
inline std::vector<std::string> all_families() {
  return {"llama", "qwen2", "qwen3", "gemma", "gpt_neox", "gpt2", "gemma3_text"};
}

inline ModelConfig gemma3_config(int64_t layers = 3) {
  auto j = gb::json::parse(R"({"model_type":"gemma3_text","architectures":["Gemma3ForCausalLM"],
    "vocab_size":512,"hidden_size":64,"intermediate_size":160,"num_hidden_layers":3,
    "num_attention_heads":4,"num_key_value_heads":2,"head_dim":32,"sliding_window":8,
    "sliding_window_pattern":2,"query_pre_attn_scalar":24,"rope_local_base_freq":10000.0,
    "rope_theta":1000000.0,"max_position_embeddings":128,"rms_norm_eps":1e-6,
    "tie_word_embeddings":true})",
                           "gemma3 test config");
  j["num_hidden_layers"] = layers;
  return parse_config(j, "gemma3 test config");
}

// A model of `family` with the fixture's weights (or random weights for gemma3_text), in
// float32 on the CPU.
inline CausalLM load_family(const std::string& family) {
  if (family == "gemma3_text") {
    torch::manual_seed(7);
    CausalLM m(gemma3_config());
    init_weights(*m, 0.2);
    // Non-trivial norm weights, as the fixtures have.
    torch::NoGradGuard ng;
    for (auto& item : m->named_parameters(true)) {
      if (item.key().find("norm") != std::string::npos) item.value().normal_(0.0, 0.1);
    }
    m->eval();
    return m;
  }
  return load_hf_model(fixture_dir(family)).model;
}

// Random token ids (B, T) valid for the model.
inline torch::Tensor random_ids(const CausalLMImpl& m, int64_t b = 2, int64_t t = 17,
                                uint64_t seed = 1234) {
  auto gen = at::detail::createCPUGenerator(seed);
  return torch::randint(3, m.config.vocab_size, {b, t}, gen, torch::kLong);
}

// The first position where two lists of tensors differ (one defined and not the other, or
// values not torch::equal: bit for bit up to the sign of zero), or -1 where none does.
inline int64_t first_unequal(const std::vector<torch::Tensor>& a,
                             const std::vector<torch::Tensor>& b) {
  if (a.size() != b.size()) return static_cast<int64_t>(std::min(a.size(), b.size()));
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].defined() != b[i].defined()) return static_cast<int64_t>(i);
    if (a[i].defined() && !torch::equal(a[i], b[i])) return static_cast<int64_t>(i);
  }
  return -1;
}

inline void quiet_logs() {
  gb::log::set_level(spdlog::level::warn);
}

}  // namespace gb::test
