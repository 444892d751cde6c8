#pragma once
// Fair comparison of a run group under a forgetting budget: "which method learns most while
// forgetting at most B?".
//
// For every run of the group that finished:
//   learning    the final value of the learning metric (default eval/new/ppl);
//   forgetting  the relative change of the forgetting metric from step 0 to the end, signed so
//               that positive = worse: (final − start) / |start| for lower-is-better metrics
//               (perplexity, loss), (start − final) / |start| for higher-is-better ones
//               (accuracy). Default eval/orig/ppl.
// Runs are grouped by the `by` key of their flattened hyper-parameters (default "plan": the
// method), then by configuration (every hyper-parameter but the seed). Per method, the
// configuration whose mean forgetting over its seeds stays within the budget and whose mean
// learning is best is chosen ON THE SELECTION METRICS (the validation sets, eval/...); its
// figures are then reported as mean ± sample standard deviation over the seeds on the
// held-out test sets when the runs recorded them (test/... keys: the spec's data.*.test), and
// on the validation sets otherwise (the result says which). A method without a configuration
// within the budget says so. The curve gives, per budget of 1, 2, 5, 10 and 20 %, the best
// mean learning within it on the selection metrics.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "store/store.h"
#include "util/metrics.h"

namespace gb::experiment {

struct CompareOptions {
  std::string group;                               // the runs' group (RunInfo::experiment)
  std::string by = "plan";                         // hyper-parameter key that names a method
  double budget = 0.05;                            // maximum forgetting (fraction)
  std::string learning = metrics::kEvalNewPpl;     // selection metric of learning
  std::string forgetting = metrics::kEvalOrigPpl;  // selection metric of forgetting
  std::vector<double> curve_budgets = {0.01, 0.02, 0.05, 0.10, 0.20};
};

struct Stat {
  double mean = 0, std = 0;  // std: sample standard deviation (0 for one seed)
  int64_t n = 0;
};

struct MethodChoice {
  std::string method;
  bool meets_budget = false;
  nlohmann::json params;                          // the chosen configuration (without the seed)
  std::vector<int64_t> runs;                      // its runs (one per seed)
  Stat learning, forgetting;                      // reported (test when available, else validation)
  Stat selection_learning, selection_forgetting;  // on the selection metrics
  int64_t configurations = 0;                     // configurations tried for the method
  std::vector<std::optional<double>> curve;       // best mean learning per curve budget
  double best_forgetting = 0;  // the least mean forgetting of any configuration (when none fits)
};

struct CompareResult {
  std::string group;
  std::string report_split;                  // "test" or "validation"
  std::string learning_key, forgetting_key;  // the reported keys
  bool learning_lower_is_better = true;
  std::vector<MethodChoice> methods;
  std::vector<int64_t> skipped;  // runs of the group without a final evaluation
  nlohmann::json to_json(const CompareOptions& options) const;
};

CompareResult compare_group(store::Store& store, const CompareOptions& options);

// The test-split key of a selection key (eval/... → test/..., metrics.h).
std::string test_key(const std::string& key);

}  // namespace gb::experiment
