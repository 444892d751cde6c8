#pragma once
// Route statistics of the mixtures of LoRA experts (grow/moe.h), after
// ../shared/papers/mh-moe-multi-head-routing.txt §2.3 ("the paper"), measured on
// original-domain tokens (the paper's D_old: forgetting is measured there).
//
// For every bank (one per MLP linear, or one per layer beside the MLP) and every head m:
//   route r_m(token)   the set of experts the head selects (eq. 7; under top-1 the argmax
//                      expert, under top-k the set of k experts).
//   composition c      the tuple of per-head routes (c_1, …, c_C). The paper's compositions
//                      are tuples of feature labels read from the router input (eq. 3); we
//                      take the head structure of that input as the features: for MH-MoE the
//                      routes of its H heads (C = H), for LoRAMoE (one head) the experts that
//                      each of C = 4 equal slices of the router input would choose on its own,
//                      argmax_k of the slice's partial logit W_rt[:, slice] x_slice (C = 2 or
//                      1 when 4 does not divide d_in). The definition is GrowBench's: the
//                      paper leaves the features open and uses dataset labels.
//   p(c | m, r)        the distribution of compositions over the tokens routed to r by head m
//                      (eq. 8)
//   N_eff(m, r)        1 / Σ_c p(c | m, r)²   (eq. 9): 1 when every token of the route has one
//                      composition, up to the number of compositions when they spread evenly.
//   N_eff(bank)        the token-mass-weighted mean of N_eff(m, r) over heads and routes
//                      (Fig. 4's "old-task mass-weighted average").
//   usage(m, j)        the share of the head's selections that go to expert j (Σ_j = 1).
//
// The runner records them at the step-0 and the final evaluation as metrics
// route/<bank>/neff, route/<bank>/usage/<m>/<j> and route/neff (the mean over banks); see
// util/metrics.h.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <torch/types.h>

#include "data/packing.h"
#include "model/modules.h"

namespace gb::grow {

// One bank's counts.
struct BankRoutes {
  int64_t heads = 1, experts = 1, top_k = 1, composition_slices = 1;
  double tokens = 0;               // valid tokens seen
  std::vector<double> selections;  // (H·K) tokens selecting expert j at head m
  // Per head: route id → composition → tokens.
  std::vector<std::map<uint64_t, std::map<std::vector<int64_t>, double>>> joint;
};

// Collects the routes of every bank during forward passes (ForwardState::routes).
class RouteRecorder {
 public:
  // routes (N, H) int64 route ids, compositions (N, C) int64, selected (N, H, K) 0/1,
  // token_weights (N) 0/1 or undefined (all tokens valid).
  void record(const std::string& bank, int64_t top_k, const torch::Tensor& routes,
              const torch::Tensor& compositions, const torch::Tensor& selected,
              const torch::Tensor& token_weights);
  const std::map<std::string, BankRoutes>& banks() const { return m_banks; }

 private:
  std::map<std::string, BankRoutes> m_banks;
};

// Route ids (N, H) from the selection (N, H, K): the bit set of the selected experts (exact
// for K ≤ 63; larger banks hash the sorted expert indices).
torch::Tensor route_ids(const torch::Tensor& selected);

// Eq. 9 for one route: 1 / Σ_c p(c)², p from token counts. 0 for an empty route.
double effective_compositions(const std::map<std::vector<int64_t>, double>& counts);

struct RouteSummary {
  std::string bank;
  double tokens = 0;
  double neff = 0;                         // mass-weighted mean over heads and routes
  std::vector<std::vector<double>> usage;  // (H, K) shares, rows sum to 1
  int64_t composition_slices = 1;
};
std::vector<RouteSummary> summarise(const RouteRecorder& recorder);

// Runs the model over `batches` without gradients (original-domain tokens) and returns the
// summary of every bank; empty when the model has no routed experts.
std::vector<RouteSummary> route_statistics(CausalLMImpl& model,
                                           const std::vector<data::Batch>& batches,
                                           const c10::Device& device);

// Marks a module that is a bank of routed experts (grow/moe.h's banks derive from it), so that
// the statistics find the banks without knowing their kinds.
class RoutedExperts {
 public:
  virtual ~RoutedExperts() = default;
};

// True when the model has at least one bank of routed experts (a RoutedExperts module).
bool has_routed_experts(CausalLMImpl& model);

}  // namespace gb::grow
