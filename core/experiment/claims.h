#pragma once
// The "report" section of an experiment spec and the verdicts of its claims, computed from
// the run store alone (no LibTorch here; the figures that need weights live in report.h).
//
// "report": {
//   "paper": "grow-dont-overwrite.txt", "section": "Fig. 2, §4",
//   "claim": "one sentence: what the paper claims",
//   "setting": "how this experiment tests it at CPU scale",
//   "columns": [METRIC_REF, ...],          the table: each method's mean ± std over seeds
//   "protocol": {"text": "the paper's own protocol, scaled to this model, said how",
//                "runs": {"train.lr": 0.001 | {"PLAN": 0.0002, "*": 0.00005}, ...}},
//   "matched": {"learning": M (default the new domain's validation loss),
//               "forgetting": M (default the original domain's validation loss),
//               "value": "auto" | X, "level_plans": [PLAN, ...] (the plans "auto" is
//               taken over; default every plan), "text": "..."},
//   "claims": [{"id": "...", "text": "...", "all": [CONDITION, ...],
//               "matched": [MATCHED_CONDITION, ...],
//               "at": {"metric": M, "value": V, "forgetting": F}}, ...],
//   "figures": [{"kind": "curves" | "bars" | "tradeoff" | "fronts" | "probe-layers" |
//                "probe-units" | "lr-scales" | "effective-rank" | "spectrum" | "task-matrix" |
//                "neff", ...}, ...]
// }
// METRIC_REF: "test/new/ppl" (its final value) or {"metric": M, "of": "final" | "start" |
//   "change" | "relative_change"}.
// CONDITION: {"kind": "less" | "greater" | "near", "metric": M, "of": "final" | "change" |
//   "relative_change", "step": N (the value at step N instead of the last), "a": PLAN,
//   "b": PLAN | "value": X, "tolerance": T (near)}.
//   Plans are named by their plan label (the flattened "plan" hyper-parameter of the runs).
// MATCHED_CONDITION: {"kind": "less" | "greater" | "near", "a": PLAN, "b": PLAN | "value": X,
//   "tolerance": T}: compares the plans' forgetting at matched learning (fronts.h): per seed,
//   the test value of the section's "matched" forgetting metric at the point (any rate, any
//   evaluation step) with the least validation forgetting whose validation learning reaches
//   the level ("at" of the claim, else of the section; "auto": the best level every seed of
//   every plan of the group reaches).
//
// Two views. "protocol" picks, per plan, the runs of the paper's own protocol from a group
// that holds a grid (every run whose flattened hyper-parameters equal the given values; a
// per-plan object names plans, "*" the rest); without it, every run of a plan (one
// configuration). The table, the curve and trade-off figures and the "all" conditions read
// the protocol's runs (final values). The "matched" conditions read every run of each plan at
// matched learning. A claim's verdict is its matched view's when it has "matched" conditions,
// else its protocol view's; both are reported.
//
// Verdict of a condition over the seeds (a and b: per-run values, n >= 2 each, s = sample
// standard deviations, d = mean_a − mean_b (or − X), spread = sqrt(s_a² + s_b²)):
//   less:    holds when d < −spread; does not hold when d > spread; otherwise inconclusive.
//   greater: holds when d > spread; does not hold when d < −spread; otherwise inconclusive.
//   near:    holds when |d| <= T; does not hold when |d| − spread > T; otherwise inconclusive.
//   Fewer than 2 finished runs on either side: inconclusive (the spread cannot be told).
// A claim holds when all its conditions hold, does not hold when any does not hold, and is
// inconclusive otherwise. Every evidence entry is a mean and standard deviation over the
// named runs of the store's metric values at step 0 ("start") or at each run's last step of
// that metric ("final"), so it can be recomputed from the `metrics` table.

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <utility>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/compare.h"  // Stat
#include "store/store.h"
#include "util/metrics.h"

namespace gb::experiment {

struct MetricRef {
  std::string metric;
  std::string of = "final";  // final | start | change | relative_change
  // The value at this step instead of the run's last (a condition's "step": e.g. Task 0
  // accuracy early in training); a run without a value at that step gives NaN.
  std::optional<int64_t> step;
  std::string label() const;
};

struct Condition {
  std::string kind;  // less | greater | near
  MetricRef ref;
  std::string a, b;             // plan labels (b empty: compared with `value`)
  std::optional<double> value;  // the constant b stands for
  double tolerance = 0;         // near
};

struct MatchedSpec {
  std::string learning = metrics::kEvalNewLoss;
  std::string forgetting = metrics::kEvalOrigLoss;
  std::optional<double> value;  // nullopt: auto
  std::vector<std::string> level_plans;  // the plans "auto" is taken over (empty: all)
  std::string text;
  bool defined = false;
  std::string label() const;  // "<learning key> = auto" or "<learning key> = 4.5"
};

struct ProtocolSpec {
  std::string text;
  // flattened hyper-parameter → plan label ("*": every other plan) → the protocol's value
  std::map<std::string, std::map<std::string, nlohmann::json>> runs;
  bool defined = false;
};

struct ClaimSpec {
  std::string id, text;
  std::vector<Condition> all;      // protocol view
  std::vector<Condition> matched;  // at matched learning (ref unused)
  std::optional<MatchedSpec> at;   // the claim's own level (else the section's)
};

struct FigureSpec {
  std::string kind;
  std::string title;
  nlohmann::json options;  // the figure's own keys
};

struct ReportSpec {
  std::string paper, section, claim, setting;
  std::vector<MetricRef> columns;
  std::vector<ClaimSpec> claims;
  std::vector<FigureSpec> figures;
  ProtocolSpec protocol;
  MatchedSpec matched;
  bool defined = false;
};

// Validates the section; errors name `context` and the key.
ReportSpec parse_report_spec(const nlohmann::json& j, const std::string& context);

// The finished runs of a group, by method (plan label), with their values.
struct MethodRuns {
  std::string method;
  std::vector<int64_t> runs;                     // finished runs, by seed
  std::vector<int64_t> unfinished;               // runs without a final evaluation
  std::map<std::string, nlohmann::json> params;  // hyper-parameters shared by its runs
  int64_t configurations = 1;                    // distinct configurations (seed aside)
};

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Per-run values of a metric reference (NaN where a run lacks the metric).
std::vector<double> run_values(store::Store& store, const std::vector<int64_t>& runs,
                               const MetricRef& ref);
Stat stat_of(const std::vector<double>& values);  // NaNs left out

// The methods of a group in the order their runs were created.
std::vector<MethodRuns> group_methods(store::Store& store, const std::string& group);

// The methods restricted to the protocol's runs (every run when the protocol is undefined);
// a method none of whose runs match keeps no run, and its configurations are recounted.
std::vector<MethodRuns> protocol_methods(store::Store& store,
                                         const std::vector<MethodRuns>& methods,
                                         const ProtocolSpec& protocol);

struct Evidence {
  std::vector<int64_t> run_ids;
  std::string method;
  std::string metric;
  std::optional<int64_t> step;  // 0, or nullopt for "final" (or matched)
  Stat stat;
  // At matched learning: the level, and each run's (possibly interpolated) step.
  std::optional<std::pair<std::string, double>> at;
  std::vector<double> steps;
  nlohmann::json to_json() const;
};

struct ViewResult {
  bool defined = false;
  std::string verdict;  // "holds" | "does not hold" | "inconclusive"
  std::vector<Evidence> evidence;
  std::string rule;
  nlohmann::json to_json() const;
};

struct ClaimResult {
  std::string id, text, verdict;  // the matched view's verdict when defined, else protocol's
  std::vector<Evidence> evidence;  // of that view
  std::string rule;
  ViewResult protocol, matched;
  nlohmann::json to_json() const;
};

// `methods`: the protocol's runs (protocol_methods); `group`: the group, for the matched
// view (empty: no matched view); `section`: the report's matched level.
ClaimResult evaluate_claim(store::Store& store, const std::vector<MethodRuns>& methods,
                           const ClaimSpec& claim, const std::string& group = {},
                           const MatchedSpec& section = {});

// "holds", "does not hold", "inconclusive"
inline constexpr const char* kHolds = "holds";
inline constexpr const char* kDoesNotHold = "does not hold";
inline constexpr const char* kInconclusive = "inconclusive";

}  // namespace gb::experiment
