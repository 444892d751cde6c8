#include "experiment/claims.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "util/error.h"
#include "util/json.h"
#include "util/metrics.h"

namespace gb::experiment {

using Json = nlohmann::json;
namespace js = gb::json;

namespace {

const std::set<std::string>& figure_kinds() {
  static const std::set<std::string> k = {"curves",       "bars",        "tradeoff",
                                          "probe-layers", "probe-units", "effective-rank",
                                          "spectrum",     "task-matrix", "neff"};
  return k;
}

MetricRef parse_ref(const Json& j, const std::string& ctx, bool allow_start) {
  MetricRef r;
  if (j.is_string()) {
    r.metric = j.get<std::string>();
  } else if (j.is_object()) {
    js::check_keys(j, {"metric", "of"}, ctx);
    r.metric = js::get<std::string>(j, "metric", ctx);
    r.of = js::get_or<std::string>(j, "of", "final", ctx);
  } else {
    fail("{}: expected a metric key or {{\"metric\", \"of\"}}, found {}", ctx, js::type_name(j));
  }
  if (!metrics::find(r.metric)) fail("{}: unknown metric '{}'", ctx, r.metric);
  const bool ok = r.of == "final" || r.of == "change" || r.of == "relative_change" ||
                  (allow_start && r.of == "start");
  if (!ok) {
    fail("{}.of: must be final, {}change or relative_change, found '{}'", ctx,
         allow_start ? "start, " : "", r.of);
  }
  return r;
}

bool has_final(store::RunStatus s) {
  return s == store::RunStatus::Finished || s == store::RunStatus::Stopped;
}

std::string fmt_num(double v) {
  if (!std::isfinite(v)) return fmt::format("{}", v);
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e5)) return fmt::format("{:.3e}", v);
  return fmt::format("{:.4f}", v);
}

}  // namespace

std::string MetricRef::label() const {
  if (of == "final") return metric;
  if (of == "start") return metric + " at step 0";
  if (of == "change") return "change of " + metric;
  return "relative change of " + metric;
}

ReportSpec parse_report_spec(const Json& j, const std::string& ctx) {
  ReportSpec r;
  if (j.is_null()) return r;
  if (!j.is_object()) fail("{}: expected an object, found {}", ctx, js::type_name(j));
  js::check_keys(j, {"paper", "section", "claim", "setting", "columns", "claims", "figures"}, ctx);
  r.defined = true;
  r.paper = js::get_or<std::string>(j, "paper", "", ctx);
  r.section = js::get_or<std::string>(j, "section", "", ctx);
  r.claim = js::get_or<std::string>(j, "claim", "", ctx);
  r.setting = js::get_or<std::string>(j, "setting", "", ctx);
  if (j.contains("columns")) {
    if (!j["columns"].is_array()) fail("{}.columns: expected an array", ctx);
    for (size_t i = 0; i < j["columns"].size(); ++i) {
      r.columns.push_back(parse_ref(j["columns"][i], fmt::format("{}.columns[{}]", ctx, i), true));
    }
  }
  std::set<std::string> ids;
  if (j.contains("claims")) {
    if (!j["claims"].is_array()) fail("{}.claims: expected an array", ctx);
    for (size_t i = 0; i < j["claims"].size(); ++i) {
      const Json& c = j["claims"][i];
      const std::string cctx = fmt::format("{}.claims[{}]", ctx, i);
      if (!c.is_object()) fail("{}: expected an object", cctx);
      js::check_keys(c, {"id", "text", "all"}, cctx);
      ClaimSpec cs;
      cs.id = js::get<std::string>(c, "id", cctx);
      cs.text = js::get<std::string>(c, "text", cctx);
      if (!ids.insert(cs.id).second) fail("{}.id: '{}' appears twice", cctx, cs.id);
      if (!c.contains("all") || !c["all"].is_array() || c["all"].empty()) {
        fail("{}.all: expected a non-empty array of conditions", cctx);
      }
      for (size_t k = 0; k < c["all"].size(); ++k) {
        const Json& d = c["all"][k];
        const std::string dctx = fmt::format("{}.all[{}]", cctx, k);
        if (!d.is_object()) fail("{}: expected an object", dctx);
        js::check_keys(d, {"kind", "metric", "of", "a", "b", "value", "tolerance"}, dctx);
        Condition cond;
        cond.kind = js::get<std::string>(d, "kind", dctx);
        if (cond.kind != "less" && cond.kind != "greater" && cond.kind != "near") {
          fail("{}.kind: must be less, greater or near, found '{}'", dctx, cond.kind);
        }
        Json ref = {{"metric", js::get<std::string>(d, "metric", dctx)},
                    {"of", js::get_or<std::string>(d, "of", "final", dctx)}};
        cond.ref = parse_ref(ref, dctx, false);
        cond.a = js::get<std::string>(d, "a", dctx);
        cond.b = js::get_or<std::string>(d, "b", "", dctx);
        if (d.contains("value")) cond.value = js::get<double>(d, "value", dctx);
        if (cond.b.empty() == !cond.value.has_value()) {
          fail("{}: give either 'b' (a plan) or 'value' (a number) to compare 'a' with", dctx);
        }
        if (cond.kind == "near") {
          cond.tolerance = js::get<double>(d, "tolerance", dctx);
          if (!(cond.tolerance >= 0)) fail("{}.tolerance: must be >= 0", dctx);
        } else if (d.contains("tolerance")) {
          fail("{}.tolerance: applies to kind near only", dctx);
        }
        cs.all.push_back(std::move(cond));
      }
      r.claims.push_back(std::move(cs));
    }
  }
  if (j.contains("figures")) {
    if (!j["figures"].is_array()) fail("{}.figures: expected an array", ctx);
    for (size_t i = 0; i < j["figures"].size(); ++i) {
      const Json& f = j["figures"][i];
      const std::string fctx = fmt::format("{}.figures[{}]", ctx, i);
      if (!f.is_object()) fail("{}: expected an object", fctx);
      FigureSpec fs;
      fs.kind = js::get<std::string>(f, "kind", fctx);
      if (!figure_kinds().count(fs.kind)) {
        std::string all;
        for (const auto& k : figure_kinds()) all += (all.empty() ? "" : ", ") + k;
        fail("{}.kind: unknown figure '{}' (known: {})", fctx, fs.kind, all);
      }
      fs.title = js::get_or<std::string>(f, "title", "", fctx);
      fs.options = f;
      for (const char* m : {"metric", "x", "y"}) {
        if (f.contains(m)) {
          const std::string key = js::get<std::string>(f, m, fctx);
          if (!metrics::find(key)) fail("{}.{}: unknown metric '{}'", fctx, m, key);
        }
      }
      r.figures.push_back(std::move(fs));
    }
  }
  return r;
}

std::vector<double> run_values(store::Store& store, const std::vector<int64_t>& runs,
                               const MetricRef& ref) {
  std::vector<double> out;
  store::MetricQuery q;
  q.keys = {ref.metric};
  for (int64_t id : runs) {
    auto series = store.metric_series(id, q);
    auto it = series.find(ref.metric);
    if (it == series.end() || it->second.steps.empty()) {
      out.push_back(kNaN);
      continue;
    }
    const auto& s = it->second;
    const double start = s.steps.front() == 0 ? s.values.front() : kNaN;
    const double last = s.values.back();
    double v = kNaN;
    if (ref.of == "final") v = last;
    if (ref.of == "start") v = start;
    if (ref.of == "change") v = last - start;
    if (ref.of == "relative_change") v = (last - start) / std::max(std::fabs(start), 1e-12);
    out.push_back(v);
  }
  return out;
}

Stat stat_of(const std::vector<double>& values) {
  Stat s;
  double sum = 0;
  for (double v : values) {
    if (std::isnan(v)) continue;
    sum += v;
    ++s.n;
  }
  if (s.n == 0) {
    s.mean = kNaN;
    return s;
  }
  s.mean = sum / static_cast<double>(s.n);
  if (s.n > 1) {
    double sq = 0;
    for (double v : values) {
      if (!std::isnan(v)) sq += (v - s.mean) * (v - s.mean);
    }
    s.std = std::sqrt(sq / static_cast<double>(s.n - 1));
  }
  return s;
}

std::vector<MethodRuns> group_methods(store::Store& store, const std::string& group) {
  store::RunFilter f;
  f.experiment = group;
  auto runs = store.list_runs(f);
  std::sort(runs.begin(), runs.end(),
            [](const store::RunInfo& a, const store::RunInfo& b) { return a.id < b.id; });
  std::vector<MethodRuns> out;
  std::map<std::string, std::set<std::string>> configs;
  for (const auto& r : runs) {
    auto params = store.run_params(r.id);
    std::string method = r.name;
    if (auto it = params.find("plan"); it != params.end() && it->second.is_string()) {
      method = it->second.get<std::string>();
    }
    auto m = std::find_if(out.begin(), out.end(),
                          [&](const MethodRuns& x) { return x.method == method; });
    if (m == out.end()) {
      MethodRuns mr;
      mr.method = method;
      mr.params = params;
      mr.params.erase("seed");
      out.push_back(std::move(mr));
      m = out.end() - 1;
    }
    Json config = Json::object();
    for (const auto& [k, v] : params) {
      if (k != "seed") config[k] = v;
    }
    configs[method].insert(config.dump());
    // Keep only the hyper-parameters every run of the method shares.
    for (auto it = m->params.begin(); it != m->params.end();) {
      auto p = params.find(it->first);
      it = (p == params.end() || p->second != it->second) ? m->params.erase(it) : std::next(it);
    }
    (has_final(r.status) ? m->runs : m->unfinished).push_back(r.id);
  }
  for (auto& m : out) m.configurations = static_cast<int64_t>(configs[m.method].size());
  return out;
}

Json Evidence::to_json() const {
  Json j = {
      {"run_ids", run_ids}, {"method", method},
      {"metric", metric},   {"mean", std::isfinite(stat.mean) ? Json(stat.mean) : Json(nullptr)},
      {"std", stat.std},    {"n", stat.n}};
  j["step"] = step ? Json(*step) : Json("final");
  return j;
}

Json ClaimResult::to_json() const {
  Json ev = Json::array();
  for (const auto& e : evidence) ev.push_back(e.to_json());
  return {{"id", id}, {"text", text}, {"verdict", verdict}, {"evidence", ev}, {"rule", rule}};
}

ClaimResult evaluate_claim(store::Store& store, const std::vector<MethodRuns>& methods,
                           const ClaimSpec& claim) {
  ClaimResult res;
  res.id = claim.id;
  res.text = claim.text;
  bool any_fails = false, all_hold = true;
  std::vector<std::string> rules;
  auto find = [&](const std::string& name) -> const MethodRuns* {
    for (const auto& m : methods) {
      if (m.method == name) return &m;
    }
    return nullptr;
  };
  auto add_evidence = [&](const MethodRuns& m, const MetricRef& ref) {
    // The raw values the comparison used: final values, and step-0 values for changes.
    auto add = [&](const std::string& of, std::optional<int64_t> step) {
      Evidence e;
      e.run_ids = m.runs;
      e.method = m.method;
      e.metric = ref.metric;
      e.step = step;
      e.stat = stat_of(run_values(store, m.runs, MetricRef{ref.metric, of}));
      res.evidence.push_back(std::move(e));
    };
    if (ref.of != "final") add("start", 0);
    add("final", std::nullopt);
  };
  for (const auto& c : claim.all) {
    const MethodRuns* a = find(c.a);
    const MethodRuns* b = c.b.empty() ? nullptr : find(c.b);
    std::string what;
    std::string verdict = kInconclusive;
    if (!a || (!c.b.empty() && !b)) {
      what =
          fmt::format("{}: no finished runs of '{}' in the group", c.ref.label(), !a ? c.a : c.b);
    } else if (a->configurations > 1 || (b && b->configurations > 1)) {
      what = fmt::format(
          "{}: '{}' has several configurations in the group (a sweep); a claim compares one "
          "configuration per method",
          c.ref.label(), a->configurations > 1 ? a->method : b->method);
    } else {
      add_evidence(*a, c.ref);
      if (b) add_evidence(*b, c.ref);
      const Stat sa = stat_of(run_values(store, a->runs, c.ref));
      const Stat sb = b ? stat_of(run_values(store, b->runs, c.ref)) : Stat{*c.value, 0, 0};
      const double d = sa.mean - sb.mean;
      const double spread = std::sqrt(sa.std * sa.std + sb.std * sb.std);
      const std::string rhs = b ? fmt::format("{} ({} ± {}, n = {})", b->method, fmt_num(sb.mean),
                                              fmt_num(sb.std), sb.n)
                                : fmt_num(*c.value);
      const std::string lhs =
          fmt::format("{} ({} ± {}, n = {})", a->method, fmt_num(sa.mean), fmt_num(sa.std), sa.n);
      const bool enough = sa.n >= 2 && (!b || sb.n >= 2) && std::isfinite(d);
      if (c.kind == "near") {
        if (enough) {
          if (std::fabs(d) <= c.tolerance) {
            verdict = kHolds;
          } else if (std::fabs(d) - spread > c.tolerance) {
            verdict = kDoesNotHold;
          }
        }
        what =
            fmt::format("{}: |{} − {}| = {} against tolerance {} (seed spread {})", c.ref.label(),
                        lhs, rhs, fmt_num(std::fabs(d)), fmt_num(c.tolerance), fmt_num(spread));
      } else {
        const double signed_d = c.kind == "less" ? -d : d;  // > 0 when the claim's way
        if (enough) {
          if (signed_d > spread) {
            verdict = kHolds;
          } else if (signed_d < -spread) {
            verdict = kDoesNotHold;
          }
        }
        what = fmt::format("{}: {} {} {}: difference {} against the seed spread {}", c.ref.label(),
                           lhs, c.kind == "less" ? "<" : ">", rhs, fmt_num(d), fmt_num(spread));
      }
      if (!enough) what += " (fewer than 2 finished runs on a side: the spread cannot be told)";
    }
    rules.push_back(fmt::format("[{}] {}", verdict, what));
    if (verdict == kDoesNotHold) any_fails = true;
    if (verdict != kHolds) all_hold = false;
  }
  res.verdict = any_fails ? kDoesNotHold : all_hold ? kHolds : kInconclusive;
  std::string rule = rules.size() > 1 ? "all of: " : "";
  for (size_t i = 0; i < rules.size(); ++i) rule += (i ? "; " : "") + rules[i];
  res.rule = rule;
  return res;
}

}  // namespace gb::experiment
