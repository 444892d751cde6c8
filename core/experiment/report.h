#pragma once
// Reports: one self-contained HTML page (inline SVG figures, no scripts, no network) for one
// or more experiments, each section with the paper's claim, the setting, a table of each
// method's metrics as mean ± std over seeds, the figures, and a verdict per claim (claims.h)
// with the numbers that decided it; and the same verdicts as JSON:
//   {"experiment": name, "group": id, "claims": [{"id", "text", "verdict",
//    "evidence": [{"run_ids", "metric", "step": N | "final", "mean", "std", "n", "method"}],
//    "rule"}], "methods": [...], "figures": [...]}
// A group whose spec has no "report" section gets the generic report (the table of the
// standard metrics and their curves, no claims).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/claims.h"
#include "experiment/spec.h"
#include "store/store.h"

namespace gb::experiment {

struct ReportOptions {
  std::string cache_dir;  // token and preset cache (empty: the default)
  bool weights = true;    // figures that load checkpoints (effective rank, spectra)
  // The "report" section to use instead of the one stored with the runs (null: the stored
  // one): claims and figures can be reworded after the runs without running them again.
  nlohmann::json report_section;
};

struct ExperimentReport {
  std::string experiment;  // the spec's name
  std::string group;
  ReportSpec spec;
  std::vector<MethodRuns> methods;
  std::vector<ClaimResult> claims;
  std::string html;  // the experiment's <section>
  nlohmann::json json;
};

// The newest group of `store` whose runs came from a spec with this hash (expand.h
// spec_hash); throws naming the spec when none.
std::string group_of_spec(store::Store& store, const std::string& spec_hash,
                          const std::string& spec_name);

// The newest group whose runs are exactly the runs `spec` expands to, up to each run spec's
// "report" and "description" (which change no number); empty when none.
std::string group_of_runs(store::Store& store, const ExperimentSpec& spec);

ExperimentReport build_report(store::Store& store, const std::string& group,
                              const ReportOptions& options = {});

// A whole page holding the sections.
std::string report_page(const std::vector<ExperimentReport>& reports, const std::string& title);

// The verdict JSON: the report's object for one experiment, an array for several.
nlohmann::json report_json(const std::vector<ExperimentReport>& reports);

}  // namespace gb::experiment
