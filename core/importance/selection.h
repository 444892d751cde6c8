#pragma once
// Layer selection policies: turn probe results into the layer list of a GrowthPlan. The
// policy objects are the ones core/grow/plan.h LayerSelection accepts; the runner plugs
// select_layers() into grow::ApplyContext::resolve_policy after running the probes that
// required_probes() lists. Each policy is a module of the registry in importance/policy.h;
// the built-in ones, declared in selection.cpp:
//
//   {"policy": "least-important", "k": N, "score": S, "aggregate": A}
//       the N layers with the LOWEST general importance (ADEPT §3.1: expand the layers least
//       important for general competence), ranked by exactly the score S that the importance
//       view draws for that probe: masking (default, ADEPT's choice, App. E: the loss increase
//       when the layer is bypassed), taylor (the signed Σ θ·∂L/∂θ), taylor-abs (Σ |θ·∂L/∂θ|),
//       taylor-code (Σ |θ|·mean_b|∂L_b/∂θ|, ADEPT's code) or fisher. "method" is the older
//       name of "score" (accepted, not both). A (unit
//       scores): "cumulation" (default, App. E eq. 11) or "rank" (mean rank across unit
//       types, App. E item 2). Signed Taylor values of opposite sign cancel within a layer, so
//       "taylor" and "taylor-abs" can rank layers very differently: name the one you mean.
//   {"policy": "most-important", "k": N, "score": S, "aggregate": A}
//       the N layers with the HIGHEST general importance.
//   {"policy": "update-magnitude", "k": N}   ("n" is accepted for k)
//       the N layers with the largest weight-update magnitude after the preliminary
//       fine-tuning run (Grow §4.2, "top-N").
//   {"policy": "uniform", "count": P}        ("k" is accepted for count)
//       LLaMA-Pro's uniform positions, one after every L/P layers: ((i+1)·L)/P − 1 for
//       i = 0..P−1 (the positions core/grow/depth.cpp uses).
//   {"policy": "above-lfp", "l_fp": F}
//       every layer above the lowest F (SCALE's L_fp): F..L−1.
//   {"policy": "calibrated", "k": N, "score": S, "aggregate": A}
//       ADEPT App. R domain-critical expansion. Ranks use rank 1 = MOST important (result.h
//       importance_ranks); the calibrated score of layer l is
//           c(l) = rank_domain(l) − rank_general(l)
//       ("subtract its general-domain importance rank from its domain-specific importance
//       rank"). A negative score means the layer ranks higher (more important) on the
//       domain set than on the general set; the policy selects the N layers with the LOWEST
//       score, i.e. whose domain-importance rank most exceeds their general-importance rank.
//   {"policy": "manual", "layers": [...]}    the given layers.
//
// Ties are broken deterministically: among equal values the LOWER layer index is chosen
// first (for least- and most-important alike). The result is sorted ascending.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "importance/policy.h"
#include "importance/result.h"

namespace gb::importance {

// The probes `policy` needs (empty for uniform, above-lfp and manual). Validates the policy
// (unknown policy, missing or bad keys) with errors naming the key.
std::vector<ProbeNeed> required_probes(const nlohmann::json& policy);

// Resolves a policy to layers, sorted ascending. results.num_layers gives L for policies
// without probes (it must be set). Errors name the policy, the key and, for a missing
// probe, the probes that are available.
std::vector<int64_t> select_layers(const nlohmann::json& policy, const ImportanceResults& results);

// The k indices with the smallest (largest = false) values, ties by lower index, sorted.
std::vector<int64_t> k_extreme(const std::vector<double>& values, int64_t k, bool largest,
                               const std::string& what);
// Calibrated scores rank_domain − rank_general (see above), one per layer.
std::vector<double> calibrated_scores(const std::vector<double>& general,
                                      const std::vector<double>& domain);
// LLaMA-Pro's uniform positions for P blocks in L layers.
std::vector<int64_t> uniform_positions(int64_t num_layers, int64_t count);

}  // namespace gb::importance
