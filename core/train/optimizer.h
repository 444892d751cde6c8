#pragma once
// AdamW over exactly the trainable parameters, in named groups with their own learning-rate
// multipliers (ADEPT's unit-wise rates address groups by layer and unit). Same update as
// torch.optim.AdamW (decoupled weight decay, bias-corrected moments). Its state is plain
// named tensors, so a checkpoint stores it in safetensors and a resumed run continues
// bit-exactly. On the CPU, float32 tensors are updated in one pass each (adamw_kernel.h),
// with the same numbers as the per-tensor in-place ops used elsewhere (CUDA, bfloat16).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <torch/types.h>

#include "train/adamw_kernel.h"

namespace gb::train {

struct AdamWOptions {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.0;
};

struct OptimGroup {
  std::string name;  // e.g. "layers.3.q"
  std::vector<torch::Tensor> params;
  std::vector<std::string> names;  // registered parameter names (checkpoint keys)
  double lr_scale = 1.0;           // multiplies the scheduled learning rate
  bool decay = true;               // weight decay applies (off for norms and biases)
};

class AdamW {
 public:
  AdamW(std::vector<OptimGroup> groups, const AdamWOptions& options);

  // One update with learning rate lr (schedule already applied) · group.lr_scale.
  // Parameters without a gradient are skipped (their moments do not advance).
  // threads > 1: the tensors' updates spread over that many threads (same numbers).
  // grad_scale (a 0-dim float tensor, gradient clipping's coefficient): every gradient is
  // multiplied by it first, as clip_grad_norm_'s in-place mul_ would.
  void step(double lr, int64_t threads = 1, const torch::Tensor& grad_scale = {});
  // Off: every tensor through the per-tensor ops (to compare; the numbers are the same).
  void set_fused(bool on) { m_fused = on && adamw_fused_available(); }
  bool fused() const { return m_fused; }
  void zero_grad();

  std::vector<OptimGroup>& groups() { return m_groups; }
  const std::vector<OptimGroup>& groups() const { return m_groups; }
  int64_t step_count() const { return m_step; }
  const AdamWOptions& options() const { return m_options; }
  std::vector<torch::Tensor> parameters() const;

  // Named state tensors: "<param name>.exp_avg", "<param name>.exp_avg_sq", plus the step
  // counter in `step`. load_state checks every name and shape.
  std::vector<std::pair<std::string, torch::Tensor>> state() const;
  void load_state(const std::map<std::string, torch::Tensor>& tensors, int64_t step);

 private:
  std::vector<OptimGroup> m_groups;
  AdamWOptions m_options;
  int64_t m_step = 0;
  bool m_fused = false;
  std::vector<std::vector<torch::Tensor>> m_exp_avg, m_exp_avg_sq;
};

// Learning-rate schedule: linear warm-up over `warmup` steps ((step+1)/warmup), then constant,
// linear decay to min_ratio·lr, or cosine decay to min_ratio·lr at `total` steps.
struct Schedule {
  std::string kind = "cosine";  // "constant", "linear", "cosine"
  int64_t warmup = 0;
  int64_t total = 1;
  double min_ratio = 0.1;
  double factor(int64_t step) const;  // multiplier of the base lr at step (0-based)
};

}  // namespace gb::train
