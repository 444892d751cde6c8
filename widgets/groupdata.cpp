#include "groupdata.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "guiutil.h"
#include "plotutil.h"
#include "store/store.h"
#include "util/metrics.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace st = gb::store;
namespace mk = gb::metrics;
using Json = nlohmann::json;

namespace {

QVariant toVariant(const Json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_string()) return qs(v.get<std::string>());
  return qs(v.dump());
}

bool isEvalKey(const std::string& k) {
  return k.rfind(mk::kEvalPrefix, 0) == 0 || k.rfind(mk::kTestPrefix, 0) == 0;
}

void flattenJson(const std::string& prefix, const Json& j, std::map<std::string, Json>& out) {
  if (j.is_object() && !j.empty()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      flattenJson(prefix.empty() ? it.key() : prefix + "." + it.key(), *it, out);
    }
  } else {
    out[prefix] = j;
  }
}

QString runList(const QVector<qint64>& ids) {
  QStringList t;
  for (int i = 0; i < ids.size() && i < 6; ++i) t << QString::number(ids[i]);
  if (ids.size() > 6) t << u"…"_s;
  return ids.size() == 1 ? QCoreApplication::translate("Compare", "run %1").arg(t.join(u", "_s))
                         : QCoreApplication::translate("Compare", "runs %1").arg(t.join(u", "_s));
}

}  // namespace

// ---- figures --------------------------------------------------------------------------

QString Figure::id() const {
  switch (kind) {
    case Kind::Forgetting:
      return u"forgetting:"_s + key;
    case Kind::Learning:
      return u"learning:"_s + key;
    case Kind::Matched:
      return u"matched:"_s + key;
    default:
      return u"final:"_s + key;
  }
}

Figure Figure::fromId(const QString& id) {
  Figure f;
  const int colon = id.indexOf(u':');
  const QString kind = id.left(colon);
  f.key = id.mid(colon + 1);
  f.kind = kind == u"forgetting"_s ? Kind::Forgetting
           : kind == u"learning"_s ? Kind::Learning
           : kind == u"matched"_s  ? Kind::Matched
                                   : Kind::Final;
  return f;
}

QString Figure::title() const {
  switch (kind) {
    case Kind::Forgetting:
      return QCoreApplication::translate("Compare", "forgetting: change of %1 (%)").arg(key);
    case Kind::Learning:
      return QCoreApplication::translate("Compare", "learning: improvement of %1 (%)").arg(key);
    case Kind::Matched:
      return QCoreApplication::translate("Compare", "forgetting at matched learning");
    default: {
      const std::string unit = mk::unit(key.toStdString());
      return unit.empty() ? key : key + u" ("_s + qs(unit) + u")"_s;
    }
  }
}

bool Figure::lowerIsBetter() const {
  switch (kind) {
    case Kind::Forgetting:
      return true;
    case Kind::Learning:
      return false;
    default:
      return mk::lower_is_better(key.toStdString());
  }
}

double figureOf(const RunSummary& run, const Figure& f, qint64* step) {
  if (step) *step = -1;
  if (run.noFigure() || f.kind == Figure::Kind::Matched) return qQNaN();
  const auto lit = run.last.constFind(f.key);
  if (lit == run.last.constEnd()) return qQNaN();
  const qint64 s = run.lastStep.value(f.key, -1);
  // An evaluation key whose latest value is its step-0 value has no figure yet.
  if (isEvalKey(f.key.toStdString()) && s <= 0) return qQNaN();
  if (step) *step = s;
  const double last = *lit;
  if (f.kind == Figure::Kind::Final) return last;
  const auto fit = run.first.constFind(f.key);
  if (fit == run.first.constEnd() || std::isnan(*fit) || *fit == 0) return qQNaN();
  const double first = *fit;
  const bool lower = mk::lower_is_better(f.key.toStdString());
  const double worse = lower ? last - first : first - last;  // > 0: got worse
  const double rel = 100.0 * worse / std::fabs(first);
  return f.kind == Figure::Kind::Forgetting ? rel : -rel;
}

int GroupData::runIndex(qint64 id) const {
  for (int i = 0; i < runs.size(); ++i) {
    if (runs[i].id == id) return i;
  }
  return -1;
}

// ---- evaluation sets ------------------------------------------------------------------

Json evalSetsOf(const Json& spec) {
  Json out = Json::object();
  if (!spec.is_object()) return out;
  bool heldout = false;
  if (spec.contains("data") && spec["data"].is_object()) {
    for (auto it = spec["data"].begin(); it != spec["data"].end(); ++it) {
      if (!it->is_object()) continue;
      for (const char* part : {"eval", "test"}) {
        if (!it->contains(part)) continue;
        const Json& src = (*it)[part];
        out["data"][it.key()][part] = src;
        if (src.is_object() && src.value("part", std::string()) == "heldout") heldout = true;
      }
    }
  }
  if (spec.contains("tasks")) out["tasks"] = spec["tasks"];
  if (spec.contains("eval") && spec["eval"].is_object() && spec["eval"].contains("tokens")) {
    out["eval"]["tokens"] = spec["eval"]["tokens"];
  }
  if (spec.contains("train") && spec["train"].is_object() && spec["train"].contains("seq_len")) {
    out["train"]["seq_len"] = spec["train"]["seq_len"];
  }
  // The spec seed draws the held-out parts of a split.
  if (heldout) out["seed"] = spec.value("seed", 0);
  return out;
}

QStringList evalSetDifferences(const QVector<QPair<qint64, Json>>& sets) {
  if (sets.size() < 2) return {};
  std::vector<std::map<std::string, Json>> flat(sets.size());
  std::set<std::string> keys;
  for (int i = 0; i < sets.size(); ++i) {
    flattenJson("", sets[i].second, flat[i]);
    for (const auto& [k, v] : flat[i]) keys.insert(k);
  }
  QStringList out;
  for (const std::string& k : keys) {
    // value text → runs
    std::map<std::string, QVector<qint64>> values;
    for (int i = 0; i < sets.size(); ++i) {
      auto it = flat[i].find(k);
      const std::string text = it == flat[i].end()      ? std::string()
                               : it->second.is_string() ? it->second.get<std::string>()
                                                        : it->second.dump();
      values[text].push_back(sets[i].first);
    }
    if (values.size() < 2) continue;
    QStringList parts;
    for (const auto& [text, ids] : values) {
      const QString v = text.empty() ? QCoreApplication::translate("Compare", "(not set)")
                                     : u"“%1”"_s.arg(qs(text));
      parts << u"%1 (%2)"_s.arg(v, runList(ids));
    }
    out << u"%1: %2"_s.arg(qs(k), parts.join(QCoreApplication::translate("Compare", " vs ")));
  }
  return out;
}

QString paramText(const QVariant& v) {
  if (v.typeId() == QMetaType::Double) return QString::number(v.toDouble(), 'g', 4);
  if (v.typeId() == QMetaType::Bool) return v.toBool() ? u"true"_s : u"false"_s;
  return v.toString();
}

// ---- loading --------------------------------------------------------------------------

GroupData loadGroup(st::Store& store, const QString& group,
                    const gb::experiment::CompareOptions& options,
                    const gb::experiment::FrontOptions& fronts) {
  GroupData d;
  d.group = group;
  d.compareOptions = options;
  d.compareOptions.group = ss(group);
  d.frontOptions = fronts;
  d.frontOptions.group = ss(group);
  st::RunFilter f;
  f.experiment = ss(group);
  f.include_spec = true;
  const std::vector<st::RunInfo> runs = store.list_runs(f);
  if (runs.empty()) {
    d.error = QCoreApplication::translate("Compare", "the group has no runs");
    return d;
  }
  std::vector<int64_t> ids;
  for (const auto& r : runs) ids.push_back(r.id);
  auto params = store.runs_params(ids);
  std::map<int64_t, std::vector<st::LatestMetric>> latest;
  std::set<std::string> allKeys, evalKeys;
  for (auto& m : store.latest_metrics(ids)) {
    allKeys.insert(m.key);
    if (isEvalKey(m.key)) evalKeys.insert(m.key);
    latest[m.run_id].push_back(std::move(m));
  }
  std::map<int64_t, std::vector<st::LatestMetric>> firsts;
  if (!evalKeys.empty()) {
    for (auto& m : store.first_metrics(ids, {evalKeys.begin(), evalKeys.end()})) {
      if (m.step == 0) firsts[m.run_id].push_back(std::move(m));
    }
  }
  std::set<std::string> paramKeys;
  QVector<QPair<qint64, Json>> sets;
  for (const auto& r : runs) {
    RunSummary s;
    s.id = r.id;
    s.name = qs(r.name);
    s.status = r.status;
    for (const auto& [k, v] : params[r.id]) {
      s.params.insert(qs(k), toVariant(v));
      paramKeys.insert(k);
    }
    s.plan = s.params.value(u"plan"_s, qs(r.variant)).toString();
    for (const auto& m : latest[r.id]) {
      const QString k = qs(m.key);
      s.last.insert(k, m.value);
      s.lastStep.insert(k, m.step);
      if (isEvalKey(m.key)) s.evalStep = std::max<qint64>(s.evalStep, m.step);
    }
    for (const auto& m : firsts[r.id]) s.first.insert(qs(m.key), m.value);
    const Json spec = Json::parse(r.spec, nullptr, false);
    if (spec.is_object()) {
      s.evalSets = evalSetsOf(spec);
      if (spec.contains("train") && spec["train"].is_object()) {
        s.totalSteps = spec["train"].value("steps", static_cast<int64_t>(0));
      }
    }
    sets.push_back({s.id, s.evalSets});
    d.runs.push_back(std::move(s));
  }
  std::sort(d.runs.begin(), d.runs.end(),
            [](const RunSummary& a, const RunSummary& b) { return a.id < b.id; });
  for (const char* first : {"plan", "seed"}) {
    if (paramKeys.count(first)) d.paramKeys << QLatin1String(first);
  }
  for (const auto& k : paramKeys) {
    if (k != "plan" && k != "seed") d.paramKeys << qs(k);
  }
  for (const auto& k : allKeys) d.metricKeys << qs(k);
  for (const QString& k : d.paramKeys) {
    if (k == u"seed"_s) continue;
    QSet<QString> values;
    for (const auto& r : d.runs) values.insert(paramText(r.params.value(k)));
    if (values.size() > 1) d.variedKeys << k;
  }
  for (const QString& k : d.variedKeys) {
    if (k == u"plan"_s || k == u"variant"_s) continue;
    QHash<QString, QSet<QString>> perPlan;
    for (const auto& r : d.runs) {
      if (r.params.contains(k)) perPlan[r.plan].insert(paramText(r.params.value(k)));
    }
    for (const auto& values : perPlan) {
      if (values.size() > 1) {
        d.sweptKeys << k;
        break;
      }
    }
  }
  d.evalDifferences = evalSetDifferences(sets);
  try {
    d.compare = gb::experiment::compare_group(store, d.compareOptions);
  } catch (const std::exception& e) {
    d.compareError = QString::fromUtf8(e.what());
  }
  try {
    d.traces = gb::experiment::load_traces(store, d.frontOptions);
    if (d.traces->plans.empty()) {
      d.traces.reset();
      d.tracesError = QCoreApplication::translate(
          "Compare", "no finished run of the group has both %1 and %2 at an evaluation")
                          .arg(qs(d.frontOptions.learning), qs(d.frontOptions.forgetting));
    }
  } catch (const std::exception& e) {
    d.tracesError = QString::fromUtf8(e.what());
  }
  return d;
}

GroupData loadGroupFromFile(const QString& dbPath, const QString& group,
                            const gb::experiment::CompareOptions& options,
                            const gb::experiment::FrontOptions& fronts) {
  try {
    st::OpenOptions o;
    o.check = st::IntegrityCheck::None;
    st::Store store = st::Store::open(ss(dbPath), st::OpenMode::ReadOnly, o);
    GroupData d = loadGroup(store, group, options, fronts);
    d.dbPath = dbPath;
    return d;
  } catch (const std::exception& e) {
    GroupData d;
    d.group = group;
    d.dbPath = dbPath;
    d.error = QString::fromUtf8(e.what());
    return d;
  }
}

GroupSeries loadGroupSeries(const QString& dbPath, const QString& group,
                            const QVector<qint64>& runIds, const QString& key) {
  GroupSeries out;
  out.group = group;
  out.key = key;
  try {
    st::OpenOptions o;
    o.check = st::IntegrityCheck::None;
    st::Store store = st::Store::open(ss(dbPath), st::OpenMode::ReadOnly, o);
    st::MetricQuery q;
    q.keys = {ss(key)};
    for (qint64 id : runIds) {
      auto series = store.metric_series(id, q);
      auto it = series.find(q.keys[0]);
      if (it == series.end() || it->second.steps.empty()) continue;
      SeriesData s;
      s.steps.reserve(static_cast<int>(it->second.steps.size()));
      s.values.reserve(static_cast<int>(it->second.steps.size()));
      for (size_t i = 0; i < it->second.steps.size(); ++i) {
        s.steps << static_cast<double>(it->second.steps[i]);
        s.values << it->second.values[i];
      }
      out.series.insert(id, std::move(s));
    }
  } catch (const std::exception&) {
    // No series: the curves say there is nothing to draw.
  }
  return out;
}

// ---- forgetting at matched learning ---------------------------------------------------

MatchedFigure matchedFigure(const gb::experiment::GroupTraces& traces, const QSet<qint64>& runIds,
                            const MatchedLevel& level) {
  // The set's runs per seed, in the traces' order (plans, seeds, runs), as compare_at sees
  // them: ties go to the first run.
  std::map<int64_t, std::vector<gb::experiment::RunTrace>> bySeed;
  for (const auto& plan : traces.plans) {
    for (const auto& seed : plan.seeds) {
      for (const auto& run : seed.runs) {
        if (runIds.contains(run.run_id)) bySeed[seed.seed].push_back(run);
      }
    }
  }
  MatchedFigure m;
  m.seeds = static_cast<int>(bySeed.size());
  for (const auto& [seed, runs] : bySeed) {
    auto p = gb::experiment::match_at(runs, level.value, traces.learning_lower,
                                      traces.forgetting_lower);
    if (!p) {
      m.unreachedSeeds << seed;
      continue;
    }
    m.seedIds << seed;
    m.points << *p;
  }
  m.n = static_cast<int>(m.points.size());
  if (m.n == 0) return m;
  m.test = level.test;
  for (const auto& p : m.points) {
    if (!p.test_forgetting) m.test = false;
  }
  double sum = 0;
  for (const auto& p : m.points) sum += m.test ? *p.test_forgetting : p.forgetting;
  m.mean = sum / m.n;
  double ss2 = 0;
  for (const auto& p : m.points) {
    const double v = m.test ? *p.test_forgetting : p.forgetting;
    ss2 += (v - m.mean) * (v - m.mean);
  }
  m.std = m.n > 1 ? std::sqrt(ss2 / (m.n - 1)) : 0.0;
  return m;
}

QString matchedText(const MatchedFigure& m) {
  if (!m.traced()) return u"–"_s;
  if (!m.reaches()) return QCoreApplication::translate("Compare", "does not reach");
  QString t = m.n > 1 || m.seeds > 1 ? u"%1 ± %2"_s.arg(formatValue(m.mean), formatValue(m.std))
                                     : formatValue(m.mean);
  if (m.n < m.seeds) {
    t += u" "_s + QCoreApplication::translate("Compare", "(%1 of %2 seeds)").arg(m.n).arg(m.seeds);
  }
  return t;
}

gb::experiment::GroupTraces filterTraces(const gb::experiment::GroupTraces& traces,
                                         const QSet<qint64>& runIds) {
  gb::experiment::GroupTraces out = traces;
  out.plans.clear();
  for (const auto& plan : traces.plans) {
    gb::experiment::PlanTraces p;
    p.plan = plan.plan;
    for (const auto& seed : plan.seeds) {
      gb::experiment::SeedTraces s;
      s.seed = seed.seed;
      for (const auto& run : seed.runs) {
        if (runIds.contains(run.run_id)) s.runs.push_back(run);
      }
      if (!s.runs.empty()) p.seeds.push_back(std::move(s));
    }
    if (!p.seeds.empty()) out.plans.push_back(std::move(p));
  }
  return out;
}

QString levelText(const gb::experiment::GroupTraces& traces, double value) {
  return u"%1 %2"_s.arg(traces.learning_lower ? u"≤"_s : u"≥"_s, formatValue(value));
}

QString matchedToolTip(const MatchedFigure& m, const gb::experiment::GroupTraces& traces,
                       const MatchedLevel& level) {
  QStringList lines;
  const QString fkey = qs(m.test ? traces.test_forgetting : traces.forgetting);
  lines << QCoreApplication::translate(
               "Compare",
               "Forgetting (%1) where %2 reaches %3%4: per seed, the point of its runs (every "
               "rate and evaluation) with the least validation forgetting; mean ± std over the "
               "seeds that reach the level")
               .arg(fkey, qs(traces.learning), levelText(traces, level.value),
                    level.isAuto ? QCoreApplication::translate("Compare", " (auto)") : QString());
  if (!m.traced()) {
    lines << QCoreApplication::translate(
        "Compare", "No finished run here has evaluations of both metrics.");
    return lines.join(u'\n');
  }
  if (level.test && !m.test && m.reaches()) {
    lines << QCoreApplication::translate(
        "Compare", "A chosen point has no test value: these figures are on the validation sets.");
  }
  for (int i = 0; i < m.points.size(); ++i) {
    const auto& p = m.points[i];
    const QString step = p.interpolated()
                             ? u"%1 (%2–%3)"_s.arg(p.step, 0, 'f', 1).arg(p.step0).arg(p.step1)
                             : QString::number(p.step0);
    lines << QCoreApplication::translate("Compare", "seed %1: run %2, lr %3, step %4: %5")
                 .arg(m.seedIds[i])
                 .arg(p.run_id)
                 .arg(p.lr ? QString::number(*p.lr, 'g', 3) : u"?"_s, step,
                      formatValue(m.test ? *p.test_forgetting : p.forgetting));
  }
  for (qint64 s : m.unreachedSeeds) {
    lines << QCoreApplication::translate("Compare", "seed %1: does not reach the level").arg(s);
  }
  return lines.join(u'\n');
}

// ---- grouping -------------------------------------------------------------------------

QVector<RunGroup> groupRuns(const GroupData& d, const QString& by, const QVector<int>& indices) {
  QVector<int> idx = indices;
  if (idx.isEmpty()) {
    for (int i = 0; i < d.runs.size(); ++i) idx << i;
  }
  const bool config = by == kGroupByConfiguration;
  std::map<QString, RunGroup> groups;
  for (int i : idx) {
    const RunSummary& r = d.runs[i];
    QString key;
    if (config) {
      QStringList parts;
      for (auto it = r.params.cbegin(); it != r.params.cend(); ++it) {
        if (it.key() != u"seed"_s) parts << it.key() + u'=' + paramText(it.value());
      }
      key = parts.join(u'\x1f');
    } else {
      key = r.params.contains(by) ? paramText(r.params.value(by)) : QString();
    }
    RunGroup& g = groups[key];
    if (g.runs.isEmpty()) {
      g.key = key;
      g.method = r.plan;
    }
    g.runs << i;
  }
  QVector<RunGroup> out;
  for (auto& [k, g] : groups) {
    const RunSummary& r = d.runs[g.runs.first()];
    if (config) {
      // The plan and the parameters that tell this configuration apart from the others.
      QStringList parts;
      for (const QString& key : d.variedKeys) {
        if (key == u"plan"_s || key == u"variant"_s) continue;
        // Only keys that vary among the configurations of this plan (or of all plans when
        // the plan is the same everywhere).
        QSet<QString> values;
        for (const RunSummary& o : d.runs) {
          if (o.plan == r.plan) values.insert(paramText(o.params.value(key)));
        }
        if (values.size() > 1) parts << key + u'=' + paramText(r.params.value(key));
      }
      g.label = parts.isEmpty() ? r.plan : r.plan + u" · "_s + parts.join(u", "_s);
    } else if (by == u"plan"_s) {
      g.label = k.isEmpty() ? QCoreApplication::translate("Compare", "(no plan)") : k;
    } else {
      g.label = u"%1 = %2"_s.arg(
          by, k.isEmpty() ? QCoreApplication::translate("Compare", "(not set)") : k);
    }
    out << g;
  }
  std::sort(out.begin(), out.end(), [&](const RunGroup& a, const RunGroup& b) {
    if (a.method != b.method) return a.method < b.method;
    // Numeric values in numeric order.
    bool okA = false, okB = false;
    const double va = a.key.toDouble(&okA), vb = b.key.toDouble(&okB);
    if (okA && okB) return va < vb;
    return a.label < b.label;
  });
  // Unique labels even where two groups print alike.
  QHash<QString, int> seen;
  for (auto& g : out) {
    const int n = seen.value(g.label, 0);
    seen[g.label] = n + 1;
    if (n > 0) g.label += u" #%1"_s.arg(n + 1);
  }
  return out;
}

FigureStat groupStat(const GroupData& d, const RunGroup& g, const Figure& f) {
  FigureStat s;
  QVector<double> v;
  for (int i : g.runs) {
    const RunSummary& r = d.runs[i];
    if (!r.complete()) continue;
    const double x = figureOf(r, f);
    if (std::isfinite(x)) v << x;
  }
  s.n = static_cast<int>(v.size());
  if (v.isEmpty()) return s;
  double sum = 0;
  s.min = s.max = v.first();
  for (double x : v) {
    sum += x;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
  }
  s.mean = sum / v.size();
  double ss2 = 0;
  for (double x : v) ss2 += (x - s.mean) * (x - s.mean);
  s.std = v.size() > 1 ? std::sqrt(ss2 / (v.size() - 1)) : 0.0;
  return s;
}

BandSeries bandOf(const QVector<const SeriesData*>& series, BandMode mode) {
  std::map<double, QVector<double>> at;
  for (const SeriesData* s : series) {
    if (!s) continue;
    for (int i = 0; i < s->steps.size(); ++i) {
      if (std::isfinite(s->values[i])) at[s->steps[i]] << s->values[i];
    }
  }
  BandSeries b;
  for (const auto& [step, v] : at) {
    double sum = 0, lo = v.first(), hi = v.first();
    for (double x : v) {
      sum += x;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
    const double mean = sum / v.size();
    double ss2 = 0;
    for (double x : v) ss2 += (x - mean) * (x - mean);
    const double sd = v.size() > 1 ? std::sqrt(ss2 / (v.size() - 1)) : 0.0;
    b.steps << step;
    b.mean << mean;
    b.lower << (mode == BandMode::StdDev ? mean - sd : lo);
    b.upper << (mode == BandMode::StdDev ? mean + sd : hi);
    b.n << static_cast<int>(v.size());
  }
  return b;
}

QColor methodColor(const QStringList& methods, const QString& method) {
  const int i = methods.indexOf(method);
  return seriesColor(i < 0 ? 0 : i);
}

QColor configColor(const QColor& c, int k) {
  switch (k % 4) {
    case 1:
      return c.darker(145);
    case 2:
      return c.lighter(135);
    case 3:
      return c.darker(200);
    default:
      return c;
  }
}

QVector<int> indexWithinMethod(const QVector<RunGroup>& groups) {
  QHash<QString, int> next;
  QVector<int> out;
  for (const RunGroup& g : groups) out << next[g.method]++;
  return out;
}

}  // namespace gb::gui
