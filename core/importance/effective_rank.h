#pragma once
// Effective rank of weight updates (Grow §4.4, Figure 5): for each layer's up projection W
// (the first MLP weight; dense_weight(), (p, d)), the effective rank of ΔW between
// checkpoints, as a layers × training-stages matrix.
//
// erank(M) = exp(H(p)), p_i = σ_i / Σ_j σ_j over the singular values of M, H(p) = −Σ p_i ln p_i
// (0·ln 0 = 0); computed in float64. It lies in [1, rank(M)]: a rank-1 matrix gives 1, the
// n×n identity gives n. The zero matrix (no update) has no spectrum to normalise; we define
// its effective rank as 0.
//
// ΔW per stage. Grow §4.4 writes ΔW = W_t − W_{t−1} "with t as the training step", i.e. the
// change between consecutive checkpoints: DeltaReference::Previous (the default; stage 1 is
// relative to the base model). DeltaReference::Base gives the cumulative change W_t − W_0
// relative to the base model instead.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <torch/types.h>

#include "importance/probe_options.h"
#include "importance/result.h"
#include "model/modules.h"
#include "util/progress.h"

namespace gb::importance {

double effective_rank(const torch::Tensor& matrix);

// DeltaReference (Previous, Base) and its names are declared in probe_options.h.

struct EffectiveRankStages {
  std::vector<std::string> stage_names;     // (S)
  std::vector<int64_t> stage_steps;         // (S) or empty
  std::vector<std::vector<double>> values;  // (L, S)
  DeltaReference reference = DeltaReference::Previous;

  ProbeResult result() const;  // method "effective-rank"; layers = the last stage
};

// The dense up projection (p, d) of every layer, float32 on the CPU.
std::vector<torch::Tensor> up_projections(CausalLMImpl& model);
// From a state dict with registered names ("model.layers.3.mlp.up_proj.weight"): every
// layer 0..L-1 present, as float32 CPU tensors. `context` names the source in errors.
std::vector<torch::Tensor> up_projections(const std::map<std::string, torch::Tensor>& state,
                                          const std::string& context);

// stages[s][l] = the up projection of layer l at stage s (s = 1..S); `base` the stage-0
// weights. Shapes must agree layer by layer.
EffectiveRankStages effective_rank_stages(const std::vector<torch::Tensor>& base,
                                          const std::vector<std::vector<torch::Tensor>>& stages,
                                          const std::vector<std::string>& stage_names,
                                          DeltaReference reference = DeltaReference::Previous);

// Loads each checkpoint folder (a Hugging Face folder or a GrowBench checkpoint of the same
// architecture) in order and computes the stages relative to `base`. Stage names are the
// folder names. Progress stage "probe/effective-rank", one report per checkpoint.
EffectiveRankStages effective_rank_of_checkpoints(
    CausalLMImpl& base, const std::vector<std::string>& folders,
    DeltaReference reference = DeltaReference::Previous, Progress progress = {});

}  // namespace gb::importance
