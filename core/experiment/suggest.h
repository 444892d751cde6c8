#pragma once
// Suggest a plan (growbench-cli suggest, a spec's "suggest" section): from a model, new-domain
// data, original-domain data and budgets (forgetting, added parameters, time) to one
// recommended growth plan, by a budgeted search (docs/suggest.md).
//
//   1. Candidates come from the variant registry (grow/variant.h): every registered variant
//      with its schema defaults (and its model hints), its layer choices from the layer
//      policies ("all", least-important by the masking score, top-N by update magnitude,
//      uniform; the Layers parameter's mode choices where its applicability depends on one),
//      its sizes (parameters whose unit is a fraction of the base model: 1/4, 1/2 and all of
//      the parameter budget; block counts 1, 2, 4), kept when the variant's closed-form
//      estimate adds at most the parameter budget. Each candidate is one plan run at every
//      rate of a small grid (one run per rate).
//   2. Successive halving (Jamieson & Talwalkar 2016; Karnin et al. 2013) on the validation
//      sets: every candidate trains to the first rung r0, the best 1/eta by the score below
//      continue to r0·eta, and so on to the full length T = r0·eta^K. Each run is one
//      ordinary run of one store group (created at the start, all rates and candidates),
//      trained with the schedule of T steps, cancelled at its rung's step (a checkpoint) and
//      resumed from there when its candidate survives; candidates that do not survive have
//      their runs marked "stopped" with the step. Chosen over Hyperband (which repeats
//      halving with several r0 to hedge against a misleading first rung) because the time
//      budget of a desktop search affords one bracket only, and over ASHA because the runs
//      go one after another in one process: synchronous halving with rungs is then exact.
//   3. The score of a candidate at step s (validation only): among its evaluated points
//      (every rate, steps 1..s), those whose relative forgetting (the rise of eval/orig/ppl
//      over the run's step-0 value) is within the forgetting budget rank by their validation
//      learning (eval/new/loss, lower better); a candidate with no such point ranks after
//      every candidate with one, by its least forgetting. Ties: the earlier candidate.
//   4. The recommendation: the best-scoring candidate at the last rung the search completed
//      (the full length unless the time ran out), its point (run, step) chosen on the
//      validation sets and reported also on the test halves at that same run and step
//      (eval.test "every"). When no candidate meets the forgetting budget, the one that
//      forgets least, said so ("within_budget": false).
//   5. The time budget: the first candidate's first rung is measured, the number of
//      candidates the budget affords is derived from it (the others are marked "stopped"
//      at step 0, not run), and a deadline cancels the running segment when the time runs
//      out; the search then recommends from the last complete rung.
//
// A search is identified by a hash of its inputs (the base spec and the options): its runs
// carry the tag "suggest:<hash>". Running the same search on the same store continues it
// (interrupted runs resume from their checkpoints) and gives the same recommendation, since
// every decision is recomputed from the stored metrics.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/runner.h"
#include "model/config.h"

namespace gb::experiment {

struct SuggestOptions {
  double forgetting_budget = 0.05;  // relative rise of eval/orig/ppl
  double params_budget = 0.10;      // added parameters, a fraction of the base model
  double time_s = 1800;             // wall-clock budget of the search
  std::vector<double> rates = {3e-4, 1e-3, 3e-3};
  std::vector<std::string> variants;  // empty: every registered variant
  std::vector<std::string> policies = {"all", "least-important", "update-magnitude", "uniform"};
  int64_t eta = 2;
  int64_t steps = 0;           // T before rounding; 0: the spec's train.steps
  int64_t min_rung_steps = 4;  // r0 is at least this many steps
  int64_t max_candidates = 0;  // 0: as many as the time budget affords
  nlohmann::json to_json() const;
};

// The "suggest" section of a spec: {"budget": {"forgetting": 0.05 | "5%", "params": ...},
// "time": "30m" | seconds, "rates": [...], "variants": [...], "policies": [...], "eta": 2,
// "steps": N, "min_rung_steps": N, "max_candidates": N}. Errors name the key.
SuggestOptions parse_suggest_section(const nlohmann::json& j, const std::string& context);
// The values "policies" may hold: "all" and every registered layer policy that a layer count
// alone writes (importance/policy.h: one with a count key), which the search proposes for
// k = L/4 as a form writes it.
std::vector<std::string> suggest_policy_choices();
// "30m", "90s", "1.5h", "1800" (seconds) → seconds; throws naming `what`.
double parse_duration(const std::string& text, const std::string& what);
// "forgetting=5%" / "max=0.1" after `prefix` ("forgetting=", "max=") → a fraction.
double parse_fraction_option(const std::string& text, const std::string& prefix,
                             const std::string& what);

struct Candidate {
  std::string label;    // unique within the search (the plan's "name")
  nlohmann::json plan;  // ready to run, with its "name"
  int64_t added = 0;    // estimated added parameters
};

// The candidates on a model (see above), in a round-robin order over the variants so that
// the first n cover as many variants as possible.
std::vector<Candidate> propose_candidates(const ModelConfig& config, const SuggestOptions& options);

// ---------------------------------------------------------------------------------------
// Successive halving, with no LibTorch and no store (the tests drive it with fake runs).

struct Rung {
  int64_t step = 0;   // the candidates alive at this rung train to this step
  int64_t alive = 0;  // how many are alive at this rung (for n candidates)
};

// The rungs for n candidates and a length of about `steps`: K = floor(log_eta(n_max))
// halvings (n_max: the candidates proposed), fewer when r0 = steps / eta^K would fall below
// min_rung_steps; r_k = r0·eta^k, alive_k = ceil(n / eta^k).
std::vector<Rung> halving_rungs(int64_t n, int64_t n_max, int64_t steps, int64_t eta,
                                int64_t min_rung_steps);

struct Score {
  bool within = false;           // has a point within the forgetting budget
  double learning = 0;           // best validation learning among those points (within)
  double forgetting = 0;         // its relative forgetting (within) or the least (not within)
  int64_t run_id = 0, step = 0;  // the point
  bool valid = false;            // the candidate has a point after step 0
};
// True when a ranks before b.
bool score_better(const Score& a, const Score& b);
// The indices of the `keep` best of `scores` (invalid ones last), in candidate order.
std::vector<size_t> keep_best(const std::vector<Score>& scores, size_t keep);

// One evaluated point of a run (validation, and test where evaluated).
struct SearchPoint {
  int64_t run_id = 0, step = 0;
  double learning = 0, forgetting = 0;  // eval/new/loss, relative rise of eval/orig/ppl
  double orig_ppl = 0;
  std::optional<double> test_learning, test_forgetting;  // test/new/loss, rise of test/orig/ppl
};
// The score of a candidate's points at steps 1..`step`.
Score score_points(const std::vector<SearchPoint>& points, int64_t step, double budget);

// The search's bookkeeping of time: a deadline on an injectable clock (seconds).
class TimeBudget {
 public:
  TimeBudget(double budget_s, std::function<double()> clock, double spent_before = 0);
  double elapsed() const;  // this session's time plus spent_before
  double left() const;
  bool out() const { return left() <= 0; }
  double budget() const { return m_budget; }

 private:
  double m_budget, m_start, m_before;
  std::function<double()> m_clock;
};

// What a segment of a candidate's runs costs: each of its `runs` runs pays setup_s (loading,
// growing, probes, the step-0 evaluation), step_s per step and eval_s per evaluation (every
// `interval` steps).
struct SegmentCost {
  double setup_s = 0, step_s = 0, eval_s = 0;
  int64_t interval = 1;
  int64_t runs = 1;
  double seconds(int64_t steps) const;
};

// How many of `n_max` candidates (at least min(2, n_max)) the time left affords, one
// candidate's first rung being done: the others' first rungs, then every later rung's
// segments (r_k − r_{k−1} steps for each candidate alive there).
int64_t affordable_candidates(int64_t n_max, int64_t steps, int64_t eta, int64_t min_rung_steps,
                              const SegmentCost& cost, double left_s);

// The halving loop over abstract candidates (the driver gives it runs; the tests fakes).
struct HalvingHooks {
  // Trains candidate c to `step` (the last rung: to its end); returns false when the time
  // ran out before it got there (a candidate already there costs nothing: true).
  std::function<bool(size_t c, int64_t step)> advance;
  std::function<Score(size_t c, int64_t step)> score;
  std::function<void(size_t c, int64_t step)> stop;  // mark c stopped at step (idempotent)
  // Called once after candidate 0's first rung (seconds it took): returns n, the candidates
  // to run (the driver persists the choice and marks the rest as not run).
  std::function<int64_t(double first_rung_s)> choose_n;
  std::function<double()> clock;
};
struct HalvingOutcome {
  std::vector<Rung> rungs;
  int64_t n = 0;                                   // candidates run
  std::vector<std::optional<int64_t>> stopped_at;  // per candidate (n_max): stopped at step
  int64_t last_rung = -1;         // the last rung every alive candidate completed (-1: none)
  std::vector<size_t> finalists;  // the candidates alive at that rung
  bool out_of_time = false;
};
HalvingOutcome run_halving(int64_t n_max, int64_t steps, int64_t eta, int64_t min_rung_steps,
                           const HalvingHooks& hooks);

// ---------------------------------------------------------------------------------------
// The search on a real store.

struct SuggestRequest {
  nlohmann::json spec;   // the base experiment spec (model, data, train, eval, probe); plans
                         // and a "suggest" section are ignored
  std::string base_dir;  // resolves the spec's relative paths
  SuggestOptions options;
};

// Runs (or continues) the search and returns the JSON of docs/suggest.md:
// {"recommendation": {...}, "candidates": [...], "time_s": T, ...}. `clock`: seconds (default
// a steady clock).
nlohmann::json run_suggest(const SuggestRequest& request, const RunnerOptions& runner,
                           std::function<double()> clock = {});

// The tag of a search's runs.
std::string suggest_tag(const SuggestRequest& request);

}  // namespace gb::experiment
