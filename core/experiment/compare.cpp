// Comparison of a run group under a forgetting budget (compare.h).
#include "experiment/compare.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "util/error.h"
#include "util/metrics.h"

namespace gb::experiment {

using Json = nlohmann::json;

namespace {

// Mean and sample standard deviation over all values, unlike claims.h's stat_of (a NaN
// makes the mean NaN, so that configuration never meets a budget).
Stat seed_stat(const std::vector<double>& v) {
  Stat s;
  s.n = static_cast<int64_t>(v.size());
  if (v.empty()) return s;
  for (double x : v) s.mean += x;
  s.mean /= static_cast<double>(v.size());
  if (v.size() > 1) {
    double ss = 0;
    for (double x : v) ss += (x - s.mean) * (x - s.mean);
    s.std = std::sqrt(ss / static_cast<double>(v.size() - 1));
  }
  return s;
}

struct RunFigures {
  int64_t id = 0;
  double sel_learning = NAN, sel_forgetting = NAN, rep_learning = NAN, rep_forgetting = NAN;
  bool has_test = false;
};

Json stat_json(const Stat& s) {
  return {{"mean", s.mean}, {"std", s.std}, {"n", s.n}};
}

}  // namespace

std::string test_key(const std::string& key) {
  const std::string eval = metrics::kEvalPrefix;
  if (key.rfind(eval, 0) == 0) return metrics::kTestPrefix + key.substr(eval.size());
  return key;
}

CompareResult compare_group(store::Store& store, const CompareOptions& o) {
  if (o.group.empty()) fail("compare: no group given");
  if (!(o.budget >= 0))
    fail("compare: the forgetting budget must be at least 0, found {}", o.budget);
  store::RunFilter f;
  f.experiment = o.group;
  const auto runs = store.list_runs(f);
  if (runs.empty()) fail("compare: no runs in group '{}' of {}", o.group, store.path());
  const bool learn_lower = !metrics::higher_is_better(o.learning);
  const bool forget_lower = !metrics::higher_is_better(o.forgetting);
  auto forgetting_of = [&](double start, double end) {
    const double d = forget_lower ? end - start : start - end;
    return d / std::max(std::fabs(start), 1e-12);
  };

  CompareResult res;
  res.group = o.group;
  res.learning_lower_is_better = learn_lower;
  // method → configuration (params without the seed, as JSON text) → runs
  std::map<std::string, std::map<std::string, std::vector<RunFigures>>> by_method;
  std::map<std::string, Json> config_params;
  bool all_test = true;
  // The figures need only the first and the last value of four keys and the parameters:
  // three queries for the whole group instead of every series of every run.
  const std::string tl = test_key(o.learning), tf = test_key(o.forgetting);
  std::vector<int64_t> finished_ids;
  for (const auto& r : runs) {
    if (r.status == store::RunStatus::Finished) finished_ids.push_back(r.id);
  }
  const std::vector<std::string> keys = {o.learning, o.forgetting, tl, tf};
  std::map<int64_t, std::map<std::string, double>> last_of, first_of;
  if (!finished_ids.empty()) {
    for (const auto& m : store.latest_metrics(finished_ids, keys)) {
      last_of[m.run_id][m.key] = m.value;
    }
    // The relative change needs the step-0 evaluation.
    for (const auto& m : store.first_metrics(finished_ids, keys)) {
      if (m.step == 0) first_of[m.run_id][m.key] = m.value;
    }
  }
  auto all_params = store.runs_params(finished_ids);
  for (const auto& r : runs) {
    if (r.status != store::RunStatus::Finished) {
      res.skipped.push_back(r.id);
      continue;
    }
    const auto& lasts = last_of[r.id];
    const auto& firsts = first_of[r.id];
    auto last = [&](const std::string& k) {
      auto it = lasts.find(k);
      return it == lasts.end() ? static_cast<double>(NAN) : it->second;
    };
    auto first = [&](const std::string& k) {
      auto it = firsts.find(k);
      return it == firsts.end() ? static_cast<double>(NAN) : it->second;
    };
    RunFigures fig;
    fig.id = r.id;
    fig.sel_learning = last(o.learning);
    fig.sel_forgetting = forgetting_of(first(o.forgetting), last(o.forgetting));
    // The test split is evaluated at step 0 and at the end.
    fig.has_test = tl != o.learning && lasts.count(tl) && lasts.count(tf);
    if (fig.has_test) {
      fig.rep_learning = last(tl);
      fig.rep_forgetting = forgetting_of(first(tf), last(tf));
    }
    if (!std::isfinite(fig.sel_learning) || !std::isfinite(fig.sel_forgetting)) {
      res.skipped.push_back(r.id);
      continue;
    }
    all_test = all_test && fig.has_test;
    const auto& params = all_params[r.id];
    auto mit = params.find(o.by);
    const std::string method = mit == params.end()       ? std::string("(no '") + o.by + "')"
                               : mit->second.is_string() ? mit->second.get<std::string>()
                                                         : mit->second.dump();
    Json cfg = Json::object();
    for (const auto& [k, v] : params) {
      if (k != "seed") cfg[k] = v;
    }
    const std::string ck = cfg.dump();
    config_params[ck] = cfg;
    by_method[method][ck].push_back(fig);
  }
  if (by_method.empty()) fail("compare: no run of group '{}' has a final evaluation", o.group);
  res.report_split = all_test ? "test" : "validation";
  res.learning_key = all_test ? test_key(o.learning) : o.learning;
  res.forgetting_key = all_test ? test_key(o.forgetting) : o.forgetting;

  auto better = [&](double a, double b) { return learn_lower ? a < b : a > b; };
  for (const auto& [method, configs] : by_method) {
    MethodChoice mc;
    mc.method = method;
    mc.configurations = static_cast<int64_t>(configs.size());
    mc.best_forgetting = INFINITY;
    const std::vector<RunFigures>* chosen = nullptr;
    std::string chosen_key;
    Stat chosen_l;
    mc.curve.assign(o.curve_budgets.size(), std::nullopt);
    for (const auto& [ck, figs] : configs) {
      std::vector<double> l, fg;
      for (const auto& x : figs) {
        l.push_back(x.sel_learning);
        fg.push_back(x.sel_forgetting);
      }
      const Stat sl = seed_stat(l), sf = seed_stat(fg);
      mc.best_forgetting = std::min(mc.best_forgetting, sf.mean);
      for (size_t b = 0; b < o.curve_budgets.size(); ++b) {
        if (sf.mean <= o.curve_budgets[b] && (!mc.curve[b] || better(sl.mean, *mc.curve[b]))) {
          mc.curve[b] = sl.mean;
        }
      }
      if (sf.mean <= o.budget && (!chosen || better(sl.mean, chosen_l.mean))) {
        chosen = &figs;
        chosen_key = ck;
        chosen_l = sl;
        mc.selection_learning = sl;
        mc.selection_forgetting = sf;
      }
    }
    if (chosen) {
      mc.meets_budget = true;
      mc.params = config_params[chosen_key];
      std::vector<double> l, fg;
      for (const auto& x : *chosen) {
        mc.runs.push_back(x.id);
        l.push_back(all_test ? x.rep_learning : x.sel_learning);
        fg.push_back(all_test ? x.rep_forgetting : x.sel_forgetting);
      }
      mc.learning = seed_stat(l);
      mc.forgetting = seed_stat(fg);
    }
    res.methods.push_back(std::move(mc));
  }
  // Methods that meet the budget first, best learning first.
  std::stable_sort(res.methods.begin(), res.methods.end(),
                   [&](const MethodChoice& a, const MethodChoice& b) {
                     if (a.meets_budget != b.meets_budget) return a.meets_budget;
                     if (!a.meets_budget) return a.method < b.method;
                     return better(a.selection_learning.mean, b.selection_learning.mean);
                   });
  return res;
}

Json CompareResult::to_json(const CompareOptions& o) const {
  Json methods_json = Json::array();
  for (const auto& m : methods) {
    Json j = {{"method", m.method},
              {"meets_budget", m.meets_budget},
              {"configurations", m.configurations}};
    if (m.meets_budget) {
      j["params"] = m.params;
      j["runs"] = m.runs;
      j["seeds"] = m.runs.size();
      j["learning"] = stat_json(m.learning);
      j["forgetting"] = stat_json(m.forgetting);
      j["selection"] = {{"learning", stat_json(m.selection_learning)},
                        {"forgetting", stat_json(m.selection_forgetting)}};
    } else {
      j["least_forgetting"] = m.best_forgetting;
    }
    Json curve = Json::array();
    for (size_t b = 0; b < o.curve_budgets.size(); ++b) {
      curve.push_back({{"budget", o.curve_budgets[b]},
                       {"learning", m.curve[b] ? Json(*m.curve[b]) : Json(nullptr)}});
    }
    j["curve"] = curve;
    methods_json.push_back(std::move(j));
  }
  return {{"group", group},
          {"by", o.by},
          {"budget", o.budget},
          {"selection", {{"learning", o.learning}, {"forgetting", o.forgetting}}},
          {"report",
           {{"split", report_split}, {"learning", learning_key}, {"forgetting", forgetting_key}}},
          {"plans", methods_json},
          {"skipped_runs", skipped}};
}

}  // namespace gb::experiment
