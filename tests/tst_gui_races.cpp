// Late answers never override what the user did since: the run store's worker, the
// growbench-cli jobs and the probe loads answer asynchronously, and a user (or a test)
// can click, select and type before they land. Each test makes the late answer arrive
// after the user's action, in a fixed order (the store's worker answers its requests in
// turn; a signal spy's wait returns before queued answers are delivered).
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include "architecturemodel.h"
#include "curvesview.h"
#include "importance/probe_writer.h"
#include "importanceview.h"
#include "heatmapplot.h"
#include "mainwindow.h"
#include "model/tokenizer.h"
#include "modelview.h"
#include "reportdialog.h"
#include "runsview.h"
#include "runtablemodel.h"
#include "session.h"
#include "store/store.h"
#include "storeservice.h"

using namespace Qt::StringLiterals;
using namespace gb::gui;
namespace st = gb::store;
namespace imp = gb::importance;

class TstGuiRaces : public QObject {
  Q_OBJECT
  QTemporaryDir m_tmp{QStringLiteral(GB_TEST_TMP "/gui-races-XXXXXX")};
  QString m_ws;
  MainWindow* m_window = nullptr;
  int64_t m_seqRun = -1;  // the run with a task matrix in the first workspace

  Session* s() const { return m_window->session(); }
  std::string db() const { return (m_ws + u"/growbench.db"_s).toStdString(); }

  // A probe recorded straight into a store (as another process would): two layers, two
  // units (or stages for effective rank), the first cell `first`.
  static int64_t recordProbe(st::Store& store, const std::string& method, double first,
                             double bias = 0) {
    imp::ProbeResult r;
    r.method = method;
    r.layers = {1.0 + bias, 2.0 - bias};
    if (method == "effective-rank") {
      r.stage_names = {"a", "b"};
      r.stages = {{first, 2}, {3, 4}};
    } else {
      r.unit_names = {"q", "k"};
      r.units = {{first, 2 + bias}, {3, 4}};
    }
    imp::ProbeRecord rec;
    rec.model_key = "/nonexistent/model";
    rec.model_family = "llama";
    rec.probe_set = "x";
    return imp::record_probe(store, r, rec);
  }
  int64_t addProbe(const std::string& method, double bias) {
    st::Store store = st::Store::open(db());
    return recordProbe(store, method, 1, bias);
  }

  // A run recorded straight into a store.
  static int64_t addRun(st::Store& store, const std::string& name) {
    st::NewRun nr;
    nr.name = name;
    nr.spec = R"({"plans":[{"variant":"full"}],"train":{"steps":10}})";
    return store.create_run(nr);
  }

  // Refreshes the importance view's probe list (as a finished probe or a model change does)
  // and waits for it to list `id`.
  void refreshProbesUntil(ImportanceView* iv, const QString& method, qint64 id) {
    iv->findChild<QCheckBox*>()->toggle();  // "only this model": no model, every probe
    QTRY_VERIFY_WITH_TIMEOUT(iv->latestProbe(method) == id, 10000);
  }

 private slots:
  void initTestCase() {
    QVERIFY(m_tmp.isValid());
    QStandardPaths::setTestModeEnabled(true);
    qputenv("GROWBENCH_CLI", GB_CLI_PATH);
    m_ws = m_tmp.filePath(u"ws"_s);
    QVERIFY(QDir().mkpath(m_ws));
    { st::Store::open(db()); }
    m_window = new MainWindow;
    m_window->setConfirmClose(false);
    m_window->resize(1200, 800);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    QSignalSpy opened(s()->store(), &StoreService::opened);
    s()->openWorkspace(m_ws);
    QVERIFY(opened.wait(20000));
  }

  void cleanupTestCase() { delete m_window; }

  // A store poll answered before the log's own request asks for the events again: each
  // event is still shown once.
  void runLogShowsEachEventOnce() {
    int64_t id;
    {
      st::Store store = st::Store::open(db());
      id = addRun(store, "events");
      store.add_event(id, st::EventLevel::Info, "one");
      store.add_event(id, st::EventLevel::Info, "two");
      store.set_status(id, st::RunStatus::Finished);  // records a third event
    }
    QTRY_VERIFY_WITH_TIMEOUT(s()->runModel()->run(id), 10000);
    RunsView* rv = m_window->runsView();
    QSignalSpy events(s()->store(), &StoreService::eventsReady);
    s()->store()->refresh();  // answered first: the view asks for the events from 0 again
    rv->selectRun(id);
    QTRY_VERIFY_WITH_TIMEOUT(events.count() >= 2, 10000);
    QTest::qWait(200);
    const QStringList lines = rv->logPane()->toPlainText().split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QVERIFY(lines[0].endsWith(u"one"_s));
    QVERIFY(lines[1].endsWith(u"two"_s));
    // Deleted, the newest run's id and its events' ids go to the next run created: the log
    // forgets the deleted run and shows the new one's events.
    {
      st::Store store = st::Store::open(db());
      store.delete_runs({id});
    }
    QTRY_VERIFY_WITH_TIMEOUT(!s()->runModel()->run(id), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(rv->logPane()->toPlainText().isEmpty(), 5000);
    int64_t again;
    {
      st::Store store = st::Store::open(db());
      again = addRun(store, "events again");
      store.add_event(again, st::EventLevel::Info, "three");
    }
    QCOMPARE(again, id);  // the reuse this guards against
    QTRY_VERIFY_WITH_TIMEOUT(s()->runModel()->run(again), 10000);
    rv->selectRun(again);
    QTRY_VERIFY_WITH_TIMEOUT(rv->logPane()->toPlainText().endsWith(u"three"_s), 10000);
    QCOMPARE(rv->logPane()->toPlainText().split(u'\n', Qt::SkipEmptyParts).size(), 1);
    // The same between two polls: the run shown is replaced by one created at another time.
    {
      st::Store store = st::Store::open(db());
      store.delete_runs({again});
      QCOMPARE(addRun(store, "events once more"), again);
    }
    QTRY_VERIFY_WITH_TIMEOUT(
        s()->runModel()->run(again) && s()->runModel()->run(again)->info.name == "events once more",
        10000);
    QTRY_VERIFY_WITH_TIMEOUT(rv->logPane()->toPlainText().isEmpty(), 5000);
  }

  // The effective-rank probe the user picked stays picked when the probe list refreshes.
  void rankProbeChoiceSurvivesARefresh() {
    ImportanceView* iv = m_window->importanceView();
    addProbe("effective-rank", 0);
    const int64_t second = addProbe("effective-rank", 1);
    const int64_t taylor = addProbe("taylor", 0);
    refreshProbesUntil(iv, u"taylor"_s, taylor);
    auto* rank = iv->tabs()->widget(1)->findChild<QComboBox*>();
    QCOMPARE(rank->count(), 2);
    const int pick = rank->findData(QVariant::fromValue<qlonglong>(second)) == 0 ? 1 : 0;
    rank->setCurrentIndex(pick);
    const qint64 chosen = rank->currentData().toLongLong();
    const int64_t another = addProbe("taylor", 2);
    refreshProbesUntil(iv, u"taylor"_s, another);
    QCOMPARE(rank->currentData().toLongLong(), chosen);
  }

  // "Top-N by update" waits for its probe to load; a selection made meanwhile wins.
  void selectionMadeWhileTopNWaitsWins() {
    ImportanceView* iv = m_window->importanceView();
    const int64_t update = addProbe("update-magnitude", 5);
    refreshProbesUntil(iv, u"update-magnitude"_s, update);
    s()->setSelectedLayers({}, u"test"_s);
    QSignalSpy loaded(s()->store(), &StoreService::probeLoaded);
    QVERIFY(iv->selectUpdateMagnitude(1));         // pending: the probe is not loaded yet
    s()->setSelectedLayers({0, 1}, u"heatmap"_s);  // the user drags over both layers
    QTRY_VERIFY_WITH_TIMEOUT(!loaded.isEmpty() && loaded.last().first().toLongLong() == update,
                             10000);
    QCOMPARE(s()->selectedLayers(), (QVector<int>{0, 1}));
    // Without a later selection the policy applies once the probe is loaded.
    s()->setSelectedLayers({}, u"test"_s);
    QVERIFY(iv->selectUpdateMagnitude(1));
    QTRY_COMPARE_WITH_TIMEOUT(s()->selectedLayers().size(), 1, 10000);
  }

  // A task matrix arriving after the user picked the task-matrix run does not replace it.
  void taskMatrixRunChoiceStays() {
    int64_t plain, seq, plain2;
    {
      st::Store store = st::Store::open(db());
      plain = addRun(store, "p1");
      seq = addRun(store, "seq");
      m_seqRun = seq;
      for (int a = 0; a < 2; ++a)
        for (int t = 0; t < 2; ++t) store.set_task_value(seq, a, t, 0.5);
      plain2 = addRun(store, "p2");
    }
    QTRY_VERIFY_WITH_TIMEOUT(s()->runModel()->run(plain2), 10000);
    CurvesView* cv = m_window->curvesView();
    QSignalSpy matrices(s()->store(), &StoreService::taskMatrixReady);
    s()->setCurveRuns({plain, seq, plain2});
    cv->taskRunCombo()->setCurrentIndex(2);  // the user picks p2 before the matrices land
    QTRY_VERIFY_WITH_TIMEOUT(matrices.count() >= 3, 10000);
    QCOMPARE(cv->taskRunCombo()->currentData().toLongLong(), qint64(plain2));
    // Without a pick the tab opens on the run that has a matrix.
    matrices.clear();
    s()->setCurveRuns({plain2, seq});
    QTRY_VERIFY_WITH_TIMEOUT(matrices.count() >= 2, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(cv->taskRunCombo()->currentData().toLongLong(), qint64(seq), 5000);
  }

  // A second model opened while the first one's architecture loads: the view describes the
  // second one, and says so once.
  void secondModelOpenedWhileTheFirstLoads() {
    ModelView* mv = m_window->modelView();
    QSignalSpy inspected(mv, &ModelView::inspectFinished);
    const QString a = QStringLiteral(GB_SHARED_DIR) + u"/fixtures/hf-reference/llama"_s;
    const QString b = QStringLiteral(GB_SHARED_DIR) + u"/fixtures/hf-reference/qwen2"_s;
    QVERIFY(mv->openFolder(a));
    QVERIFY(mv->openFolder(b));
    QVERIFY(inspected.wait(120000));
    QTest::qWait(300);
    QCOMPARE(inspected.count(), 1);
    QCOMPARE(inspected.first().first().toBool(), true);
    QCOMPARE(s()->model().folder, b);
    QCOMPARE(mv->architecture()->totalParameters(), s()->model().config->param_count());
    // A model without a tokenizer opened while the previous one's tokenizer loads: the
    // previous tokenizer is neither shown nor offered for it.
    const QString withTokenizer = m_tmp.filePath(u"with-tokenizer"_s);
    QVERIFY(QDir().mkpath(withTokenizer));
    for (const char* f : {"config.json", "model.safetensors"}) {
      QVERIFY(
          QFile::copy(a + u"/"_s + QLatin1String(f), withTokenizer + u"/"_s + QLatin1String(f)));
    }
    {
      std::string text;
      for (int i = 0; i < 200; ++i)
        text += "the quick brown fox jumps over the lazy dog " + std::to_string(i) + "\n";
      QFile tok(withTokenizer + u"/tokenizer.json"_s);
      QVERIFY(tok.open(QIODevice::WriteOnly));
      tok.write(QByteArray::fromStdString(
          gb::tok::train_byte_level_bpe({text}, 512, {"<unk>", "<s>", "</s>"})));
    }
    inspected.clear();
    QVERIFY(mv->openFolder(withTokenizer));
    QVERIFY(mv->openFolder(b));  // the qwen2 fixture has no tokenizer.json
    QVERIFY(inspected.wait(120000));
    QTest::qWait(1000);  // the first tokenizer has loaded by now
    QVERIFY2(mv->tokenizerSummary().contains(u"no tokenizer.json"_s),
             qPrintable(mv->tokenizerSummary()));
    // A model whose config is refused, opened while another loads: its error stays, and the
    // other's architecture never appears for it.
    const QString refused = m_tmp.filePath(u"refused"_s);
    QVERIFY(QDir().mkpath(refused));
    {
      QFile in(a + u"/config.json"_s);
      QVERIFY(in.open(QIODevice::ReadOnly));
      QByteArray cfg = in.readAll();
      QVERIFY(cfg.contains("\"llama\""));
      cfg.replace("\"llama\"", "\"no-such-family\"");
      QFile out(refused + u"/config.json"_s);
      QVERIFY(out.open(QIODevice::WriteOnly));
      out.write(cfg);
    }
    inspected.clear();
    QVERIFY(mv->openFolder(a));
    QVERIFY(!mv->openFolder(refused));
    const QString error = mv->lastMessage();
    QVERIFY2(error.contains(u"not supported"_s), qPrintable(error));
    QTest::qWait(2000);  // the stopped inspection of `a` ends meanwhile
    QCOMPARE(mv->architecture()->totalParameters(), qint64(0));
    QCOMPARE(inspected.count(), 0);
    QVERIFY(mv->openFolder(b));
    QVERIFY(inspected.wait(120000));
    QCOMPARE(inspected.first().first().toBool(), true);
    QCOMPARE(mv->architecture()->totalParameters(), s()->model().config->param_count());
    // Cancel still cancels.
    inspected.clear();
    QVERIFY(mv->openFolder(a));
    QVERIFY(mv->openFolder(b));
    mv->findChild<QPushButton*>(u"cancelInspect"_s)->click();
    QVERIFY(inspected.wait(60000));
    QCOMPARE(inspected.first().first().toBool(), false);
  }

  // Another workspace's probes have the same ids as this one's: nothing loaded from the
  // first store is shown for the second.
  void anotherWorkspaceShowsItsOwnProbesAndMatrices() {
    ImportanceView* iv = m_window->importanceView();
    QTRY_VERIFY_WITH_TIMEOUT(iv->currentProbeId() > 0 && iv->heatmap()->rowCount() == 2, 10000);
    const qint64 shown = iv->currentProbeId();
    const double before = iv->heatmap()->value(0, 0);
    const QString other = m_tmp.filePath(u"other-workspace"_s);
    QVERIFY(QDir().mkpath(other));
    {
      st::Store store = st::Store::open((other + u"/growbench.db"_s).toStdString());
      for (qint64 i = 1; i <= shown; ++i) {
        QCOMPARE(recordProbe(store, "taylor", 100.0 + double(i)), int64_t(i));
      }
    }
    QVERIFY(before != 100.0 + double(shown));
    QSignalSpy opened(s()->store(), &StoreService::opened);
    s()->openWorkspace(other);
    QVERIFY(opened.wait(20000));
    QTRY_COMPARE_WITH_TIMEOUT(iv->currentProbeId(), shown, 10000);
    QTRY_COMPARE_WITH_TIMEOUT(iv->heatmap()->value(0, 0), 100.0 + double(shown), 10000);
    // The task matrix of the first workspace's run is not shown for this one's run of the
    // same id (whose matrix is still being read).
    CurvesView* cv = m_window->curvesView();
    QVERIFY(m_seqRun > 0);
    {
      st::Store store = st::Store::open((other + u"/growbench.db"_s).toStdString());
      while (addRun(store, "other run") < m_seqRun) {
      }
    }
    QTRY_VERIFY_WITH_TIMEOUT(s()->runModel()->run(m_seqRun), 10000);
    s()->setCurveRuns({m_seqRun});
    cv->replotNow();
    QCOMPARE(cv->taskPlot()->rowCount(), 0);
    // The newest probe deleted and its id given to a new one: the new one is loaded.
    {
      st::Store store = st::Store::open((other + u"/growbench.db"_s).toStdString());
      store.delete_probe(shown);
      QCOMPARE(recordProbe(store, "taylor", 999.0), int64_t(shown));
    }
    QCheckBox* onlyThisModel = iv->findChild<QCheckBox*>();
    const bool only = onlyThisModel->isChecked();
    onlyThisModel->setChecked(!only);  // two refreshes, leaving the filter as it was
    onlyThisModel->setChecked(only);
    QTRY_COMPARE_WITH_TIMEOUT(iv->heatmap()->value(0, 0), 999.0, 10000);
  }

  // The report is the file the job wrote, even when the path was edited while it ran.
  void reportNamesThePathItWrote() {
    const std::string d = m_tmp.filePath(u"r.db"_s).toStdString();
    {
      auto store = st::Store::open(d);
      st::NewRun nr;
      nr.name = "x";
      nr.experiment = "g";
      nr.spec = R"({"name":"g"})";
      store.create_run(nr);
    }
    ReportDialog dlg(QString::fromStdString(d), u"g"_s);
    const QString out = m_tmp.filePath(u"report.html"_s);
    dlg.findChild<QLineEdit*>()->setText(out);
    QSignalSpy written(&dlg, &ReportDialog::written);
    dlg.write();
    dlg.findChild<QLineEdit*>()->setText(m_tmp.filePath(u"other.html"_s));  // edited meanwhile
    QVERIFY(written.wait(120000));
    QCOMPARE(written.first().first().toString(), out);
    QVERIFY(QFileInfo::exists(out));
  }
};

QTEST_MAIN(TstGuiRaces)
#include "tst_gui_races.moc"
