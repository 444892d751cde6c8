// Trade-off fronts and the comparison at matched learning (core/experiment/fronts.h,
// growbench-cli compare --at) on hand-made stores: every row of the CLI's JSON is recomputed
// here from the store's metrics rows by an independent reading of the rule (points reaching
// the level, crossings interpolated, least validation forgetting, test value reported), and
// checked against numbers worked out by hand.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "experiment/fronts.h"
#include "experiment/report.h"
#include "store/store.h"
#include "util/metrics.h"

using Json = nlohmann::json;
using gb::store::Store;
namespace ex = gb::experiment;
namespace mk = gb::metrics;

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }

// One evaluation of a hand-made run: validation learning and forgetting, and the test values
// when the run evaluated its test sets at that step (NaN: not evaluated).
struct Ev {
  int64_t step;
  double l, f;
  double tl = NAN, tf = NAN;
};

int64_t add_trace(Store& store, const std::string& group, const std::string& plan, double lr,
                  int seed, const std::vector<Ev>& evs,
                  gb::store::RunStatus status = gb::store::RunStatus::Finished,
                  const Json& spec = Json{{"name", "hand-made"}}) {
  gb::store::NewRun nr;
  nr.name = fmt::format("{} lr={} seed={}", plan, lr, seed);
  nr.experiment = group;
  nr.seed = seed;
  nr.spec = spec.dump();
  nr.params = {{"plan", plan}, {"train.lr", lr}, {"seed", seed}};
  const int64_t id = store.create_run(nr);
  auto w = store.metrics_writer();
  for (const auto& e : evs) {
    w.add(id, e.step, mk::kEvalNewLoss, e.l);
    w.add(id, e.step, mk::kEvalOrigLoss, e.f);
    if (!std::isnan(e.tl)) w.add(id, e.step, mk::kTestNewLoss, e.tl);
    if (!std::isnan(e.tf)) w.add(id, e.step, mk::kTestOrigLoss, e.tf);
  }
  w.flush();
  if (status != gb::store::RunStatus::Queued) {
    store.set_status(id, gb::store::RunStatus::Running);
    store.set_status(id, status);
  }
  return id;
}

std::pair<int, QByteArray> run_cli(const QStringList& args) {
  QProcess p;
  p.start(GB_CLI_PATH, args);
  p.waitForFinished(120000);
  return {p.exitCode(), p.readAllStandardOutput() + p.readAllStandardError()};
}

std::string error_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "NO ERROR";
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-12 * std::max(1.0, std::fabs(b)); }

// The independent recomputation: for each plan and seed of the group's finished runs, the
// candidates are read from the metrics rows; lower is better for both losses.
struct Candidate {
  double vf, tf;  // validation and test forgetting (tf NaN when missing)
  double l;       // validation learning
  int64_t run;
  double step;
};

Json recompute(Store& store, const std::string& group, double level) {
  gb::store::RunFilter f;
  f.experiment = group;
  std::map<std::string, std::map<int64_t, std::vector<Candidate>>> cands;
  std::map<std::string, std::set<int64_t>> seeds;
  for (const auto& r : store.list_runs(f)) {
    if (r.status != gb::store::RunStatus::Finished) continue;
    const auto params = store.run_params(r.id);
    const std::string plan = params.at("plan").get<std::string>();
    const int64_t seed = params.at("seed").get<int64_t>();
    seeds[plan].insert(seed);
    std::map<int64_t, std::map<std::string, double>> at;  // step → key → value
    for (const auto& row : store.metric_rows(r.id)) at[row.step][row.key] = row.value;
    std::vector<std::pair<int64_t, std::map<std::string, double>>> evs(at.begin(), at.end());
    auto get = [](const std::map<std::string, double>& m, const char* k) {
      auto it = m.find(k);
      return it == m.end() ? NAN : it->second;
    };
    auto& c = cands[plan][seed];
    for (size_t i = 0; i < evs.size(); ++i) {
      const double l = get(evs[i].second, mk::kEvalNewLoss);
      const double vf = get(evs[i].second, mk::kEvalOrigLoss);
      const double tf = get(evs[i].second, mk::kTestOrigLoss);
      if (l <= level) c.push_back({vf, tf, l, r.id, static_cast<double>(evs[i].first)});
      if (i == 0) continue;
      const double l0 = get(evs[i - 1].second, mk::kEvalNewLoss);
      if ((l0 - level) * (l - level) < 0) {
        const double t = (level - l0) / (l - l0);
        const double vf0 = get(evs[i - 1].second, mk::kEvalOrigLoss);
        const double tf0 = get(evs[i - 1].second, mk::kTestOrigLoss);
        const double s0 = static_cast<double>(evs[i - 1].first);
        c.push_back({vf0 + t * (vf - vf0), tf0 + t * (tf - tf0), level, r.id,
                     s0 + t * (static_cast<double>(evs[i].first) - s0)});
      }
    }
  }
  Json out = Json::object();
  for (const auto& [plan, ss] : seeds) {
    std::vector<double> v;
    Json points = Json::array();
    for (int64_t seed : ss) {
      const auto& c = cands[plan][seed];
      if (c.empty()) continue;
      const Candidate* best = &c[0];
      for (const auto& x : c) {
        if (x.vf < best->vf || (x.vf == best->vf && x.l < best->l)) best = &x;
      }
      v.push_back(best->tf);
      points.push_back({{"run_id", best->run}, {"step", best->step}, {"forgetting", best->tf}});
    }
    Json row = {{"n", v.size()}, {"seeds", ss.size()}, {"points", points}};
    if (!v.empty()) {
      double m = 0;
      for (double x : v) m += x;
      m /= static_cast<double>(v.size());
      double sq = 0;
      for (double x : v) sq += (x - m) * (x - m);
      row["mean"] = m;
      row["std"] = v.size() > 1 ? std::sqrt(sq / static_cast<double>(v.size() - 1)) : 0.0;
    }
    out[plan] = row;
  }
  return out;
}

}  // namespace

class TestFronts : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase();
  void matchedLearningIsRecomputableFromTheStore_data();
  void matchedLearningIsRecomputableFromTheStore();
  void handWorkedRows();
  void autoLevelIsReachedByEveryPlan();
  void withoutTestValuesTheValidationSplitIsSaid();
  void accuracyLevelsAreReachedFromBelow();
  void paretoFrontKeepsTheNonDominated();
  void frontCurvesAreMatchedLevels();
  void reportShowsTheProtocolAndTheMatchedView();
  void conditionsAtAStepReadThatStep();
  void reportSectionErrorsNameTheKey_data();
  void reportSectionErrorsNameTheKey();
  void atUsageErrors_data();
  void atUsageErrors();

 private:
  QTemporaryDir m_tmp;
  std::string m_db;
};

void TestFronts::initTestCase() {
  QVERIFY(m_tmp.isValid());
  m_db = m_tmp.filePath("fronts.db").toStdString();
  Store store = Store::open(m_db);
  // Plan "FT": learns fast and forgets; seed 0 at two rates, seed 1 at one.
  //   lr 1e-3 seed 0: L 6.0 → 4.0 (step 50) → 3.0 (100); F 3.0 → 3.6 → 4.0
  //   lr 1e-4 seed 0: L 6.0 → 5.0 → 4.2;                  F 3.0 → 3.1 → 3.3
  //   lr 1e-3 seed 1: L 6.0 → 4.4 → 3.4;                  F 3.0 → 3.5 → 3.9
  add_trace(store, "g", "FT", 1e-3, 0,
            {{0, 6.0, 3.0, 6.1, 3.05}, {50, 4.0, 3.6, 4.1, 3.62}, {100, 3.0, 4.0, 3.1, 4.1}});
  add_trace(store, "g", "FT", 1e-4, 0,
            {{0, 6.0, 3.0, 6.1, 3.05}, {50, 5.0, 3.1, 5.1, 3.12}, {100, 4.2, 3.3, 4.3, 3.31}});
  add_trace(store, "g", "FT", 1e-3, 1,
            {{0, 6.0, 3.0, 6.1, 3.05}, {50, 4.4, 3.5, 4.5, 3.52}, {100, 3.4, 3.9, 3.5, 3.95}});
  // Plan "Grow": slower, forgets less; crosses 4.0 only in seed 0.
  //   seed 0: L 6.0 → 4.5 → 3.8; F 3.0 → 3.2 → 3.4
  //   seed 1: L 6.0 → 4.8 → 4.1; F 3.0 → 3.1 → 3.2
  add_trace(store, "g", "Grow", 1e-3, 0,
            {{0, 6.0, 3.0, 6.1, 3.05}, {50, 4.5, 3.2, 4.6, 3.25}, {100, 3.8, 3.4, 3.9, 3.44}});
  add_trace(store, "g", "Grow", 1e-3, 1,
            {{0, 6.0, 3.0, 6.1, 3.05}, {50, 4.8, 3.1, 4.9, 3.14}, {100, 4.1, 3.2, 4.2, 3.21}});
  // Plan "LoRA": never below 5.
  add_trace(store, "g", "LoRA", 1e-3, 0,
            {{0, 6.0, 3.0, 6.1, 3.05}, {50, 5.5, 3.0, 5.6, 3.05}, {100, 5.2, 3.01, 5.3, 3.06}});
  // Unfinished and failed runs are left out (a perfect failed run must not count).
  add_trace(store, "g", "FT", 1e-2, 0, {{0, 6.0, 3.0}, {50, 1.0, 3.0}},
            gb::store::RunStatus::Failed);
  add_trace(store, "g", "LoRA", 1e-2, 0, {{0, 6.0, 3.0}}, gb::store::RunStatus::Queued);
}

void TestFronts::matchedLearningIsRecomputableFromTheStore_data() {
  QTest::addColumn<double>("level");
  QTest::newRow("4.0 (interpolated and exact points)") << 4.0;
  QTest::newRow("4.3") << 4.3;
  QTest::newRow("3.5") << 3.5;
  QTest::newRow("5.9 (every plan)") << 5.9;
  QTest::newRow("2.0 (no plan)") << 2.0;
}

void TestFronts::matchedLearningIsRecomputableFromTheStore() {
  QFETCH(double, level);
  auto [code, out] = run_cli({"compare", "g", "--db", qs(m_db), "--at",
                              qs(fmt::format("new/loss={}", level)), "--json"});
  QVERIFY2(code == 0, out.constData());
  const Json j = Json::parse(out.toStdString());
  QCOMPARE(qs(j["at"]["metric"].get<std::string>()), QString(mk::kEvalNewLoss));
  QCOMPARE(j["at"]["value"].get<double>(), level);
  QCOMPARE(qs(j["forgetting_metric"].get<std::string>()), QString(mk::kTestOrigLoss));
  QCOMPARE(qs(j["split"].get<std::string>()), QString("test"));
  QCOMPARE(j["skipped_runs"].size(), size_t(2));
  Store store = Store::open(m_db);
  const Json want = recompute(store, "g", level);
  QCOMPARE(j["rows"].size(), want.size());
  for (const auto& row : j["rows"]) {
    const std::string plan = row["plan"].get<std::string>();
    QVERIFY2(want.contains(plan), plan.c_str());
    const Json& w = want[plan];
    QCOMPARE(row["n"].get<int64_t>(), w["n"].get<int64_t>());
    QCOMPARE(row["seeds"].get<int64_t>(), w["seeds"].get<int64_t>());
    QCOMPARE(row["reaches"].get<bool>(), w["n"].get<int64_t>() > 0);
    if (w["n"].get<int64_t>() == 0) {
      // "does not reach": kept, with no mean.
      QVERIFY(row["mean"].is_null());
      QVERIFY(row["points"].empty());
      continue;
    }
    QVERIFY2(close(row["mean"].get<double>(), w["mean"].get<double>()), plan.c_str());
    QVERIFY2(close(row["std"].get<double>(), w["std"].get<double>()), plan.c_str());
    QCOMPARE(row["points"].size(), w["points"].size());
    for (size_t i = 0; i < w["points"].size(); ++i) {
      const auto& p = row["points"][i];
      const auto& q = w["points"][i];
      QCOMPARE(p["run_id"].get<int64_t>(), q["run_id"].get<int64_t>());
      QVERIFY(close(p["step"].get<double>(), q["step"].get<double>()));
      QVERIFY(close(p["forgetting"].get<double>(), q["forgetting"].get<double>()));
      if (p.contains("steps")) {
        // An interpolated point names both evaluations, and its step lies between them.
        const int64_t s0 = p["steps"][0].get<int64_t>(), s1 = p["steps"][1].get<int64_t>();
        QVERIFY(s0 < p["step"].get<double>() && p["step"].get<double>() < s1);
        QVERIFY(close(p["learning"].get<double>(), level));
      }
    }
  }
  // Plans that reach the level come first, least forgetting first.
  bool seen_unreached = false;
  double last = -INFINITY;
  for (const auto& row : j["rows"]) {
    if (!row["reaches"].get<bool>()) {
      seen_unreached = true;
      continue;
    }
    QVERIFY(!seen_unreached);
    QVERIFY(row["mean"].get<double>() >= last);
    last = row["mean"].get<double>();
  }
}

void TestFronts::handWorkedRows() {
  Store store = Store::open(m_db);
  ex::FrontOptions o;
  o.group = "g";
  const auto r = ex::compare_at(store, o, 4.0);
  auto row = [&](const std::string& plan) -> const ex::MatchedRow& {
    for (const auto& x : r.rows) {
      if (x.plan == plan) return x;
    }
    throw std::runtime_error("no row " + plan);
  };
  // FT seed 0: lr 1e-3 reaches 4.0 exactly at step 50 (val F 3.6) and at 100 (4.0); lr 1e-4
  // never reaches 4.0 (4.2 at the end). Least: step 50, test F 3.62.
  // FT seed 1: crosses between 50 (4.4) and 100 (3.4): t = 0.4, val F 3.5 + 0.4·0.4 = 3.66,
  // test F 3.52 + 0.4·(3.95 − 3.52) = 3.692; step 70. The end (3.9) forgets more.
  const auto& ft = row("FT");
  QCOMPARE(ft.n, int64_t(2));
  QCOMPARE(ft.points[0].step0, int64_t(50));
  QVERIFY(!ft.points[0].interpolated());
  QVERIFY(std::fabs(*ft.points[0].test_forgetting - 3.62) < 1e-12);
  QVERIFY(ft.points[1].interpolated());
  QVERIFY(std::fabs(ft.points[1].t - 0.4) < 1e-12);
  QVERIFY(std::fabs(ft.points[1].step - 70.0) < 1e-9);
  QVERIFY(std::fabs(ft.points[1].forgetting - 3.66) < 1e-12);
  QVERIFY(std::fabs(*ft.points[1].test_forgetting - 3.692) < 1e-12);
  QVERIFY(std::fabs(ft.forgetting.mean - (3.62 + 3.692) / 2) < 1e-12);
  // Grow seed 0 crosses between 50 (4.5) and 100 (3.8): t = 5/7, test F 3.25 + 5/7·0.19;
  // seed 1 never reaches 4.0 (4.1): n = 1 of 2.
  const auto& grow = row("Grow");
  QCOMPARE(grow.n, int64_t(1));
  QCOMPARE(grow.seeds, int64_t(2));
  QCOMPARE(grow.unreached_seeds, std::vector<int64_t>{1});
  QVERIFY(std::fabs(grow.forgetting.mean - (3.25 + 5.0 / 7.0 * 0.19)) < 1e-12);
  QCOMPARE(grow.forgetting.std, 0.0);
  // LoRA does not reach it and is listed last.
  QCOMPARE(qs(r.rows.back().plan), QString("LoRA"));
  QVERIFY(!r.rows.back().reaches());
  QCOMPARE(qs(r.rows.front().plan), QString("Grow"));
}

void TestFronts::autoLevelIsReachedByEveryPlan() {
  Store store = Store::open(m_db);
  ex::FrontOptions o;
  o.group = "g";
  // Best validation learning per seed: FT 3.0 / 3.4, Grow 3.8 / 4.1, LoRA 5.2: the worst of
  // the plans' worst seeds is LoRA's 5.2.
  const auto r = ex::compare_at(store, o, std::nullopt);
  QVERIFY(r.value_auto);
  QCOMPARE(r.value, 5.2);
  for (const auto& row : r.rows) {
    QVERIFY2(row.n == row.seeds, row.plan.c_str());
  }
  auto [code, out] =
      run_cli({"compare", "g", "--db", qs(m_db), "--at", "new/loss=auto"});
  QVERIFY2(code == 0, out.constData());
  QVERIFY2(out.contains("reaches 5.2 (auto"), out.constData());
  // Taken over FT and Grow only: the worst of 3.4 and 4.1; LoRA then does not reach it.
  o.level_plans = {"FT", "Grow"};
  const auto r2 = ex::compare_at(store, o, std::nullopt);
  QCOMPARE(r2.value, 4.1);
  QCOMPARE(r2.level_plans, o.level_plans);
  std::tie(code, out) = run_cli({"compare", "g", "--db", qs(m_db), "--at", "new/loss=auto",
                                 "--level-from", "FT", "--level-from", "Grow", "--json"});
  QVERIFY2(code == 0, out.constData());
  const Json j = Json::parse(out.toStdString());
  QCOMPARE(j["at"]["value"].get<double>(), 4.1);
  QCOMPARE(j["at"]["level_plans"].size(), size_t(2));
  for (const auto& row : j["rows"]) {
    if (row["plan"] == "LoRA") QVERIFY(!row["reaches"].get<bool>());
  }
  o.level_plans = {"FT", "Nope"};
  QVERIFY(error_text([&] { ex::compare_at(store, o, std::nullopt); })
              .find("'Nope' has no finished run") != std::string::npos);
  std::tie(code, out) = run_cli({"compare", "g", "--db", qs(m_db), "--at", "new/loss=4",
                                 "--level-from", "FT"});
  QCOMPARE(code, 2);
}

void TestFronts::withoutTestValuesTheValidationSplitIsSaid() {
  Store store = Store::open(m_db);
  // Test sets only at the ends: a point in the middle has no test value.
  add_trace(store, "ends", "A", 1e-3, 0,
            {{0, 6.0, 3.0, 6.1, 3.05}, {50, 4.0, 3.2}, {100, 3.0, 4.0, 3.1, 4.1}});
  ex::FrontOptions o;
  o.group = "ends";
  const auto r = ex::compare_at(store, o, 4.0);
  QCOMPARE(qs(r.split), QString("validation"));
  QCOMPARE(qs(r.forgetting), QString(mk::kEvalOrigLoss));
  QVERIFY2(r.note.find("eval.test") != std::string::npos, r.note.c_str());
  QCOMPARE(r.rows[0].forgetting.mean, 3.2);
}

void TestFronts::accuracyLevelsAreReachedFromBelow() {
  Store store = Store::open(m_db);
  gb::store::NewRun nr;
  nr.name = "acc";
  nr.experiment = "acc";
  nr.params = {{"plan", "A"}, {"seed", 0}};
  const int64_t id = store.create_run(nr);
  {
    auto w = store.metrics_writer();
    const std::string l = mk::task_key("de", mk::kAcc), f = mk::task_key("en", mk::kAcc);
    // Learning rises 0.5 → 0.7 → 0.9; forgetting accuracy falls 0.9 → 0.85 → 0.6.
    for (auto [s, a, b] : {std::tuple{0, 0.5, 0.9}, {50, 0.7, 0.85}, {100, 0.9, 0.6}}) {
      w.add(id, s, l, a);
      w.add(id, s, f, b);
    }
    w.flush();
  }
  store.set_status(id, gb::store::RunStatus::Running);
  store.set_status(id, gb::store::RunStatus::Finished);
  ex::FrontOptions o;
  o.group = "acc";
  o.learning = mk::task_key("de", mk::kAcc);
  o.forgetting = mk::task_key("en", mk::kAcc);
  // 0.8 is crossed between 50 and 100 at t = 0.5: en acc 0.725 (higher is better: the best
  // point reaching 0.8 is that crossing, not the end's 0.6).
  const auto r = ex::compare_at(store, o, 0.8);
  QCOMPARE(r.rows[0].n, int64_t(1));
  QVERIFY(std::fabs(r.rows[0].points[0].forgetting - 0.725) < 1e-12);
  // 0.6 is reached at 50 (0.85) and crossed at t = 0.5 between 0 and 50 (0.875): the best.
  const auto r2 = ex::compare_at(store, o, 0.6);
  QVERIFY(std::fabs(r2.rows[0].points[0].forgetting - 0.875) < 1e-12);
  // auto: the best accuracy reached, 0.9.
  QCOMPARE(*ex::auto_level(ex::load_traces(store, o)), 0.9);
}

void TestFronts::paretoFrontKeepsTheNonDominated() {
  auto pt = [](int64_t step, double l, double f) {
    ex::EvalPoint e;
    e.step = step;
    e.learning = l;
    e.forgetting = f;
    return e;
  };
  // (learning, forgetting), both lower is better.
  std::vector<ex::EvalPoint> pts = {pt(0, 6, 3),     pt(50, 4, 3.6),   pt(100, 3, 4),
                                    pt(50, 5, 3.1),  pt(100, 4.2, 3.3), pt(60, 4.5, 3.7),
                                    pt(70, 4, 3.6)};
  const auto front = ex::pareto_front(pts, true, true);
  // (4.5, 3.7) is dominated by (4, 3.6); the duplicate (4, 3.6) appears once.
  QCOMPARE(front, (std::vector<size_t>{0, 3, 4, 1, 2}));
  // Higher-is-better learning flips it.
  const auto f2 = ex::pareto_front({pt(0, 0.5, 3), pt(1, 0.7, 3.5), pt(2, 0.6, 3.6)}, false, true);
  QCOMPARE(f2, (std::vector<size_t>{0, 1}));
}

void TestFronts::frontCurvesAreMatchedLevels() {
  Store store = Store::open(m_db);
  ex::FrontOptions o;
  o.group = "g";
  const auto traces = ex::load_traces(store, o);
  const auto levels = ex::front_levels(traces, 7);
  QCOMPARE(levels.size(), size_t(7));
  QCOMPARE(levels.front(), 6.0);  // the worst learning (step 0)
  QCOMPARE(levels.back(), 3.0);   // the best point of any plan
  const auto curves = ex::front_curves(traces, {4.0, 2.0}, true);
  const auto m = ex::compare_at(traces, 4.0);
  for (const auto& c : curves) {
    for (const auto& row : m.rows) {
      if (row.plan != c.plan) continue;
      QCOMPARE(c.forgetting[0].n, row.n);
      if (row.n) QVERIFY(std::fabs(c.forgetting[0].mean - row.forgetting.mean) < 1e-12);
    }
    QCOMPARE(c.forgetting[1].n, int64_t(0));
  }
}

void TestFronts::reportShowsTheProtocolAndTheMatchedView() {
  Store store = Store::open(m_db);
  // At the shared rate 1e-3 (the protocol) A learns far more than B and forgets more at the
  // end; at the learning both reach (auto: B's best, 4.5) A forgets less (its 1e-4 run).
  const Json spec = {
      {"name", "views"},
      {"report",
       {{"claim", "A forgets less than B"},
        {"protocol", {{"text", "one shared rate, as the paper"}, {"runs", {{"train.lr", 1e-3}}}}},
        {"matched", {{"value", "auto"}}},
        {"claims",
         {{{"id", "a-forgets-less"},
           {"text", "A forgets less than B"},
           {"all", {{{"kind", "less"}, {"metric", "test/orig/loss"}, {"a", "A"}, {"b", "B"}}}},
           {"matched", {{{"kind", "less"}, {"a", "A"}, {"b", "B"}}}}}}},
        {"figures", {{{"kind", "fronts"}}}}}}};
  for (int s = 0; s < 3; ++s) {
    const double e = 0.01 * s;
    add_trace(store, "views", "A", 1e-3, s,
              {{0, 6, 3, 6.1, 3 + e}, {50, 4, 3.3, 4.1, 3.3 + e}, {100, 3, 3.8, 3.1, 3.8 + e}},
              gb::store::RunStatus::Finished, spec);
    add_trace(store, "views", "A", 1e-4, s,
              {{0, 6, 3, 6.1, 3 + e}, {50, 5, 3.05, 5.1, 3.05 + e}, {100, 4.5, 3.1, 4.6, 3.1 + e}},
              gb::store::RunStatus::Finished, spec);
    add_trace(store, "views", "B", 1e-3, s,
              {{0, 6, 3, 6.1, 3 + e}, {50, 5, 3.2, 5.1, 3.2 + e}, {100, 4.5, 3.5, 4.6, 3.5 + e}},
              gb::store::RunStatus::Finished, spec);
    add_trace(store, "views", "B", 1e-4, s,
              {{0, 6, 3, 6.1, 3 + e}, {50, 5.5, 3.1, 5.6, 3.1 + e}, {100, 5.2, 3.2, 5.3, 3.2 + e}},
              gb::store::RunStatus::Finished, spec);
  }
  gb::experiment::ReportOptions ro;
  ro.weights = false;
  const auto rep = ex::build_report(store, "views", ro);
  // The protocol's runs only: 3 per plan, at 1e-3.
  QCOMPARE(rep.methods.size(), size_t(2));
  for (const auto& m : rep.methods) {
    QCOMPARE(m.runs.size(), size_t(3));
    QCOMPARE(m.configurations, int64_t(1));
  }
  QCOMPARE(rep.claims.size(), size_t(1));
  const auto& c = rep.claims[0];
  QCOMPARE(qs(c.protocol.verdict), QString("does not hold"));  // 3.81 against 3.51 at the end
  QCOMPARE(qs(c.matched.verdict), QString("holds"));           // 3.11 against 3.51 at 4.5
  QCOMPARE(qs(c.verdict), QString("holds"));                   // the matched view leads
  const Json j = rep.json;
  QCOMPARE(j["claims"][0]["views"]["protocol"]["verdict"].get<std::string>(),
           std::string("does not hold"));
  QCOMPARE(j["matched"]["at"]["value"].get<double>(), 4.5);
  // Matched evidence: A's three points are its 1e-4 runs at step 100 (test F 3.1 + e).
  const Json& ev = j["claims"][0]["views"]["matched"]["evidence"];
  QCOMPARE(ev.size(), size_t(2));
  QCOMPARE(ev[0]["method"].get<std::string>(), std::string("A"));
  QCOMPARE(ev[0]["step"].get<std::string>(), std::string("matched"));
  QVERIFY(std::fabs(ev[0]["mean"].get<double>() - 3.11) < 1e-12);
  for (size_t i = 0; i < 3; ++i) {
    const int64_t run = ev[0]["run_ids"][i].get<int64_t>();
    QCOMPARE(store.run_params(run).at("train.lr").get<double>(), 1e-4);
    QCOMPARE(ev[0]["steps"][i].get<double>(), 100.0);
  }
  QVERIFY(rep.html.find("At matched learning") != std::string::npos);
  QVERIFY(rep.html.find("The paper&#39;s protocol") != std::string::npos ||
          rep.html.find("The paper's protocol") != std::string::npos);
  // The fronts figure: one front per plan and the matched level marked.
  const Json& fig = j["figures"][0];
  QCOMPARE(fig["kind"].get<std::string>(), std::string("fronts"));
  QCOMPARE(fig["fronts"].size(), size_t(2));
  QCOMPARE(fig["level"].get<double>(), 4.5);
  QVERIFY(fig["svg"].get<std::string>().find("matched: 4.5") != std::string::npos);
  for (const auto& f : fig["fronts"]) QVERIFY(!f["points"].empty());
}

void TestFronts::conditionsAtAStepReadThatStep() {
  // On the "views" group (reportShowsTheProtocolAndTheMatchedView ran first): the protocol
  // runs (lr 1e-3) change test/orig/loss by 0.3 (A) and 0.2 (B) from step 0 to step 50.
  Store store = Store::open(m_db);
  const Json rj = {{"protocol", {{"runs", {{"train.lr", 1e-3}}}}},
                   {"claims",
                    {{{"id", "early"},
                      {"text", "A has moved more than B by step 50"},
                      {"all",
                       {{{"kind", "greater"},
                         {"metric", "test/orig/loss"},
                         {"of", "change"},
                         {"step", 50},
                         {"a", "A"},
                         {"b", "B"}}}}}}}};
  const auto spec = ex::parse_report_spec(rj, "report");
  QCOMPARE(*spec.claims[0].all[0].ref.step, int64_t(50));
  const auto methods = ex::protocol_methods(store, ex::group_methods(store, "views"), spec.protocol);
  const auto r = ex::evaluate_claim(store, methods, spec.claims[0], "views", spec.matched);
  QCOMPARE(qs(r.verdict), QString("holds"));
  // Evidence: step 0 and step 50 of each side (not the final step 100).
  QCOMPARE(r.evidence.size(), size_t(4));
  QCOMPARE(*r.evidence[1].step, int64_t(50));
  QVERIFY(std::fabs(r.evidence[1].stat.mean - 3.31) < 1e-12);
  QVERIFY(r.rule.find("from step 0 to step 50") != std::string::npos);
  // A step no run evaluated gives no value: inconclusive, never a silent final value.
  Json bad = rj;
  bad["claims"][0]["all"][0]["step"] = 60;
  const auto s2 = ex::parse_report_spec(bad, "report");
  QCOMPARE(qs(ex::evaluate_claim(store, methods, s2.claims[0], "views", s2.matched).verdict),
           QString("inconclusive"));
}

void TestFronts::reportSectionErrorsNameTheKey_data() {
  QTest::addColumn<QString>("section");
  QTest::addColumn<QString>("says");
  QTest::newRow("matched level") << R"({"matched": {"value": "best"}})"
                                 << "report.matched.value: expected a number or \"auto\"";
  QTest::newRow("matched test metric") << R"({"matched": {"learning": "test/new/loss"}})"
                                       << "must be a validation metric";
  QTest::newRow("matched unknown key") << R"({"matched": {"level": 3}})" << "level";
  QTest::newRow("protocol without runs") << R"({"protocol": {"text": "x"}})"
                                         << "report.protocol.runs";
  QTest::newRow("protocol array") << R"({"protocol": {"runs": {"train.lr": [1, 2]}}})"
                                  << "report.protocol.runs.train.lr";
  QTest::newRow("step zero")
      << R"({"claims": [{"id": "x", "text": "y", "all": [{"kind": "less", "a": "A", "b": "B",
            "metric": "test/orig/loss", "step": 0}]}]})"
      << "report.claims[0].all[0].step: expected a step of at least 1";
  QTest::newRow("level plans not a list") << R"({"matched": {"level_plans": "A"}})"
                                          << "report.matched.level_plans";
  QTest::newRow("claim without views") << R"({"claims": [{"id": "x", "text": "y"}]})"
                                       << "give 'all'";
  QTest::newRow("matched condition with a metric")
      << R"({"claims": [{"id": "x", "text": "y", "matched": [{"kind": "less", "a": "A",
            "b": "B", "metric": "test/orig/loss"}]}]})"
      << "metric";
  QTest::newRow("at without matched")
      << R"({"claims": [{"id": "x", "text": "y", "all": [{"kind": "less", "a": "A", "b": "B",
            "metric": "test/orig/loss"}], "at": {"value": 3}}]})"
      << "report.claims[0].at: applies to 'matched' conditions only";
}

void TestFronts::reportSectionErrorsNameTheKey() {
  QFETCH(QString, section);
  QFETCH(QString, says);
  std::string error;
  try {
    ex::parse_report_spec(Json::parse(section.toStdString()), "report");
  } catch (const std::exception& e) {
    error = e.what();
  }
  QVERIFY2(!error.empty(), "accepted");
  QVERIFY2(error.find(says.toStdString()) != std::string::npos, error.c_str());
}

void TestFronts::atUsageErrors_data() {
  QTest::addColumn<QString>("at");
  QTest::addColumn<QString>("says");
  QTest::newRow("no value") << "new/loss" << "METRIC=VALUE";
  QTest::newRow("not a number") << "new/loss=abc" << "a number or 'auto'";
  QTest::newRow("unknown metric") << "new/lost=3" << "unknown metric";
  QTest::newRow("a test metric") << "test/new/loss=3" << "not a validation metric";
  QTest::newRow("infinite") << "new/loss=inf" << "a number or 'auto'";
}

void TestFronts::atUsageErrors() {
  QFETCH(QString, at);
  QFETCH(QString, says);
  auto [code, out] = run_cli({"compare", "g", "--db", qs(m_db), "--at", at});
  QCOMPARE(code, 2);
  QVERIFY2(out.contains(says.toUtf8()), out.constData());
}

QTEST_GUILESS_MAIN(TestFronts)
#include "tst_fronts.moc"
