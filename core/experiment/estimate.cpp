#include "experiment/estimate.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "eval/evaluate.h"
#include "experiment/preset.h"
#include "experiment/spec.h"
#include "grow/variant.h"
#include "model/frozen_dtype.h"
#include "model/runtime.h"
#include "train/chunked_ce.h"
#include "util/error.h"
#include "util/json.h"

namespace gb::experiment {

namespace {

constexpr int64_t kFloat = 4;  // gradients and AdamW moments are float32
// Measured: autograd's peak holds 1.35 × the tensors layer_elements_per_token lists (the
// products' reshaped copies and the backward's working tensors beside them;
// docs/performance.md, "Memory estimates": peak RSS of two steps at 4, 8, 12 and 24 layers
// of three shapes). What a plan adds comes from its variant (VariantEstimate).
constexpr int64_t kKeptPercent = 135;

// Elements autograd keeps per token for one decoder layer of `c` at sequence length `t`
// (model/modules.cpp; the fused kernels save what the plain ops would):
//   4 d          the block's input and normalised input, the residual after attention and
//                the MLP's normalised input (2 d more with sandwich norms)
//   q, k, v      as the products q·kᵀ and P·v read them: k and v expanded to the q heads
//                when the model groups its kv heads (a copy), the kv width otherwise
//   (q, k)       the normalised inputs of q_norm and k_norm (Qwen3, Gemma 3)
//   H · t        the attention probabilities the softmax keeps (one more with a softcap)
//   qd           the attention output (the o projection's input)
//   3 p or 2 p   gate and up (the SwiGLU keeps both) and the down projection's input
int64_t layer_elements_per_token(const ModelConfig& c, int64_t t) {
  const int64_t d = c.hidden_size, p = c.intermediate_size;
  const int64_t qd = c.num_heads * c.head_dim, kvd = c.num_kv_heads * c.head_dim;
  const int64_t kv_as_read = c.num_heads != c.num_kv_heads ? qd : kvd;
  int64_t n = 4 * d + (c.sandwich_norms ? 2 * d : 0);
  n += qd + 2 * kv_as_read;
  if (c.qk_norm) n += qd + kvd;
  n += c.num_heads * t * (c.attn_softcap ? 2 : 1);
  n += qd;
  n += c.gated_mlp ? 3 * p : 2 * p;
  return n;
}

}  // namespace

int64_t dtype_bytes(const std::string& dtype) {
  if (dtype == "float32" || dtype == "float" || dtype == "fp32") return 4;
  if (dtype == "bfloat16" || dtype == "float16" || dtype == "half" || dtype == "bf16" ||
      dtype == "fp16")
    return 2;
  if (dtype == "float64" || dtype == "double") return 8;
  return 4;
}

int64_t state_bytes(int64_t total_params, int64_t trainable_params, const std::string& dtype) {
  return dtype_bytes(dtype) * total_params + 3 * kFloat * trainable_params;
}

MemoryEstimate estimate_memory(const ModelConfig& c, const grow::GrowthPlan& plan,
                               const StepShape& shape) {
  MemoryEstimate e;
  e.params = c.param_count();
  grow::GrowthPlan p = plan;  // resolve() may fill in values (a rank from a budget)
  const grow::VariantModule& m = grow::variant_module(p.variant);
  if (m.resolve) m.resolve(*p.params.get(), c, "plan");
  const grow::VariantEstimate v = m.estimate(*p.params.get(), c);
  e.added = v.added;
  e.trainable = std::max<int64_t>(0, v.trainable);
  e.layers_touched = v.layers_touched;
  e.note = v.note;

  const int64_t bytes = dtype_bytes(shape.dtype);
  const int64_t total = e.params + e.added;
  e.weights = bytes * total;
  e.load = e.weights + kRuntimeBytes;
  if (!shape.frozen_dtype.empty() && dtype_bytes(shape.frozen_dtype) < bytes) {
    // The frozen part narrow (its norms and biases too, a rounding error), the trainable
    // part in the run's dtype.
    e.weights = dtype_bytes(shape.frozen_dtype) * (total - e.trainable) + bytes * e.trainable;
  }
  e.gradients = kFloat * e.trainable;
  e.optimizer = 2 * kFloat * e.trainable;
  // EWC keeps an anchor and a Fisher value per trainable parameter.
  if (p.effective_ewc()) e.optimizer += 2 * kFloat * e.trainable;

  const int64_t t = shape.seq_len, d = c.hidden_size;
  e.tokens = shape.batch_size * t;
  // Every layer from the lowest one with a graph keeps its activations (the variant says
  // which: below the lowest trainable layer of a plan that freezes the embedding nothing
  // is kept), the added layers too; what else the plan keeps its variant tells (by default
  // about one value per added parameter and hidden unit).
  int64_t layers = c.num_layers - std::clamp<int64_t>(v.graph_from_layer, 0, c.num_layers);
  int64_t extra = 0;
  if (v.added_layers >= 0) {
    layers += v.added_layers;
  } else if (v.kept_per_token >= 0) {
    extra = v.kept_per_token;
  } else if (d > 0) {
    extra = e.added / d;
  }
  // The final norm's input and output.
  int64_t elements = layers * layer_elements_per_token(c, t) * kKeptPercent / 100 + extra + 2 * d;
  if (shape.checkpointing) {
    // Activation checkpointing: every layer keeps its input, and one layer at a time its
    // whole graph (recomputed in the backward pass).
    const int64_t extra_one =
        extra / (v.kept_layers > 0 ? v.kept_layers : std::max<int64_t>(1, layers));
    elements = layers * d + layer_elements_per_token(c, t) * kKeptPercent / 100 + extra_one + 2 * d;
  }
  e.activations_per_token = bytes * elements;
  e.activations = e.activations_per_token * e.tokens;
  if (shape.checkpointing && v.embedding_gradient_copies) {
    // Measured: with checkpointing the peak comes late in the backward pass, when every
    // gradient is alive and the (V, d) embedding's gradient has two more float32 copies
    // beside it (the head's product and the lookup's dense gradient, then summed).
    e.gradients += 2 * kFloat * c.vocab_size * d;
  }
  // Training: the log-softmax the cross-entropy keeps, its gradient and the logits'
  // gradient, float32; the logits themselves in the model's dtype when it is not float32.
  const int64_t vocab = c.vocab_size;
  const int64_t logit_bytes = 3 * kFloat + (bytes != kFloat ? bytes : 0);
  e.ce_chunk = train::ce_chunk_tokens(shape.ce_chunk, e.tokens, vocab);
  if (e.ce_chunk > 0) {
    // Chunked: one chunk's float32 logits and its softmax (or the logsumexp's exponentials),
    // the logits in the model's dtype first where it is not float32.
    e.logits = (2 * kFloat + (bytes != kFloat ? bytes : 0)) * vocab * e.ce_chunk;
  } else {
    e.logits = logit_bytes * vocab * e.tokens;
  }
  if (shape.checkpointing) {
    // The cross-entropy's tensors are freed before the layers' gradients form (gradients are
    // freed after every step): the peak is the larger of the two moments, not their sum. The
    // (V, d) embedding's gradient forms with the head's, beside the logits.
    const int64_t embedding_grad = v.embedding_gradient_copies ? kFloat * vocab * d : 0;
    e.apart = std::clamp<int64_t>(e.gradients - embedding_grad, 0, e.logits);
  }
  // Evaluation: the logits and their log-softmax.
  e.eval = (kFloat + bytes) * vocab * eval::lm_eval_rows(shape.eval_batch_size, t, vocab) * t;
  e.runtime = kRuntimeBytes;
  return e;
}

ModelConfig spec_model_config(const ExperimentSpec& spec) {
  if (spec.model.preset) {
    const PresetSpec& ps = *spec.model.preset;
    return parse_config(tiny_llama_config(ps.vocab_size, ps.config), "preset " + ps.preset);
  }
  const std::filesystem::path cfg = std::filesystem::path(spec.model.path) / "config.json";
  if (!std::filesystem::exists(cfg)) fail("{} has no config.json", spec.model.path);
  return load_config(cfg.string());
}

namespace {

// The dtype of the spec's checkpoint: its weights' headers, or config.json's torch_dtype
// where the folder holds no weights (a shape to estimate); a preset's is float32.
std::optional<c10::ScalarType> stored_dtype(const ExperimentSpec& spec) {
  if (spec.model.preset) return c10::kFloat;
  try {
    return checkpoint_dtype(spec.model.path);
  } catch (const std::exception&) {
    // No weights to read: config.json's word for it.
  }
  try {
    const auto j =
        json::parse_file((std::filesystem::path(spec.model.path) / "config.json").string());
    if (j.contains("torch_dtype") && j["torch_dtype"].is_string()) {
      return parse_dtype(j["torch_dtype"].get<std::string>());
    }
  } catch (const std::exception&) {
    // No readable config.json either: the estimate keeps every weight in the run's dtype.
  }
  return std::nullopt;
}

}  // namespace

StepShape step_shape(const ExperimentSpec& spec) {
  StepShape s;
  s.batch_size = spec.train.batch_size;
  s.seq_len = spec.train.seq_len;
  s.eval_batch_size = spec.eval.batch_size;
  s.dtype = spec.dtype;
  if (auto narrow =
          frozen_storage_dtype(spec.frozen_dtype, parse_dtype(spec.dtype), stored_dtype(spec))) {
    s.frozen_dtype = dtype_name(*narrow);
  }
  s.ce_chunk = spec.train.ce_chunk;
  s.checkpointing = spec.train.checkpointing;
  return s;
}

std::optional<int64_t> available_memory_bytes() {
  if (const char* env = std::getenv("GB_MEM_AVAILABLE_MB")) {
    char* end = nullptr;
    const double mb = std::strtod(env, &end);
    if (end != env && *end == '\0' && mb >= 0) return static_cast<int64_t>(mb * 1024 * 1024);
  }
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    int64_t kb = 0;
    if (fields >> kb) return kb * 1024;
  }
  return std::nullopt;
}

std::string format_bytes(int64_t bytes) {
  const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
  if (mib >= 1024.0) return fmt::format("{:.2f} GiB", mib / 1024.0);
  return fmt::format("{:.1f} MiB", mib);
}

}  // namespace gb::experiment
