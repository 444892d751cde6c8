#pragma once
// The EWC penalty λ/2 · Σ_tasks Σ_i F_i (θ_i − θ*_i)² (Kirkpatrick et al. 2017) over a set
// of parameters, as a loss term of the trainer. Anchors are added per finished task
// (per-task mode: the penalties add up) or folded into one (online mode: F = γ·F + F_task,
// anchor = the latest values). Its state (anchors and Fishers) goes into checkpoints, so a
// resumed run has the same penalty.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <torch/types.h>

#include "grow/growth.h"
#include "grow/plan.h"

namespace gb::grow {

class EwcPenalty : public LossTerm {
 public:
  // `params`: the penalised parameters by name (the live tensors that train).
  EwcPenalty(const EwcOptions& options, std::vector<std::pair<std::string, torch::Tensor>> params);

  std::string name() const override { return "ewc"; }
  double coefficient() const override { return m_options.lambda / 2.0; }
  torch::Tensor compute() override;

  // Anchors the parameters' current values with `fisher` (name → tensor of the parameter's
  // shape; every penalised parameter must have one). Throws naming a missing or misshapen
  // entry.
  void add_task(const std::map<std::string, torch::Tensor>& fisher);
  // Anchored tasks (per-task mode), or how many tasks the online Fisher folds in.
  int64_t tasks() const { return m_tasks_seen; }
  const EwcOptions& options() const { return m_options; }

  // The state as named CPU tensors ("task<k>/anchor/<name>", "task<k>/fisher/<name>") and
  // back; load_state replaces the anchors.
  std::vector<std::pair<std::string, torch::Tensor>> state() const;
  void load_state(const std::map<std::string, torch::Tensor>& state);

 private:
  struct Anchor {
    std::vector<torch::Tensor> values, fisher;  // in the order of m_params
  };
  EwcOptions m_options;
  std::vector<std::pair<std::string, torch::Tensor>> m_params;
  std::vector<Anchor> m_anchors;
  int64_t m_tasks_seen = 0;
};

}  // namespace gb::grow
