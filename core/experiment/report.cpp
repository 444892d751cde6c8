// Experiment reports (report.h): claims, tables and inline SVG figures from the run store.
#include "experiment/report.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>
#include <torch/torch.h>

#include "experiment/expand.h"
#include "experiment/fronts.h"
#include "experiment/run_model.h"
#include "experiment/spec.h"
#include "grow/checkpoint.h"
#include "importance/effective_rank.h"
#include "util/error.h"
#include "util/json.h"
#include "util/log.h"
#include "util/metrics.h"
#include "util/svg.h"

namespace gb::experiment {

using Json = nlohmann::json;

namespace {

std::string esc(const std::string& s) {
  return svg::escape(s);
}

std::string fmt_value(double v) {
  if (!std::isfinite(v)) return "–";
  const double a = std::fabs(v);
  if (a != 0 && (a < 1e-3 || a >= 1e5)) return fmt::format("{:.3e}", v);
  if (a >= 100) return fmt::format("{:.1f}", v);
  return fmt::format("{:.4f}", v);
}

std::string fmt_stat(const Stat& s) {
  if (s.n == 0) return "–";
  if (s.n == 1) return fmt_value(s.mean) + " (n = 1)";
  return fmt::format("{} ± {}", fmt_value(s.mean), fmt_value(s.std));
}

// Mean ± std over a method's runs of a metric at every step (steps where at least one run has
// a value; n may differ between steps).
svg::LineSeries mean_curve(store::Store& store, const MethodRuns& m, const std::string& key) {
  std::map<int64_t, std::vector<double>> at;
  store::MetricQuery q;
  q.keys = {key};
  for (int64_t id : m.runs) {
    auto series = store.metric_series(id, q);
    auto it = series.find(key);
    if (it == series.end()) continue;
    for (size_t i = 0; i < it->second.steps.size(); ++i) {
      at[it->second.steps[i]].push_back(it->second.values[i]);
    }
  }
  svg::LineSeries s;
  s.name = m.method;
  for (const auto& [step, values] : at) {
    const Stat st = stat_of(values);
    s.x.push_back(static_cast<double>(step));
    s.y.push_back(st.mean);
    s.lo.push_back(st.mean - st.std);
    s.hi.push_back(st.mean + st.std);
  }
  return s;
}

const MethodRuns* find_method(const std::vector<MethodRuns>& methods, const std::string& name) {
  for (const auto& m : methods) {
    if (m.method == name) return &m;
  }
  return nullptr;
}

// The newest probe of `method` recorded by a run of the group (of plan `plan` when given).
std::optional<store::ProbeInfo> group_probe(store::Store& store,
                                            const std::vector<MethodRuns>& methods,
                                            const std::string& method, const std::string& plan) {
  std::set<int64_t> runs;
  for (const auto& m : methods) {
    if (!plan.empty() && m.method != plan) continue;
    runs.insert(m.runs.begin(), m.runs.end());
    runs.insert(m.unfinished.begin(), m.unfinished.end());
  }
  for (const auto& p : store.list_probes()) {  // newest first
    if (p.method == method && p.run_id && runs.count(*p.run_id)) return p;
  }
  return std::nullopt;
}

struct Figure {
  std::string title, svg, note;
  Json json;
};

std::string axis(const std::string& key) {
  return metrics::axis_title(key);
}

Figure fig_curves(store::Store& store, const std::vector<MethodRuns>& methods, const Json& o) {
  const std::string key = o.at("metric").get<std::string>();
  Figure f;
  f.title = o.value("title", axis(key) + " over training (mean ± std over seeds)");
  std::vector<svg::LineSeries> series;
  Json js = Json::array();
  for (const auto& m : methods) {
    auto s = mean_curve(store, m, key);
    if (s.x.empty()) continue;
    js.push_back({{"method", m.method}, {"steps", s.x}, {"mean", s.y}});
    series.push_back(std::move(s));
  }
  svg::Axes a;
  a.title = f.title;
  a.x_label = "step";
  a.y_label = axis(key);
  a.log_y = o.value("log", false);
  f.svg = series.empty() ? "" : svg::line_chart(series, a);
  f.json = {{"kind", "curves"}, {"metric", key}, {"series", js}};
  return f;
}

MetricRef ref_of(const Json& o, const char* key, const char* of_key) {
  MetricRef r;
  r.metric = o.at(key).get<std::string>();
  r.of = o.value(of_key, std::string("final"));
  return r;
}

Figure fig_bars(store::Store& store, const std::vector<MethodRuns>& methods, const Json& o) {
  const MetricRef ref = ref_of(o, "metric", "of");
  Figure f;
  f.title = o.value("title", ref.label() + " (mean ± std over seeds)");
  // One group, a bar per method (the names go to the legend).
  svg::BarGroup group;
  group.label = ref.label();
  std::vector<std::string> names;
  Json js = Json::array();
  for (const auto& m : methods) {
    const Stat s = stat_of(run_values(store, m.runs, ref));
    group.values.push_back(s.mean);
    group.errors.push_back(s.std);
    names.push_back(m.method);
    js.push_back({{"method", m.method}, {"mean", s.mean}, {"std", s.std}, {"n", s.n}});
  }
  svg::Axes a;
  a.title = f.title;
  a.y_label = axis(ref.metric);
  f.svg = svg::bar_chart({group}, names, a);
  f.json = {{"kind", "bars"}, {"metric", ref.metric}, {"of", ref.of}, {"values", js}};
  return f;
}

Figure fig_tradeoff(store::Store& store, const std::vector<MethodRuns>& methods, const Json& o) {
  const MetricRef x = ref_of(o, "x", "x_of"), y = ref_of(o, "y", "y_of");
  Figure f;
  f.title = o.value("title", "trade-off: " + y.label() + " against " + x.label());
  std::vector<svg::Point> pts;
  Json js = Json::array();
  for (const auto& m : methods) {
    const Stat sx = stat_of(run_values(store, m.runs, x));
    const Stat sy = stat_of(run_values(store, m.runs, y));
    pts.push_back({m.method, sx.mean, sy.mean, sx.std, sy.std});
    js.push_back({{"method", m.method},
                  {"x", {{"mean", sx.mean}, {"std", sx.std}}},
                  {"y", {{"mean", sy.mean}, {"std", sy.std}}},
                  {"n", sx.n}});
  }
  svg::Axes a;
  a.title = f.title;
  a.x_label = x.label();
  a.y_label = y.label();
  f.svg = svg::scatter(pts, a);
  f.json = {{"kind", "tradeoff"}, {"x", x.label()}, {"y", y.label()}, {"points", js}};
  return f;
}

Figure fig_probe_layers(store::Store& store, const std::vector<MethodRuns>& methods,
                        const Json& o) {
  const std::string method = o.at("method").get<std::string>();
  Figure f;
  f.title = o.value("title", "layer importance: " + method);
  auto p = group_probe(store, methods, method, o.value("plan", std::string()));
  if (!p) {
    f.note = fmt::format("no '{}' probe was recorded by the group's runs", method);
    return f;
  }
  auto imp = store.importance(p->id);
  std::vector<svg::BarGroup> groups;
  for (size_t l = 0; l < imp.layer_values.size(); ++l) {
    groups.push_back({std::to_string(l), {imp.layer_values[l]}, {0}});
  }
  svg::Axes a;
  a.title = f.title;
  a.x_label = "layer";
  a.y_label = method;
  f.svg = svg::bar_chart(groups, {""}, a);
  f.note = fmt::format("probe {} ({}), recorded by run {} on {}", p->id, method,
                       p->run_id.value_or(0), p->probe_set);
  f.json = {
      {"kind", "probe-layers"}, {"probe", p->id}, {"method", method}, {"layers", imp.layer_values}};
  return f;
}

// ADEPT stage 2's learning-rate multipliers (adept/lr_scale/<unit>) of a plan's first run:
// one row per unit of the expanded (or in-place) layers, one column per assignment step.
Figure fig_lr_scales(store::Store& store, const std::vector<MethodRuns>& methods, const Json& o) {
  const std::string plan = o.at("plan").get<std::string>();
  Figure f;
  f.title = o.value("title", "ADEPT stage 2: learning-rate multiplier per unit at each update (" +
                                 plan + ")");
  const MethodRuns* m = find_method(methods, plan);
  if (!m || m->runs.empty()) {
    f.note = fmt::format("no finished run of '{}'", plan);
    return f;
  }
  const int64_t run = m->runs.front();
  std::vector<std::string> keys;
  for (const auto& k : store.metric_keys(run)) {
    if (metrics::is_adept(k)) keys.push_back(k);
  }
  if (keys.empty()) {
    f.note = fmt::format("run {} recorded no stage-2 multipliers (unit_lr off, or no update "
                         "before its end)",
                         run);
    return f;
  }
  store::MetricQuery q;
  q.keys = keys;
  auto series = store.metric_series(run, q);
  std::set<int64_t> steps;
  for (const auto& [k, s] : series) steps.insert(s.steps.begin(), s.steps.end());
  svg::Heatmap h;
  for (int64_t st : steps) h.cols.push_back("step " + std::to_string(st));
  const std::string prefix = metrics::adept_lr_scale_key("");
  Json rows = Json::array();
  for (const auto& k : keys) {
    const auto& s = series[k];
    std::vector<double> row;
    for (int64_t st : steps) {
      double v = NAN;
      for (size_t i = 0; i < s.steps.size(); ++i) {
        if (s.steps[i] == st) v = s.values[i];
      }
      row.push_back(v);
    }
    const std::string unit = k.rfind(prefix, 0) == 0 ? k.substr(prefix.size()) : k;
    h.rows.push_back(unit);
    rows.push_back({{"unit", unit}, {"values", row}});
    h.values.push_back(std::move(row));
  }
  h.annotate = true;
  svg::Axes a;
  a.title = f.title;
  a.y_label = "multiplier of the base rate (0 to 2)";
  a.height = std::max(360, 60 + 18 * static_cast<int>(h.rows.size()));
  f.svg = svg::heatmap(h, a);
  f.note = fmt::format("run {}; recorded at each stage-2 update as {}<unit>", run, prefix);
  f.json = {{"kind", "lr-scales"}, {"run", run}, {"steps", steps}, {"rows", rows}};
  return f;
}

Figure fig_probe_units(store::Store& store, const std::vector<MethodRuns>& methods, const Json& o) {
  const std::string method = o.at("method").get<std::string>();
  Figure f;
  f.title = o.value("title", "unit importance: " + method);
  auto p = group_probe(store, methods, method, o.value("plan", std::string()));
  if (!p) {
    f.note = fmt::format("no '{}' probe was recorded by the group's runs", method);
    return f;
  }
  auto imp = store.importance(p->id);
  svg::Heatmap h;
  h.cols = imp.units;
  for (size_t l = 0; l < imp.unit_values.size(); ++l) {
    h.rows.push_back("layer " + std::to_string(l));
    h.values.push_back(imp.unit_values[l]);
  }
  // Each column min-max normalised (units differ in scale by orders of magnitude).
  if (o.value("normalise", true)) {
    for (size_t c = 0; c < h.cols.size(); ++c) {
      double lo = INFINITY, hi = -INFINITY;
      for (const auto& row : h.values) {
        if (c < row.size() && std::isfinite(row[c])) {
          lo = std::min(lo, row[c]);
          hi = std::max(hi, row[c]);
        }
      }
      for (auto& row : h.values) {
        if (c < row.size() && std::isfinite(row[c]))
          row[c] = hi > lo ? (row[c] - lo) / (hi - lo) : 0;
      }
    }
  }
  h.annotate = true;
  svg::Axes a;
  a.title = f.title;
  a.y_label = o.value("normalise", true) ? "per-unit min-max normalised" : method;
  f.svg = svg::heatmap(h, a);
  std::string step;
  try {
    auto params = json::parse(p->params, "probe params");
    if (params.contains("adept_step"))
      step = fmt::format(" at step {}", params["adept_step"].dump());
  } catch (const std::exception&) {
  }
  f.note = fmt::format("probe {} ({}), recorded by run {}{}", p->id, method, p->run_id.value_or(0),
                       step);
  f.json = {
      {"kind", "probe-units"}, {"probe", p->id}, {"units", imp.units}, {"values", imp.unit_values}};
  return f;
}

Figure fig_effective_rank(store::Store& store, const std::vector<MethodRuns>& methods,
                          const Json& o, const ReportOptions& ro) {
  const std::string plan = o.at("plan").get<std::string>();
  Figure f;
  f.title = o.value("title", "effective rank of ΔW (up projection) per layer: " + plan);
  const MethodRuns* m = find_method(methods, plan);
  if (!m || m->runs.empty()) {
    f.note = fmt::format("no finished run of '{}'", plan);
    return f;
  }
  const int64_t run = m->runs.front();
  auto ckpts = store.checkpoints(run);
  std::sort(ckpts.begin(), ckpts.end(),
            [](const auto& a, const auto& b) { return a.step < b.step; });
  ckpts.erase(std::remove_if(ckpts.begin(), ckpts.end(), [](const auto& c) { return c.step <= 0; }),
              ckpts.end());
  if (ckpts.empty()) {
    f.note = fmt::format("run {} kept no checkpoints (set checkpoint.interval)", run);
    return f;
  }
  RunModel init = load_run_initial_model(store, run, ckpts.front(), ro.cache_dir);
  std::vector<torch::Tensor> base = importance::up_projections(*init.model.model);
  std::vector<std::vector<torch::Tensor>> stages;
  std::vector<std::string> names;
  for (const auto& c : ckpts) {
    RunModel rm = load_run_model(store, run, c, ro.cache_dir);
    stages.push_back(importance::up_projections(*rm.model.model));
    names.push_back(fmt::format("{}", c.step));
  }
  const auto ref = o.value("reference", std::string("previous")) == "base"
                       ? importance::DeltaReference::Base
                       : importance::DeltaReference::Previous;
  auto er = importance::effective_rank_stages(base, stages, names, ref);
  svg::Heatmap h;
  h.cols = names;
  for (size_t l = 0; l < er.values.size(); ++l) {
    h.rows.push_back("layer " + std::to_string(l));
    h.values.push_back(er.values[l]);
  }
  h.annotate = true;
  h.value_format = "{:.0f}";
  svg::Axes a;
  a.title = f.title;
  a.y_label = "effective rank";
  f.svg = svg::heatmap(h, a);
  f.note = fmt::format("run {} (seed {}), ΔW = W(step) − W({}), columns = checkpoint steps", run,
                       store.get_run(run).seed.value_or(0),
                       ref == importance::DeltaReference::Base ? "0" : "previous checkpoint");
  f.json = {{"kind", "effective-rank"}, {"run", run}, {"steps", names}, {"values", er.values}};
  return f;
}

// Singular values of every 2-D parameter whose name contains `pattern`, each normalised by
// its largest and averaged over the matrices (index by index, over the shortest spectrum).
std::vector<double> mean_spectrum(CausalLMImpl& model, const std::string& pattern,
                                  const std::string& exclude, int64_t* count) {
  torch::NoGradGuard ng;
  std::vector<torch::Tensor> spectra;
  for (const auto& item : model.named_parameters(true)) {
    const std::string& n = item.key();
    if (n.find(pattern) == std::string::npos) continue;
    if (!exclude.empty() && n.find(exclude) != std::string::npos) continue;
    if (item.value().dim() != 2) continue;
    auto s = at::linalg_svdvals(item.value().detach().to(torch::kCPU, torch::kDouble));
    const double top = s[0].item<double>();
    if (top > 0) spectra.push_back(s / top);
  }
  *count = static_cast<int64_t>(spectra.size());
  if (spectra.empty()) return {};
  int64_t len = spectra[0].size(0);
  for (const auto& s : spectra) len = std::min<int64_t>(len, s.size(0));
  torch::Tensor mean = torch::zeros({len}, torch::kDouble);
  for (const auto& s : spectra) mean += s.narrow(0, 0, len);
  mean /= static_cast<double>(spectra.size());
  return std::vector<double>(mean.data_ptr<double>(), mean.data_ptr<double>() + len);
}

Figure fig_spectrum(store::Store& store, const std::vector<MethodRuns>& methods, const Json& o,
                    const ReportOptions& ro) {
  const std::string pattern = o.value("tensor", std::string("gate_proj.weight"));
  Figure f;
  f.title = o.value("title", "singular values of the gating matrix, normalised by the largest");
  std::vector<svg::LineSeries> series;
  Json js = Json::array();
  bool base_done = false;
  for (const auto& plan : o.at("plans")) {
    const std::string name = plan.get<std::string>();
    const MethodRuns* m = find_method(methods, name);
    if (!m || m->runs.empty()) continue;
    const int64_t run = m->runs.front();
    auto ckpt = store.latest_checkpoint(run);
    if (!ckpt) continue;
    RunModel rm = load_run_model(store, run, *ckpt, ro.cache_dir);
    if (!base_done) {
      // The base model's own MLP gate projections (loaded plain, before any growth).
      LoadedModel base = grow::load_model(rm.base_folder);
      int64_t n = 0;
      auto s = mean_spectrum(*base.model, "mlp.gate_proj.weight", "", &n);
      if (!s.empty()) {
        svg::LineSeries ls;
        ls.name = "base MLP gate_proj";
        for (size_t i = 0; i < s.size(); ++i) {
          ls.x.push_back(static_cast<double>(i));
          ls.y.push_back(s[i]);
        }
        js.push_back({{"name", ls.name}, {"matrices", n}, {"values", s}});
        series.push_back(std::move(ls));
      }
      base_done = true;
    }
    int64_t n = 0;
    auto s = mean_spectrum(*rm.model.model, pattern, "mlp.gate_proj", &n);
    if (s.empty()) continue;
    svg::LineSeries ls;
    ls.name = name;
    for (size_t i = 0; i < s.size(); ++i) {
      ls.x.push_back(static_cast<double>(i));
      ls.y.push_back(s[i]);
    }
    js.push_back({{"name", name}, {"run", run}, {"matrices", n}, {"values", s}});
    series.push_back(std::move(ls));
  }
  svg::Axes a;
  a.title = f.title;
  a.x_label = "singular value index";
  a.y_label = "σ_i / σ_1";
  f.svg = series.empty() ? "" : svg::line_chart(series, a);
  f.note =
      "each curve: the mean over layers of the normalised spectrum, from the final "
      "checkpoint of the method's first run";
  f.json = {{"kind", "spectrum"}, {"series", js}};
  return f;
}

Figure fig_task_matrix(store::Store& store, const std::vector<MethodRuns>& methods, const Json& o,
                       const std::vector<std::string>& task_names) {
  Figure f;
  f.title = o.value("title", "accuracy matrix R[after task i][task j] (mean over seeds)");
  std::vector<std::string> panels;
  Json js = Json::array();
  for (const auto& m : methods) {
    std::vector<std::vector<std::vector<double>>> mats;
    for (int64_t id : m.runs) mats.push_back(store.task_matrix(id).values);
    if (mats.empty() || mats[0].empty()) continue;
    const size_t n = mats[0].size();
    std::vector<std::vector<double>> mean(n, std::vector<double>(n, kNaN));
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = 0; j < n; ++j) {
        std::vector<double> v;
        for (const auto& mat : mats) {
          if (i < mat.size() && j < mat[i].size()) v.push_back(mat[i][j]);
        }
        mean[i][j] = stat_of(v).mean;
      }
    }
    svg::Heatmap h;
    for (size_t i = 0; i < n; ++i) {
      const std::string t = i < task_names.size() ? task_names[i] : std::to_string(i + 1);
      h.rows.push_back("after " + t);
      h.cols.push_back(t);
    }
    h.values = mean;
    h.annotate = true;
    h.value_format = "{:.3f}";
    svg::Axes a;
    a.title = m.method;
    a.width = 420;
    a.y_label = "accuracy";
    panels.push_back(svg::heatmap(h, a));
    js.push_back({{"method", m.method}, {"runs", m.runs}, {"mean", mean}});
  }
  // One document, two methods to a row.
  f.svg = panels.empty() ? "" : svg::grid(panels, 2);
  f.json = {{"kind", "task-matrix"}, {"matrices", js}};
  return f;
}

Figure fig_neff(store::Store& store, const std::vector<MethodRuns>& methods, const Json& o) {
  Figure f;
  f.title = o.value("title", "N_eff per layer at the end (mean over the layer's banks and seeds)");
  // route/<layer>.<linear>/neff at each run's last step.
  std::map<std::string, std::map<int64_t, std::vector<double>>> per;  // method → layer → v
  std::set<int64_t> layers;
  for (const auto& m : methods) {
    for (int64_t id : m.runs) {
      std::map<int64_t, std::vector<double>> run_layers;
      for (const auto& lm : store.latest_metrics({id})) {
        const std::string& k = lm.key;
        if (k.rfind(metrics::kRoutePrefix, 0) != 0 || k == metrics::kRouteNeff) continue;
        if (k.size() < 5 || k.compare(k.size() - 5, 5, "/neff") != 0) continue;
        const std::string bank = k.substr(6, k.size() - 6 - 5);
        const int64_t layer = std::atoll(bank.substr(0, bank.find('.')).c_str());
        run_layers[layer].push_back(lm.value);
      }
      for (const auto& [l, v] : run_layers) {
        per[m.method][l].push_back(stat_of(v).mean);
        layers.insert(l);
      }
    }
  }
  std::vector<std::string> series;
  for (const auto& m : methods) {
    if (per.count(m.method)) series.push_back(m.method);
  }
  std::vector<svg::BarGroup> groups;
  Json js = Json::object();
  for (int64_t l : layers) {
    svg::BarGroup g;
    g.label = "layer " + std::to_string(l);
    for (const auto& name : series) {
      const Stat s = stat_of(per[name][l]);
      g.values.push_back(s.mean);
      g.errors.push_back(s.std);
      js[name][std::to_string(l)] = {{"mean", s.mean}, {"std", s.std}, {"n", s.n}};
    }
    groups.push_back(std::move(g));
  }
  if (!groups.empty()) {
    svg::Axes a;
    a.title = f.title;
    a.y_label = "N_eff";
    f.svg = svg::bar_chart(groups, series, a);
  } else {
    f.note = "no route statistics were recorded (no routed experts in the group)";
  }
  f.json = {{"kind", "neff"}, {"values", js}};
  return f;
}

// "train.lr = 0.001 for every plan; train.lr = 0.0002 for Full fine-tuning"
std::string protocol_selection(const ProtocolSpec& p) {
  std::vector<std::string> parts;
  for (const auto& [key, by_plan] : p.runs) {
    for (const auto& [plan, v] : by_plan) {
      parts.push_back(fmt::format("{} = {} for {}", key, v.dump(),
                                  plan == "*" ? std::string("every other plan") : plan));
    }
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::string matched_table(const MatchedResult& r, const MatchedSpec& spec) {
  std::string h = fmt::format(
      "<h3>At matched learning</h3>\n<p>{}Per plan and seed: among every run (every rate) and "
      "every evaluation, the point with the least validation {} whose validation {} reaches "
      "{}{} (linearly interpolated between two evaluations where a run crosses it); reported "
      "as the {} value of that run and step, mean ± std over the seeds that reach it.</p>\n",
      spec.text.empty() ? "" : esc(spec.text) + " ", esc(r.selection_forgetting),
      esc(r.learning), fmt_value(r.value),
      r.value_auto ? (r.level_plans.empty()
                          ? std::string(" (auto: the best level every seed of every plan reaches)")
                          : fmt::format(" (auto: the best level every seed of {} reaches)",
                                        esc(fmt::format("{}", fmt::join(r.level_plans, ", ")))))
                   : std::string(),
      esc(r.forgetting));
  if (!r.note.empty()) h += fmt::format("<p class=\"meta\">{}</p>\n", esc(r.note));
  h += fmt::format(
      "<table>\n<tr><th>method</th><th>seeds reaching</th><th>{}</th><th>rates and steps "
      "chosen</th></tr>\n",
      esc(r.forgetting));
  for (const auto& row : r.rows) {
    std::vector<std::string> where;
    for (const auto& p : row.points) {
      where.push_back(fmt::format(
          "run {}: lr {}, step {}", p.run_id, p.lr ? fmt::format("{:g}", *p.lr) : "?",
          p.interpolated() ? fmt::format("{:.1f} ({}–{})", p.step, p.step0, p.step1)
                           : std::to_string(p.step0)));
    }
    h += fmt::format("<tr><td>{}</td><td>{} of {}</td><td>{}</td><td>{}</td></tr>\n",
                     esc(row.plan), row.n, row.seeds,
                     row.reaches() ? fmt_stat(row.forgetting) : std::string("does not reach"),
                     esc(fmt::format("{}", fmt::join(where, "; "))));
  }
  return h + "</table>\n";
}

// Each plan's trade-off front: forgetting at matched learning (mean ± std over the seeds) at
// every learning level all its seeds reach, with the matched level marked.
Figure fig_fronts(store::Store& store, const std::string& group, const MatchedSpec& section,
                  const Json& o) {
  FrontOptions fo;
  fo.group = group;
  fo.learning = o.value("learning", section.learning);
  fo.forgetting = o.value("forgetting", section.forgetting);
  fo.level_plans = section.level_plans;
  const auto traces = load_traces(store, fo);
  const auto levels = front_levels(traces, o.value("levels", 40));
  const MatchedResult probe = compare_at(traces, std::nullopt);
  const bool test = probe.split == "test";
  const auto curves = front_curves(traces, levels, test);
  Figure f;
  const std::string fkey = test ? traces.test_forgetting : traces.forgetting;
  f.title = o.value("title", fmt::format("fronts: {} at matched {} (mean ± std over seeds)",
                                         axis(fkey), axis(fo.learning)));
  std::vector<svg::LineSeries> series;
  Json js = Json::array();
  for (const auto& c : curves) {
    svg::LineSeries s;
    s.name = c.plan;
    Json pts = Json::array();
    for (size_t i = 0; i < c.levels.size(); ++i) {
      const Stat& st = c.forgetting[i];
      if (st.n == 0 || st.n < c.seeds) continue;  // only where every seed reaches the level
      s.x.push_back(c.levels[i]);
      s.y.push_back(st.mean);
      s.lo.push_back(st.mean - st.std);
      s.hi.push_back(st.mean + st.std);
      pts.push_back({{"level", c.levels[i]}, {"mean", st.mean}, {"std", st.std}, {"n", st.n}});
    }
    js.push_back({{"method", c.plan}, {"seeds", c.seeds}, {"points", pts}});
    if (!s.x.empty()) series.push_back(std::move(s));
  }
  svg::Axes a;
  a.title = f.title;
  a.x_label = axis(fo.learning) + (traces.learning_lower ? " (better to the left)" : "");
  a.y_label = axis(fkey);
  std::optional<double> level = section.value;
  if (!level && section.learning == fo.learning) level = auto_level(traces);
  if (level) {
    a.x_marks.push_back({*level, fmt::format("matched: {}", fmt_value(*level))});
  }
  f.svg = svg::line_chart(series, a);
  f.note = "Each line: a plan's least forgetting at each level of learning over all its rates and "
           "evaluations (interpolated between evaluations), mean over its seeds, band ± one "
           "standard deviation, drawn where every seed reaches the level; the dashed line is the "
           "level the comparison is matched at.";
  f.json = {{"kind", "fronts"},
            {"learning", fo.learning},
            {"forgetting", fkey},
            {"level", level ? Json(*level) : Json(nullptr)},
            {"fronts", js}};
  return f;
}

std::string badge(const std::string& verdict) {
  const char* colour = verdict == kHolds         ? "#1a7f37"
                       : verdict == kDoesNotHold ? "#cf222e"
                                                 : "#9a6700";
  return fmt::format("<span class=\"badge\" style=\"background:{}\">{}</span>", colour,
                     esc(verdict));
}

std::vector<MetricRef> default_columns(store::Store& store, const std::vector<MethodRuns>& ms) {
  std::set<std::string> keys;
  for (const auto& m : ms) {
    if (m.runs.empty()) continue;
    for (const auto& k : store.metric_keys(m.runs.front())) keys.insert(k);
  }
  std::vector<MetricRef> cols;
  for (const char* k : {metrics::kEvalOrigPpl, metrics::kEvalNewPpl, metrics::kTestOrigPpl,
                        metrics::kTestNewPpl, metrics::kEvalOp, metrics::kEvalBwt}) {
    if (keys.count(k)) cols.push_back({k, "final"});
  }
  for (const auto& k : keys) {
    auto tk = metrics::split_task_key(k);
    if (tk && tk->suffix == metrics::kAcc) cols.push_back({k, "final"});
  }
  return cols;
}

}  // namespace

std::string group_of_spec(store::Store& store, const std::string& hash, const std::string& name) {
  std::string group;
  double newest = -1;
  for (const auto& r : store.list_runs()) {
    if (r.spec_hash == hash && r.created > newest) {
      newest = r.created;
      group = r.experiment;
    }
  }
  if (group.empty()) {
    fail("no runs of spec '{}' (hash {}) in this store: run it first with growbench-cli run", name,
         hash);
  }
  return group;
}

std::string group_of_runs(store::Store& store, const ExperimentSpec& spec) {
  auto strip = [](Json j) {
    j.erase("report");
    j.erase("description");
    return j;
  };
  std::vector<Json> want;
  for (const auto& r : expand_runs(spec)) want.push_back(strip(r.spec));
  store::RunFilter f;
  f.include_spec = true;
  std::map<std::string, std::vector<store::RunInfo>> groups;
  for (auto& r : store.list_runs(f)) groups[r.experiment].push_back(std::move(r));
  std::string best;
  double newest = -1;
  for (auto& [group, runs] : groups) {
    if (runs.size() != want.size()) continue;
    std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    bool same = true;
    for (size_t i = 0; i < runs.size() && same; ++i) {
      try {
        same = strip(json::parse(runs[i].spec, "run spec")) == want[i];
      } catch (const std::exception&) {
        same = false;
      }
    }
    if (same && runs.front().created > newest) {
      newest = runs.front().created;
      best = group;
    }
  }
  return best;
}

ExperimentReport build_report(store::Store& store, const std::string& group,
                              const ReportOptions& ro) {
  ExperimentReport rep;
  rep.group = group;
  store::RunFilter filter;
  filter.experiment = group;
  filter.include_spec = true;
  auto runs = store.list_runs(filter);
  if (runs.empty()) fail("no runs in group '{}'", group);
  std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  const Json spec = json::parse(runs.front().spec, fmt::format("run {} spec", runs.front().id));
  rep.experiment = spec.value("name", group);
  rep.spec = ro.report_section.is_null()
                 ? parse_report_spec(spec.value("report", Json()), "report")
                 : parse_report_spec(ro.report_section, "report");
  // The protocol's runs (every run of a plan without a "protocol"): the table, the curves
  // and the protocol view of the claims; the matched view reads every run of the group.
  rep.methods = protocol_methods(store, group_methods(store, group), rep.spec.protocol);
  for (const auto& c : rep.spec.claims) {
    rep.claims.push_back(evaluate_claim(store, rep.methods, c, group, rep.spec.matched));
  }

  // Seeds and time.
  std::set<int64_t> seeds;
  double seconds = 0;
  for (const auto& r : runs) {
    if (r.seed) seeds.insert(*r.seed);
    if (r.started && r.finished) seconds += *r.finished - *r.started;
  }
  std::vector<std::string> task_names;
  if (spec.contains("sequence")) {
    for (const auto& t : spec["sequence"]) task_names.push_back(t.value("name", std::string()));
  }

  std::string h;
  h += fmt::format("<section>\n<h2>{}</h2>\n", esc(rep.experiment));
  if (!rep.spec.paper.empty()) {
    h += fmt::format("<p class=\"paper\">Paper: <code>{}</code>{}</p>\n", esc(rep.spec.paper),
                     rep.spec.section.empty() ? "" : ", " + esc(rep.spec.section));
  }
  if (!rep.spec.claim.empty()) {
    h += fmt::format("<p><b>The paper's claim.</b> {}</p>\n", esc(rep.spec.claim));
  }
  const std::string setting =
      rep.spec.setting.empty() ? spec.value("description", std::string()) : rep.spec.setting;
  if (!setting.empty()) h += fmt::format("<p><b>Setting.</b> {}</p>\n", esc(setting));
  h += fmt::format(
      "<p class=\"meta\">Group <code>{}</code>: {} runs, seeds {{{}}}, {:.1f} minutes of run "
      "time in all.</p>\n",
      esc(group), runs.size(), fmt::join(seeds, ", "), seconds / 60.0);

  if (rep.spec.protocol.defined) {
    h += fmt::format("<h3>The paper's protocol</h3>\n<p>{}</p>\n<p class=\"meta\">The table, "
                     "the curves and the protocol view of each claim read these runs: {}.</p>\n",
                     esc(rep.spec.protocol.text), esc(protocol_selection(rep.spec.protocol)));
  }
  // The table.
  const auto columns =
      rep.spec.columns.empty() ? default_columns(store, rep.methods) : rep.spec.columns;
  Json jmethods = Json::array();
  h += "<table>\n<tr><th>method</th><th>seeds</th>";
  for (const auto& c : columns) h += fmt::format("<th>{}</th>", esc(c.label()));
  h += "</tr>\n";
  for (const auto& m : rep.methods) {
    h += fmt::format("<tr><td>{}</td><td>{}{}</td>", esc(m.method), m.runs.size(),
                     m.unfinished.empty() ? std::string()
                                          : fmt::format(" (+{} unfinished)", m.unfinished.size()));
    Json jm = {{"method", m.method},
               {"runs", m.runs},
               {"unfinished", m.unfinished},
               {"configurations", m.configurations}};
    for (const auto& c : columns) {
      const Stat s = stat_of(run_values(store, m.runs, c));
      h += fmt::format("<td>{}</td>", fmt_stat(s));
      jm["values"][c.label()] = {{"mean", std::isfinite(s.mean) ? Json(s.mean) : Json(nullptr)},
                                 {"std", s.std},
                                 {"n", s.n}};
    }
    if (auto it = m.params.find("train.lr"); it != m.params.end()) jm["lr"] = it->second;
    jmethods.push_back(jm);
    h += "</tr>\n";
  }
  h += "</table>\n<p class=\"meta\">Mean ± sample standard deviation over the seeds of each "
       "method's finished runs; runs without a final evaluation are left out and counted as "
       "unfinished.</p>\n";

  // At matched learning: every run of each plan (every rate, every evaluation).
  Json jmatched;
  if (rep.spec.matched.defined) {
    FrontOptions fo;
    fo.group = group;
    fo.learning = rep.spec.matched.learning;
    fo.forgetting = rep.spec.matched.forgetting;
    fo.level_plans = rep.spec.matched.level_plans;
    try {
      const MatchedResult mr = compare_at(store, fo, rep.spec.matched.value);
      jmatched = mr.to_json();
      h += matched_table(mr, rep.spec.matched);
    } catch (const std::exception& e) {
      jmatched = {{"error", e.what()}};
      h += fmt::format("<p class=\"meta\">At matched learning: could not be computed: {}</p>\n",
                       esc(e.what()));
    }
  }

  // Claims.
  if (!rep.claims.empty()) {
    h += "<h3>Verdicts</h3>\n<p class=\"meta\">A condition compares the per-run values of two "
         "methods (or one method and a number) over their seeds: with d the difference of the "
         "means and the seed spread √(s_a² + s_b²) of their sample standard deviations, it "
         "<b>holds</b> when d exceeds the spread in the claimed direction (near: |d| ≤ the "
         "tolerance), <b>does not hold</b> when it exceeds it the other way (near: |d| − spread "
         "&gt; tolerance), and is <b>inconclusive</b> otherwise or with fewer than 2 seeds. A "
         "claim holds when all its conditions hold.</p>\n";
    for (const auto& c : rep.claims) {
      h += fmt::format("<div class=\"claim\"><p>{} <b>{}</b>: {}</p>\n", badge(c.verdict),
                       esc(c.id), esc(c.text));
      const bool both = c.protocol.defined && c.matched.defined;
      for (const auto* v : {&c.matched, &c.protocol}) {
        if (!v->defined) continue;
        const bool is_matched = v == &c.matched;
        if (both || is_matched) {
          h += fmt::format("<p class=\"rule\">{}: {}</p>\n",
                           is_matched ? "At matched learning" : "The paper's protocol",
                           badge(v->verdict));
        }
        h += fmt::format(
            "<p class=\"rule\">{}</p>\n<table class=\"ev\"><tr><th>method</th><th>"
            "metric</th><th>step</th><th>mean ± std</th><th>runs</th></tr>\n",
            esc(v->rule));
        for (const auto& e : v->evidence) {
          std::string step = e.step ? std::to_string(*e.step) : "final";
          if (e.at) {
            std::vector<std::string> st;
            for (double x : e.steps) st.push_back(fmt::format("{:.4g}", x));
            step = fmt::format("matched at {} = {} (steps {})", e.at->first,
                               fmt_value(e.at->second), fmt::join(st, ", "));
          }
          h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                           esc(e.method), esc(e.metric), esc(step), fmt_stat(e.stat),
                           fmt::join(e.run_ids, ", "));
        }
        h += "</table>\n";
      }
      h += "</div>\n";
    }
  }

  // Figures.
  std::vector<FigureSpec> figures = rep.spec.figures;
  if (!rep.spec.defined) {
    for (const char* k : {metrics::kEvalOrigPpl, metrics::kEvalNewPpl}) {
      figures.push_back({"curves", "", {{"kind", "curves"}, {"metric", k}, {"log", true}}});
    }
  }
  Json jfigs = Json::array();
  for (const auto& fs : figures) {
    Figure f;
    try {
      const Json& o = fs.options;
      if (fs.kind == "curves") f = fig_curves(store, rep.methods, o);
      if (fs.kind == "bars") f = fig_bars(store, rep.methods, o);
      if (fs.kind == "tradeoff") f = fig_tradeoff(store, rep.methods, o);
      if (fs.kind == "fronts") f = fig_fronts(store, group, rep.spec.matched, o);
      if (fs.kind == "probe-layers") f = fig_probe_layers(store, rep.methods, o);
      if (fs.kind == "probe-units") f = fig_probe_units(store, rep.methods, o);
      if (fs.kind == "lr-scales") f = fig_lr_scales(store, rep.methods, o);
      if (fs.kind == "task-matrix") f = fig_task_matrix(store, rep.methods, o, task_names);
      if (fs.kind == "neff") f = fig_neff(store, rep.methods, o);
      if (fs.kind == "effective-rank" || fs.kind == "spectrum") {
        if (!ro.weights) {
          f.title = fs.title.empty() ? fs.kind : fs.title;
          f.note = "left out (--no-weights): this figure loads checkpoints";
        } else if (fs.kind == "effective-rank") {
          f = fig_effective_rank(store, rep.methods, o, ro);
        } else {
          f = fig_spectrum(store, rep.methods, o, ro);
        }
      }
    } catch (const std::exception& e) {
      f.title = fs.title.empty() ? fs.kind : fs.title;
      f.note = std::string("could not be drawn: ") + e.what();
      log::get("report")->warn("report {}: figure {}: {}", rep.experiment, fs.kind, e.what());
    }
    if (!fs.title.empty()) f.title = fs.title;
    h += fmt::format("<figure><figcaption>{}</figcaption>\n{}{}</figure>\n", esc(f.title), f.svg,
                     f.note.empty() ? "" : fmt::format("<p class=\"meta\">{}</p>", esc(f.note)));
    Json jf = f.json.is_null() ? Json{{"kind", fs.kind}} : f.json;
    jf["title"] = f.title;
    jf["svg"] = f.svg;
    if (!f.note.empty()) jf["note"] = f.note;
    jfigs.push_back(std::move(jf));
  }
  h += "</section>\n";
  rep.html = std::move(h);

  Json claims = Json::array();
  for (const auto& c : rep.claims) claims.push_back(c.to_json());
  rep.json = {{"experiment", rep.experiment},
              {"group", group},
              {"paper", rep.spec.paper},
              {"claim", rep.spec.claim},
              {"seeds", seeds},
              {"run_minutes", seconds / 60.0},
              {"claims", claims},
              {"methods", jmethods},
              {"protocol", rep.spec.protocol.defined
                               ? Json{{"text", rep.spec.protocol.text},
                                      {"runs", protocol_selection(rep.spec.protocol)}}
                               : Json(nullptr)},
              {"matched", jmatched},
              {"figures", jfigs}};
  return rep;
}

std::string report_page(const std::vector<ExperimentReport>& reports, const std::string& title) {
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" + esc(title) +
      "</title>\n<style>\n"
      "body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}\n"
      "table{border-collapse:collapse;margin:.6em 0}td,th{border:1px solid #ccc;padding:3px 8px;"
      "font-size:13px;text-align:left}th{background:#f4f4f4}\n"
      ".badge{color:#fff;border-radius:4px;padding:1px 8px;font-size:13px}\n"
      ".meta{color:#555;font-size:13px}.rule{font-size:13px;color:#333}\n"
      ".claim{border-left:3px solid #ddd;padding-left:10px;margin:1em 0}\n"
      "figure{margin:1.2em 0}figcaption{font-weight:bold;margin-bottom:4px}\n"
      "section{border-top:2px solid #333;margin-top:2em}\n"
      "</style></head><body>\n<h1>" +
      esc(title) + "</h1>\n";
  std::time_t now = std::time(nullptr);
  char when[64];
  std::strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  h += fmt::format("<p class=\"meta\">Written by growbench-cli report on {}.</p>\n", when);
  if (reports.size() > 1) {
    h += "<table><tr><th>experiment</th><th>claim</th><th>verdict</th></tr>\n";
    for (const auto& r : reports) {
      for (const auto& c : r.claims) {
        h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td></tr>\n", esc(r.experiment),
                         esc(c.id), badge(c.verdict));
      }
    }
    h += "</table>\n";
  }
  for (const auto& r : reports) h += r.html;
  return h + "</body></html>\n";
}

Json report_json(const std::vector<ExperimentReport>& reports) {
  if (reports.size() == 1) return reports.front().json;
  Json a = Json::array();
  for (const auto& r : reports) a.push_back(r.json);
  return a;
}

}  // namespace gb::experiment
