#pragma once
// Closed-form memory estimates of a training run, from the model's config.json and the plan
// alone (no weights loaded, no LibTorch work): what `growbench-cli run --dry-run` prints per
// plan, what the Grow planner shows as "Estimated memory", and what `run` compares with the
// machine's available memory before it loads anything (docs/performance.md, "Memory
// estimates").
//
// The peak of a training step on the CPU is
//   weights + gradients + optimizer state + activations + logits,
// with weights the elements of every parameter (base and added) at the spec's dtype,
// gradients 1 × and AdamW's two moments 2 × the trainable parameters in float32 (the
// moments are allocated with the trainer, the gradients live until the step's end), the
// activations autograd keeps for the backward pass (per token and layer: the block's inputs
// and normalised inputs, q, k and v as the attention product reads them, the attention
// probabilities (heads × sequence length), the attention output, the MLP's gate, up and
// hidden values; see estimate.cpp; from the lowest layer with a graph up, as the variant
// tells: VariantEstimate::graph_from_layer) times the tokens of a micro-batch, and the logits: the
// log-softmax the cross-entropy keeps, its gradient and the logits' gradient, vocabulary
// floats each per token. An evaluation (no gradients) holds weights, optimizer state and
// the evaluation batch's logits and log-softmax; loading holds every parameter at the run's
// dtype before the frozen part is narrowed (frozen_dtype); the largest of the three is the
// peak. Each adds 32 MiB of runtime buffers (BLAS, autograd, the allocator's slack). The listed
// activations are scaled by factors measured on real steps (1.35 for a layer's tensors:
// estimate.cpp; 1.41 × the output width of each LoRA target: grow/variants/lora.cpp, as what any
// plan adds comes from its variant's VariantEstimate); tests/tst_estimate.cpp checks the estimate
// against the measured peak RSS growth of real training steps within 15 % (docs/performance.md,
// "Memory estimates"). With train.checkpointing the activations are every layer's input plus one
// layer's tensors (recomputed in the backward pass); with a chunked cross-entropy (train.ce_chunk,
// train/chunked_ce.h) the logits are one chunk's float32 logits and softmax.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "grow/plan.h"
#include "model/config.h"

namespace gb::experiment {

struct ExperimentSpec;

// The shape of the work a run does per step.
struct StepShape {
  int64_t batch_size = 8;       // rows per micro-batch
  int64_t seq_len = 128;        // tokens per row
  int64_t eval_batch_size = 8;  // rows per evaluation batch (same seq_len)
  std::string dtype = "float32";
  // Where the frozen matrices are kept narrower than `dtype` (spec frozen_dtype;
  // model/frozen_dtype.h): their dtype, else empty.
  std::string frozen_dtype;
  // train.ce_chunk (-1 auto, 0 never, N tokens; train/chunked_ce.h) and train.checkpointing.
  int64_t ce_chunk = -1;
  bool checkpointing = false;
};

// The runtime's working buffers (BLAS, autograd, allocator slack), measured.
constexpr int64_t kRuntimeBytes = 32LL << 20;

struct MemoryEstimate {
  int64_t params = 0;     // base model
  int64_t added = 0;      // added by the plan
  int64_t trainable = 0;  // trainable after the plan
  int layers_touched = 0;
  std::string note;  // the variant's caveat, if any
  // Bytes.
  int64_t weights = 0;
  int64_t gradients = 0;
  int64_t optimizer = 0;
  int64_t activations_per_token = 0;  // over all layers, training
  int64_t tokens = 0;                 // per micro-batch
  int64_t activations = 0;            // activations_per_token · tokens
  int64_t logits = 0;                 // training: the cross-entropy's vocabulary-wide tensors
  int64_t ce_chunk = 0;               // tokens per chunk of the cross-entropy (0: not chunked)
  int64_t eval = 0;                   // an evaluation batch's logits and log-softmax
  int64_t runtime = 0;                // working buffers and allocator slack
  // With checkpointing, what the sum counts twice: the logits are gone before the layers'
  // gradients form (late in the backward pass), so the smaller of the two is not at the peak.
  int64_t apart = 0;
  // Loading: the model is built and grown at the run's dtype before its frozen part is
  // narrowed (frozen_dtype), so every parameter is briefly there at the run's dtype.
  int64_t load = 0;

  double trainable_share() const {
    return params > 0 ? static_cast<double>(trainable) / static_cast<double>(params) : 0.0;
  }
  // weights + gradients + optimizer state: what the plan costs before any batch.
  int64_t state() const { return weights + gradients + optimizer; }
  int64_t training() const { return state() + activations + logits + runtime - apart; }
  int64_t evaluation() const { return weights + optimizer + eval + kRuntimeBytes; }
  // The peak of a run: the largest of a training step, an evaluation and the load.
  int64_t peak() const {
    const int64_t t = training() > evaluation() ? training() : evaluation();
    return t > load ? t : load;
  }
};

// Bytes of one element of a spec dtype ("float32", "bfloat16", "float16", ...).
int64_t dtype_bytes(const std::string& dtype);

// The estimate of `plan` on `config` (plan.params resolved against the config by the caller
// or here: a copy is resolved). Throws like the plan's own checks for a plan the config
// cannot take.
MemoryEstimate estimate_memory(const ModelConfig& config, const grow::GrowthPlan& plan,
                               const StepShape& shape);
// weights + gradients + optimizer of a plan from its parameter counts alone (what the Grow
// planner shows, which has no batch shape): the same formula as MemoryEstimate::state().
int64_t state_bytes(int64_t total_params, int64_t trainable_params,
                    const std::string& dtype = "float32");

// The model config a spec trains: the model folder's config.json, or the preset's (which
// needs no build). Reads one small file.
ModelConfig spec_model_config(const ExperimentSpec& spec);
StepShape step_shape(const ExperimentSpec& spec);

// Memory this process may still use: MemAvailable of /proc/meminfo, or nullopt where there
// is none. GB_MEM_AVAILABLE_MB overrides it (tests).
std::optional<int64_t> available_memory_bytes();
// Bytes of the running process itself before any model (the LibTorch runtime, tokenizer,
// data): added to an estimate where it is compared with the available memory.
constexpr int64_t kProcessOverheadBytes = 512LL << 20;

// "1.23 GiB", "456.7 MiB".
std::string format_bytes(int64_t bytes);

}  // namespace gb::experiment
