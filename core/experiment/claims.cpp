#include "experiment/claims.h"
#include "experiment/spec_schema.h"
#include "util/schema.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "experiment/fronts.h"
#include "util/error.h"
#include "util/json.h"
#include "util/metrics.h"

namespace gb::experiment {

using Json = nlohmann::json;
namespace js = gb::json;

namespace {

const std::set<std::string>& figure_kinds() {
  static const std::set<std::string> k = {
      "curves",         "bars",     "tradeoff",    "fronts", "probe-layers", "probe-units",
      "effective-rank", "spectrum", "task-matrix", "neff",   "lr-scales"};
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

Condition parse_condition(const Json& d, const std::string& dctx, bool matched) {
  if (!d.is_object()) fail("{}: expected an object", dctx);
  if (matched) {
    js::check_keys(d, {"kind", "a", "b", "value", "tolerance"}, dctx);
  } else {
    js::check_keys(d, {"kind", "metric", "of", "step", "a", "b", "value", "tolerance"}, dctx);
  }
  Condition cond;
  cond.kind = js::get<std::string>(d, "kind", dctx);
  if (cond.kind != "less" && cond.kind != "greater" && cond.kind != "near") {
    fail("{}.kind: must be less, greater or near, found '{}'", dctx, cond.kind);
  }
  if (!matched) {
    Json ref = {{"metric", js::get<std::string>(d, "metric", dctx)},
                {"of", js::get_or<std::string>(d, "of", "final", dctx)}};
    cond.ref = parse_ref(ref, dctx, false);
    if (d.contains("step")) {
      const Json& st = d["step"];
      if (!st.is_number_integer() || st.get<int64_t>() < 1) {
        fail("{}.step: expected a step of at least 1, found {}", dctx, st.dump());
      }
      cond.ref.step = st.get<int64_t>();
    }
  }
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
  return cond;
}

// {"learning", "forgetting", "value", "text"} (a section) or {"metric", "value",
// "forgetting"} (a claim's own level and metrics, the section's otherwise).
MatchedSpec parse_matched(const Json& j, const std::string& ctx, const MatchedSpec& base,
                          bool section) {
  if (!j.is_object()) fail("{}: expected an object, found {}", ctx, js::type_name(j));
  MatchedSpec m = base;
  m.defined = true;
  if (section) {
    m = MatchedSpec{};
    m.defined = true;
    js::check_keys(j, {"learning", "forgetting", "value", "text", "level_plans"}, ctx);
    if (j.contains("level_plans")) {
      const Json& lp = j["level_plans"];
      if (!lp.is_array() || lp.empty()) fail("{}.level_plans: expected a list of plan labels", ctx);
      for (const auto& x : lp) {
        if (!x.is_string()) fail("{}.level_plans: expected plan labels, found {}", ctx, x.dump());
        m.level_plans.push_back(x.get<std::string>());
      }
    }
    m.learning = js::get_or<std::string>(j, "learning", m.learning, ctx);
    m.forgetting = js::get_or<std::string>(j, "forgetting", m.forgetting, ctx);
    m.text = js::get_or<std::string>(j, "text", "", ctx);
  } else {
    js::check_keys(j, {"metric", "value", "forgetting"}, ctx);
    m.learning = js::get_or<std::string>(j, "metric", m.learning, ctx);
    m.forgetting = js::get_or<std::string>(j, "forgetting", m.forgetting, ctx);
  }
  for (const auto* k : {&m.learning, &m.forgetting}) {
    if (!metrics::find(*k)) fail("{}: unknown metric '{}'", ctx, *k);
    if (!metrics::is_eval(*k)) {
      fail(
          "{}: '{}' must be a validation metric (eval/...): the level and the point are "
          "chosen on the validation sets, the forgetting reported on the test sets",
          ctx, *k);
    }
  }
  m.value.reset();
  if (j.contains("value")) {
    const Json& v = j["value"];
    if (v.is_string() && v.get<std::string>() == "auto") {
      m.value.reset();
    } else if (v.is_number() && std::isfinite(v.get<double>())) {
      m.value = v.get<double>();
    } else {
      fail("{}.value: expected a number or \"auto\", found {}", ctx, v.dump());
    }
  } else if (!section && m.learning == base.learning) {
    m.value = base.value;  // the section's level, on the same metric
  }
  return m;
}

ProtocolSpec parse_protocol(const Json& j, const std::string& ctx) {
  if (!j.is_object()) fail("{}: expected an object, found {}", ctx, js::type_name(j));
  js::check_keys(j, {"text", "runs"}, ctx);
  ProtocolSpec p;
  p.defined = true;
  p.text = js::get_or<std::string>(j, "text", "", ctx);
  if (!j.contains("runs") || !j["runs"].is_object() || j["runs"].empty()) {
    fail("{}.runs: expected an object of hyper-parameters (e.g. {{\"train.lr\": 0.001}})", ctx);
  }
  for (const auto& [key, v] : j["runs"].items()) {
    if (v.is_object()) {
      if (v.empty()) fail("{}.runs.{}: expected plan labels and values", ctx, key);
      for (const auto& [plan, x] : v.items()) {
        if (x.is_object() || x.is_array() || x.is_null()) {
          fail("{}.runs.{}.{}: expected a value, found {}", ctx, key, plan, x.dump());
        }
        p.runs[key][plan] = x;
      }
    } else if (v.is_array() || v.is_null()) {
      fail("{}.runs.{}: expected a value or {{plan: value}}, found {}", ctx, key, v.dump());
    } else {
      p.runs[key]["*"] = v;
    }
  }
  return p;
}

// The verdict of one condition from the two sides' statistics.
std::pair<std::string, std::string> judge(const Condition& c, const std::string& label,
                                          const std::string& a_name, const Stat& sa,
                                          const std::string& b_name, const Stat& sb) {
  std::string verdict = kInconclusive, what;
  const bool has_b = !b_name.empty();
  const double d = sa.mean - sb.mean;
  const double spread = std::sqrt(sa.std * sa.std + sb.std * sb.std);
  const std::string rhs =
      has_b ? fmt::format("{} ({} ± {}, n = {})", b_name, fmt_num(sb.mean), fmt_num(sb.std), sb.n)
            : fmt_num(*c.value);
  const std::string lhs =
      fmt::format("{} ({} ± {}, n = {})", a_name, fmt_num(sa.mean), fmt_num(sa.std), sa.n);
  const bool enough = sa.n >= 2 && (!has_b || sb.n >= 2) && std::isfinite(d);
  if (c.kind == "near") {
    if (enough) {
      if (std::fabs(d) <= c.tolerance) {
        verdict = kHolds;
      } else if (std::fabs(d) - spread > c.tolerance) {
        verdict = kDoesNotHold;
      }
    }
    what = fmt::format("{}: |{} − {}| = {} against tolerance {} (seed spread {})", label, lhs, rhs,
                       fmt_num(std::fabs(d)), fmt_num(c.tolerance), fmt_num(spread));
  } else {
    const double signed_d = c.kind == "less" ? -d : d;  // > 0 when the claim's way
    if (enough) {
      if (signed_d > spread) {
        verdict = kHolds;
      } else if (signed_d < -spread) {
        verdict = kDoesNotHold;
      }
    }
    what = fmt::format("{}: {} {} {}: difference {} against the seed spread {}", label, lhs,
                       c.kind == "less" ? "<" : ">", rhs, fmt_num(d), fmt_num(spread));
  }
  if (!enough) what += " (fewer than 2 seeds on a side: the spread cannot be told)";
  return {verdict, what};
}

void conclude(ViewResult& v, const std::vector<std::pair<std::string, std::string>>& parts) {
  bool any_fails = false, all_hold = true;
  std::string rule = parts.size() > 1 ? "all of: " : "";
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].first == kDoesNotHold) any_fails = true;
    if (parts[i].first != kHolds) all_hold = false;
    rule += fmt::format("{}[{}] {}", i ? "; " : "", parts[i].first, parts[i].second);
  }
  v.verdict = any_fails ? kDoesNotHold : all_hold ? kHolds : kInconclusive;
  v.rule = rule;
  v.defined = true;
}

}  // namespace

std::string MetricRef::label() const {
  const std::string at = step ? fmt::format(" at step {}", *step) : std::string();
  if (of == "final") return metric + at;
  if (of == "start") return metric + " at step 0";
  if (of == "change")
    return "change of " + metric + (step ? " from step 0 to step " + std::to_string(*step) : "");
  return "relative change of " + metric +
         (step ? " from step 0 to step " + std::to_string(*step) : "");
}

ReportSpec parse_report_spec(const Json& j, const std::string& ctx) {
  ReportSpec r;
  if (j.is_null()) return r;
  if (!j.is_object()) fail("{}: expected an object, found {}", ctx, js::type_name(j));
  // The section's own keys as the spec's schema declares them (spec_schema.cpp).
  schema::check_keys(j, spec_key("report"), spec_schema(), ctx);
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
  if (j.contains("matched")) r.matched = parse_matched(j["matched"], ctx + ".matched", {}, true);
  if (j.contains("protocol")) r.protocol = parse_protocol(j["protocol"], ctx + ".protocol");
  std::set<std::string> ids;
  if (j.contains("claims")) {
    if (!j["claims"].is_array()) fail("{}.claims: expected an array", ctx);
    for (size_t i = 0; i < j["claims"].size(); ++i) {
      const Json& c = j["claims"][i];
      const std::string cctx = fmt::format("{}.claims[{}]", ctx, i);
      if (!c.is_object()) fail("{}: expected an object", cctx);
      js::check_keys(c, {"id", "text", "all", "matched", "at"}, cctx);
      ClaimSpec cs;
      cs.id = js::get<std::string>(c, "id", cctx);
      cs.text = js::get<std::string>(c, "text", cctx);
      if (!ids.insert(cs.id).second) fail("{}.id: '{}' appears twice", cctx, cs.id);
      if (!c.contains("all") && !c.contains("matched")) {
        fail(
            "{}: give 'all' (conditions on the protocol's runs) and/or 'matched' (conditions "
            "at matched learning)",
            cctx);
      }
      for (const char* view : {"all", "matched"}) {
        if (!c.contains(view)) continue;
        const bool matched = std::string(view) == "matched";
        if (!c[view].is_array() || c[view].empty()) {
          fail("{}.{}: expected a non-empty array of conditions", cctx, view);
        }
        for (size_t k = 0; k < c[view].size(); ++k) {
          const std::string dctx = fmt::format("{}.{}[{}]", cctx, view, k);
          (matched ? cs.matched : cs.all).push_back(parse_condition(c[view][k], dctx, matched));
        }
      }
      if (c.contains("at")) {
        if (cs.matched.empty()) fail("{}.at: applies to 'matched' conditions only", cctx);
        cs.at = parse_matched(c["at"], cctx + ".at", r.matched, false);
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
    double last = s.values.back();
    if (ref.step) {
      last = kNaN;
      for (size_t i = 0; i < s.steps.size(); ++i) {
        if (s.steps[i] == *ref.step) last = s.values[i];
      }
    }
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

std::string MatchedSpec::label() const {
  return fmt::format("{} = {}", learning, value ? fmt_num(*value) : std::string("auto"));
}

std::vector<MethodRuns> protocol_methods(store::Store& store,
                                         const std::vector<MethodRuns>& methods,
                                         const ProtocolSpec& protocol) {
  if (!protocol.defined) return methods;
  std::vector<int64_t> ids;
  for (const auto& m : methods) {
    ids.insert(ids.end(), m.runs.begin(), m.runs.end());
    ids.insert(ids.end(), m.unfinished.begin(), m.unfinished.end());
  }
  auto params = store.runs_params(ids);
  auto matches = [&](const std::string& method, int64_t id) {
    const auto& p = params[id];
    for (const auto& [key, by_plan] : protocol.runs) {
      auto want = by_plan.find(method);
      if (want == by_plan.end()) want = by_plan.find("*");
      if (want == by_plan.end()) continue;  // no value for this plan: any
      auto have = p.find(key);
      if (have == p.end()) return false;
      if (want->second.is_number() && have->second.is_number()) {
        const double a = want->second.get<double>(), b = have->second.get<double>();
        if (std::fabs(a - b) > 1e-12 * std::max(std::fabs(a), std::fabs(b))) return false;
      } else if (want->second != have->second) {
        return false;
      }
    }
    return true;
  };
  std::vector<MethodRuns> out;
  for (const auto& m : methods) {
    MethodRuns r = m;
    r.runs.clear();
    r.unfinished.clear();
    std::set<std::string> configs;
    for (int64_t id : m.runs) {
      if (matches(m.method, id)) r.runs.push_back(id);
    }
    for (int64_t id : m.unfinished) {
      if (matches(m.method, id)) r.unfinished.push_back(id);
    }
    for (const auto* list : {&r.runs, &r.unfinished}) {
      for (int64_t id : *list) {
        Json config = Json::object();
        for (const auto& [k, v] : params[id]) {
          if (k != "seed") config[k] = v;
        }
        configs.insert(config.dump());
      }
    }
    r.configurations = static_cast<int64_t>(std::max<size_t>(configs.size(), 1));
    // The shared hyper-parameters of the selected runs.
    if (!r.runs.empty()) {
      r.params = params[r.runs.front()];
      r.params.erase("seed");
      for (int64_t id : r.runs) {
        for (auto it = r.params.begin(); it != r.params.end();) {
          auto q = params[id].find(it->first);
          it = (q == params[id].end() || q->second != it->second) ? r.params.erase(it)
                                                                  : std::next(it);
        }
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

Json Evidence::to_json() const {
  Json j = {
      {"run_ids", run_ids}, {"method", method},
      {"metric", metric},   {"mean", std::isfinite(stat.mean) ? Json(stat.mean) : Json(nullptr)},
      {"std", stat.std},    {"n", stat.n}};
  if (at) {
    j["step"] = "matched";
    j["steps"] = steps;
    j["at"] = {{"metric", at->first}, {"value", at->second}};
  } else {
    j["step"] = step ? Json(*step) : Json("final");
  }
  return j;
}

Json ViewResult::to_json() const {
  Json ev = Json::array();
  for (const auto& e : evidence) ev.push_back(e.to_json());
  return {{"verdict", verdict}, {"evidence", ev}, {"rule", rule}};
}

Json ClaimResult::to_json() const {
  Json ev = Json::array();
  for (const auto& e : evidence) ev.push_back(e.to_json());
  Json views = Json::object();
  if (protocol.defined) views["protocol"] = protocol.to_json();
  if (matched.defined) views["matched"] = matched.to_json();
  return {{"id", id},       {"text", text}, {"verdict", verdict},
          {"evidence", ev}, {"rule", rule}, {"views", views}};
}

namespace {

ViewResult protocol_view(store::Store& store, const std::vector<MethodRuns>& methods,
                         const ClaimSpec& claim) {
  ViewResult res;
  std::vector<std::pair<std::string, std::string>> parts;
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
      MetricRef r{ref.metric, of, std::nullopt};
      if (of == "final") r.step = ref.step;
      e.stat = stat_of(run_values(store, m.runs, r));
      res.evidence.push_back(std::move(e));
    };
    if (ref.of != "final") add("start", 0);
    add("final", ref.step);  // the last value, or the value at the condition's step
  };
  for (const auto& c : claim.all) {
    const MethodRuns* a = find(c.a);
    const MethodRuns* b = c.b.empty() ? nullptr : find(c.b);
    if (!a || (!c.b.empty() && !b) || a->runs.empty() || (b && b->runs.empty())) {
      const std::string who = !a || a->runs.empty() ? c.a : c.b;
      parts.emplace_back(kInconclusive, fmt::format("{}: no finished runs of '{}' in the {}",
                                                    c.ref.label(), who, "protocol's runs"));
      continue;
    }
    if (a->configurations > 1 || (b && b->configurations > 1)) {
      parts.emplace_back(
          kInconclusive,
          fmt::format("{}: '{}' has several configurations among the runs compared (a sweep "
                      "without a \"protocol\" that picks one); a protocol claim compares one "
                      "configuration per method",
                      c.ref.label(), a->configurations > 1 ? a->method : b->method));
      continue;
    }
    add_evidence(*a, c.ref);
    if (b) add_evidence(*b, c.ref);
    const Stat sa = stat_of(run_values(store, a->runs, c.ref));
    const Stat sb = b ? stat_of(run_values(store, b->runs, c.ref)) : Stat{*c.value, 0, 0};
    parts.push_back(judge(c, c.ref.label(), a->method, sa, b ? b->method : "", sb));
  }
  conclude(res, parts);
  return res;
}

ViewResult matched_view(store::Store& store, const std::string& group, const ClaimSpec& claim,
                        const MatchedSpec& section) {
  ViewResult res;
  const MatchedSpec m = claim.at ? *claim.at : section;
  FrontOptions o;
  o.group = group;
  o.learning = m.learning;
  o.forgetting = m.forgetting;
  o.level_plans = m.level_plans;
  const MatchedResult r = compare_at(store, o, m.value);
  const std::string label = fmt::format("{} at matched learning ({} = {}{})", r.forgetting,
                                        r.learning, fmt_num(r.value), r.value_auto ? ", auto" : "");
  auto row_of = [&](const std::string& plan) -> const MatchedRow* {
    for (const auto& x : r.rows) {
      if (x.plan == plan) return &x;
    }
    return nullptr;
  };
  auto add_evidence = [&](const MatchedRow& row) {
    Evidence e;
    e.method = row.plan;
    e.metric = r.forgetting;
    e.stat = row.forgetting;
    e.at = std::make_pair(r.learning, r.value);
    for (const auto& p : row.points) {
      e.run_ids.push_back(p.run_id);
      e.steps.push_back(p.step);
    }
    res.evidence.push_back(std::move(e));
  };
  std::vector<std::pair<std::string, std::string>> parts;
  for (const auto& c : claim.matched) {
    const MatchedRow* a = row_of(c.a);
    const MatchedRow* b = c.b.empty() ? nullptr : row_of(c.b);
    if (!a || (!c.b.empty() && !b)) {
      parts.emplace_back(kInconclusive, fmt::format("{}: no finished runs of '{}' in the group",
                                                    label, !a ? c.a : c.b));
      continue;
    }
    add_evidence(*a);
    if (b) add_evidence(*b);
    if (!a->reaches() || (b && !b->reaches())) {
      parts.emplace_back(kInconclusive,
                         fmt::format("{}: '{}' does not reach {} = {} in any seed", label,
                                     !a->reaches() ? c.a : c.b, r.learning, fmt_num(r.value)));
      continue;
    }
    const Stat sb = b ? b->forgetting : Stat{*c.value, 0, 0};
    auto part = judge(c, label, a->plan, a->forgetting, b ? b->plan : "", sb);
    if (a->n < a->seeds || (b && b->n < b->seeds)) {
      part.second +=
          fmt::format(" ({} of {} seeds of '{}' reach the level)", a->n < a->seeds ? a->n : b->n,
                      a->n < a->seeds ? a->seeds : b->seeds, a->n < a->seeds ? a->plan : b->plan);
    }
    parts.push_back(std::move(part));
  }
  conclude(res, parts);
  if (!r.note.empty()) res.rule += " [" + r.note + "]";
  return res;
}

}  // namespace

ClaimResult evaluate_claim(store::Store& store, const std::vector<MethodRuns>& methods,
                           const ClaimSpec& claim, const std::string& group,
                           const MatchedSpec& section) {
  ClaimResult res;
  res.id = claim.id;
  res.text = claim.text;
  if (!claim.all.empty()) res.protocol = protocol_view(store, methods, claim);
  if (!claim.matched.empty()) {
    if (group.empty()) fail("claim '{}': the matched view needs the group", claim.id);
    res.matched = matched_view(store, group, claim, section);
  }
  const ViewResult& main = res.matched.defined ? res.matched : res.protocol;
  res.verdict = main.verdict;
  res.evidence = main.evidence;
  res.rule = main.rule;
  return res;
}

}  // namespace gb::experiment
