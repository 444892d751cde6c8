// The report of a search (suggest_report.h).
#include "experiment/suggest_report.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "util/svg.h"

namespace gb::experiment {
namespace {

using Json = nlohmann::json;

std::string html_esc(const std::string& s) {
  return svg::escape(s);
}

double num(const Json& j, const char* key,
           double fallback = std::numeric_limits<double>::quiet_NaN()) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}

std::string pct(double v) {
  return std::isfinite(v) ? fmt::format("{:+.2f} %", v * 100) : "–";
}

std::string share(double v) {
  return fmt::format("{:g} %", v * 100);
}

std::string fixed(double v, int digits = 4) {
  return std::isfinite(v) ? fmt::format("{:.{}f}", v, digits) : "–";
}

std::string where_it_ended(const Json& c, int64_t steps) {
  if (c.contains("alive_at_step")) return "alive when the time ran out";
  if (c.value("not_run", false)) return "not run (the time budget)";
  if (c.at("stopped_at_step").is_null()) return fmt::format("ran to the end ({} steps)", steps);
  return fmt::format("stopped by the search at step {}", c["stopped_at_step"].get<int64_t>());
}

std::string recommendation_html(const Json& r, const Json& search, double budget) {
  const Json& rec = r.at("recommendation");
  std::string h = "<h3>The recommendation</h3>\n";
  h += fmt::format(
      "<p><b>{}</b> at learning rate {:g}, step {} of {} (run {}).</p>\n<pre>{}</pre>\n",
      html_esc(rec.value("label", "")), num(rec, "lr"), rec.value("step", int64_t{0}),
      rec.value("steps", int64_t{0}), rec.value("run", int64_t{0}),
      html_esc(rec.at("plan").dump(2)));
  const Json& v = rec.at("validation");
  const Json& t = rec.at("test");
  h += "<table><tr><th></th><th>new-domain loss (learning)</th><th>original-domain perplexity "
       "change (forgetting)</th></tr>\n";
  h += fmt::format("<tr><td>validation halves (chosen on)</td><td>{}</td><td>{}</td></tr>\n",
                   fixed(num(v, "learning")), pct(num(v, "forgetting")));
  h += fmt::format("<tr><td>test halves (reported)</td><td>{}</td><td>{}</td></tr>\n</table>\n",
                   fixed(num(t, "learning")), pct(num(t, "forgetting")));
  h += fmt::format("<p>Forgetting budget {}: {}.</p>\n", share(budget),
                   rec.value("within_budget", false)
                       ? "within it on the validation halves"
                       : "no candidate stays within it; this is the one that forgets least");
  if (rec.contains("partial")) {
    h += fmt::format("<p><b>Partial:</b> {}.</p>\n", html_esc(rec["partial"].get<std::string>()));
  }
  (void)search;
  return h;
}

std::string why_html(const Json& r, double budget) {
  const Json& fin = r.value("finalists", Json::array());
  std::string h = "<h3>Why it won</h3>\n";
  h += fmt::format(
      "<p class=\"rule\">The score of a candidate reads the validation halves only: among its "
      "evaluated points (every rate, every evaluation up to the rung), those whose forgetting "
      "(the rise of the original-domain perplexity over the run's step 0) is within the budget "
      "of {} rank by their new-domain loss, lower first; a candidate with no such point ranks "
      "after every one with one, by its least forgetting. The finalists at the last rung (step "
      "{}), in that order:</p>\n",
      share(budget), r.at("search").value("final_step", int64_t{0}));
  h += "<table><tr><th>rank</th><th>candidate</th><th>lr</th><th>run</th><th>step</th>"
       "<th>within budget</th><th>new-domain loss</th><th>forgetting</th></tr>\n";
  for (size_t i = 0; i < fin.size(); ++i) {
    const Json& f = fin[i];
    h += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{:g}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td></tr>\n",
        i + 1, html_esc(f.value("label", "")), num(f, "lr"), f.value("run", int64_t{0}),
        f.value("step", int64_t{0}), f.value("within_budget", false) ? "yes" : "no",
        fixed(num(f, "learning")), pct(num(f, "forgetting")));
  }
  h += "</table>\n";
  if (fin.size() < 2) {
    h += "<p>It was the only finalist: the halving had stopped every other candidate at an "
         "earlier rung (the table of candidates below).</p>\n";
    return h;
  }
  const Json& a = fin[0];
  const Json& b = fin[1];
  const bool both_within = a.value("within_budget", false) && b.value("within_budget", false);
  if (both_within) {
    const double gap = num(b, "learning") - num(a, "learning");
    h += fmt::format(
        "<p>Against the next best, <b>{}</b>: {} lower new-domain validation loss ({} against "
        "{}), with forgetting {} against {}.</p>\n",
        html_esc(b.value("label", "")), fixed(gap), fixed(num(a, "learning")),
        fixed(num(b, "learning")), pct(num(a, "forgetting")), pct(num(b, "forgetting")));
  } else if (a.value("within_budget", false)) {
    h += fmt::format(
        "<p>The next best, <b>{}</b>, has no point within the budget (its least "
        "forgetting {}).</p>\n",
        html_esc(b.value("label", "")), pct(num(b, "forgetting")));
  } else {
    h += fmt::format(
        "<p>Neither stays within the budget; the recommendation forgets {} "
        "against the next best's ({}) {}.</p>\n",
        pct(num(a, "forgetting")), html_esc(b.value("label", "")), pct(num(b, "forgetting")));
  }
  h += "<p>The search runs one seed, so it cannot tell whether this gap is within the seed "
       "spread. To find out, run the two plans over seeds (their plan JSON is in the "
       "candidates' table of the JSON; put both in one spec's <code>plans</code> with "
       "<code>\"seeds\": [0, 1, 2]</code>) and compare them with <code>growbench-cli compare "
       "GROUP --by plan --at eval/new/loss=auto</code>.</p>\n";
  return h;
}

std::string time_html(const Json& r) {
  const Json& search = r.at("search");
  const Json& cands = r.at("candidates");
  const int64_t steps = search.value("steps", int64_t{0});
  const double total = num(r, "time_s", 0);
  std::string h = "<h3>Where the time went</h3>\n";
  h += fmt::format(
      "<p>{:.1f} s in all (budget {:.0f} s): {:.1f} s training and evaluating the candidates' "
      "runs, {:.1f} s for the rest (preparing data, creating the runs, choosing, and any "
      "segment lost to a kill). {} of {} candidates were run.</p>\n",
      total, num(search.value("options", Json::object()), "time_s", 0), num(search, "runs_s", 0),
      num(search, "other_s", 0), search.value("run", int64_t{0}),
      search.value("candidates", int64_t{0}));
  const std::string cost = search.value("cost", "");
  if (!cost.empty()) {
    h += fmt::format("<p class=\"rule\">The cost model, measured on the first rung: {}.</p>\n",
                     html_esc(cost));
  }
  h += "<table><tr><th>candidate</th><th>runs</th><th>where it ended</th><th>seconds</th>"
       "<th>share</th></tr>\n";
  std::vector<svg::BarGroup> bars;
  for (const auto& c : cands) {
    const double s = num(c, "seconds", 0);
    h += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{:.1f}</td><td>{:.1f} %</td></tr>\n",
                     html_esc(c.value("label", "")), c.at("runs").size(),
                     html_esc(where_it_ended(c, steps)), s, total > 0 ? 100 * s / total : 0.0);
    if (s > 0) bars.push_back({c.value("label", ""), {s}, {0}});
  }
  h += "</table>\n";
  if (!bars.empty()) {
    svg::Axes ax;
    ax.title = "seconds per candidate";
    ax.y_label = "s";
    ax.height = 320;
    h += "<figure><figcaption>Seconds per candidate</figcaption>" +
         svg::bar_chart(bars, {"seconds"}, ax) + "</figure>\n";
  }
  return h;
}

std::string fronts_html(const Json& r, double budget) {
  std::vector<svg::LineSeries> series;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& c : r.at("candidates")) {
    const Json& front = c.value("front", Json::array());
    if (front.empty()) continue;
    svg::LineSeries s;
    s.name = c.value("label", "");
    std::vector<std::pair<double, double>> pts;
    for (const auto& p : front) pts.emplace_back(num(p, "learning"), 100 * num(p, "forgetting"));
    std::sort(pts.begin(), pts.end());
    for (const auto& [x, y] : pts) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      s.x.push_back(x);
      s.y.push_back(y);
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    if (!s.x.empty()) series.push_back(std::move(s));
  }
  if (series.empty()) return "";
  svg::LineSeries b;
  b.name = fmt::format("forgetting budget ({:g} %)", budget * 100);
  b.x = {lo, hi};
  b.y = {budget * 100, budget * 100};
  series.push_back(std::move(b));
  const Json& rec = r.at("recommendation");
  svg::Axes ax;
  ax.title = "trade-off fronts of the candidates (validation halves)";
  ax.x_label = "new-domain loss (lower: learnt more)";
  ax.y_label = "original-domain perplexity change, %";
  ax.height = 420;
  ax.x_marks.push_back({num(rec.at("validation"), "learning"), "recommended"});
  return "<h3>Trade-off fronts</h3>\n<p>Each candidate's non-dominated validation points (every "
         "rate, every evaluation it reached); the dashed line marks the recommended point's "
         "learning.</p>\n<figure><figcaption>Fronts</figcaption>" +
         svg::line_chart(series, ax) + "</figure>\n";
}

}  // namespace

std::string suggest_section(const Json& r) {
  const Json& search = r.at("search");
  const Json& options = search.value("options", Json::object());
  const double budget = num(options, "forgetting_budget", 0);
  std::string h =
      fmt::format("<section>\n<h2>Suggest a plan: {}</h2>\n", html_esc(search.value("group", "")));
  std::string rungs;
  for (const auto& g : search.value("rungs", Json::array())) {
    rungs += fmt::format("{}{} alive to step {}", rungs.empty() ? "" : ", ",
                         g.value("alive", int64_t{0}), g.value("step", int64_t{0}));
  }
  h += fmt::format(
      "<p class=\"meta\">Budgets: forgetting {:g} % (rise of the original-domain validation "
      "perplexity), added parameters {:g} % of the base model, time {:.0f} s. Rates {}. "
      "Successive halving with eta = {}: {}. Learning is {}, forgetting {}.</p>\n",
      budget * 100, num(options, "params_budget", 0) * 100, num(options, "time_s", 0),
      html_esc(options.value("rates", Json::array()).dump()), options.value("eta", int64_t{2}),
      html_esc(rungs), html_esc(search.value("learning", "")),
      html_esc(search.value("forgetting", "")));
  h += recommendation_html(r, search, budget);
  h += why_html(r, budget);
  h += fronts_html(r, budget);
  h += time_html(r);
  return h + "</section>\n";
}

std::string suggest_report_page(store::Store& store, const Json& result,
                                const ReportOptions& options) {
  ReportOptions o = options;
  o.weights = false;  // the search's runs keep no weights worth drawing
  ExperimentReport group = build_report(store, result.at("search").value("group", ""), o);
  group.html = suggest_section(result) + group.html;
  return report_page({group}, "GrowBench: suggest a plan");
}

}  // namespace gb::experiment
