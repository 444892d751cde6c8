// Trade-off fronts and forgetting at matched learning (fronts.h).
#include "experiment/fronts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "util/error.h"

namespace gb::experiment {

using Json = nlohmann::json;

namespace {

bool final_status(store::RunStatus s) {
  return s == store::RunStatus::Finished || s == store::RunStatus::Stopped;
}

// a is at least as good as b
bool as_good(double a, double b, bool lower) { return lower ? a <= b : a >= b; }
bool better(double a, double b, bool lower) { return lower ? a < b : a > b; }

Stat stat_over(const std::vector<double>& v) {
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

std::optional<double> lerp(const std::optional<double>& a, const std::optional<double>& b,
                           double t) {
  if (!a || !b) return std::nullopt;
  return *a + t * (*b - *a);
}

std::string plan_label(const std::map<std::string, Json>& params, const std::string& by,
                       const std::string& fallback) {
  auto it = params.find(by);
  if (it == params.end()) return by == "plan" ? fallback : "(no '" + by + "')";
  return it->second.is_string() ? it->second.get<std::string>() : it->second.dump();
}

Json opt_json(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

}  // namespace

GroupTraces load_traces(store::Store& store, const FrontOptions& o) {
  if (o.group.empty()) fail("fronts: no group given");
  for (const auto* k : {&o.learning, &o.forgetting}) {
    if (!metrics::is_eval(*k)) {
      fail("fronts: '{}' is not a validation metric (eval/...): the choice of rate and step "
           "is made on the validation sets",
           *k);
    }
  }
  store::RunFilter f;
  f.experiment = o.group;
  auto runs = store.list_runs(f);
  if (runs.empty()) fail("fronts: no runs in group '{}' of {}", o.group, store.path());
  std::sort(runs.begin(), runs.end(),
            [](const store::RunInfo& a, const store::RunInfo& b) { return a.id < b.id; });
  GroupTraces g;
  g.group = o.group;
  g.by = o.by;
  g.learning = o.learning;
  g.forgetting = o.forgetting;
  g.test_learning = test_key(o.learning);
  g.test_forgetting = test_key(o.forgetting);
  g.learning_lower = !metrics::higher_is_better(o.learning);
  g.forgetting_lower = !metrics::higher_is_better(o.forgetting);
  g.level_plans = o.level_plans;
  std::vector<int64_t> ids;
  for (const auto& r : runs) {
    if (final_status(r.status)) {
      ids.push_back(r.id);
    } else {
      g.skipped.push_back(r.id);
    }
  }
  auto params = store.runs_params(ids);
  std::map<std::string, std::map<int64_t, std::vector<RunTrace>>> by_plan;
  std::vector<std::string> order;
  const std::vector<std::string> keys = {g.learning, g.forgetting, g.test_learning,
                                         g.test_forgetting};
  for (const auto& r : runs) {
    if (!final_status(r.status)) continue;
    const auto& p = params[r.id];
    RunTrace t;
    t.run_id = r.id;
    if (auto it = p.find("seed"); it != p.end() && it->second.is_number_integer()) {
      t.seed = it->second.get<int64_t>();
    }
    if (auto it = p.find("train.lr"); it != p.end() && it->second.is_number()) {
      t.lr = it->second.get<double>();
    }
    auto series = store.metric_series(r.id, store::MetricQuery{keys, std::nullopt});
    const auto& sl = series[g.learning];
    const auto& sf = series[g.forgetting];
    std::map<int64_t, double> fv, tl, tf;
    for (size_t i = 0; i < sf.steps.size(); ++i) fv[sf.steps[i]] = sf.values[i];
    for (size_t i = 0; i < series[g.test_learning].steps.size(); ++i) {
      tl[series[g.test_learning].steps[i]] = series[g.test_learning].values[i];
    }
    for (size_t i = 0; i < series[g.test_forgetting].steps.size(); ++i) {
      tf[series[g.test_forgetting].steps[i]] = series[g.test_forgetting].values[i];
    }
    for (size_t i = 0; i < sl.steps.size(); ++i) {
      auto fit = fv.find(sl.steps[i]);
      if (fit == fv.end() || !std::isfinite(sl.values[i]) || !std::isfinite(fit->second)) {
        continue;
      }
      EvalPoint e;
      e.step = sl.steps[i];
      e.learning = sl.values[i];
      e.forgetting = fit->second;
      if (auto a = tl.find(e.step); a != tl.end() && std::isfinite(a->second)) {
        e.test_learning = a->second;
      }
      if (auto a = tf.find(e.step); a != tf.end() && std::isfinite(a->second)) {
        e.test_forgetting = a->second;
      }
      t.points.push_back(e);
    }
    if (t.points.empty()) {
      g.skipped.push_back(r.id);
      continue;
    }
    const std::string plan = plan_label(p, o.by, r.name);
    if (!by_plan.count(plan)) order.push_back(plan);
    by_plan[plan][t.seed].push_back(std::move(t));
  }
  for (const auto& name : order) {
    PlanTraces pt;
    pt.plan = name;
    for (auto& [seed, rs] : by_plan[name]) pt.seeds.push_back(SeedTraces{seed, std::move(rs)});
    g.plans.push_back(std::move(pt));
  }
  std::sort(g.skipped.begin(), g.skipped.end());
  return g;
}

std::optional<double> best_learning(const std::vector<RunTrace>& runs, bool learning_lower) {
  std::optional<double> best;
  for (const auto& r : runs) {
    for (const auto& p : r.points) {
      if (!best || better(p.learning, *best, learning_lower)) best = p.learning;
    }
  }
  return best;
}

std::optional<MatchedPoint> match_at(const std::vector<RunTrace>& runs, double value,
                                     bool learning_lower, bool forgetting_lower) {
  std::optional<MatchedPoint> best;
  auto consider = [&](const MatchedPoint& m) {
    // Ties in forgetting: the better learning, then the earlier candidate (run order, step).
    if (!best || better(m.forgetting, best->forgetting, forgetting_lower) ||
        (m.forgetting == best->forgetting && better(m.learning, best->learning, learning_lower))) {
      best = m;
    }
  };
  for (const auto& r : runs) {
    for (size_t i = 0; i < r.points.size(); ++i) {
      const EvalPoint& a = r.points[i];
      if (as_good(a.learning, value, learning_lower)) {
        MatchedPoint m;
        m.run_id = r.run_id;
        m.lr = r.lr;
        m.step = static_cast<double>(a.step);
        m.step0 = m.step1 = a.step;
        m.learning = a.learning;
        m.forgetting = a.forgetting;
        m.test_learning = a.test_learning;
        m.test_forgetting = a.test_forgetting;
        consider(m);
      }
      if (i + 1 == r.points.size()) continue;
      const EvalPoint& b = r.points[i + 1];
      // A crossing strictly between two evaluations: one side short of the level, the other
      // beyond it (either direction; a run can also lose what it learned).
      const bool a_in = as_good(a.learning, value, learning_lower);
      const bool b_in = as_good(b.learning, value, learning_lower);
      if (a_in == b_in || a.learning == value || b.learning == value) continue;
      const double t = (value - a.learning) / (b.learning - a.learning);
      if (!(t > 0 && t < 1)) continue;
      MatchedPoint m;
      m.run_id = r.run_id;
      m.lr = r.lr;
      m.step0 = a.step;
      m.step1 = b.step;
      m.t = t;
      m.step = static_cast<double>(a.step) + t * static_cast<double>(b.step - a.step);
      m.learning = value;
      m.forgetting = a.forgetting + t * (b.forgetting - a.forgetting);
      m.test_learning = lerp(a.test_learning, b.test_learning, t);
      m.test_forgetting = lerp(a.test_forgetting, b.test_forgetting, t);
      consider(m);
    }
  }
  return best;
}

std::optional<double> auto_level(const GroupTraces& g) {
  std::optional<double> level;
  for (const auto& plan : g.plans) {
    if (!g.level_plans.empty() && std::find(g.level_plans.begin(), g.level_plans.end(),
                                            plan.plan) == g.level_plans.end()) {
      continue;
    }
    std::optional<double> worst;  // the worst over the plan's seeds of each seed's best
    for (const auto& s : plan.seeds) {
      auto b = best_learning(s.runs, g.learning_lower);
      if (!b) continue;
      if (!worst || better(*worst, *b, g.learning_lower)) worst = b;
    }
    if (!worst) continue;
    if (!level || better(*level, *worst, g.learning_lower)) level = worst;
  }
  return level;
}

double MatchedRow::value_of(const MatchedPoint& p, bool test) const {
  return test ? p.test_forgetting.value_or(NAN) : p.forgetting;
}

MatchedResult compare_at(const GroupTraces& g, std::optional<double> value) {
  MatchedResult res;
  res.group = g.group;
  res.by = g.by;
  res.learning = g.learning;
  res.selection_forgetting = g.forgetting;
  res.learning_lower = g.learning_lower;
  res.forgetting_lower = g.forgetting_lower;
  res.skipped = g.skipped;
  if (g.plans.empty()) fail("compare --at: no run of group '{}' has an evaluation", g.group);
  if (value) {
    if (!std::isfinite(*value)) fail("compare --at: the level must be a finite number");
    res.value = *value;
  } else {
    auto a = auto_level(g);
    if (!a) fail("compare --at auto: no run of group '{}' has an evaluation", g.group);
    res.value = *a;
    res.value_auto = true;
    res.level_plans = g.level_plans;
  }
  for (const auto& name : g.level_plans) {
    if (std::none_of(g.plans.begin(), g.plans.end(),
                     [&](const PlanTraces& p) { return p.plan == name; })) {
      fail("compare --at: the level plan '{}' has no finished run in group '{}'", name, g.group);
    }
  }
  for (const auto& plan : g.plans) {
    MatchedRow row;
    row.plan = plan.plan;
    row.seeds = static_cast<int64_t>(plan.seeds.size());
    for (const auto& s : plan.seeds) {
      auto m = match_at(s.runs, res.value, g.learning_lower, g.forgetting_lower);
      if (!m) {
        row.unreached_seeds.push_back(s.seed);
        continue;
      }
      row.seed_ids.push_back(s.seed);
      row.points.push_back(*m);
    }
    row.n = static_cast<int64_t>(row.points.size());
    res.rows.push_back(std::move(row));
  }
  // The reported split: test when every chosen point has its test value.
  bool all_test = true;
  for (const auto& row : res.rows) {
    for (const auto& p : row.points) {
      if (!p.test_forgetting && all_test) {
        all_test = false;
        res.note = fmt::format(
            "run {} has no {} at step {}{}: the figures are on the validation sets (evaluate "
            "the test sets at every evaluation with eval.test \"every\")",
            p.run_id, g.test_forgetting, p.step0,
            p.interpolated() ? fmt::format(" or {}", p.step1) : std::string());
      }
    }
  }
  res.split = all_test ? "test" : "validation";
  res.forgetting = all_test ? g.test_forgetting : g.forgetting;
  for (auto& row : res.rows) {
    std::vector<double> v;
    for (const auto& p : row.points) v.push_back(row.value_of(p, all_test));
    row.forgetting = stat_over(v);
  }
  std::stable_sort(res.rows.begin(), res.rows.end(), [&](const MatchedRow& a, const MatchedRow& b) {
    if (a.reaches() != b.reaches()) return a.reaches();
    if (!a.reaches()) return false;
    return better(a.forgetting.mean, b.forgetting.mean, g.forgetting_lower);
  });
  return res;
}

MatchedResult compare_at(store::Store& store, const FrontOptions& options,
                         std::optional<double> value) {
  return compare_at(load_traces(store, options), value);
}

Json MatchedResult::to_json() const {
  Json rows_json = Json::array();
  const bool test = split == "test";
  for (const auto& row : rows) {
    Json points = Json::array();
    for (size_t i = 0; i < row.points.size(); ++i) {
      const auto& p = row.points[i];
      Json pj = {{"run_id", p.run_id},
                 {"seed", row.seed_ids[i]},
                 {"lr", opt_json(p.lr)},
                 {"learning", p.learning},
                 {"forgetting", row.value_of(p, test)},
                 {"validation_forgetting", p.forgetting},
                 {"test_learning", opt_json(p.test_learning)}};
      if (p.interpolated()) {
        pj["step"] = p.step;
        pj["steps"] = {p.step0, p.step1};
        pj["t"] = p.t;
      } else {
        pj["step"] = p.step0;
      }
      points.push_back(std::move(pj));
    }
    Json r = {{"plan", row.plan},
              {"n", row.n},
              {"seeds", row.seeds},
              {"mean", row.reaches() ? Json(row.forgetting.mean) : Json(nullptr)},
              {"std", row.reaches() ? Json(row.forgetting.std) : Json(nullptr)},
              {"reaches", row.reaches()},
              {"unreached_seeds", row.unreached_seeds},
              {"points", std::move(points)}};
    rows_json.push_back(std::move(r));
  }
  Json j = {{"group", group},
            {"by", by},
            {"at",
             {{"metric", learning},
              {"value", value},
              {"auto", value_auto},
              {"level_plans", level_plans}}},
            {"forgetting_metric", forgetting},
            {"selection_forgetting_metric", selection_forgetting},
            {"split", split},
            {"rows", std::move(rows_json)},
            {"skipped_runs", skipped}};
  if (!note.empty()) j["note"] = note;
  return j;
}

std::vector<size_t> pareto_front(const std::vector<EvalPoint>& pts, bool learning_lower,
                                 bool forgetting_lower) {
  std::vector<size_t> out;
  for (size_t i = 0; i < pts.size(); ++i) {
    bool dominated = false;
    for (size_t j = 0; j < pts.size() && !dominated; ++j) {
      if (j == i) continue;
      const bool l = as_good(pts[j].learning, pts[i].learning, learning_lower);
      const bool f = as_good(pts[j].forgetting, pts[i].forgetting, forgetting_lower);
      const bool strict = better(pts[j].learning, pts[i].learning, learning_lower) ||
                          better(pts[j].forgetting, pts[i].forgetting, forgetting_lower);
      // Equal points: the first one stays.
      dominated = l && f && (strict || j < i);
    }
    if (!dominated) out.push_back(i);
  }
  std::sort(out.begin(), out.end(), [&](size_t a, size_t b) {
    return better(pts[b].learning, pts[a].learning, learning_lower);
  });
  return out;
}

std::vector<FrontCurve> front_curves(const GroupTraces& g, const std::vector<double>& levels,
                                     bool test) {
  std::vector<FrontCurve> out;
  for (const auto& plan : g.plans) {
    FrontCurve c;
    c.plan = plan.plan;
    c.levels = levels;
    c.seeds = static_cast<int64_t>(plan.seeds.size());
    for (double v : levels) {
      std::vector<double> vals;
      for (const auto& s : plan.seeds) {
        auto m = match_at(s.runs, v, g.learning_lower, g.forgetting_lower);
        if (!m) continue;
        const std::optional<double> f = test ? m->test_forgetting : m->forgetting;
        if (f) vals.push_back(*f);
      }
      c.forgetting.push_back(stat_over(vals));
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<double> front_levels(const GroupTraces& g, int count) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& plan : g.plans) {
    for (const auto& s : plan.seeds) {
      for (const auto& r : s.runs) {
        for (const auto& p : r.points) {
          lo = std::min(lo, p.learning);
          hi = std::max(hi, p.learning);
        }
      }
    }
  }
  std::vector<double> out;
  if (!(hi >= lo) || count < 2) return out;
  for (int i = 0; i < count; ++i) {
    out.push_back(lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(count - 1));
  }
  // From the worst learning to the best.
  if (g.learning_lower) std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace gb::experiment
