// growbench-cli compare: the best configuration per method within a forgetting budget.
#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>
#include <filesystem>
#include <string>

#include <fmt/format.h>

#include "common.h"
#include "experiment/compare.h"
#include "experiment/fronts.h"
#include "store/store.h"
#include "util/error.h"
#include "util/metrics.h"
#include "util/paths.h"

namespace gb::cli {
namespace {

struct CompareCliOptions {
  std::string group, db, by = "plan", budget = "forgetting=5%", metric = "new/ppl",
                         forgetting, at;
  std::vector<std::string> level_plans;
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
             "the forgetting metric, eval/ implied (orig/ppl, orig/loss, <task>/acc;\n"
             "default orig/ppl, with --at the orig/ counterpart of its metric)");
  add_option(app, "--at", o.at, "METRIC=VALUE",
             "compare at matched learning: per plan and seed, the least forgetting\n"
             "among the points (every rate, every evaluation) whose METRIC reaches\n"
             "VALUE (eval/ implied; VALUE 'auto': the best level every plan reaches),\n"
             "chosen on the validation sets, reported on the test sets");
  add_option(app, "--level-from", o.level_plans, "PLAN",
             "with --at METRIC=auto: take the level over these plans only (repeat\n"
             "the option; default every plan), e.g. leaving out ablations run at one rate");
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

// "new/loss=4.5" or "new/loss=auto" → (eval key, value or nullopt for auto).
std::pair<std::string, std::optional<double>> parse_at(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    throw UsageError("--at: expected METRIC=VALUE (e.g. new/loss=4.5 or new/loss=auto), found '" +
                     text + "'");
  }
  const std::string key = metric_key(text.substr(0, eq));
  const std::string v = text.substr(eq + 1);
  if (!metrics::find(key)) throw UsageError("--at: unknown metric '" + key + "'");
  if (!metrics::is_eval(key)) {
    throw UsageError("--at: '" + key +
                     "' is not a validation metric (eval/...): the level is matched on the "
                     "validation sets and reported on the test sets");
  }
  if (v == "auto") return {key, std::nullopt};
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (end != v.c_str() + v.size() || !std::isfinite(x)) {
    throw UsageError("--at: expected a number or 'auto' after '=', found '" + v + "'");
  }
  return {key, x};
}

// The original-domain counterpart of a learning metric: eval/new/loss → eval/orig/loss.
std::string default_forgetting(const std::string& learning) {
  if (learning == metrics::kEvalNewPpl) return metrics::kEvalOrigPpl;
  return metrics::kEvalOrigLoss;
}

std::string fmt_opt(const std::optional<double>& v) {
  return v ? fmt::format("{:g}", *v) : std::string("-");
}

int run_compare_at(const CompareCliOptions& in, const std::string& db) {
  const auto [learning, value] = parse_at(in.at);
  experiment::FrontOptions o;
  o.group = in.group;
  o.by = in.by;
  o.learning = learning;
  o.forgetting = in.forgetting.empty() ? default_forgetting(learning) : metric_key(in.forgetting);
  o.level_plans = in.level_plans;
  if (!o.level_plans.empty() && value) {
    throw UsageError("--level-from: applies to --at METRIC=auto only");
  }
  if (!metrics::find(o.forgetting) || !metrics::is_eval(o.forgetting)) {
    throw UsageError("--forgetting: '" + o.forgetting +
                     "' is not a known validation metric (eval/...)");
  }
  store::Store st = store::Store::open(db);
  const auto r = experiment::compare_at(st, o, value);
  if (in.json) {
    std::printf("%s\n", r.to_json().dump(2).c_str());
    return 0;
  }
  std::printf(
      "group %s: per %s, the least %s where %s reaches %.6g%s\n"
      "(rate and step chosen on the validation sets over every run and evaluation, linearly\n"
      "interpolated where a run crosses the level; reported on the %s sets; mean ± std over\n"
      "the seeds that reach it)\n",
      r.group.c_str(), r.by.c_str(), r.forgetting.c_str(), r.learning.c_str(), r.value,
      r.value_auto ? " (auto: the best level every plan's seeds reach)" : "", r.split.c_str());
  if (!r.note.empty()) std::printf("note: %s\n", r.note.c_str());
  std::printf("\n");
  for (const auto& row : r.rows) {
    if (!row.reaches()) {
      std::printf("  %-36s does not reach %.6g (%lld seed(s))\n", row.plan.c_str(), r.value,
                  static_cast<long long>(row.seeds));
      continue;
    }
    std::string where;
    for (size_t i = 0; i < row.points.size(); ++i) {
      const auto& p = row.points[i];
      where += fmt::format("{}run {} lr {} step {}", i ? "; " : "", p.run_id, fmt_opt(p.lr),
                           p.interpolated() ? fmt::format("{:.1f}", p.step)
                                            : fmt::format("{}", p.step0));
    }
    std::printf("  %-36s %s %.4f ± %.4f (%lld of %lld seed(s): %s)\n", row.plan.c_str(),
                r.forgetting.c_str(), row.forgetting.mean, row.forgetting.std,
                static_cast<long long>(row.n), static_cast<long long>(row.seeds), where.c_str());
  }
  if (!r.skipped.empty()) {
    std::printf("\n%zu run(s) not finished or without evaluations left out\n", r.skipped.size());
  }
  return 0;
}

int run_compare(const CompareCliOptions& in) {
  if (!in.at.empty()) {
    const std::string db = in.db.empty() ? default_store_path() : in.db;
    if (!std::filesystem::exists(db)) fail("no run store at '{}'", db);
    return run_compare_at(in, db);
  }
  experiment::CompareOptions o;
  o.group = in.group;
  o.by = in.by;
  o.budget = parse_budget(in.budget);
  o.learning = metric_key(in.metric);
  o.forgetting = metric_key(in.forgetting.empty() ? "orig/ppl" : in.forgetting);
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
    "compare GROUP [--by plan] (--at METRIC=VALUE|auto [--forgetting METRIC] "
    "[--level-from PLAN ...] | --budget forgetting=X% [--metric new/ppl]) [--json] [--db DB]",
    "Which method learns most while forgetting at most the budget? For each method (--by),\n"
    "the configuration with the best learning metric whose mean relative forgetting over\n"
    "its seeds stays within the budget, chosen on the validation sets and reported as mean\n"
    "and standard deviation over the seeds on the test sets when the runs have them; the\n"
    "best learning within budgets of 1, 2, 5, 10 and 20 %; methods that never meet the\n"
    "budget say so (\"meets_budget\": false).\n"
    "With --at METRIC=VALUE: forgetting at matched learning, the main comparison of a\n"
    "trade-off method. For each plan and seed, among all its evaluated points (every rate,\n"
    "every evaluation step, linearly interpolated where a run's METRIC crosses VALUE), the\n"
    "least forgetting among the points whose METRIC reaches VALUE, chosen on the validation\n"
    "sets and reported as the test value of that same run and step; mean ± std over seeds.\n"
    "A plan that never reaches VALUE is reported as not reaching it. VALUE 'auto' is the\n"
    "worst of the plans' best validation learning, so that every plan reaches it.",
    &declare_compare, &run_compare, "Exit code: 0 done, 1 error, 2 usage.");

}  // namespace gb::cli
