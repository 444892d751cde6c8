// growbench-cli compare: the best configuration per method within a forgetting budget.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "common.h"
#include "experiment/compare.h"
#include "store/store.h"
#include "util/error.h"
#include "util/metrics.h"
#include "util/paths.h"

namespace gb::cli {
namespace {

struct CompareCliOptions {
  std::string group, db, by = "plan", budget = "forgetting=5%", metric = "new/ppl",
                         forgetting = "orig/ppl";
  bool json = false;
};

void declare_compare(CLI::App& app, CompareCliOptions& o) {
  app.add_option("GROUP", o.group, "the run group (runs list shows each run's group)")
      ->type_name("GROUP")
      ->required();
  add_option(app, "--db", o.db, "DB",
             "the run store (default: the default workspace's growbench.db)");
  add_option(app, "--by", o.by, "KEY",
             "the hyper-parameter that names a method: plan, variant, or any\n"
             "flattened key (runs show lists them)");
  add_option(app, "--budget", o.budget, "forgetting=X%",
             "the most relative forgetting a chosen configuration may show\n"
             "(X% or a fraction)");
  add_option(app, "--metric", o.metric, "KEY",
             "the learning metric, eval/ implied (new/ppl, new/loss, <task>/acc)");
  add_option(app, "--forgetting", o.forgetting, "KEY",
             "the forgetting metric, eval/ implied (orig/ppl, orig/loss, <task>/acc)");
  add_flag(app, "--json", o.json, "print one JSON object");
}

double parse_budget(const std::string& text) {
  const std::string prefix = "forgetting=";
  if (text.rfind(prefix, 0) != 0) {
    throw UsageError("--budget: expected forgetting=X% (or forgetting=0.05), found '" + text + "'");
  }
  std::string v = text.substr(prefix.size());
  const bool percent = !v.empty() && v.back() == '%';
  if (percent) v.pop_back();
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(x) || x < 0) {
    throw UsageError("--budget: expected a non-negative number, found '" + text + "'");
  }
  return percent ? x / 100.0 : x;
}

std::string metric_key(const std::string& k) {
  const std::string eval = metrics::kEvalPrefix, test = metrics::kTestPrefix;
  return k.rfind(eval, 0) == 0 || k.rfind(test, 0) == 0 ? k : eval + k;
}

int run_compare(const CompareCliOptions& in) {
  experiment::CompareOptions o;
  o.group = in.group;
  o.by = in.by;
  o.budget = parse_budget(in.budget);
  o.learning = metric_key(in.metric);
  o.forgetting = metric_key(in.forgetting);
  const std::string db = in.db.empty() ? default_store_path() : in.db;
  if (!std::filesystem::exists(db)) fail("no run store at '{}'", db);
  store::Store st = store::Store::open(db);
  const auto r = experiment::compare_group(st, o);
  if (in.json) {
    std::printf("%s\n", r.to_json(o).dump(2).c_str());
    return 0;
  }
  std::printf(
      "group %s: per %s, the configuration with the best %s whose %s rises at most %g %%\n"
      "(chosen on the validation sets; reported on the %s sets, mean ± std over seeds)\n\n",
      r.group.c_str(), o.by.c_str(), o.learning.c_str(), o.forgetting.c_str(), o.budget * 100,
      r.report_split.c_str());
  for (const auto& m : r.methods) {
    if (!m.meets_budget) {
      std::printf(
          "  %-36s never within the budget (least forgetting %+.2f %% over %lld "
          "configuration(s))\n",
          m.method.c_str(), m.best_forgetting * 100, static_cast<long long>(m.configurations));
      continue;
    }
    std::string swept;
    for (auto it = m.params.begin(); it != m.params.end(); ++it) {
      if (it.key() == "train.lr" || it.key() == "train.replay") {
        swept += fmt::format(" {}={}", it.key(), it.value().dump());
      }
    }
    std::printf("  %-36s %s %.4g ± %.2g, forgetting %+.2f ± %.2f %% (%lld seed(s);%s)\n",
                m.method.c_str(), r.learning_key.c_str(), m.learning.mean, m.learning.std,
                m.forgetting.mean * 100, m.forgetting.std * 100,
                static_cast<long long>(m.learning.n), swept.c_str());
  }
  if (!r.skipped.empty()) {
    std::printf("\n%zu run(s) without a final evaluation left out\n", r.skipped.size());
  }
  return 0;
}

}  // namespace

GB_REGISTER_COMMAND(
    "compare",
    "compare GROUP --by plan --budget forgetting=X% [--metric new/ppl] [--json] [--db DB]",
    "Which method learns most while forgetting at most the budget? For each method (--by),\n"
    "the configuration with the best learning metric whose mean relative forgetting over\n"
    "its seeds stays within the budget, chosen on the validation sets and reported as mean\n"
    "and standard deviation over the seeds on the test sets when the runs have them; the\n"
    "best learning within budgets of 1, 2, 5, 10 and 20 %; methods that never meet the\n"
    "budget say so (\"meets_budget\": false).",
    &declare_compare, &run_compare, "Exit code: 0 done, 1 error, 2 usage.");

}  // namespace gb::cli
