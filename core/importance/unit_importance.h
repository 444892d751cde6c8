#pragma once
// Unit importance (ADEPT §2.3 eqs. 4–5, Appendix C and E) for every unit of every layer
// (DecoderLayerImpl::units(): q, k, v, o, [q_norm, k_norm], [gate], up, down, input_norm,
// post_attn_norm, [pre_ffn_norm, post_ffn_norm]); a unit's parameters are all parameters of
// its module (weight and bias; every tensor of a grown unit).
//
// Loss. L = the mean next-token cross-entropy over ALL scored tokens of the probe set (the
// probe-set loss of probe_set.h). ADEPT's eq. 4 takes θ_j·∂L/∂θ_j with L the autoregressive
// loss on the probe corpus (the same L as its eq. 1), so the gradient is that of the loss
// over the whole probe set, not a mean of per-batch products. We accumulate it exactly:
// each batch contributes ∇(Σ_batch NLL / N_total), summed over batches (or, when the Fisher
// runs per sequence, Σ_s (n_s/N)·∇ mean_s NLL, which is the same gradient).
//
// Taylor (signed, as ADEPT writes it):  I_U = (1/|U|) Σ_{j∈U} θ_j · ∂L/∂θ_j
// Taylor, absolute form:                I_U = (1/|U|) Σ_{j∈U} |θ_j · ∂L/∂θ_j|
// Taylor, ADEPT's public code ("taylor-code"; ParameterImportanceCallback of its
// LLaMA-Factory fork):                  I_U = (1/|U|) Σ_{j∈U} |θ_j| · (1/B) Σ_b |∂L_b/∂θ_j|
//   L_b = the mean next-token loss of probe batch b (one backward per batch), B = the number
//   of batches. Magnitudes of per-batch gradients do not cancel across batches or entries.
//
// Why the signed form is degenerate. Summed over a matrix W, Σ_j θ_j·∂L/∂θ_j = d/dα L(αW) at
// α = 1: the derivative of the loss with respect to scaling the whole unit. Scaling q by α
// scales every attention score by α, and so does scaling k; scaling v or o scales the
// attention output by α; scaling up or down (SwiGLU: down(silu(gate·x) ⊙ up·x)) scales the
// MLP output by α. So (without biases or q/k norms, as in Llama) the pairs (q, k), (v, o)
// and (up, down) have the same Σ θ·∂L/∂θ, and their per-unit means differ only by the
// parameter counts (identical for equal shapes). The sign says whether growing
// the unit helps or hurts the loss, not how much the unit matters: a unit whose removal hurts
// most can get the most negative value. taylor-abs and taylor-code do not cancel.
// Fisher (ADEPT App. E eq. 13, summed over parameters as its layer-level Fisher is):
//                                       I_U = Σ_{j∈U} F_j,  F_j = E[(∂ log p / ∂θ_j)²]
// The expectation is empirical, over the probe data. FisherMode::PerSequence (default):
// one gradient per row (a packed window or a multiple-choice item) of the row's mean token
// log-likelihood, F_j = (1/S) Σ_s g_{s,j}²; this is the per-example empirical Fisher that EWC
// uses. FisherMode::PerBatch squares per-batch gradients of the batch's mean token
// log-likelihood, F_j = (1/nb) Σ_b g_{b,j}²: cheaper (one backward per batch) but, because a
// batch gradient averages B rows, smaller by up to a factor B where gradients are noise.
//
// Layer totals. Cumulation (ADEPT App. E eq. 11): Σ over all parameters of the layer's units
// (Σ_U Σ_{j∈U} of the per-parameter value), i.e. the sum over units of the unit SUMS (not of
// the per-unit means). Rank aggregation (App. E item 2): rank layers within each unit type
// (rank 1 = most important), average the ranks over unit types (result.h rank_aggregate).
//
// Gradients are needed for every parameter, so frozen parameters are made to require them
// for the duration of the probe and restored afterwards; parameter values never change.

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "importance/probe_options.h"
#include "importance/probe_set.h"
#include "importance/result.h"
#include "importance/sharding.h"
#include "model/modules.h"
#include "util/progress.h"

namespace gb::importance {

// FisherMode (PerSequence, PerBatch) and its names are declared in probe_options.h.

struct UnitOptions {
  bool fisher = true;  // also compute the Fisher (PerSequence costs one backward per row)
  // Also compute taylor-code: the per-batch gradient magnitudes (one more accumulator the
  // size of the parameters; with the PerSequence Fisher, two: a batch's gradient is summed
  // from its rows first).
  bool taylor_code = false;
  FisherMode fisher_mode = FisherMode::PerSequence;
  bool keep_parameter_fisher = false;  // fill UnitImportance::parameter_fisher
  // Non-empty: only these parameters (registered names) get gradients and a Fisher; the
  // unit tables are then left empty (they need every parameter of a unit).
  std::set<std::string> only;
  // Data-parallel: this rank runs only its batches; the gradient and Fisher sums, the loss
  // and the pass counts are summed over the ranks before the units are scored.
  const ProbeSharding* shard = nullptr;
  // Activation checkpointing per decoder layer in the probe's forward passes (as the spec's
  // train.checkpointing): each layer keeps only its input and runs again in the backward
  // pass. The same numbers, a third more work, and the activations of one layer at a time.
  bool checkpointing = false;
};

struct UnitImportance {
  std::vector<std::string> unit_names;              // (U) in order of first appearance
  std::vector<std::vector<int64_t>> numel;          // (L, U) parameters; 0 = the layer lacks it
  std::vector<std::vector<double>> taylor;          // (L, U) mean θ·g (kMissing where absent)
  std::vector<std::vector<double>> taylor_abs;      // (L, U) mean |θ·g|
  std::vector<std::vector<double>> fisher;          // (L, U) Σ F (empty unless computed)
  std::vector<std::vector<double>> taylor_sum;      // (L, U) Σ θ·g
  std::vector<std::vector<double>> taylor_abs_sum;  // (L, U) Σ |θ·g|
  // taylor-code (empty unless UnitOptions::taylor_code): |θ| · mean over batches of |g_b|.
  std::vector<std::vector<double>> taylor_code;      // (L, U) mean over the unit's entries
  std::vector<std::vector<double>> taylor_code_sum;  // (L, U) Σ over the unit's entries
  int64_t code_batches = 0;                          // B: batches whose |g_b| were summed
  double loss = 0;                                   // mean next-token loss on the probe set
  int64_t backward_passes = 0;
  std::vector<int64_t> batches_by_rank;  // sharded: the batches each rank ran
  bool has_fisher = false;
  bool has_taylor_code = false;
  FisherMode fisher_mode = FisherMode::PerSequence;
  // Registered parameter name → diagonal Fisher (same shape, float32, on the model's
  // device); every parameter of the model (embedding, head, norms), for EWC.
  std::map<std::string, torch::Tensor> parameter_fisher;

  // Layer totals: cumulation (sum over the layers' unit parameters) for "taylor",
  // "taylor-abs", "taylor-code" or "fisher".
  std::vector<double> cumulation(const std::string& method) const;
  // Result for one unit method: layers = cumulation, units = the (L, U) matrix, and
  // layer_mean_rank = rank aggregation of that matrix.
  ProbeResult result(const std::string& method) const;
};

// Runs the unit probe (Taylor always; taylor-code when options.taylor_code; Fisher when
// options.fisher). Progress stage
// "probe/units", one report per batch; cancellable.
UnitImportance unit_importance(CausalLMImpl& model, const ProbeSet& probes,
                               const UnitOptions& options = {}, Progress progress = {});

// The per-parameter diagonal Fisher for EWC (ApplyContext::fisher): registered name →
// tensor, every parameter of the model, or only those named in `only` (non-empty).
std::map<std::string, torch::Tensor> diagonal_fisher(
    CausalLMImpl& model, const ProbeSet& probes, FisherMode mode = FisherMode::PerSequence,
    Progress progress = {}, const std::set<std::string>& only = {},
    const ProbeSharding* shard = nullptr, std::vector<int64_t>* batches_by_rank = nullptr,
    bool checkpointing = false);

}  // namespace gb::importance
