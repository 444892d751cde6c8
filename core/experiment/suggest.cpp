// Suggest a plan: candidates from the variant registry, successive halving on the validation
// sets, the recommendation (experiment/suggest.h, docs/suggest.md).
#include "experiment/suggest.h"
#include "experiment/spec_schema.h"
#include "util/schema.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <variant>

#include <unistd.h>

#include <fmt/format.h>

#include "data/tokenized.h"
#include "experiment/fronts.h"
#include "experiment/preset.h"
#include "experiment/spec.h"
#include "grow/variant.h"
#include "importance/policy.h"
#include "store/store.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"
#include "util/metrics.h"
#include "util/progress.h"

namespace gb::experiment {

using Json = nlohmann::json;

// Helpers in a named namespace: the core library is built in unity batches, where the
// anonymous namespaces of several files meet.
namespace suggest_impl {

namespace js = gb::json;
namespace mk = gb::metrics;

double parse_number(const std::string& text, const std::string& what) {
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(x)) {
    fail("{}: expected a number, found '{}'", what, text);
  }
  return x;
}

// A fraction given as a number (0.05) or a percentage ("5%").
double fraction_value(const Json& v, const std::string& what) {
  double x = 0;
  if (v.is_number()) {
    x = v.get<double>();
  } else if (v.is_string()) {
    std::string s = v.get<std::string>();
    const bool percent = !s.empty() && s.back() == '%';
    if (percent) s.pop_back();
    x = parse_number(s, what);
    if (percent) x /= 100.0;
  } else {
    fail("{}: expected a fraction (0.05) or a percentage (\"5%\"), found {}", what,
         js::type_name(v));
  }
  if (!(x >= 0) || !std::isfinite(x)) fail("{}: must be at least 0, found {}", what, x);
  return x;
}

constexpr const char* kNotRun = "suggest: not run";
constexpr const char* kStoppedBy = "suggest: stopped by the search";
constexpr const char* kChoice = "suggest: candidates ";
constexpr const char* kSpent = "suggest: time spent ";
constexpr const char* kSegment = "suggest: segment took ";

// The layer choices of a variant whose Layers parameter applies: each policy as a form
// writes it for k = L/4 (importance/policy.h).
std::vector<Json> layer_choices(const grow::ParamSpec& layers, int64_t num_layers,
                                const std::vector<std::string>& policies) {
  std::vector<Json> out;
  const int64_t k = std::max<int64_t>(1, num_layers / 4);
  for (const auto& p : policies) {
    if (p == "all") {
      out.push_back("all");
    } else {
      out.push_back(importance::layer_policy(p, "suggest.policies").form_json(k));
    }
  }
  (void)layers;
  return out;
}

// Size choices of a parameter (empty: keep its value).
std::vector<Json> size_choices(const grow::ParamSpec& p, const SuggestOptions& o,
                               int64_t num_layers) {
  std::vector<Json> out;
  if (p.unit == "fraction of the base model" && p.type == grow::ParamSpec::Type::Number) {
    const double cap = p.max.value_or(o.params_budget);
    for (double f : {0.25, 0.5, 1.0}) {
      const double v = std::min(cap, o.params_budget * f);
      if (v > 0 && (out.empty() || out.back().get<double>() != v)) out.push_back(v);
    }
  } else if (p.unit == "blocks" && p.type == grow::ParamSpec::Type::Int) {
    for (int64_t v : {1, 2, 4}) {
      if (v <= num_layers) out.push_back(v);
    }
  }
  return out;
}

// The cartesian product of choices over keys, appended to `base`.
void expand_choices(const Json& base,
                    const std::vector<std::pair<std::string, std::vector<Json>>>& axes, size_t i,
                    std::vector<Json>& out) {
  if (i == axes.size()) {
    out.push_back(base);
    return;
  }
  if (axes[i].second.empty()) {
    expand_choices(base, axes, i + 1, out);
    return;
  }
  for (const auto& v : axes[i].second) {
    Json b = base;
    b[axes[i].first] = v;
    expand_choices(b, axes, i + 1, out);
  }
}

// The plans of one variant on the model (not yet checked against the budget).
std::vector<Json> variant_plans(const grow::VariantModule& m, const ModelConfig& config,
                                const SuggestOptions& o) {
  Json base = {{"variant", m.id}};
  for (const auto& p : m.params) {
    if (p.hidden || !p.model_hint) continue;
    const auto hint = p.model_hint(config);
    if (hint.value) base[p.name] = *hint.value;
    // A default beyond what suits the model (freeze's bottom layers on a 2-layer model).
    const Json& v = base.contains(p.name) ? base[p.name] : p.default_value;
    if (hint.max && v.is_number() && v.get<double>() > *hint.max) {
      base[p.name] = p.type == grow::ParamSpec::Type::Int ? Json(static_cast<int64_t>(*hint.max))
                                                          : Json(*hint.max);
    }
  }
  // The mode choices on which the Layers parameter's applicability depends (depth's style):
  // one branch per choice.
  std::vector<Json> bases;
  const grow::ParamSpec* layers = m.layers_param();
  const grow::ParamSpec* mode =
      layers && !layers->when_key.empty() ? m.find(layers->when_key) : nullptr;
  if (mode && mode->type == grow::ParamSpec::Type::Choice) {
    for (const auto& c : mode->choices) {
      Json b = base;
      b[mode->name] = c;
      bases.push_back(b);
    }
  } else {
    bases.push_back(base);
  }
  std::vector<Json> out;
  for (const auto& b : bases) {
    Json values = b;
    for (const auto& p : m.params) {
      if (!values.contains(p.name)) values[p.name] = p.default_value;
    }
    std::vector<std::pair<std::string, std::vector<Json>>> axes;
    for (const auto& p : m.params) {
      if (p.hidden || !p.applies(values)) continue;
      if (p.type == grow::ParamSpec::Type::Layers) {
        std::vector<Json> choices = layer_choices(p, config.num_layers, o.policies);
        // A mode that takes a layer list only ("not all"): the policies.
        if (mode) {
          Json trial = b;
          trial[p.name] = "all";
          try {
            grow::parse_plan(trial, "candidate");
          } catch (const std::exception&) {
            choices.erase(std::remove(choices.begin(), choices.end(), Json("all")), choices.end());
          }
        }
        axes.emplace_back(p.name, choices);
      } else {
        auto sizes = size_choices(p, o, config.num_layers);
        if (!sizes.empty()) axes.emplace_back(p.name, sizes);
      }
    }
    expand_choices(b, axes, 0, out);
  }
  return out;
}

}  // namespace suggest_impl

using namespace suggest_impl;

// ---------------------------------------------------------------------------------------
// Options

std::vector<std::string> suggest_policy_choices() {
  std::vector<std::string> out = {"all"};
  for (const importance::LayerPolicy* p : importance::layer_policies()) {
    if (!p->count_key.empty()) out.push_back(p->id);
  }
  return out;
}

Json SuggestOptions::to_json() const {
  return Json{{"forgetting_budget", forgetting_budget},
              {"params_budget", params_budget},
              {"time_s", time_s},
              {"rates", rates},
              {"variants", variants},
              {"policies", policies},
              {"eta", eta},
              {"steps", steps},
              {"min_rung_steps", min_rung_steps},
              {"max_candidates", max_candidates}};
}

double parse_duration(const std::string& text, const std::string& what) {
  if (text.empty()) fail("{}: expected a duration such as 30m, 90s or 1.5h, found ''", what);
  std::string v = text;
  double unit = 1;
  switch (v.back()) {
    case 's':
      unit = 1, v.pop_back();
      break;
    case 'm':
      unit = 60, v.pop_back();
      break;
    case 'h':
      unit = 3600, v.pop_back();
      break;
    default:
      break;
  }
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(x) || x <= 0) {
    fail("{}: expected a positive duration such as 30m, 90s or 1.5h, found '{}'", what, text);
  }
  return x * unit;
}

double parse_fraction_option(const std::string& text, const std::string& prefix,
                             const std::string& what) {
  if (text.rfind(prefix, 0) != 0) {
    fail("{}: expected {}X% (or {}0.05), found '{}'", what, prefix, prefix, text);
  }
  const std::string v = text.substr(prefix.size());
  if (v.empty() || v == "%")
    fail("{}: expected a number after '{}', found '{}'", what, prefix, text);
  return fraction_value(Json(v), what);
}

SuggestOptions parse_suggest_section(const Json& j, const std::string& ctx) {
  if (!j.is_object()) fail("{}: expected an object, found {}", ctx, js::type_name(j));
  // Its keys and the budget's, as the spec's schema declares them (spec_schema.cpp).
  schema::check_keys(j, experiment::spec_key("suggest"), experiment::spec_schema(), ctx);
  SuggestOptions o;
  if (j.contains("budget")) {
    const Json& b = j["budget"];
    const std::string bc = ctx + ".budget";
    if (!b.is_object()) fail("{}: expected an object, found {}", bc, js::type_name(b));
    if (b.contains("forgetting"))
      o.forgetting_budget = fraction_value(b["forgetting"], bc + ".forgetting");
    if (b.contains("params")) o.params_budget = fraction_value(b["params"], bc + ".params");
  }
  if (j.contains("time")) {
    const Json& t = j["time"];
    if (t.is_number()) {
      o.time_s = t.get<double>();
      if (!(o.time_s > 0)) fail("{}.time: must be positive, found {}", ctx, o.time_s);
    } else if (t.is_string()) {
      o.time_s = parse_duration(t.get<std::string>(), ctx + ".time");
    } else {
      fail("{}.time: expected seconds or a duration (\"30m\"), found {}", ctx, js::type_name(t));
    }
  }
  if (j.contains("rates")) {
    const Json& r = j["rates"];
    if (!r.is_array() || r.empty()) fail("{}.rates: expected a non-empty list of rates", ctx);
    o.rates.clear();
    for (const auto& x : r) {
      if (!x.is_number() || !(x.get<double>() > 0)) {
        fail("{}.rates: every rate must be a positive number, found {}", ctx, x.dump());
      }
      o.rates.push_back(x.get<double>());
    }
  }
  if (j.contains("variants")) {
    o.variants = js::get<std::vector<std::string>>(j, "variants", ctx);
    for (const auto& v : o.variants) grow::variant_module(v);  // throws naming the known ids
  }
  if (j.contains("policies")) {
    o.policies = js::get<std::vector<std::string>>(j, "policies", ctx);
    const std::vector<std::string> known = suggest_policy_choices();
    for (const auto& p : o.policies) {
      if (std::find(known.begin(), known.end(), p) == known.end()) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        fail("{}.policies: unknown policy '{}' ({})", ctx, p, list);
      }
    }
  }
  auto int_at_least = [&](const char* key, int64_t min, int64_t fallback) {
    const int64_t v = js::get_or<int64_t>(j, key, fallback, ctx);
    if (v < min) fail("{}.{}: must be at least {}, found {}", ctx, key, min, v);
    return v;
  };
  o.eta = int_at_least("eta", 2, o.eta);
  o.steps = int_at_least("steps", 0, o.steps);
  o.min_rung_steps = int_at_least("min_rung_steps", 1, o.min_rung_steps);
  o.max_candidates = int_at_least("max_candidates", 0, o.max_candidates);
  return o;
}

// ---------------------------------------------------------------------------------------
// Candidates

std::vector<Candidate> propose_candidates(const ModelConfig& config, const SuggestOptions& o) {
  const int64_t base = config.param_count();
  const double max_added = o.params_budget * static_cast<double>(base);
  std::vector<std::vector<Candidate>> per_variant;
  for (const grow::VariantModule* m : grow::variants()) {
    if (!o.variants.empty() &&
        std::find(o.variants.begin(), o.variants.end(), m->id) == o.variants.end()) {
      continue;
    }
    // "ewc" is full fine-tuning with EWC kept for earlier specs; a plan referring to another
    // plan (Type::Plan) has nothing to refer to here.
    if (m->id == grow::Variant::Ewc && o.variants.empty()) continue;
    std::vector<Candidate> list;
    for (const Json& pj : variant_plans(*m, config, o)) {
      try {
        grow::GrowthPlan plan = grow::parse_plan(pj, "candidate");
        grow::validate_plan(plan, config, "candidate");
        if (m->resolve) m->resolve(*plan.params.get(), config, "candidate");
        const grow::VariantEstimate e = m->estimate(*plan.params.get(), config);
        if (static_cast<double>(e.added) > max_added) continue;
        Candidate c;
        c.plan = pj;
        c.added = e.added;
        c.label = plan.label();
        list.push_back(std::move(c));
      } catch (const std::exception& e) {
        log::get("suggest")->debug("candidate {} left out: {}", pj.dump(), e.what());
      }
    }
    if (!list.empty()) per_variant.push_back(std::move(list));
  }
  // Round robin over the variants.
  std::vector<Candidate> out;
  std::set<std::string> labels;
  for (size_t i = 0;; ++i) {
    bool any = false;
    for (auto& list : per_variant) {
      if (i >= list.size()) continue;
      any = true;
      Candidate c = list[i];
      std::string label = c.label;
      // Plans whose labels do not show their size: the size keys appended.
      if (labels.count(label)) {
        for (const auto& key : {"budget", "count"}) {
          if (c.plan.contains(key)) label += fmt::format(" {}={}", key, c.plan[key].dump());
        }
      }
      for (int d = 2; labels.count(label); ++d) label = fmt::format("{} #{}", c.label, d);
      labels.insert(label);
      c.label = fmt::format("c{:02d} {}", out.size(), label);
      c.plan["name"] = c.label;
      out.push_back(std::move(c));
    }
    if (!any) break;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Successive halving

std::vector<Rung> halving_rungs(int64_t n, int64_t n_max, int64_t steps, int64_t eta,
                                int64_t min_rung_steps) {
  if (eta < 2) fail("halving: eta must be at least 2, found {}", eta);
  if (steps < 1) fail("halving: the length must be at least 1 step, found {}", steps);
  int64_t k = 0;
  int64_t power = 1;
  while (power * eta <= std::max<int64_t>(1, n_max) && steps / (power * eta) >= min_rung_steps) {
    power *= eta;
    ++k;
  }
  const int64_t r0 = std::max<int64_t>(1, steps / power);
  std::vector<Rung> rungs;
  int64_t step = r0, div = 1;
  for (int64_t i = 0; i <= k; ++i) {
    Rung r;
    r.step = step;
    r.alive = std::max<int64_t>(1, (n + div - 1) / div);
    rungs.push_back(r);
    step *= eta;
    div *= eta;
  }
  return rungs;
}

bool score_better(const Score& a, const Score& b) {
  if (a.valid != b.valid) return a.valid;
  if (!a.valid) return false;
  if (a.within != b.within) return a.within;
  if (a.within) return a.learning < b.learning;
  return a.forgetting < b.forgetting;
}

std::vector<size_t> keep_best(const std::vector<Score>& scores, size_t keep) {
  std::vector<size_t> order(scores.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return score_better(scores[a], scores[b]); });
  order.resize(std::min(keep, order.size()));
  std::sort(order.begin(), order.end());
  return order;
}

Score score_points(const std::vector<SearchPoint>& points, int64_t step, double budget) {
  Score s;
  for (const auto& p : points) {
    if (p.step <= 0 || p.step > step) continue;
    if (!std::isfinite(p.learning) || !std::isfinite(p.forgetting)) continue;
    Score c;
    c.valid = true;
    c.within = p.forgetting <= budget;
    c.learning = p.learning;
    c.forgetting = p.forgetting;
    c.run_id = p.run_id;
    c.step = p.step;
    // Among the candidate's own points: within the budget the best learning, otherwise the
    // least forgetting (then the better learning); ties keep the earlier point.
    bool better = false;
    if (!s.valid) {
      better = true;
    } else if (c.within != s.within) {
      better = c.within;
    } else if (c.within) {
      better = c.learning < s.learning;
    } else {
      better =
          c.forgetting < s.forgetting || (c.forgetting == s.forgetting && c.learning < s.learning);
    }
    if (better) s = c;
  }
  return s;
}

TimeBudget::TimeBudget(double budget_s, std::function<double()> clock, double spent_before)
    : m_budget(budget_s), m_start(clock()), m_before(spent_before), m_clock(std::move(clock)) {}

double TimeBudget::elapsed() const {
  return m_before + (m_clock() - m_start);
}
double TimeBudget::left() const {
  return m_budget - elapsed();
}

double SegmentCost::seconds(int64_t steps) const {
  const double evals = static_cast<double>(steps / std::max<int64_t>(1, interval));
  return static_cast<double>(runs) *
         (setup_s + static_cast<double>(steps) * step_s + evals * eval_s);
}

int64_t affordable_candidates(int64_t n_max, int64_t steps, int64_t eta, int64_t min_rung_steps,
                              const SegmentCost& seg, double left_s) {
  if (n_max <= 0) return 0;
  const int64_t floor_n = std::min<int64_t>(2, n_max);
  auto cost = [&](int64_t n) {
    const auto rungs = halving_rungs(n, n_max, steps, eta, min_rung_steps);
    double total = static_cast<double>(n - 1) * seg.seconds(rungs.front().step);
    for (size_t k = 1; k < rungs.size(); ++k) {
      total += static_cast<double>(rungs[k].alive) * seg.seconds(rungs[k].step - rungs[k - 1].step);
    }
    return total;
  };
  int64_t best = floor_n;
  for (int64_t n = floor_n; n <= n_max; ++n) {
    if (cost(n) <= left_s) best = n;
  }
  return best;
}

HalvingOutcome run_halving(int64_t n_max, int64_t steps, int64_t eta, int64_t min_rung_steps,
                           const HalvingHooks& hooks) {
  HalvingOutcome out;
  out.stopped_at.assign(static_cast<size_t>(n_max), std::nullopt);
  if (n_max <= 0) return out;
  out.rungs = halving_rungs(n_max, n_max, steps, eta, min_rung_steps);
  std::vector<size_t> alive;
  for (size_t k = 0; k < out.rungs.size(); ++k) {
    const int64_t step = out.rungs[k].step;
    if (k == 0) {
      const double t0 = hooks.clock();
      if (!hooks.advance(0, step)) {
        out.out_of_time = true;
        break;
      }
      out.n = std::clamp<int64_t>(hooks.choose_n(hooks.clock() - t0), 1, n_max);
      out.rungs = halving_rungs(out.n, n_max, steps, eta, min_rung_steps);
      for (int64_t c = 0; c < out.n; ++c) alive.push_back(static_cast<size_t>(c));
      for (int64_t c = out.n; c < n_max; ++c) out.stopped_at[static_cast<size_t>(c)] = 0;
      for (size_t i = 1; i < alive.size() && !out.out_of_time; ++i) {
        if (!hooks.advance(alive[i], step)) out.out_of_time = true;
      }
    } else {
      for (size_t c : alive) {
        if (!hooks.advance(c, step)) {
          out.out_of_time = true;
          break;
        }
      }
    }
    if (out.out_of_time) break;
    out.last_rung = static_cast<int64_t>(k);
    out.finalists = alive;
    if (k + 1 == out.rungs.size()) break;
    std::vector<Score> scores;
    for (size_t c : alive) scores.push_back(hooks.score(c, step));
    const auto keep = keep_best(scores, static_cast<size_t>(out.rungs[k + 1].alive));
    std::vector<size_t> next;
    size_t j = 0;
    for (size_t i = 0; i < alive.size(); ++i) {
      if (j < keep.size() && keep[j] == i) {
        next.push_back(alive[i]);
        ++j;
      } else {
        hooks.stop(alive[i], step);
        out.stopped_at[alive[i]] = step;
      }
    }
    alive = next;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// The search on a store

namespace suggest_impl {

// Every evaluated point of a run: validation learning and relative forgetting (the rise of
// eval/orig/ppl over its step-0 value), the test values where evaluated.
std::vector<SearchPoint> read_points(store::Store& store, int64_t run_id) {
  store::MetricQuery q;
  q.keys = {mk::kEvalNewLoss, mk::kEvalOrigPpl, mk::kTestNewLoss, mk::kTestOrigPpl};
  const auto series = store.metric_series(run_id, q);
  auto at = [&](const char* key) {
    std::map<int64_t, double> m;
    auto it = series.find(key);
    if (it == series.end()) return m;
    for (size_t i = 0; i < it->second.steps.size(); ++i) {
      m[it->second.steps[i]] = it->second.values[i];
    }
    return m;
  };
  const auto learning = at(mk::kEvalNewLoss), ppl = at(mk::kEvalOrigPpl);
  const auto test_learning = at(mk::kTestNewLoss), test_ppl = at(mk::kTestOrigPpl);
  std::vector<SearchPoint> out;
  auto p0 = ppl.find(0);
  if (p0 == ppl.end() || !(p0->second > 0)) return out;
  auto tp0 = test_ppl.find(0);
  for (const auto& [step, l] : learning) {
    auto pit = ppl.find(step);
    if (pit == ppl.end()) continue;
    SearchPoint p;
    p.run_id = run_id;
    p.step = step;
    p.learning = l;
    p.orig_ppl = pit->second;
    p.forgetting = pit->second / p0->second - 1.0;
    if (auto t = test_learning.find(step); t != test_learning.end()) p.test_learning = t->second;
    if (auto t = test_ppl.find(step);
        t != test_ppl.end() && tp0 != test_ppl.end() && tp0->second > 0) {
      p.test_forgetting = t->second / tp0->second - 1.0;
    }
    out.push_back(p);
  }
  return out;
}

int64_t last_eval_step(store::Store& store, int64_t run_id) {
  store::MetricQuery q;
  q.keys = {mk::kEvalNewLoss};
  const auto series = store.metric_series(run_id, q);
  auto it = series.find(mk::kEvalNewLoss);
  if (it == series.end() || it->second.steps.empty()) return -1;
  return it->second.steps.back();
}

// A number after `prefix` in the newest event message of `run_id` that starts with it.
std::optional<std::string> event_after(store::Store& store, int64_t run_id,
                                       const std::string& prefix) {
  std::optional<std::string> found;
  for (const auto& e : store.events(run_id)) {
    if (e.message.rfind(prefix, 0) == 0) found = e.message.substr(prefix.size());
  }
  return found;
}

// The seconds of every training segment of `run_id` (its events from the search).
double segment_seconds(store::Store& store, int64_t run_id) {
  const std::string prefix = kSegment;
  double sum = 0;
  for (const auto& e : store.events(run_id)) {
    if (e.message.rfind(prefix, 0) == 0)
      sum += std::strtod(e.message.c_str() + prefix.size(), nullptr);
  }
  return sum;
}

struct SearchCandidate {
  std::string label;
  Json plan;
  std::vector<int64_t> runs;
  std::vector<double> lrs;
};

// The cost of a segment from candidate 0's first rung (`first_rung_s` for its runs of r0
// steps): the seconds of an evaluation from the runs' perf/eval_s rows after step 0, of a
// step from `train_s` (the mean time from the end of a run's step-0 evaluation to the end of
// its evaluation at r0, those evaluations taken off), the rest as setup.
SegmentCost measured_cost(store::Store& store, const std::vector<int64_t>& runs,
                          double first_rung_s, double train_s, int64_t r0, int64_t interval) {
  SegmentCost c;
  c.runs = static_cast<int64_t>(runs.size());
  c.interval = interval;
  double eval_sum = 0;
  int64_t eval_n = 0;
  for (int64_t id : runs) {
    store::MetricQuery q;
    q.keys = {mk::kEvalSeconds};
    const auto series = store.metric_series(id, q);
    auto it = series.find(mk::kEvalSeconds);
    if (it == series.end()) continue;
    for (size_t i = 0; i < it->second.steps.size(); ++i) {
      if (it->second.steps[i] > 0) {
        eval_sum += it->second.values[i];
        ++eval_n;
      }
    }
  }
  const double per_run = first_rung_s / static_cast<double>(std::max<int64_t>(1, c.runs));
  const double evals = static_cast<double>(r0 / std::max<int64_t>(1, interval));
  if (eval_n > 0) c.eval_s = eval_sum / static_cast<double>(eval_n);
  c.step_s = std::max(0.0, (train_s - evals * c.eval_s) / static_cast<double>(r0));
  c.setup_s = per_run - static_cast<double>(r0) * c.step_s - evals * c.eval_s;
  if (!(train_s > 0) || c.setup_s < 0) {
    // Not timed (a search resumed after its first rung) or times that do not add up: the
    // whole first rung in proportion to its steps.
    c.setup_s = 0;
    c.eval_s = 0;
    c.step_s = per_run / static_cast<double>(std::max<int64_t>(1, r0));
  }
  return c;
}

Json point_json(const SearchPoint& p) {
  Json j = {{"run", p.run_id},
            {"step", p.step},
            {"learning", p.learning},
            {"forgetting", p.forgetting},
            {"orig_ppl", p.orig_ppl}};
  return j;
}

}  // namespace suggest_impl

std::string suggest_tag(const SuggestRequest& request) {
  Json o = request.options.to_json();
  // The time budget is left out: the same search continues with more time.
  o.erase("time_s");
  const std::string key = request.spec.dump() + "\n" + o.dump() + "\n" + request.base_dir;
  return fmt::format("suggest:{:016x}", gb::fnv1a64(key.data(), key.size()));
}

Json run_suggest(const SuggestRequest& request, const RunnerOptions& runner,
                 std::function<double()> clock) {
  using store::RunStatus;
  if (!clock) {
    clock = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
  const SuggestOptions& o = request.options;
  const double session_start = clock();
  // The base spec: its model, data, train, eval and probe sections; one seed, no sweep.
  Json base = request.spec;
  for (const char* k : {"plans", "plan", "suggest", "seeds", "sweep", "sweep_mode", "samples"}) {
    base.erase(k);
  }
  base["plans"] = Json::array({Json{{"variant", "full"}}});
  const ExperimentSpec base_spec = parse_spec(base, request.base_dir, "spec");
  if (!base_spec.original_eval.defined()) {
    fail("suggest: the forgetting needs original-domain data (data.original.eval, --original)");
  }
  if (!base_spec.new_eval.defined()) {
    fail("suggest: the search ranks on new-domain validation data (data.new.eval)");
  }
  if (base_spec.is_sequence()) fail("suggest: task sequences are not searched");

  const std::string tag = suggest_tag(request);
  const std::string db = runner.db_path;
  std::vector<store::RunInfo> found;
  {
    store::Store st = store::Store::open(db);
    store::RunFilter f;
    f.tag = tag;
    found = st.list_runs(f);
  }
  if (found.empty()) {
    // A new search: the candidates on the base model, all runs created now (queued).
    std::string folder = base_spec.model.path;
    if (base_spec.model.preset) {
      folder =
          ensure_preset(*base_spec.model.preset, base_spec.seed,
                        runner.cache_dir.empty() ? data::default_cache_dir() : runner.cache_dir,
                        Progress(), runner.on_event);
    }
    const ModelConfig config =
        load_config((std::filesystem::path(folder) / "config.json").string());
    std::vector<Candidate> cands = propose_candidates(config, o);
    if (o.max_candidates > 0 && static_cast<int64_t>(cands.size()) > o.max_candidates) {
      cands.resize(static_cast<size_t>(o.max_candidates));
    }
    if (cands.empty()) {
      fail("suggest: no candidate plan adds at most {} % of the base model's {} parameters",
           o.params_budget * 100, config.param_count());
    }
    const int64_t steps = o.steps > 0 ? o.steps : base_spec.train.steps;
    const auto rungs =
        halving_rungs(static_cast<int64_t>(cands.size()), static_cast<int64_t>(cands.size()), steps,
                      o.eta, o.min_rung_steps);
    const int64_t r0 = rungs.front().step;
    int64_t interval = std::min(base_spec.eval.interval, r0);
    while (r0 % interval != 0) --interval;
    Json search = base_spec.raw;
    for (const char* k : {"seeds", "sweep", "sweep_mode", "samples", "plan"}) search.erase(k);
    search["name"] = "suggest";
    search["plans"] = Json::array();
    for (const auto& c : cands) search["plans"].push_back(c.plan);
    search["sweep"] = Json{{"train.lr", o.rates}};
    search["train"]["steps"] = rungs.back().step;
    search["eval"]["interval"] = interval;
    search["eval"]["test"] = "every";
    RunnerOptions ro = runner;
    ro.create_only = true;
    ro.tags.push_back(tag);
    run_experiment(parse_spec(search, "", "suggest spec"), ro);
    store::Store st = store::Store::open(db);
    store::RunFilter f;
    f.tag = tag;
    found = st.list_runs(f);
    st.add_event(found.front().id, store::EventLevel::Info,
                 fmt::format("suggest: a search of {} candidates x {} rates, options {}",
                             cands.size(), o.rates.size(), o.to_json().dump()));
  }
  std::sort(found.begin(), found.end(),
            [](const store::RunInfo& a, const store::RunInfo& b) { return a.id < b.id; });

  store::Store st = store::Store::open(db);
  // The candidates as stored: one per plan label, in the order of their first runs.
  std::vector<SearchCandidate> cands;
  std::vector<int64_t> ids;
  for (const auto& r : found) ids.push_back(r.id);
  const auto params = st.runs_params(ids);
  const std::string group = found.front().experiment;
  int64_t total_steps = 0, interval = 1;
  for (const auto& r : found) {
    const auto& p = params.at(r.id);
    const std::string label = p.count("plan") ? p.at("plan").get<std::string>() : r.variant;
    auto it = std::find_if(cands.begin(), cands.end(),
                           [&](const SearchCandidate& c) { return c.label == label; });
    if (it == cands.end()) {
      SearchCandidate c;
      c.label = label;
      const Json spec = js::parse(st.get_run(r.id).spec, fmt::format("run {} spec", r.id));
      c.plan = spec.at("plans").at(0);
      total_steps = spec.at("train").value("steps", int64_t{0});
      interval = spec.at("eval").value("interval", int64_t{1});
      cands.push_back(std::move(c));
      it = cands.end() - 1;
    }
    it->runs.push_back(r.id);
    it->lrs.push_back(p.count("train.lr") ? p.at("train.lr").get<double>() : base_spec.train.lr);
  }
  const int64_t n_max = static_cast<int64_t>(cands.size());
  const int64_t r0 = halving_rungs(n_max, n_max, total_steps, o.eta, o.min_rung_steps).front().step;

  double spent_before = 0;
  if (auto e = event_after(st, found.front().id, kSpent)) {
    spent_before = std::strtod(e->c_str(), nullptr);
  }
  // This session's time counts from its start (preparing the data, creating the runs).
  const TimeBudget budget(o.time_s, clock, spent_before + (clock() - session_start));
  auto record_spent = [&] {
    st.add_event(found.front().id, store::EventLevel::Info,
                 fmt::format("{}{:.3f} s", kSpent, budget.elapsed()));
  };

  std::vector<double> train_times;  // of the first rung's runs: step-0 to rung evaluation
  HalvingHooks hooks;
  hooks.clock = clock;
  hooks.advance = [&](size_t c, int64_t step) {
    for (int64_t id : cands[c].runs) {
      const store::RunInfo info = st.get_run(id);
      if (info.status == RunStatus::Finished || info.status == RunStatus::Stopped ||
          info.status == RunStatus::Diverged || info.status == RunStatus::Failed) {
        continue;
      }
      if (info.status == RunStatus::Cancelled && last_eval_step(st, id) >= step) continue;
      if (budget.out()) return false;
      CancelToken token;
      bool timed_out = false;
      RunnerOptions ro = runner;
      ro.cancel = token;
      ro.create_only = false;
      ro.pool_parent = static_cast<int64_t>(::getpid());
      const bool last = step >= total_steps;
      double eval0_at = -1;
      ro.on_event = [&](const events::Event& e) {
        if (runner.on_event) runner.on_event(e);
        if (const auto* ev = std::get_if<events::Eval>(&e)) {
          if (ev->run == id && ev->step == 0) eval0_at = clock();
          if (ev->run == id && ev->step >= step && eval0_at >= 0) {
            train_times.push_back(clock() - eval0_at);
          }
          if (ev->run == id && ev->step >= step && !last) token.cancel();
        }
        if (budget.out()) {
          timed_out = true;
          token.cancel();
        }
        if (runner.cancel.cancelled()) token.cancel();
      };
      const double segment_start = clock();
      const RunOutcome oc = resume_run(id, ro);
      st.add_event(id, store::EventLevel::Info,
                   fmt::format("{}{:.3f} s", kSegment, clock() - segment_start));
      record_spent();
      runner.cancel.throw_if_cancelled();
      if (timed_out && oc.status == "cancelled" && last_eval_step(st, id) < step) return false;
    }
    return true;
  };
  auto points_of = [&](size_t c) {
    std::vector<SearchPoint> pts;
    for (int64_t id : cands[c].runs) {
      auto p = read_points(st, id);
      pts.insert(pts.end(), p.begin(), p.end());
    }
    return pts;
  };
  hooks.score = [&](size_t c, int64_t step) {
    return score_points(points_of(c), step, o.forgetting_budget);
  };
  hooks.stop = [&](size_t c, int64_t step) {
    for (int64_t id : cands[c].runs) {
      const store::RunInfo info = st.get_run(id);
      if (info.status == RunStatus::Stopped || info.status == RunStatus::Finished) continue;
      st.set_status(id, RunStatus::Stopped, fmt::format("{} at step {}", kStoppedBy, step));
    }
  };
  auto mean_train_s = [&] {
    double sum = 0;
    for (double t : train_times) sum += t;
    return train_times.size() == cands.front().runs.size() && !train_times.empty()
               ? sum / static_cast<double>(train_times.size())
               : 0.0;
  };
  hooks.choose_n = [&](double first_rung_s) -> int64_t {
    if (auto e = event_after(st, found.front().id, kChoice)) {
      return std::strtoll(e->c_str(), nullptr, 10);
    }
    const SegmentCost seg =
        measured_cost(st, cands.front().runs, first_rung_s, mean_train_s(), r0, interval);
    int64_t n = affordable_candidates(n_max, total_steps, o.eta, o.min_rung_steps, seg,
                                      0.95 * budget.left());
    if (o.max_candidates > 0) n = std::min(n, o.max_candidates);
    st.add_event(found.front().id, store::EventLevel::Info,
                 fmt::format("{}{} of {} (the first rung took {:.3f} s: per run {:.3f} s setup, "
                             "{:.4f} s a step, {:.3f} s an evaluation; {:.1f} s left)",
                             kChoice, n, n_max, first_rung_s, seg.setup_s, seg.step_s, seg.eval_s,
                             budget.left()));
    for (int64_t c = n; c < n_max; ++c) {
      for (int64_t id : cands[static_cast<size_t>(c)].runs) {
        if (st.get_run(id).status == RunStatus::Stopped) continue;
        st.set_status(
            id, RunStatus::Stopped,
            fmt::format("{} (the time budget affords {} of {} candidates)", kNotRun, n, n_max));
      }
    }
    return n;
  };
  const HalvingOutcome h = run_halving(n_max, total_steps, o.eta, o.min_rung_steps, hooks);
  record_spent();

  // The result.
  Json out;
  Json candidates = Json::array();
  double runs_s = 0;  // the candidates' segments (this and earlier sessions, kills aside)
  for (size_t c = 0; c < cands.size(); ++c) {
    const auto pts = points_of(c);
    std::vector<EvalPoint> ev;
    std::vector<SearchPoint> trained;
    for (const auto& p : pts) {
      if (p.step <= 0) continue;
      EvalPoint e;
      e.step = p.step;
      e.learning = p.learning;
      e.forgetting = p.forgetting;
      ev.push_back(e);
      trained.push_back(p);
    }
    Json front = Json::array();
    for (size_t i : pareto_front(ev, true, true)) front.push_back(point_json(trained[i]));
    double seconds = 0;
    for (int64_t id : cands[c].runs) seconds += segment_seconds(st, id);
    runs_s += seconds;
    Json cj = {{"label", cands[c].label}, {"plan", cands[c].plan},      {"runs", cands[c].runs},
               {"lrs", cands[c].lrs},     {"stopped_at_step", nullptr}, {"not_run", false},
               {"front", front},          {"seconds", seconds}};
    if (h.stopped_at[c]) {
      cj["stopped_at_step"] = *h.stopped_at[c];
      cj["not_run"] = *h.stopped_at[c] == 0;
    } else if (h.last_rung + 1 < static_cast<int64_t>(h.rungs.size())) {
      // Alive when the time ran out: its runs are cancelled, not stopped (more --time
      // continues them).
      cj["alive_at_step"] =
          h.last_rung >= 0 ? Json(h.rungs[static_cast<size_t>(h.last_rung)].step) : Json();
    }
    candidates.push_back(cj);
  }
  Json rungs = Json::array();
  for (const auto& r : h.rungs) rungs.push_back({{"step", r.step}, {"alive", r.alive}});
  out["search"] = {{"group", group},
                   {"tag", tag},
                   {"candidates", n_max},
                   {"run", h.n},
                   {"steps", total_steps},
                   {"rungs", rungs},
                   {"last_rung", h.last_rung},
                   {"out_of_time", h.out_of_time},
                   {"options", o.to_json()},
                   {"learning", mk::kEvalNewLoss},
                   {"forgetting", std::string(mk::kEvalOrigPpl) + " relative to step 0"}};
  if (h.last_rung < 0 || h.finalists.empty()) {
    fail(
        "suggest: the time budget ran out before the first rung of the first candidate "
        "finished ({} s spent); give more --time",
        budget.elapsed());
  }
  const int64_t final_step = h.rungs[static_cast<size_t>(h.last_rung)].step;
  std::vector<Score> scores;
  for (size_t c : h.finalists) scores.push_back(hooks.score(c, final_step));
  std::vector<size_t> order(h.finalists.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return score_better(scores[a], scores[b]); });
  const Score& best = scores[order.front()];
  if (!best.valid) fail("suggest: no candidate has an evaluation after step 0");
  const SearchCandidate& win = cands[h.finalists[order.front()]];
  const auto win_pts = points_of(h.finalists[order.front()]);
  const auto pit = std::find_if(win_pts.begin(), win_pts.end(), [&](const SearchPoint& p) {
    return p.run_id == best.run_id && p.step == best.step;
  });
  const size_t run_index = static_cast<size_t>(
      std::find(win.runs.begin(), win.runs.end(), best.run_id) - win.runs.begin());
  Json rec = {
      {"label", win.label},
      {"plan", win.plan},
      {"lr", win.lrs.at(run_index)},
      {"run", best.run_id},
      {"step", best.step},
      {"steps", total_steps},
      {"within_budget", best.within},
      {"validation",
       {{"learning", pit->learning}, {"forgetting", pit->forgetting}, {"orig_ppl", pit->orig_ppl}}},
      {"test",
       {{"learning", pit->test_learning ? Json(*pit->test_learning) : Json()},
        {"forgetting", pit->test_forgetting ? Json(*pit->test_forgetting) : Json()}}}};
  if (!best.within) {
    rec["note"] = fmt::format(
        "no candidate stays within the forgetting budget of {} %: this is the one that forgets "
        "least",
        o.forgetting_budget * 100);
  }
  if (h.last_rung + 1 < static_cast<int64_t>(h.rungs.size())) {
    rec["partial"] =
        fmt::format("the time ran out: chosen at rung {} (step {}) of {}, not at the full length",
                    h.last_rung, final_step, h.rungs.size());
  }
  if (order.size() > 1 && scores[order[1]].valid) {
    const Score& next = scores[order[1]];
    rec["next_best"] = {{"label", cands[h.finalists[order[1]]].label},
                        {"run", next.run_id},
                        {"step", next.step},
                        {"within_budget", next.within},
                        {"learning", next.learning},
                        {"forgetting", next.forgetting}};
  }
  out["recommendation"] = rec;
  out["candidates"] = candidates;
  // The finalists in their order at the final rung (the recommendation first), each at its
  // best point: why the recommendation won, and by how much.
  Json finalists = Json::array();
  for (size_t i = 0; i < order.size(); ++i) {
    const Score& s = scores[order[i]];
    const SearchCandidate& fc = cands[h.finalists[order[i]]];
    if (!s.valid) continue;
    const size_t ri =
        static_cast<size_t>(std::find(fc.runs.begin(), fc.runs.end(), s.run_id) - fc.runs.begin());
    finalists.push_back({{"label", fc.label},
                         {"run", s.run_id},
                         {"step", s.step},
                         {"lr", ri < fc.lrs.size() ? Json(fc.lrs[ri]) : Json()},
                         {"within_budget", s.within},
                         {"learning", s.learning},
                         {"forgetting", s.forgetting}});
  }
  out["finalists"] = finalists;
  out["search"]["final_step"] = final_step;
  out["search"]["cost"] = event_after(st, found.front().id, kChoice).value_or("");
  // Forgetting at matched learning over the finalists (fronts.h), when they finished.
  if (h.last_rung + 1 == static_cast<int64_t>(h.rungs.size())) {
    try {
      FrontOptions fo;
      fo.group = group;
      fo.learning = mk::kEvalNewLoss;
      fo.forgetting = mk::kEvalOrigPpl;
      for (size_t c : h.finalists) fo.level_plans.push_back(cands[c].label);
      out["matched"] = compare_at(st, fo, std::nullopt).to_json();
    } catch (const std::exception& e) {
      out["matched"] = {{"error", e.what()}};
    }
  }
  const double elapsed = budget.elapsed();
  out["time_s"] = elapsed;
  out["session_s"] = clock() - session_start;
  // Where the time went: the candidates' training segments, and the rest (preparing data,
  // creating the runs, choosing, segments lost to a kill).
  out["search"]["runs_s"] = runs_s;
  out["search"]["other_s"] = std::max(0.0, elapsed - runs_s);
  return out;
}

}  // namespace gb::experiment
