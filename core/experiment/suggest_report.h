#pragma once
// The report a search writes (growbench-cli suggest --report OUT.html): one HTML page made
// with the report machinery (report.h), from the search's result JSON (suggest.h,
// docs/suggest.md) and its run group in the store:
//   - the recommendation (plan, rate, step; validation and test numbers) and why it won: the
//     finalists at the last rung, ranked by the search's score, with the gap to the next best
//     and what a single seed can and cannot say about it;
//   - where the time went: each candidate's training segments (seconds, share, the step it
//     reached), the rest of the search, and the cost model measured on the first rung;
//   - the candidates' trade-off fronts on the validation halves against the forgetting budget;
//   - the group's generic report (its table of metrics and learning curves).

#include <string>

#include <nlohmann/json.hpp>

#include "experiment/report.h"
#include "store/store.h"

namespace gb::experiment {

// The search's own section (HTML <section>), from its result JSON alone.
std::string suggest_section(const nlohmann::json& result);

// The whole page: the search's section, then the group's generic report read from `store`.
std::string suggest_report_page(store::Store& store, const nlohmann::json& result,
                                const ReportOptions& options = {});

}  // namespace gb::experiment
