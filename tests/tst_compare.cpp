// The grouped compare view on a hand-made store with known numbers: group statistics (mean,
// sample std over the complete runs), figures of runs without a final evaluation (none, or
// partial with their step), brushing the parallel coordinates (the table keeps exactly the
// runs in range, by API and by mouse), the trade-off's default axes, error-bar points and
// budget marks (from compare_group), the warning about differing evaluation sets (group view
// and curves overlay), honest run tables, and the launch form's seeds and sweep section (the
// spec JSON it writes and the number of runs it expands to), and the trade-off fronts with
// forgetting at matched learning (the column, the group statistics and the table equal
// experiment::compare_at on the same store, at the automatic level and at a level set or
// dragged with the mouse; "does not reach"; learning as the absolute loss by default; the
// fronts drawn equal front_curves; the parallel coordinates' plan labels drawn whole). Item
// models run under QAbstractItemModelTester in fatal mode. GB_SHOTS_DIR: the `screenshots`
// test writes PNGs of the fronts, the tables and the parallel coordinates there.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QDir>
#include <QFile>
#include <QJsonObject>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QtTest>

#include <cmath>

#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include "curvesview.h"
#include "experiment/fronts.h"
#include "groupdata.h"
#include "groupmodels.h"
#include "groupview.h"
#include "parallelcoords.h"
#include "runsview.h"
#include "runtablemodel.h"
#include "session.h"
#include "store/store.h"
#include "storeservice.h"
#include "sweepeditor.h"
#include "tour.h"

using namespace Qt::StringLiterals;
using namespace gb::gui;
namespace st = gb::store;
using Json = nlohmann::json;

namespace {

const char* kGroup = "hand@1700000000";
const char* kOtherGroup = "mixed@1700000100";
const char* kFrontGroup = "fronts@1700000200";
const char* kPplGroup = "ppl@1700000300";  // perplexities only, no losses
// Plans of kFrontGroup: long names (the parallel coordinates' first axis) and how much they
// learn (a) and forget (b) at full speed.
struct FrontPlan {
  const char* name;
  double a, b;
};
const FrontPlan kFrontPlans[] = {{"Fine-tuning", 2.0, 0.30},
                                 {"E-Preserve (rank 8)", 1.8, 0.10},
                                 {"LoRA r=8", 1.0, 0.05}};

Json specWith(const std::string& newEval, double lr, int seed) {
  return {{"name", "hand"},
          {"seed", 0},
          {"run_seed", seed},
          {"data",
           {{"original", {{"eval", {{"path", "/data/en.txt"}, {"part", "heldout"}}}}},
            {"new", {{"eval", {{"path", newEval}, {"part", "heldout"}}}}}}},
          {"train", {{"steps", 10}, {"seq_len", 64}, {"lr", lr}}},
          {"eval", {{"tokens", 2048}}}};
}

// Plans A and B × lr 1e-4, 1e-3 × seeds 0, 1, 2 (12 finished runs), then in A / 1e-4 a
// cancelled run with only its step-0 evaluation (seed 3) and an interrupted one evaluated at
// step 5 (seed 4). Final figures:
//   forgetting f = (p + 1)(l + 1)·0.02 + 0.01·s  (eval/orig/ppl = 10·(1 + f))
//   eval/new/loss = 4 − l − 0.5·p + 0.1·s, eval/orig/loss = 2 + f
QString buildStore(const QString& dir) {
  const QString path = QDir(dir).filePath(u"compare.db"_s);
  QFile::remove(path);
  st::Store store = st::Store::open(path.toStdString());
  auto w = store.metrics_writer();
  const double lrs[] = {1e-4, 1e-3};
  auto addRun = [&](int p, int l, int seed, st::RunStatus status, int lastEval, const char* group,
                    const std::string& newEval) {
    st::NewRun r;
    r.name = std::string(p == 0 ? "A" : "B") + " lr=" + std::to_string(lrs[l]) +
             " seed=" + std::to_string(seed);
    r.spec = specWith(newEval, lrs[l], seed).dump();
    r.variant = p == 0 ? "A" : "B";
    r.experiment = group;
    r.seed = seed;
    r.status = status;
    r.params = {{"plan", p == 0 ? "A" : "B"},
                {"variant", p == 0 ? "full" : "lora"},
                {"seed", seed},
                {"train.lr", lrs[l]},
                {"train.steps", 10}};
    const int64_t id = store.create_run(r);
    const double f = (p + 1) * (l + 1) * 0.02 + 0.01 * seed;
    const double newLoss = 4.0 - l - 0.5 * p + 0.1 * seed;
    w.add(id, 0, "eval/orig/ppl", 10.0);
    w.add(id, 0, "eval/new/ppl", 100.0);
    w.add(id, 0, "eval/orig/loss", 2.0);
    w.add(id, 0, "eval/new/loss", 5.0);
    for (int step = 0; step <= std::max(lastEval, 0); ++step) w.add(id, step, "train/loss", 5.0);
    if (lastEval > 0) {
      const double t = lastEval / 10.0;
      w.add(id, lastEval, "eval/orig/ppl", 10.0 * (1 + f * t));
      w.add(id, lastEval, "eval/new/ppl", std::exp(5.0 - (5.0 - newLoss) * t));
      w.add(id, lastEval, "eval/orig/loss", 2.0 + f * t);
      w.add(id, lastEval, "eval/new/loss", 5.0 - (5.0 - newLoss) * t);
    }
    w.flush();
    return id;
  };
  for (int p = 0; p < 2; ++p) {
    for (int l = 0; l < 2; ++l) {
      for (int s = 0; s < 3; ++s) addRun(p, l, s, st::RunStatus::Finished, 10, kGroup, "/d/de.txt");
    }
  }
  addRun(0, 0, 3, st::RunStatus::Cancelled, 0, kGroup, "/d/de.txt");    // id 13: no figure
  addRun(0, 0, 4, st::RunStatus::Interrupted, 5, kGroup, "/d/de.txt");  // id 14: partial
  // Another group whose two runs evaluate the new domain on different files.
  addRun(0, 0, 0, st::RunStatus::Finished, 10, kOtherGroup, "/d/de.txt");   // id 15
  addRun(0, 0, 1, st::RunStatus::Finished, 10, kOtherGroup, "/d/de2.txt");  // id 16
  // The fronts group (ids 17-28): 3 plans × lr 1e-4, 1e-3 × seeds 0, 1, evaluated every 10
  // of 40 steps on the validation and the test sets. Speed g = 0.5 (1e-4) or 1 (1e-3):
  //   eval/new/loss  = 5 − a·g·(1 − e^(−step/15)) + 0.05·seed
  //   eval/orig/loss = 2 + b·g·step/40 + 0.01·seed
  //   test/... = eval/... + 0.02 (new), + 0.03 + 0.002·step/10 (orig)
  // LoRA's best new loss is 4.07 (seed 0) and 4.12 (seed 1): the automatic level is 4.12,
  // and 3.5 is out of its reach.
  for (const FrontPlan& p : kFrontPlans) {
    for (int l = 0; l < 2; ++l) {
      for (int seed = 0; seed < 2; ++seed) {
        st::NewRun r;
        r.name = std::string(p.name) + " lr=" + std::to_string(lrs[l]) +
                 " seed=" + std::to_string(seed);
        r.spec = specWith("/d/de.txt", lrs[l], seed).dump();
        r.variant = "v";
        r.experiment = kFrontGroup;
        r.seed = seed;
        r.status = st::RunStatus::Finished;
        r.params = {{"plan", p.name},      {"variant", "v"},     {"seed", seed},
                    {"train.lr", lrs[l]},  {"train.steps", 40}};
        const int64_t id = store.create_run(r);
        const double g = l == 0 ? 0.5 : 1.0;
        for (int step = 0; step <= 40; step += 10) {
          const double nl = 5.0 - p.a * g * (1.0 - std::exp(-step / 15.0)) + 0.05 * seed;
          const double ol = 2.0 + p.b * g * step / 40.0 + 0.01 * seed;
          w.add(id, step, "eval/new/loss", nl);
          w.add(id, step, "eval/orig/loss", ol);
          w.add(id, step, "eval/new/ppl", std::exp(nl));
          w.add(id, step, "eval/orig/ppl", std::exp(ol));
          w.add(id, step, "test/new/loss", nl + 0.02);
          w.add(id, step, "test/orig/loss", ol + 0.03 + 0.002 * step / 10.0);
          w.add(id, step, "train/loss", nl);
        }
        w.flush();
      }
    }
  }
  // ids 29, 30: a group that evaluates perplexities only.
  for (int seed = 0; seed < 2; ++seed) {
    st::NewRun r;
    r.name = "ppl seed=" + std::to_string(seed);
    r.spec = specWith("/d/de.txt", 1e-3, seed).dump();
    r.variant = "v";
    r.experiment = kPplGroup;
    r.seed = seed;
    r.status = st::RunStatus::Finished;
    r.params = {{"plan", "P"}, {"variant", "v"}, {"seed", seed}};
    const int64_t id = store.create_run(r);
    for (int step = 0; step <= 10; step += 5) {
      w.add(id, step, "eval/new/ppl", 100.0 - 5.0 * step - seed);
      w.add(id, step, "eval/orig/ppl", 10.0 + 0.1 * step + 0.1 * seed);
    }
    w.flush();
  }
  return path;
}

// The comparison at matched learning read from the store itself (as growbench-cli compare
// --at does).
gb::experiment::MatchedResult compareAtFromStore(const QString& db, const char* group,
                                                 std::optional<double> level) {
  st::Store store = st::Store::open(db.toStdString(), st::OpenMode::ReadOnly);
  gb::experiment::FrontOptions o;
  o.group = group;
  return gb::experiment::compare_at(store, o, level);
}

gb::experiment::GroupTraces tracesFromStore(const QString& db, const char* group) {
  st::Store store = st::Store::open(db.toStdString(), st::OpenMode::ReadOnly);
  gb::experiment::FrontOptions o;
  o.group = group;
  return gb::experiment::load_traces(store, o);
}

bool writeFile(const QString& path, const QByteArray& data) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(data) == data.size();
}

}  // namespace

class TstCompare : public QObject {
  Q_OBJECT

 private:
  QString m_tmp, m_db;
  Session* m_session = nullptr;
  GroupCompareView* m_view = nullptr;

  // The row of the stats model with this label, or -1.
  int statsRow(const QString& label) const {
    for (int r = 0; r < m_view->statsModel()->rowCount(); ++r) {
      if (m_view->statsModel()->index(r, 0).data().toString() == label) return r;
    }
    return -1;
  }
  void loadFrontGroup() {
    if (!m_view->groupData() || m_view->groupData()->group != QLatin1String(kFrontGroup)) {
      loadGroup(QString::fromLatin1(kFrontGroup));
    }
    // The default metrics and level, grouped by configuration (whatever a test left).
    m_view->setTradeoffFigures(Figure{Figure::Kind::Final, u"eval/orig/loss"_s},
                               Figure{Figure::Kind::Final, u"eval/new/loss"_s});
    QTRY_VERIFY_WITH_TIMEOUT(!m_view->isLoading() &&
                                 m_view->groupData()->frontOptions.learning == "eval/new/loss" &&
                                 m_view->groupData()->frontOptions.forgetting == "eval/orig/loss",
                             20000);
    m_view->setMatchedLevel(std::nullopt);
    m_view->setGrouping(kGroupByConfiguration);
    QVERIFY2(m_view->groupData()->traces.has_value(),
             qPrintable(m_view->groupData()->tracesError));
  }

  // The column of the Matched figure in the stats model.
  int matchedStatsColumn() const {
    GroupStatsModel* m = m_view->statsModel();
    for (int c = GroupStatsModel::FixedCount; c < m->columnCount(); ++c) {
      if (m->headerData(c, Qt::Horizontal, Qt::DisplayRole)
              .toString()
              .startsWith(u"Forgetting at matched learning"_s)) {
        return c;
      }
    }
    return -1;
  }
  // Checks the view's matched comparison, its group statistics (grouped by plan), the run
  // table's column and the matched table against compare_at on the store at `level`.
  void checkMatchedAgainstStore(std::optional<double> level) {
    const auto expected = compareAtFromStore(m_db, kFrontGroup, level);
    QVERIFY(m_view->matched().has_value());
    const auto& got = *m_view->matched();
    QCOMPARE(got.value, expected.value);
    QCOMPARE(got.value_auto, expected.value_auto);
    QCOMPARE(got.split, expected.split);
    QCOMPARE(got.rows.size(), expected.rows.size());
    // Group statistics by plan: exactly the rows of compare_at.
    m_view->setGrouping(u"plan"_s);
    const int col = matchedStatsColumn();
    QVERIFY(col >= 0);
    const QString header =
        m_view->statsModel()->headerData(col, Qt::Horizontal, Qt::DisplayRole).toString();
    QVERIFY2(header.contains(QString::number(expected.value, 'g', 4)), qPrintable(header));
    for (const auto& row : expected.rows) {
      const int r = statsRow(QString::fromStdString(row.plan));
      QVERIFY2(r >= 0, row.plan.c_str());
      const QModelIndex idx = m_view->statsModel()->index(r, col);
      QCOMPARE(idx.data(GroupStatsModel::CountRole).toInt(), int(row.n));
      if (row.reaches()) {
        QCOMPARE(idx.data(GroupStatsModel::MeanRole).toDouble(), row.forgetting.mean);
        QCOMPARE(idx.data(GroupStatsModel::StdRole).toDouble(), row.forgetting.std);
        QVERIFY2(idx.data().toString().startsWith(QString::number(row.forgetting.mean, 'g', 4)),
                 qPrintable(idx.data().toString()));
      } else {
        QCOMPARE(idx.data().toString(), u"does not reach"_s);
      }
    }
    // The run table: each run's own figure (match_at over the run alone), and the run chosen
    // for a plan's seed shows that seed's value.
    const auto traces = tracesFromStore(m_db, kFrontGroup);
    GroupRunModel* m = m_view->runModel();
    const int rc = m->columnOf(u"fig:matched:eval/orig/loss"_s);
    QVERIFY(rc >= 0);
    QVERIFY(m_view->isColumnVisible(u"fig:matched:eval/orig/loss"_s));
    const bool test = expected.split == "test";
    int checked = 0;
    for (const auto& plan : traces.plans) {
      for (const auto& seed : plan.seeds) {
        for (const auto& run : seed.runs) {
          const int row = m_view->groupData()->runIndex(run.run_id);
          const QString text = m->index(row, rc).data().toString();
          const auto p = gb::experiment::match_at({run}, expected.value, traces.learning_lower,
                                                  traces.forgetting_lower);
          if (!p) {
            QCOMPARE(text, u"does not reach"_s);
          } else {
            const double v = test ? *p->test_forgetting : p->forgetting;
            QCOMPARE(text, QString::number(v, 'g', 4));
          }
          ++checked;
        }
      }
    }
    QCOMPARE(checked, 12);
    for (const auto& row : expected.rows) {
      for (size_t i = 0; i < row.points.size(); ++i) {
        const int r = m_view->groupData()->runIndex(row.points[i].run_id);
        QCOMPARE(m->index(r, rc).data(GroupRunModel::SortRole).toDouble() <=
                     row.value_of(row.points[i], test) + 1e-12,
                 true);
      }
    }
    // The table under the fronts: one row per plan in compare_at's order.
    QTableWidget* t = m_view->matchedTable();
    QCOMPARE(t->rowCount(), int(expected.rows.size()));
    for (int r = 0; r < t->rowCount(); ++r) {
      const auto& row = expected.rows[r];
      QCOMPARE(t->item(r, 0)->text(), QString::fromStdString(row.plan));
      if (!row.reaches()) QCOMPARE(t->item(r, 2)->text(), u"does not reach"_s);
    }
    m_view->setGrouping(kGroupByConfiguration);
  }

  int figureColumn(GroupStatsModel* m, const QString& title) const {
    for (int c = 0; c < m->columnCount(); ++c) {
      if (m->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString() == title) return c;
    }
    return -1;
  }
  // The tests below work on kGroup; each can run alone.
  void ensureGroup() {
    if (!m_view->groupData() || m_view->groupData()->group != QLatin1String(kGroup)) {
      loadGroup(QString::fromLatin1(kGroup));
    }
  }
  void loadGroup(const QString& group) {
    QSignalSpy loaded(m_view, &GroupCompareView::groupLoaded);
    m_view->setGroupData(nullptr);
    m_view->setGroup(group);
    QVERIFY(loaded.wait(20000));
    QVERIFY(m_view->groupData());
    QVERIFY2(m_view->groupData()->error.isEmpty(), qPrintable(m_view->groupData()->error));
  }

 private slots:
  void initTestCase() {
    Q_INIT_RESOURCE(growbench);
    QStandardPaths::setTestModeEnabled(true);
    m_tmp = QDir(QStringLiteral(GB_TEST_TMP))
                .filePath(u"compare-%1"_s.arg(QCoreApplication::applicationPid()));
    QDir(m_tmp).removeRecursively();
    QVERIFY(QDir().mkpath(m_tmp));
    m_db = buildStore(m_tmp);
    m_session = new Session(this);
    QSignalSpy listed(m_session->store(), &StoreService::runsUpdated);
    m_session->store()->open(m_db);
    QVERIFY(listed.wait(20000));
    m_view = new GroupCompareView(m_session);
    m_view->resize(1200, 800);
    new QAbstractItemModelTester(m_view->runModel(),
                                 QAbstractItemModelTester::FailureReportingMode::Fatal, m_view);
    new QAbstractItemModelTester(m_view->runProxy(),
                                 QAbstractItemModelTester::FailureReportingMode::Fatal, m_view);
    new QAbstractItemModelTester(m_view->statsModel(),
                                 QAbstractItemModelTester::FailureReportingMode::Fatal, m_view);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
  }

  void cleanupTestCase() {
    delete m_view;
    m_view = nullptr;
  }

  void groupsAreListedMostRecentFirst() {
    QTRY_COMPARE_WITH_TIMEOUT(m_view->groups(),
                              QStringList({QString::fromLatin1(kPplGroup),
                                           QString::fromLatin1(kFrontGroup),
                                           QString::fromLatin1(kOtherGroup),
                                           QString::fromLatin1(kGroup)}),
                              5000);
  }

  void loadsTheGroupWithParametersAndFigures() {
    loadGroup(QString::fromLatin1(kGroup));
    const GroupData* d = m_view->groupData();
    QCOMPARE(d->runs.size(), 14);
    QCOMPARE(d->paramKeys.mid(0, 2), QStringList({u"plan"_s, u"seed"_s}));
    QVERIFY(d->paramKeys.contains(u"train.lr"_s));
    QCOMPARE(d->variedKeys, QStringList({u"plan"_s, u"train.lr"_s, u"variant"_s}));
    QVERIFY(d->evalDifferences.isEmpty());
    QVERIFY(m_view->evalWarning().isEmpty());
    QCOMPARE(m_view->runProxy()->rowCount(), 14);
    // Every hyper-parameter and figure is a column.
    for (const char* id : {"param:train.lr", "param:seed", "fig:forgetting:eval/orig/ppl",
                           "fig:learning:eval/new/ppl", "fig:final:eval/new/loss"}) {
      QVERIFY2(m_view->runModel()->columnOf(QLatin1String(id)) >= 0, id);
    }
    // The column chooser hides and shows them.
    m_view->setColumnVisible(u"param:train.steps"_s, true);
    QVERIFY(m_view->isColumnVisible(u"param:train.steps"_s));
    m_view->setColumnVisible(u"param:train.steps"_s, false);
    QVERIFY(!m_view->isColumnVisible(u"param:train.steps"_s));
  }

  void groupStatisticsHaveTheKnownMeanAndStd_data() {
    QTest::addColumn<QString>("by");
    QTest::addColumn<QString>("label");
    QTest::addColumn<QString>("figure");
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("mean");
    QTest::addColumn<double>("std");
    // A / 1e-4: new loss 4.0, 4.1, 4.2 (the cancelled and the interrupted run left out).
    QTest::newRow("configuration, final new loss")
        << kGroupByConfiguration << u"A · train.lr=0.0001"_s << u"Learning (eval/new/loss)"_s
        << 3 << 4.1 << 0.1;
    // A / 1e-4: forgetting 2 %, 3 %, 4 %.
    QTest::newRow("configuration, forgetting") << kGroupByConfiguration << u"A · train.lr=0.0001"_s
                                               << u"Forgetting (%)"_s << 3 << 3.0 << 1.0;
    // B / 1e-3: f = 0.08, 0.09, 0.10.
    QTest::newRow("configuration B, forgetting") << kGroupByConfiguration << u"B · train.lr=0.001"_s
                                                 << u"Forgetting (%)"_s << 3 << 9.0 << 1.0;
    // By learning rate 1e-3: new loss A 3.0, 3.1, 3.2 and B 2.5, 2.6, 2.7 → mean 2.85.
    QTest::newRow("by train.lr") << u"train.lr"_s << u"train.lr = 0.001"_s
                                 << u"Learning (eval/new/loss)"_s
                                 << 6 << 2.85
                                 << std::sqrt((2 * (0.35 * 0.35 + 0.25 * 0.25 + 0.15 * 0.15)) /
                                              5.0);
    // By plan A: 1e-4 (4.0, 4.1, 4.2) and 1e-3 (3.0, 3.1, 3.2): mean 3.6.
    QTest::newRow("by plan") << u"plan"_s << u"A"_s << u"Learning (eval/new/loss)"_s << 6 << 3.6
                             << std::sqrt(2 * (0.6 * 0.6 + 0.5 * 0.5 + 0.4 * 0.4) / 5.0);
  }

  void groupStatisticsHaveTheKnownMeanAndStd() {
    ensureGroup();
    QFETCH(QString, by);
    QFETCH(QString, label);
    QFETCH(QString, figure);
    QFETCH(int, n);
    QFETCH(double, mean);
    QFETCH(double, std);
    m_view->setGrouping(by);
    QCOMPARE(m_view->grouping(), by);
    const int row = statsRow(label);
    QVERIFY2(row >= 0, qPrintable(label));
    const int col = figureColumn(m_view->statsModel(), figure);
    QVERIFY2(col >= 0, qPrintable(figure));
    const QModelIndex idx = m_view->statsModel()->index(row, col);
    QCOMPARE(idx.data(GroupStatsModel::CountRole).toInt(), n);
    QVERIFY(std::fabs(idx.data(GroupStatsModel::MeanRole).toDouble() - mean) < 1e-9 * 100);
    QVERIFY2(std::fabs(idx.data(GroupStatsModel::StdRole).toDouble() - std) < 1e-9 * 100,
             qPrintable(QString::number(idx.data(GroupStatsModel::StdRole).toDouble())));
    QVERIFY(idx.data().toString().contains(u" ± "_s));
    m_view->setGrouping(kGroupByConfiguration);
  }

  void runsWithoutAFinalEvaluationShowNoFigure() {
    ensureGroup();
    GroupRunModel* m = m_view->runModel();
    const int forgetting = m->columnOf(u"fig:forgetting:eval/orig/ppl"_s);
    const int newLoss = m->columnOf(u"fig:final:eval/new/loss"_s);
    const int cancelled = m_view->groupData()->runIndex(13);
    const int interrupted = m_view->groupData()->runIndex(14);
    QVERIFY(cancelled >= 0 && interrupted >= 0);
    // Only step 0: no figure at all.
    QCOMPARE(m->index(cancelled, forgetting).data().toString(), u"–"_s);
    QCOMPARE(m->index(cancelled, newLoss).data().toString(), u"–"_s);
    QVERIFY(m->index(cancelled, forgetting).data(Qt::ToolTipRole).toString().contains(u"step 0"_s));
    // Evaluated at step 5 of 10, not finished: a partial figure that names its step.
    const QString partial = m->index(interrupted, forgetting).data().toString();
    QVERIFY2(partial.contains(u"(step 5)"_s), qPrintable(partial));
    QVERIFY(m->index(interrupted, forgetting).data(GroupRunModel::PartialRole).toBool());
    // A finished run: "+2.0 %".
    const int done = m_view->groupData()->runIndex(1);
    QCOMPARE(m->index(done, forgetting).data().toString(), u"+2.0 %"_s);
    // The all-runs table does the same (StoreService → RunTableModel).
    RunTableModel table;
    new QAbstractItemModelTester(&table, QAbstractItemModelTester::FailureReportingMode::Fatal,
                                 &table);
    table.setSnapshot(m_session->store()->snapshot());
    QCOMPARE(table.index(table.rowOfRun(13), RunTableModel::Forgetting).data().toString(), u"–"_s);
    QCOMPARE(table.index(table.rowOfRun(13), RunTableModel::Learning).data().toString(), u"–"_s);
    QVERIFY(table.index(table.rowOfRun(14), RunTableModel::Forgetting)
                .data()
                .toString()
                .contains(u"(step 5)"_s));
    QCOMPARE(table.index(table.rowOfRun(1), RunTableModel::Forgetting).data().toString(),
             u"+2.0 %"_s);
  }

  void brushingFiltersExactlyTheRunsInRange_data() {
    QTest::addColumn<QString>("axis");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<QList<qint64>>("runs");
    QTest::newRow("lr 1e-4") << u"param:train.lr"_s << 5e-5 << 2e-4
                             << QList<qint64>{1, 2, 3, 7, 8, 9, 13, 14};
    QTest::newRow("lr 1e-3") << u"param:train.lr"_s << 5e-4 << 2e-3
                             << QList<qint64>{4, 5, 6, 10, 11, 12};
    // Forgetting between 2.5 % and 6.5 %: A/1e-4 seeds 1, 2 (3, 4 %); A/1e-3 (4, 5, 6 %);
    // B/1e-4 (4, 5, 6 %); the interrupted run's partial figure (6 % × 5/10 steps = 3 % at
    // step 5) is in; the cancelled run has no figure and is out.
    QTest::newRow("forgetting") << u"fig:forgetting:eval/orig/ppl"_s << 2.5 << 6.5
                                << QList<qint64>{2, 3, 4, 5, 6, 7, 8, 9, 14};
    QTest::newRow("forgetting, low")
        << u"fig:forgetting:eval/orig/ppl"_s << 0.0 << 2.5 << QList<qint64>{1};
    // Plan axis (text): category 1 is B.
    QTest::newRow("plan B") << u"param:plan"_s << 0.5 << 1.5 << QList<qint64>{7, 8, 9, 10, 11, 12};
  }

  void brushingFiltersExactlyTheRunsInRange() {
    ensureGroup();
    QFETCH(QString, axis);
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(QList<qint64>, runs);
    QStringList axes = m_view->parallelAxes();
    if (!axes.contains(axis)) axes << axis;
    m_view->setParallelAxes(axes);
    ParallelCoordinates* pc = m_view->parallel();
    int a = -1;
    for (int i = 0; i < pc->axes().size(); ++i) {
      if (pc->axes()[i].id == axis) a = i;
    }
    QVERIFY(a >= 0);
    pc->clearBrushes();
    QCOMPARE(m_view->runProxy()->rowCount(), 14);
    pc->setBrush(a, lo, hi);
    auto accepted = [&] {
      const QVector<qint64> v = m_view->runProxy()->acceptedRuns();
      QList<qint64> l(v.begin(), v.end());
      std::sort(l.begin(), l.end());
      return l;
    };
    QList<qint64> got = accepted();
    QCOMPARE(got, runs);
    QCOMPARE(m_view->runProxy()->rowCount(), runs.size());
    // The group statistics follow the filter.
    int inStats = 0;
    for (const RunGroup& g : m_view->statsModel()->groups()) inStats += g.runs.size();
    QCOMPARE(inStats, runs.size());
    // The same by mouse: drag along the axis over the range, then click to clear.
    pc->clearBrushes();
    m_view->tabs()->setCurrentIndex(GroupCompareView::ParallelTab);
    QTest::qWait(50);
    const int x = pc->axisX(a);
    // Ends beyond the axis's data range are dragged to the axis's end.
    const QRect area = pc->plotArea();
    const int y1 = std::clamp(pc->valueY(a, lo), area.top(), area.bottom());
    const int y2 = std::clamp(pc->valueY(a, hi), area.top(), area.bottom());
    QTest::mousePress(pc, Qt::LeftButton, {}, QPoint(x, y1));
    QTest::mouseMove(pc, QPoint(x, (y1 + y2) / 2));
    QTest::mouseMove(pc, QPoint(x, y2));
    QTest::mouseRelease(pc, Qt::LeftButton, {}, QPoint(x, y2));
    QVERIFY(pc->brush(a).has_value());
    got = accepted();
    QCOMPARE(got, runs);
    QTest::mouseClick(pc, Qt::LeftButton, {}, QPoint(x, (y1 + y2) / 2));
    QVERIFY(!pc->hasBrush());
    QCOMPARE(m_view->runProxy()->rowCount(), 14);
    m_view->tabs()->setCurrentIndex(GroupCompareView::TableTab);
  }

  void textFilterAndBrushesShareOneFilter() {
    ensureGroup();
    ParallelCoordinates* pc = m_view->parallel();
    m_view->runProxy()->setText(u"B lr"_s);
    QCOMPARE(m_view->runProxy()->rowCount(), 6);
    int a = -1;
    for (int i = 0; i < pc->axes().size(); ++i) {
      if (pc->axes()[i].id == u"param:train.lr"_s) a = i;
    }
    QVERIFY(a >= 0);
    pc->setBrush(a, 5e-4, 2e-3);
    QCOMPARE(m_view->runProxy()->rowCount(), 3);  // B with lr 1e-3
    pc->clearBrushes();
    m_view->runProxy()->setText({});
    QCOMPARE(m_view->runProxy()->rowCount(), 14);
  }

  void tradeoffShowsAbsoluteLossWithErrorBarsAndBudgetMarks() {
    ensureGroup();
    m_view->tabs()->setCurrentIndex(GroupCompareView::TradeoffTab);
    m_view->setTradeoffMode(GroupCompareView::TradeoffMode::Configurations);
    // Absolute final loss on both axes by default.
    QCOMPARE(m_view->tradeoffX().id(), u"final:eval/orig/loss"_s);
    QCOMPARE(m_view->tradeoffY().id(), u"final:eval/new/loss"_s);
    m_view->refreshNow();
    const auto points = m_view->tradeoffPoints();
    QCOMPARE(points.size(), 4);
    // A / 1e-4: orig loss 2 + (0.02, 0.03, 0.04) → 2.03; new loss 4.1.
    const QPointF a = points.value(u"A · train.lr=0.0001"_s);
    QVERIFY(std::fabs(a.x() - 2.03) < 1e-9 && std::fabs(a.y() - 4.1) < 1e-9);
    int errorBars = 0;
    for (int i = 0; i < m_view->tradeoffPlot()->plottableCount(); ++i) {
      errorBars += qobject_cast<QCPErrorBars*>(m_view->tradeoffPlot()->plottable(i)) ? 1 : 0;
    }
    QCOMPARE(errorBars, 8);  // x and y bars of 4 groups
    // Budget 4.5 %: only A / 1e-4 (mean forgetting 3 %) fits; B's least is 5 %.
    {
      QSignalSpy loaded(m_view, &GroupCompareView::groupLoaded);
      m_view->setBudget(0.045);
      QVERIFY(loaded.wait(20000));
    }
    m_view->refreshNow();
    QCOMPARE(m_view->budgetMarks(), QStringList({u"A"_s}));
    QTableWidget* t = m_view->choiceTable();
    QCOMPARE(t->rowCount(), 2);
    QCOMPARE(t->item(0, 0)->text(), u"A"_s);
    QVERIFY(t->item(0, 2)->text().contains(u"train.lr=0.0001"_s));
    QCOMPARE(t->item(1, 1)->text(), m_view->tr("no"));
    // Budget 20 %: both methods, at their best-learning rate (1e-3).
    {
      QSignalSpy loaded(m_view, &GroupCompareView::groupLoaded);
      m_view->setBudget(0.2);
      QVERIFY(loaded.wait(20000));
    }
    m_view->refreshNow();
    QCOMPARE(m_view->budgetMarks().size(), 2);
    QVERIFY(m_view->choiceTable()->item(0, 2)->text().contains(u"train.lr=0.001"_s));
    // Relative figures and log scales are offered too.
    m_view->setTradeoffFigures(Figure{Figure::Kind::Forgetting, u"eval/orig/ppl"_s},
                               Figure{Figure::Kind::Learning, u"eval/new/ppl"_s});
    m_view->setTradeoffLog(true, true);
    m_view->refreshNow();
    QVERIFY(std::fabs(m_view->tradeoffPoints().value(u"A · train.lr=0.0001"_s).x() - 3.0) < 1e-9);
    QCOMPARE(m_view->tradeoffPlot()->xAxis->scaleType(), QCPAxis::stLogarithmic);
    m_view->setTradeoffLog(false, false);
    m_view->setTradeoffFigures(Figure{Figure::Kind::Final, u"eval/orig/loss"_s},
                               Figure{Figure::Kind::Final, u"eval/new/loss"_s});
    m_view->setTradeoffMode(GroupCompareView::TradeoffMode::Fronts);
    // The metrics went back to the defaults: wait for the reload the change asked for.
    QTRY_VERIFY_WITH_TIMEOUT(!m_view->isLoading(), 20000);
  }

  // ---- fronts and forgetting at matched learning ------------------------------------

  void matchedColumnEqualsCompareAtAtTheAutoLevel() {
    loadFrontGroup();
    m_view->setMatchedLevel(std::nullopt);
    QVERIFY(!m_view->matchedLevel());
    const auto expected = compareAtFromStore(m_db, kFrontGroup, std::nullopt);
    QVERIFY(expected.value_auto);
    QCOMPARE(expected.split, std::string("test"));
    // Every plan reaches the automatic level.
    for (const auto& row : expected.rows) QVERIFY(row.reaches());
    checkMatchedAgainstStore(std::nullopt);
    QVERIFY(m_view->matchedLevelText().contains(u"auto"_s));
  }

  void matchedColumnFollowsALevelSetByTheView() {
    loadFrontGroup();
    QSignalSpy changed(m_view, &GroupCompareView::matchedLevelChanged);
    m_view->setMatchedLevel(3.5);
    QCOMPARE(changed.count(), 1);
    checkMatchedAgainstStore(3.5);
    // LoRA (best new loss 4.07) does not reach 3.5: said so, last, never 0 or blank.
    const auto& rows = m_view->matched()->rows;
    QCOMPARE(QString::fromStdString(rows.back().plan), u"LoRA r=8"_s);
    QVERIFY(!rows.back().reaches());
    GroupRunModel* m = m_view->runModel();
    const int rc = m->columnOf(u"fig:matched:eval/orig/loss"_s);
    int unreached = 0;
    for (int r = 0; r < m->rowCount(); ++r) {
      if (m->groupData()->runs[r].plan != u"LoRA r=8"_s) continue;
      QCOMPARE(m->index(r, rc).data().toString(), u"does not reach"_s);
      QVERIFY(m->index(r, rc).data(Qt::ToolTipRole).toString().contains(u"does not reach"_s));
      ++unreached;
    }
    QCOMPARE(unreached, 4);
    // The parallel coordinates' axis puts the runs that do not reach the level in a slot of
    // their own, labelled so: LoRA's, and Fine-tuning's and E-Preserve's at 1e-4 (best new
    // loss 4.07 and 4.16, 4.21).
    ParallelCoordinates* pc = m_view->parallel();
    int a = -1;
    for (int i = 0; i < pc->axes().size(); ++i) {
      if (pc->axes()[i].id == u"fig:matched:eval/orig/loss"_s) a = i;
    }
    QVERIFY(a >= 0);
    QCOMPARE(pc->axes()[a].beyondLabel, u"does not reach"_s);
    int beyond = 0, values = 0;
    for (const auto& l : pc->lines()) {
      beyond += l.values[a] == qInf() ? 1 : 0;
      values += std::isfinite(l.values[a]) ? 1 : 0;
    }
    QCOMPARE(beyond, 8);
    QCOMPARE(values, 4);
    QCOMPARE(pc->tickLabels(a).last().text, u"does not reach"_s);
    QVERIFY(pc->valueY(a, qInf()) < pc->valueY(a, pc->axes()[a].hi));
    // Back to auto.
    m_view->setMatchedLevel(std::nullopt);
    checkMatchedAgainstStore(std::nullopt);
  }

  void draggingTheLevelLineWithTheMouse() {
    loadFrontGroup();
    m_view->setMatchedLevel(std::nullopt);
    m_view->tabs()->setCurrentIndex(GroupCompareView::TradeoffTab);
    m_view->setTradeoffMode(GroupCompareView::TradeoffMode::Fronts);
    m_view->refreshNow();
    QCustomPlot* plot = m_view->frontsPlot();
    QVERIFY(QTest::qWaitForWindowExposed(plot));
    plot->replot();  // lays out the axes for coordToPixel
    const double autoLevel = m_view->matched()->value;
    const int y = plot->axisRect()->rect().center().y();
    const int x0 = int(std::lround(plot->xAxis->coordToPixel(autoLevel)));
    const int x1 = int(std::lround(plot->xAxis->coordToPixel(3.5)));
    QVERIFY(x1 < x0 - 10);
    const QCPRange before = plot->xAxis->range();
    QTest::mousePress(plot, Qt::LeftButton, {}, QPoint(x0 + 2, y));
    QTest::mouseMove(plot, QPoint((x0 + x1) / 2, y));
    QTest::mouseMove(plot, QPoint(x1, y));
    QTest::mouseRelease(plot, Qt::LeftButton, {}, QPoint(x1, y));
    // The level moved to the mouse (within a pixel), the plot itself did not pan.
    QVERIFY(m_view->matchedLevel().has_value());
    const double pixel = std::fabs(plot->xAxis->pixelToCoord(x1 + 1) - plot->xAxis->pixelToCoord(x1));
    QVERIFY2(std::fabs(*m_view->matchedLevel() - 3.5) <= pixel,
             qPrintable(QString::number(*m_view->matchedLevel())));
    QCOMPARE(plot->xAxis->range().lower, before.lower);
    QVERIFY(m_view->matchedLevelText().contains(u"dragged"_s));
    checkMatchedAgainstStore(*m_view->matchedLevel());
    QVERIFY(!m_view->matched()->rows.back().reaches());
    // A drag that does not start on the line pans the plot and leaves the level.
    const double level = *m_view->matchedLevel();
    QTest::mousePress(plot, Qt::LeftButton, {}, QPoint(x0 + 40, y));
    QTest::mouseMove(plot, QPoint(x0 + 60, y));
    QTest::mouseRelease(plot, Qt::LeftButton, {}, QPoint(x0 + 60, y));
    QCOMPARE(*m_view->matchedLevel(), level);
    // A double-click goes back to auto.
    QTest::mouseDClick(plot, Qt::LeftButton, {}, QPoint(x0 + 60, y));
    QVERIFY(!m_view->matchedLevel().has_value());
    QCOMPARE(m_view->matched()->value, autoLevel);
    m_view->tabs()->setCurrentIndex(GroupCompareView::TableTab);
  }

  void aLevelOutlivesReloadsButNotAnotherMetric() {
    loadFrontGroup();
    m_view->setMatchedLevel(3.5);
    // Runs of the group progress: the group is read again; the user's level stays.
    {
      QSignalSpy loaded(m_view, &GroupCompareView::groupLoaded);
      m_view->reload();
      QVERIFY(loaded.wait(20000));
    }
    QCOMPARE(m_view->matchedLevel(), std::optional<double>(3.5));
    checkMatchedAgainstStore(3.5);
    // Another learning metric, chosen while a read of the old one is in flight: the late
    // answer (loss) is followed by a read of the new one, and the level goes back to auto
    // (3.5 is a loss, not a perplexity).
    m_view->reload();
    QVERIFY(m_view->isLoading());
    m_view->setTradeoffFigures(Figure{Figure::Kind::Final, u"eval/orig/loss"_s},
                               Figure{Figure::Kind::Final, u"eval/new/ppl"_s});
    QCOMPARE(m_view->frontOptions().learning, std::string("eval/new/ppl"));
    QTRY_VERIFY_WITH_TIMEOUT(!m_view->isLoading() &&
                                 m_view->groupData()->frontOptions.learning == "eval/new/ppl",
                             20000);
    QVERIFY(!m_view->matchedLevel());
    QCOMPARE(m_view->matched()->learning, std::string("eval/new/ppl"));
    QVERIFY(m_view->matched()->value_auto);
    m_view->setTradeoffFigures(Figure{Figure::Kind::Final, u"eval/orig/loss"_s},
                               Figure{Figure::Kind::Final, u"eval/new/loss"_s});
    QTRY_VERIFY_WITH_TIMEOUT(!m_view->isLoading() &&
                                 m_view->groupData()->frontOptions.learning == "eval/new/loss",
                             20000);
    checkMatchedAgainstStore(std::nullopt);
  }

  void withoutLossesTheFrontsUsePerplexities() {
    // The figures fall back to perplexities once the group is read; its traces are then read
    // again on those (the metrics follow the view's choice).
    loadGroup(QString::fromLatin1(kPplGroup));
    QCOMPARE(m_view->tradeoffY().id(), u"final:eval/new/ppl"_s);
    QTRY_VERIFY_WITH_TIMEOUT(
        !m_view->isLoading() && m_view->groupData()->frontOptions.learning == "eval/new/ppl", 20000);
    QCOMPARE(m_view->groupData()->frontOptions.forgetting, std::string("eval/orig/ppl"));
    QVERIFY2(m_view->groupData()->traces.has_value(), qPrintable(m_view->groupData()->tracesError));
    QVERIFY(m_view->matched().has_value());
    QCOMPARE(m_view->matched()->value, 50.0);  // seed 0 (the worse seed) at best reaches 50
  }

  void learningIsTheAbsoluteLossByDefault() {
    loadFrontGroup();
    GroupRunModel* m = m_view->runModel();
    const int learning = m->columnOf(u"fig:final:eval/new/loss"_s);
    QVERIFY(learning >= 0);
    QVERIFY(m_view->isColumnVisible(u"fig:final:eval/new/loss"_s));
    QCOMPARE(m->headerData(learning, Qt::Horizontal, Qt::DisplayRole).toString(),
             u"Learning (eval/new/loss)"_s);
    // Run 17 (Fine-tuning, 1e-4, seed 0): 5 − 2·0.5·(1 − e^(−40/15)).
    const int row = m_view->groupData()->runIndex(17);
    QCOMPARE(m->index(row, learning).data().toString(),
             QString::number(5.0 - 1.0 * (1.0 - std::exp(-40.0 / 15.0)), 'g', 4));
    // The relative change stays a choice, hidden by default.
    const QString relative = u"fig:learning:eval/new/ppl"_s;
    QVERIFY(m->columnOf(relative) >= 0);
    QVERIFY(!m_view->isColumnVisible(relative));
    QCOMPARE(m->headerData(m->columnOf(relative), Qt::Horizontal, Qt::DisplayRole).toString(),
             u"Learning (%)"_s);
    // The group statistics show the same figures; the parallel coordinates the absolute loss.
    GroupStatsModel* sm = m_view->statsModel();
    QVERIFY(figureColumn(sm, u"Learning (eval/new/loss)"_s) >= 0);
    QCOMPARE(figureColumn(sm, u"Learning (%)"_s), -1);
    QVERIFY(m_view->parallelAxes().contains(u"fig:final:eval/new/loss"_s));
    QVERIFY(m_view->parallelAxes().contains(u"fig:matched:eval/orig/loss"_s));
    QVERIFY(!m_view->parallelAxes().contains(relative));
    m_view->setColumnVisible(relative, true);
    QVERIFY(figureColumn(m_view->statsModel(), u"Learning (%)"_s) >= 0);
    m_view->setColumnVisible(relative, false);
  }

  void parallelCoordinatesDrawThePlanLabelsWhole() {
    loadFrontGroup();
    m_view->tabs()->setCurrentIndex(GroupCompareView::ParallelTab);
    ParallelCoordinates* pc = m_view->parallel();
    QVERIFY(QTest::qWaitForWindowExposed(pc));
    QCOMPARE(pc->axes().first().id, u"param:plan"_s);
    QCOMPARE(pc->axes().first().categories,
             QStringList({u"E-Preserve (rank 8)"_s, u"Fine-tuning"_s, u"LoRA r=8"_s}));
    // Every label drawn whole and inside the widget: the view's own, and a narrow copy.
    ParallelCoordinates narrow;
    narrow.setData(pc->axes(), pc->lines());
    narrow.resize(480, 300);
    narrow.show();
    QVERIFY(QTest::qWaitForWindowExposed(&narrow));
    for (ParallelCoordinates* w : {pc, &narrow}) {
      const QRect inside = w->rect();
      const auto labels = w->tickLabels(0);
      QCOMPARE(labels.size(), 3);
      for (const auto& l : labels) {
        QCOMPARE(l.text, l.whole);
        QVERIFY2(inside.contains(l.rect),
                 qPrintable(u"%1 at %2,%3 %4×%5 in %6 px"_s.arg(l.text)
                                .arg(l.rect.x())
                                .arg(l.rect.y())
                                .arg(l.rect.width())
                                .arg(l.rect.height())
                                .arg(inside.width())));
      }
      for (int a = 0; a < w->axes().size(); ++a) {
        QVERIFY(inside.contains(w->titleRect(a)));
        for (const auto& l : w->tickLabels(a)) QVERIFY(inside.contains(l.rect));
      }
    }
    // The view fits in 1200 pixels.
    QVERIFY2(m_view->minimumSizeHint().width() <= 1200,
             qPrintable(QString::number(m_view->minimumSizeHint().width())));
    m_view->tabs()->setCurrentIndex(GroupCompareView::TableTab);
  }

  void frontsDrawnEqualFrontCurves() {
    loadFrontGroup();
    m_view->tabs()->setCurrentIndex(GroupCompareView::TradeoffTab);
    m_view->setTradeoffMode(GroupCompareView::TradeoffMode::Fronts);
    m_view->refreshNow();
    const auto traces = tracesFromStore(m_db, kFrontGroup);
    const auto levels = gb::experiment::front_levels(traces, GroupCompareView::kFrontLevels);
    const auto curves = gb::experiment::front_curves(traces, levels, true);
    QCustomPlot* plot = m_view->frontsPlot();
    QHash<QString, QCPGraph*> means;
    int points = 0;
    for (int i = 0; i < plot->graphCount(); ++i) {
      QCPGraph* g = plot->graph(i);
      if (g->property("gbRole").toString() == u"mean"_s) {
        means.insert(g->property("gbPlan").toString(), g);
      }
      if (g->property("gbRole").toString() == u"points"_s) points += g->dataCount();
    }
    QCOMPARE(means.size(), int(curves.size()));
    for (const auto& c : curves) {
      QCPGraph* g = means.value(QString::fromStdString(c.plan));
      QVERIFY2(g, c.plan.c_str());
      // Where every seed reaches the level, by level (the graph keeps its data sorted).
      std::map<double, double> expected;
      for (size_t i = 0; i < c.levels.size(); ++i) {
        if (c.forgetting[i].n == c.seeds && c.seeds > 0) {
          expected[c.levels[i]] = c.forgetting[i].mean;
        }
      }
      QVERIFY(expected.size() > 5);
      QCOMPARE(g->dataCount(), int(expected.size()));
      int i = 0;
      for (const auto& [level, mean] : expected) {
        QCOMPARE(g->data()->at(i)->key, level);
        QCOMPARE(g->data()->at(i)->value, mean);
        ++i;
      }
      // The colour of the plan in the other plots.
      QCOMPARE(g->pen().color().rgb(),
               methodColor({u"E-Preserve (rank 8)"_s, u"Fine-tuning"_s, u"LoRA r=8"_s},
                           QString::fromStdString(c.plan))
                   .rgb());
    }
    QCOMPARE(points, 12 * 5);  // every evaluation of every run
    m_view->tabs()->setCurrentIndex(GroupCompareView::TableTab);
  }

  // Screenshots for a person to look at (GB_SHOTS_DIR).
  void screenshots() {
    const QString dir = qEnvironmentVariable("GB_SHOTS_DIR");
    if (dir.isEmpty()) QSKIP("GB_SHOTS_DIR is not set");
    QVERIFY(QDir().mkpath(dir));
    loadFrontGroup();
    m_view->resize(1200, 800);
    auto save = [&](const QString& name) {
      QCoreApplication::processEvents();
      QTest::qWait(100);
      QVERIFY(m_view->grab().save(QDir(dir).filePath(name)));
    };
    m_view->tabs()->setCurrentIndex(GroupCompareView::TradeoffTab);
    m_view->setTradeoffMode(GroupCompareView::TradeoffMode::Fronts);
    m_view->setMatchedLevel(std::nullopt);
    save(u"fronts-auto.png"_s);
    m_view->setMatchedLevel(3.5);
    save(u"fronts-dragged.png"_s);
    m_view->tabs()->setCurrentIndex(GroupCompareView::TableTab);
    m_view->setGroupRows(false);
    m_view->runTable()->scrollTo(m_view->runProxy()->index(
        0, m_view->runModel()->columnOf(u"fig:final:eval/new/loss"_s)));
    save(u"table-runs.png"_s);
    m_view->setGrouping(u"plan"_s);
    m_view->setGroupRows(true);
    save(u"table-groups.png"_s);
    m_view->setGroupRows(false);
    m_view->setGrouping(kGroupByConfiguration);
    m_view->tabs()->setCurrentIndex(GroupCompareView::ParallelTab);
    save(u"parallel.png"_s);
    {
      ParallelCoordinates narrow;
      narrow.setData(m_view->parallel()->axes(), m_view->parallel()->lines());
      narrow.resize(480, 300);
      narrow.show();
      QVERIFY(QTest::qWaitForWindowExposed(&narrow));
      QVERIFY(narrow.grab().save(QDir(dir).filePath(u"parallel-narrow.png"_s)));
    }
    m_view->setMatchedLevel(std::nullopt);
    m_view->tabs()->setCurrentIndex(GroupCompareView::TableTab);
  }

  void curvesShowMeanAndBandPerGroup() {
    ensureGroup();
    QSignalSpy curves(m_view, &GroupCompareView::curvesLoaded);
    m_view->tabs()->setCurrentIndex(GroupCompareView::CurvesTab);
    m_view->setCurveKey(u"eval/new/loss"_s);
    m_view->refreshNow();
    QVERIFY(m_view->curvesReady() || curves.wait(20000));
    // 4 configurations × (mean, lower, upper); legend entries only for the means.
    QCustomPlot* plot = m_view->curvesPlot();
    QCOMPARE(plot->graphCount(), 12);
    QCOMPARE(plot->legend->itemCount(), 4);
    // The legend sits beside the plot, not over the data.
    QVERIFY(!plot->axisRect()->insetLayout()->elements(false).contains(plot->legend));
    m_view->tabs()->setCurrentIndex(GroupCompareView::TableTab);
  }

  void differingEvaluationSetsAreNamed() {
    // Unit: two specs that differ in the new-domain evaluation file.
    const Json a = evalSetsOf(specWith("/d/de.txt", 1e-4, 0));
    const Json b = evalSetsOf(specWith("/d/de2.txt", 1e-4, 0));
    QVERIFY(evalSetDifferences({{1, a}, {2, a}}).isEmpty());
    const QStringList diff = evalSetDifferences({{1, a}, {2, a}, {3, b}});
    QCOMPARE(diff.size(), 1);
    QVERIFY2(diff[0].contains(u"data.new.eval.path"_s) && diff[0].contains(u"/d/de2.txt"_s) &&
                 diff[0].contains(u"run 3"_s) && diff[0].contains(u"runs 1, 2"_s),
             qPrintable(diff[0]));
    // The group view warns.
    loadGroup(QString::fromLatin1(kOtherGroup));
    QVERIFY(m_view->evalWarning().contains(u"data.new.eval.path"_s));
    // The curves overlay warns too, and names the runs apart by their seed.
    CurvesView cv(m_session);
    cv.setRuns({15, 16});
    QVERIFY2(cv.evalWarning().contains(u"data.new.eval.path"_s), qPrintable(cv.evalWarning()));
    QVERIFY(cv.runName(15) != cv.runName(16));
    QVERIFY2(cv.runName(16).contains(u"seed=1"_s), qPrintable(cv.runName(16)));
    cv.setRuns({1, 2});
    QVERIFY(cv.evalWarning().isEmpty());
    cv.setRuns({});  // the store service watches the series of one view at a time
    loadGroup(QString::fromLatin1(kGroup));
  }

  void curvesTradeoffLeavesOutRunsWithOnlyStepZero() {
    CurvesView cv(m_session);
    QVERIFY(!cv.tradeoffRelative());  // final values by default
    cv.setRuns({1, 13, 14});
    QTRY_VERIFY_WITH_TIMEOUT(
        cv.series().contains(1) && cv.series().contains(13) && cv.series().contains(14), 10000);
    cv.setForgettingKey(u"eval/orig/ppl"_s);
    cv.setLearningKey(u"eval/new/ppl"_s);
    cv.replotNow();
    QCOMPARE(cv.tradeoffSkipped(), QList<qint64>({13}));
    QVERIFY(cv.pointCount(13, false) == 1);  // its curve has the step-0 point only
  }

  void launchFormWritesSeedsAndSweep_data() {
    QTest::addColumn<QString>("seeds");
    QTest::addColumn<QStringList>("sweep");  // "key=values"
    QTest::addColumn<QString>("mode");
    QTest::addColumn<int>("samples");
    QTest::addColumn<QString>("expected");  // the expansion keys of the spec, JSON
    QTest::addColumn<int>("runs");          // -1: refused
    QTest::addColumn<QString>("error");
    // Plans: full fine-tuning and LoRA. "rank" applies to LoRA only.
    QTest::newRow("nothing") << QString() << QStringList() << u"grid"_s << 1 << u"{}"_s << 2
                             << QString();
    QTest::newRow("seeds") << u"0, 1, 2"_s << QStringList() << u"grid"_s << 1
                           << uR"({"seeds":[0,1,2]})"_s << 6 << QString();
    QTest::newRow("grid lr x rank x seeds")
        << u"0 1"_s << QStringList{u"train.lr=1e-4, 3e-4"_s, u"rank=4, 8"_s} << u"grid"_s << 1
        << uR"({"seeds":[0,1],"sweep":{"rank":[4,8],"train.lr":[0.0001,0.0003]}})"_s
        << 2 * 2 + 2 * 2 * 2 << QString();
    QTest::newRow("random with a log-uniform range")
        << QString() << QStringList{u"train.lr=log_uniform(1e-5, 1e-3)"_s} << u"random"_s << 5
        << uR"({"samples":5,"sweep":{"train.lr":{"log_uniform":[1e-05,0.001]}},"sweep_mode":"random"})"_s
        << 10 << QString();
    QTest::newRow("rank out of range") << QString() << QStringList{u"rank=0, 8"_s} << u"grid"_s << 1
                                       << QString() << -1 << u"rank"_s;
    QTest::newRow("not a number") << QString() << QStringList{u"train.lr=1e-4, fast"_s} << u"grid"_s
                                  << 1 << QString() << -1 << u"fast"_s;
    QTest::newRow("range in grid mode")
        << QString() << QStringList{u"train.lr=log_uniform(1e-5, 1e-3)"_s} << u"grid"_s << 1
        << QString() << -1 << u"random"_s;
    QTest::newRow("duplicate seed")
        << u"1, 1"_s << QStringList() << u"grid"_s << 1 << QString() << -1 << u"twice"_s;
  }

  void launchFormWritesSeedsAndSweep() {
    QFETCH(QString, seeds);
    QFETCH(QStringList, sweep);
    QFETCH(QString, mode);
    QFETCH(int, samples);
    QFETCH(QString, expected);
    QFETCH(int, runs);
    QFETCH(QString, error);
    Session s;
    ModelRef model;
    model.folder =
        QStringLiteral(GB_SOURCE_DIR) + u"/resources/presets/tiny-llama-cdf103caaf14b846"_s;
    model.displayName = u"tiny-llama"_s;
    model.hasTokenizer = true;
    QVERIFY(QFileInfo(model.folder + u"/config.json"_s).exists());
    s.setModel(model);
    s.queuePlan({u"full"_s, QJsonObject{{u"variant"_s, u"full"_s}}});
    s.queuePlan({u"LoRA"_s, QJsonObject{{u"variant"_s, u"lora"_s}, {u"rank"_s, 16}}});
    const QString text = QDir(m_tmp).filePath(u"de.txt"_s);
    QVERIFY(writeFile(text, "Ein Satz.\n\nNoch ein Satz.\n"));
    RunsView rv(&s);
    LaunchSettings ls;
    ls.trainData = text;
    ls.origEvalData = text;
    rv.setSettings(ls);
    SweepEditor* ed = rv.sweepEditor();
    ed->setSeeds(seeds);
    ed->setMode(mode, samples);
    for (const QString& row : sweep) {
      const int eq = row.indexOf(u'=');
      ed->addSweepRow(row.left(eq), row.mid(eq + 1));
    }
    QString err;
    const Json spec = rv.buildSpec(&err);
    if (runs < 0) {
      QVERIFY(spec.is_null());
      QVERIFY2(err.contains(error), qPrintable(err));
      QCOMPARE(rv.expectedRunCount(&err), -1);
      return;
    }
    QVERIFY2(!spec.is_null(), qPrintable(err));
    Json keys = Json::object();
    for (const char* k : {"seeds", "sweep", "sweep_mode", "samples"}) {
      if (spec.contains(k)) keys[k] = spec[k];
    }
    QCOMPARE(QString::fromStdString(keys.dump()),
             QString::fromStdString(Json::parse(expected.toStdString()).dump()));
    QCOMPARE(rv.expectedRunCount(&err), runs);
    QTRY_VERIFY(ed->runCountText().contains(QString::number(runs)));
    // The section round-trips through load().
    SweepEditor again;
    again.load(spec);
    Json back = Json::object();
    QVERIFY(again.apply(back, &err));
    for (const char* k : {"seeds", "sweep", "sweep_mode", "samples"}) {
      QCOMPARE(back.contains(k), spec.contains(k));
      if (spec.contains(k)) QCOMPARE(back[k].dump(), spec[k].dump());
    }
  }

  void sweepKeysComeFromTheVariantSchemas() {
    SweepEditor ed;
    ed.setVariantsProvider([] { return QStringList{u"lora"_s}; });
    QVERIFY(ed.keyChoices().contains(u"rank"_s));
    QVERIFY(ed.keyChoices().contains(u"train.lr"_s));
    QVERIFY(!ed.keyChoices().contains(u"train.seq_len"_s));  // shapes the evaluation sets
    ed.setVariantsProvider([] { return QStringList{u"full"_s}; });
    QVERIFY(!ed.keyChoices().contains(u"rank"_s));
  }
};

QTEST_MAIN(TstCompare)
#include "tst_compare.moc"
