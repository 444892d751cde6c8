#pragma once
// Trade-off fronts and the comparison at matched learning: "how much does each method forget
// when it has learned as much as the others?" (DESIGN.md, "Fair comparison").
//
// A group's runs are read as traces: for each plan (the `by` hyper-parameter, default
// "plan"), each seed and each run (every rate or other configuration of the plan), the
// evaluated points (step, learning, forgetting) on the validation sets (eval/...), with the
// test values (test/...) where the run evaluated its test sets at that step (eval.test
// "every" evaluates them at every evaluation; "ends" only at step 0 and the end).
//
// Matched learning at a level V (compare_at): for each plan and seed, among all its evaluated
// points (every run, every evaluation step) whose validation learning reaches V (≤ V for a
// lower-is-better metric such as a loss, ≥ V for an accuracy), and the points where a run's
// validation learning crosses V between two consecutive evaluations (linearly interpolated,
// the forgetting interpolated with the same fraction t), the point with the least validation
// forgetting (ties: the better validation learning, then the first run and step). The reported forgetting is the TEST value of the forgetting metric at that run
// and step (interpolated alike), so the choice of rate and step never sees test data; when a
// chosen point lacks test values the whole result falls back to the validation values and
// says so. Then mean and sample standard deviation over the seeds that reached V (n); a plan
// whose seeds never reach V is reported as not reaching it, never dropped. V = "auto": for
// each plan, the worst over its seeds of the seed's best validation learning; then the worst
// over the plans (or over FrontOptions::level_plans): the best level every seed of every
// plan reaches.
//
// Every value is a raw metric value read from the store's `metrics` table (or the linear
// interpolation of two of them, naming both steps), so a row can be recomputed from the run
// ids and steps it lists.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/compare.h"  // Stat
#include "store/store.h"
#include "util/metrics.h"

namespace gb::experiment {

struct FrontOptions {
  std::string group;
  std::string by = "plan";
  std::string learning = metrics::kEvalNewLoss;     // a validation key (eval/...)
  std::string forgetting = metrics::kEvalOrigLoss;  // a validation key (eval/...)
  // The plans whose seeds set the "auto" level (empty: every plan), e.g. the methods a
  // paper compares, leaving out ablations run at one rate only.
  std::vector<std::string> level_plans;
};

struct EvalPoint {
  int64_t step = 0;
  double learning = 0, forgetting = 0;  // validation values
  std::optional<double> test_learning, test_forgetting;
};

struct RunTrace {
  int64_t run_id = 0;
  int64_t seed = 0;
  std::optional<double> lr;  // the run's train.lr hyper-parameter
  std::vector<EvalPoint> points;  // steps ascending; points with both values finite
};

struct SeedTraces {
  int64_t seed = 0;
  std::vector<RunTrace> runs;
};

struct PlanTraces {
  std::string plan;
  std::vector<SeedTraces> seeds;  // seeds ascending
};

struct GroupTraces {
  std::string group, by;
  std::string learning, forgetting;            // validation keys
  std::string test_learning, test_forgetting;  // their test keys
  bool learning_lower = true, forgetting_lower = true;
  std::vector<std::string> level_plans;  // FrontOptions::level_plans
  std::vector<PlanTraces> plans;  // in the order their first runs were created
  std::vector<int64_t> skipped;   // runs left out: not finished (or stopped), or no points
};

// Reads the traces of a group's finished (and guard-stopped) runs. Throws when the group has
// no run or a key is not an evaluation metric.
GroupTraces load_traces(store::Store& store, const FrontOptions& options);

struct MatchedPoint {
  int64_t run_id = 0;
  std::optional<double> lr;
  double step = 0;                 // the step (fractional when interpolated)
  int64_t step0 = 0, step1 = 0;    // the two evaluations (equal when not interpolated)
  double t = 0;                    // step = step0 + t·(step1 − step0)
  double learning = 0;             // validation learning (V where interpolated)
  double forgetting = 0;           // validation forgetting: the choice
  std::optional<double> test_learning, test_forgetting;
  bool interpolated() const { return step1 != step0; }
};

// The point of one seed's runs with the least validation forgetting among those whose
// validation learning reaches `value` (see above); nullopt when none reaches it.
std::optional<MatchedPoint> match_at(const std::vector<RunTrace>& runs, double value,
                                     bool learning_lower, bool forgetting_lower);

// The best validation learning of one seed's runs (any run, any step).
std::optional<double> best_learning(const std::vector<RunTrace>& runs, bool learning_lower);

struct MatchedRow {
  std::string plan;
  int64_t seeds = 0;  // seeds of the plan
  int64_t n = 0;      // seeds that reached the level
  Stat forgetting;    // over the n seeds, on the reported split
  std::vector<int64_t> seed_ids;        // the seeds of `points`, in order
  std::vector<MatchedPoint> points;     // one per seed that reached it
  std::vector<int64_t> unreached_seeds;
  bool reaches() const { return n > 0; }
  double value_of(const MatchedPoint& p, bool test) const;
};

struct MatchedResult {
  std::string group, by;
  std::string learning;         // the matched (validation) learning key
  double value = 0;             // the level used
  bool value_auto = false;      // the level was "auto"
  std::vector<std::string> level_plans;  // the plans "auto" was taken over (empty: all)
  std::string forgetting;       // the reported forgetting key (test/... or eval/...)
  std::string selection_forgetting;  // the validation key the choice was made on
  std::string split;            // "test" or "validation"
  std::string note;             // why the split is "validation", when it is
  bool learning_lower = true, forgetting_lower = true;
  std::vector<MatchedRow> rows;  // least forgetting first; plans that do not reach last
  std::vector<int64_t> skipped;
  nlohmann::json to_json() const;  // the compare --at contract
};

// The "auto" level of a group (see above); nullopt when no plan has a point.
std::optional<double> auto_level(const GroupTraces& traces);

// Forgetting at matched learning; `value` nullopt = auto.
MatchedResult compare_at(const GroupTraces& traces, std::optional<double> value);
MatchedResult compare_at(store::Store& store, const FrontOptions& options,
                         std::optional<double> value);

// Indices of the non-dominated points (better learning or better forgetting than every
// other), sorted by learning from the worst to the best.
std::vector<size_t> pareto_front(const std::vector<EvalPoint>& points, bool learning_lower,
                                 bool forgetting_lower);

// A plan's front over the seeds: at each learning level, the matched forgetting (validation
// choice, reported split as compare_at) as mean ± std over the seeds that reach it.
struct FrontCurve {
  std::string plan;
  std::vector<double> levels;
  std::vector<Stat> forgetting;  // n = seeds reaching the level (0: none)
  int64_t seeds = 0;
};
std::vector<FrontCurve> front_curves(const GroupTraces& traces, const std::vector<double>& levels,
                                     bool test);

// `count` evenly spaced levels over the range of the group's validation learning (from the
// worst point, usually the step-0 evaluation, to the best point of any plan).
std::vector<double> front_levels(const GroupTraces& traces, int count = 24);

}  // namespace gb::experiment
