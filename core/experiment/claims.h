#pragma once
// The "report" section of an experiment spec and the verdicts of its claims, computed from
// the run store alone (no LibTorch here; the figures that need weights live in report.h).
//
// "report": {
//   "paper": "grow-dont-overwrite.txt", "section": "Fig. 2, §4",
//   "claim": "one sentence: what the paper claims",
//   "setting": "how this experiment tests it at CPU scale",
//   "columns": [METRIC_REF, ...],          the table: each method's mean ± std over seeds
//   "claims": [{"id": "...", "text": "...", "all": [CONDITION, ...]}, ...],
//   "figures": [{"kind": "curves" | "bars" | "tradeoff" | "probe-layers" | "probe-units" |
//                "effective-rank" | "spectrum" | "task-matrix" | "neff", ...}, ...]
// }
// METRIC_REF: "test/new/ppl" (its final value) or {"metric": M, "of": "final" | "start" |
//   "change" | "relative_change"}.
// CONDITION: {"kind": "less" | "greater" | "near", "metric": M, "of": "final" | "change" |
//   "relative_change", "a": PLAN, "b": PLAN | "value": X, "tolerance": T (near)}.
//   Plans are named by their plan label (the flattened "plan" hyper-parameter of the runs).
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
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/compare.h"  // Stat
#include "store/store.h"

namespace gb::experiment {

struct MetricRef {
  std::string metric;
  std::string of = "final";  // final | start | change | relative_change
  std::string label() const;
};

struct Condition {
  std::string kind;  // less | greater | near
  MetricRef ref;
  std::string a, b;             // plan labels (b empty: compared with `value`)
  std::optional<double> value;  // the constant b stands for
  double tolerance = 0;         // near
};

struct ClaimSpec {
  std::string id, text;
  std::vector<Condition> all;
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

struct Evidence {
  std::vector<int64_t> run_ids;
  std::string method;
  std::string metric;
  std::optional<int64_t> step;  // 0, or nullopt for "final"
  Stat stat;
  nlohmann::json to_json() const;
};

struct ClaimResult {
  std::string id, text, verdict;  // "holds" | "does not hold" | "inconclusive"
  std::vector<Evidence> evidence;
  std::string rule;
  nlohmann::json to_json() const;
};

ClaimResult evaluate_claim(store::Store& store, const std::vector<MethodRuns>& methods,
                           const ClaimSpec& claim);

// "holds", "does not hold", "inconclusive"
inline constexpr const char* kHolds = "holds";
inline constexpr const char* kDoesNotHold = "does not hold";
inline constexpr const char* kInconclusive = "inconclusive";

}  // namespace gb::experiment
