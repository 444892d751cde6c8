#pragma once
// One training step over exactly the plan's trainable set: forward on a (possibly
// accumulated) batch, next-token cross-entropy plus the variant's extra loss terms (aux terms
// collected during the forward pass, model-level terms such as EWC), gradient clipping and
// an AdamW update. Non-finite losses stop training with DivergedError naming the step and
// the term. Checkpoints hold only the trainable tensors, the optimizer state, the step and
// the RNG state; the plan rebuilds the rest.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "data/packing.h"
#include "data/torch_batch.h"
#include "grow/growth.h"
#include "model/modules.h"
#include "train/optimizer.h"
#include "util/error.h"

namespace gb::dist {
class Group;
class GradientSync;
}  // namespace gb::dist

namespace gb::train {

class DivergedError : public Error {
 public:
  DivergedError(const std::string& message, int64_t step_, std::string term_)
      : Error(message), step(step_), term(std::move(term_)) {}
  int64_t step;
  std::string term;
};

struct TrainOptions {
  AdamWOptions adamw;
  Schedule schedule;
  double clip = 1.0;             // max global gradient norm; <= 0: no clipping
  int64_t accumulation = 1;      // micro-batches per optimizer step
  bool check_every_step = true;  // read the loss on the host every step (NaN check); on
                                 // CUDA the runner sets false and checks at log intervals
  // Data-parallel (dist/group.h): every rank passes the same global micro-batches to step()
  // and trains on its block of rows of each; the loss is normalised by the global target
  // count, the trainable gradients are summed over the ranks in buckets of `bucket_bytes`,
  // and clipping and the update act on the summed gradient, so the numbers equal one
  // process's. Null or a world of one: a single process.
  std::shared_ptr<dist::Group> group;
  int64_t bucket_bytes = 25 << 20;
  // Row shards (spec train.row_shards): every micro-batch (this rank's rows of it) is split
  // into this many contiguous blocks of rows whose gradients are computed separately, each
  // with its own forward and backward pass, and summed in block order. The loss is the same
  // sum as one block's (normalised by the micro-batch's target count), so results equal
  // 1 block's up to float32 rounding; for a given number of shards they are the same
  // whatever the number of threads that compute them. On the CPU the blocks run on up to
  // `shard_threads` threads at once (0: as many as the cores OpenBLAS would use, divided by
  // LibTorch's intra-op threads), each product single-threaded: the small element-wise
  // operations of a step scale over cores this way, which they do not inside one pass.
  int64_t row_shards = 1;
  int64_t shard_threads = 0;
  // Chunked cross-entropy (spec train.ce_chunk; train/chunked_ce.h): kCeChunkAuto (-1)
  // chunks only where a block's full float32 logits would exceed 256 MiB (never for the
  // tiny presets, whose numbers stay bit for bit), 0 never, N > 0 N tokens at a time. Needs
  // a plain or tied LM head (no SCALE Route forward); auto falls back to the plain path
  // where the head is another, an explicit N fails.
  int64_t ce_chunk = -1;
  // Activation checkpointing per decoder layer (spec train.checkpointing; ForwardOptions::
  // checkpoint_layers): each layer keeps only its input and recomputes its forward pass in
  // the backward pass. The same numbers as without (tests/tst_memory.cpp).
  bool checkpointing = false;
};

struct StepStats {
  int64_t step = 0;                     // optimizer steps done after this one
  double loss = 0;                      // total loss (mean over micro-batches)
  double lm_loss = 0;                   // next-token cross-entropy part
  std::map<std::string, double> terms;  // coefficient · value of every extra term
  double grad_norm = 0;                 // before clipping
  double lr = 0;                        // scheduled base learning rate
  int64_t tokens = 0;                   // target tokens in the step (all ranks)
  int64_t original_batches = 0;         // micro-batches from the original domain
  bool synced = false;                  // whether the values above were read from the device
};

// Mean next-token cross-entropy over targets (labels -100 ignored); logits (B, T, V).
torch::Tensor lm_loss(const torch::Tensor& logits, const torch::Tensor& labels);

class Trainer {
 public:
  // Optimizer groups come from the GrowthResult's groups (split into decayed matrices and
  // undecayed vectors); registered names key the optimizer state in checkpoints.
  Trainer(CausalLM model, const grow::GrowthResult& growth, const TrainOptions& options,
          const c10::Device& device);

  // One optimizer step over `micro` (accumulation = micro.size()), with the learning rate
  // of options().schedule at the optimizer's step count.
  StepStats step(const std::vector<data::Batch>& micro);
  // The same with an explicit schedule and position in it (task sequences restart the
  // schedule for every task).
  StepStats step(const std::vector<data::Batch>& micro, const Schedule& schedule,
                 int64_t schedule_step);

  AdamW& optimizer() { return *m_opt; }
  int64_t steps_done() const { return m_opt->step_count(); }
  // ADEPT: learning-rate multiplier of every group of `layer`/`unit` (see OptimGroup).
  void set_lr_scale(const std::string& group_name, double scale);
  const TrainOptions& options() const { return m_options; }
  // Data-parallel gradient sums (null on one process).
  const dist::GradientSync* gradient_sync() const { return m_sync.get(); }
  // Threads that compute the row shards of a micro-batch at once (1: one after another).
  int64_t shard_threads() const { return m_shard_threads; }

  // Writes trainable.safetensors, optimizer.safetensors and trainer.json into `dir`
  // (atomically per file). `extra` is stored in trainer.json (data positions, ...).
  void save_checkpoint(const std::string& dir, const nlohmann::json& extra) const;
  // Restores what save_checkpoint wrote; returns `extra`.
  nlohmann::json load_checkpoint(const std::string& dir);

 private:
  CausalLM m_model;
  std::vector<std::shared_ptr<grow::LossTerm>> m_terms;
  TrainOptions m_options;
  c10::Device m_device;
  std::unique_ptr<AdamW> m_opt;
  std::shared_ptr<dist::GradientSync> m_sync;
  int64_t m_shard_threads = 1;

  struct PartLoss;
  // Threads for the work of a step spread over the trainable tensors (gradient sums,
  // clipping, AdamW): the shard threads when the step is sharded on the CPU, else 1.
  int64_t parallel_threads() const;
  // Forward pass and loss of one block of rows: next-token cross-entropy (its mean, or with
  // `share` < 1 its sum over `global_targets`), aux terms weighted by `share`, and the
  // model-level terms when `model_terms` (else their names only).
  // `original_share`: this block's share of the micro-batch's original-domain rows, the
  // weight of terms that are means over those rows (AuxTerm::original_rows_only).
  // Tokens per chunk of the cross-entropy for this block (0: the plain path).
  int64_t ce_chunk_for(const data::BatchTensors& bt) const;
  PartLoss part_loss(const data::BatchTensors& bt, double share, double original_share,
                     int64_t global_targets, bool sum_form, bool model_terms);
  // One micro-batch (`global_targets` target tokens in all its rows) split into
  // options().row_shards blocks (see TrainOptions); adds the summed gradient of loss / n to
  // the trainable tensors' gradients.
  void sharded_micro_batch(const data::Batch& batch, int64_t global_targets, double n,
                           int64_t step_index, torch::Tensor& total_sum, torch::Tensor& lm_sum,
                           std::map<std::string, torch::Tensor>& term_sum);
};

}  // namespace gb::train
