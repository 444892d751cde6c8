#pragma once
// The result of one importance probe, in the one shape every probe method, the CLI, the run
// store and the selection policies share: a value per layer and, for unit methods, a
// layers × units matrix. No LibTorch here.
//
// Direction. In every `layers` vector a HIGHER value means MORE important:
//   masking           loss increase when the layer is bypassed (ADEPT eq. 3)
//   taylor            Σ over the layer's unit parameters of θ·∂L/∂θ (ADEPT App. E eq. 11)
//   taylor-abs        Σ |θ·∂L/∂θ| over the same parameters
//   taylor-code       Σ |θ|·mean_b|∂L_b/∂θ| over the same parameters (ADEPT's public code:
//                     per-batch gradient magnitudes; see unit_importance.h)
//   fisher            Σ of the diagonal Fisher over the same parameters (ADEPT App. E)
//   update-magnitude  ‖W_T − W_0‖_F over the layer's parameters (Grow §4.2)
//   effective-rank    erank(ΔW_up) of the last training stage (Grow §4.4; descriptive)
//
// Ranks. importance_ranks() gives rank 1 to the MOST important layer (largest value); equal
// values are ranked by layer index, the lower index first, so every ranking is a
// permutation of 1..L and deterministic.

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gb::importance {

// Method names (the "method" strings of the CLI, the store and selection policies).
namespace methods {
inline constexpr char kMasking[] = "masking";
inline constexpr char kTaylor[] = "taylor";
inline constexpr char kTaylorAbs[] = "taylor-abs";
inline constexpr char kTaylorCode[] = "taylor-code";
inline constexpr char kFisher[] = "fisher";
inline constexpr char kUpdateMagnitude[] = "update-magnitude";
inline constexpr char kEffectiveRank[] = "effective-rank";
}  // namespace methods
std::vector<std::string> method_names();
bool is_unit_method(const std::string& method);  // taylor, taylor-abs, taylor-code, fisher

inline constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

struct ProbeResult {
  std::string method;
  std::vector<double> layers;  // (L), higher = more important (see above)
  // Unit methods: one column per unit name, kMissing where a layer lacks the unit.
  std::vector<std::string> unit_names;     // (U)
  std::vector<std::vector<double>> units;  // (L, U)
  // Unit methods: layer totals by rank aggregation across unit types: the mean over unit
  // columns of the layer's rank in that column (1 = most important; lower = more
  // important). Empty for layer-only methods.
  std::vector<double> layer_mean_rank;  // (L)
  // Effective rank: layers × training stages (stage_names[s] labels column s).
  std::vector<std::string> stage_names;     // (S)
  std::vector<int64_t> stage_steps;         // (S) optimizer step of each stage, or empty
  std::vector<std::vector<double>> stages;  // (L, S)
  double base_loss = kMissing;              // mean next-token loss of the model on the probe set
  nlohmann::json details = nlohmann::json::object();  // method-specific extras

  int64_t num_layers() const { return static_cast<int64_t>(layers.size()); }
};

// Probe results a selection policy can draw on: per method, on the general (original-
// domain) probe set and on a domain probe set (calibrated selection).
struct ImportanceResults {
  int64_t num_layers = 0;
  std::map<std::string, ProbeResult> general;  // by method
  std::map<std::string, ProbeResult> domain;   // by method

  void add_general(ProbeResult r);
  void add_domain(ProbeResult r);
};

// Rank of every entry: 1 = largest value; ties by index (lower first). NaN values are an
// error (`what` names the vector in the message).
std::vector<int64_t> importance_ranks(const std::vector<double>& values,
                                      const std::string& what = "importance");

// Layer totals by rank aggregation: for every unit column, rank the layers that have the
// unit (importance_ranks over those layers), then average each layer's ranks over its
// columns. A layer without any unit gets kMissing.
std::vector<double> rank_aggregate(const std::vector<std::vector<double>>& unit_values);

}  // namespace gb::importance
