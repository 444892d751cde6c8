// GUI tests on the offscreen platform that drive the real widgets of the GrowBench main
// window and the real growbench-cli worker (found through GB_CLI_PATH): loading a model,
// running (and cancelling) a probe, selecting layers in the heatmap with the mouse, building
// plans whose closed-form figures match the worker's, launching runs and seeing them finish
// with their curves and table rows, cancelling and resuming, runs written by another process,
// the about dialog and the screenshot tour.
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QSpinBox>
#include <QDir>
#include <QDockWidget>
#include <QDirIterator>
#include <QFile>
#include <QHelpEvent>
#include <QJsonDocument>
#include <QMimeData>
#include <QStandardItemModel>
#include <QTextBrowser>
#include <QToolTip>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>

#include <cmath>

#include "compareview.h"
#include "curvesview.h"
#include "dialogs.h"
#include "elide.h"
#include "experimenteditor.h"
#include "gui_test_util.h"
#include "guiutil.h"
#include "growplanner.h"
#include "grow/plan.h"
#include "grow/variant.h"
#include "heatmapplot.h"
#include "importanceview.h"
#include "mainwindow.h"
#include "model/tokenizer.h"
#include "modelview.h"
#include "architecturemodel.h"
#include "runmanager.h"
#include "runsview.h"
#include "runtablemodel.h"
#include "session.h"
#include "specdiffmodel.h"
#include "store/store.h"
#include "storeservice.h"
#include "tour.h"
#include "toy_layer_policy.h"
#include "toy_variant.h"

using namespace Qt::StringLiterals;
using namespace gb::gui;
namespace st = gb::store;
using gb::test::makeText;
using gb::test::writeFile;

namespace {

const char* kEnglish[] = {
    "the",     "model", "learns", "a",    "new",  "language", "while",  "it",    "keeps", "what",
    "knows",   "about", "old",    "text", "and",  "words",    "people", "write", "many",  "small",
    "stories", "every", "day",    "with", "care", "time",     "world",  "house", "river", "light"};
const char* kGerman[] = {"der",    "die",      "das",       "und",         "ein",   "neues",
                         "Modell", "lernt",    "eine",      "Sprache",     "aber",  "nicht",
                         "alles",  "was",      "es",        "weiss",       "über",  "alte",
                         "Texte",  "Menschen", "schreiben", "Geschichten", "jeden", "Tag",
                         "mit",    "Sorgfalt", "Zeit",      "Welt",        "Haus",  "Fluss"};

}  // namespace

// The test variant of tests/toy_variant.h (its declaration; tst_runner runs it).
GB_REGISTER_VARIANT(gb::test::hooked_declaration);

class TstGui : public QObject {
  Q_OBJECT

 private:
  QString m_tmp, m_model, m_orig, m_new, m_ws;
  MainWindow* m_window = nullptr;
  Session* s() const { return m_window->session(); }

  // Runs with this status among the given ids.
  int countStatus(const QList<qint64>& ids, st::RunStatus status) const {
    int n = 0;
    for (qint64 id : ids) {
      const RunRow* r = s()->runModel()->run(id);
      if (r && r->info.status == status) ++n;
    }
    return n;
  }

 private slots:
  void initTestCase() {
    Q_INIT_RESOURCE(growbench);
    QStandardPaths::setTestModeEnabled(true);
    qputenv("GROWBENCH_CLI", GB_CLI_PATH);
    qputenv("GB_THREADS", "1");
    QVERIFY2(QFileInfo(QStringLiteral(GB_CLI_PATH)).isExecutable(), GB_CLI_PATH);
    m_tmp = QDir(QStringLiteral(GB_TEST_TMP))
                .filePath(u"gui-%1"_s.arg(QCoreApplication::applicationPid()));
    QDir(m_tmp).removeRecursively();
    QVERIFY(QDir().mkpath(m_tmp));
    // A tiny Llama (the HF fixture: 2 layers, d = 64, vocabulary 512) with a byte-level BPE
    // tokenizer of exactly 512 entries trained here.
    m_model = QDir(m_tmp).filePath(u"tiny-llama"_s);
    QVERIFY(QDir().mkpath(m_model));
    const QString fixture = QStringLiteral(GB_SHARED_DIR) + u"/fixtures/hf-reference/llama"_s;
    for (const char* f : {"config.json", "model.safetensors"}) {
      QVERIFY(QFile::copy(fixture + u"/"_s + QLatin1String(f),
                          QDir(m_model).filePath(QLatin1String(f))));
    }
    const QString english = makeText(kEnglish, 30, 1, 400);
    const QString german = makeText(kGerman, 30, 2, 400);
    const std::string tok = gb::tok::train_byte_level_bpe(
        {english.toStdString(), german.toStdString()}, 512, {"<unk>", "<s>", "</s>"});
    QCOMPARE(gb::tok::Tokenizer::from_json(tok, "test").vocab_size(), qint64(512));
    QVERIFY(writeFile(QDir(m_model).filePath(u"tokenizer.json"_s), QByteArray::fromStdString(tok)));
    m_orig = QDir(m_tmp).filePath(u"english.txt"_s);
    m_new = QDir(m_tmp).filePath(u"german.txt"_s);
    QVERIFY(writeFile(m_orig, makeText(kEnglish, 30, 11, 120).toUtf8()));
    QVERIFY(writeFile(m_new, makeText(kGerman, 30, 12, 120).toUtf8()));

    m_ws = QDir(m_tmp).filePath(u"workspace"_s);
    m_window = new MainWindow;
    m_window->setConfirmClose(false);
    m_window->resize(1400, 900);
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window));
    QSignalSpy opened(s()->store(), &StoreService::opened);
    s()->openWorkspace(m_ws);
    QVERIFY(opened.wait(20000));
    QVERIFY2(opened.first().at(1).toString().isEmpty(),
             qPrintable(opened.first().at(1).toString()));
    QVERIFY(QFileInfo::exists(QDir(m_ws).filePath(u"growbench.db"_s)));
    // The item models of the views, checked on every change they make. QtTest mode: a
    // violation of the model contract fails the running test (as in tst_models), not only a
    // logged warning.
    new QAbstractItemModelTester(s()->runModel(),
                                 QAbstractItemModelTester::FailureReportingMode::QtTest, m_window);
    for (QTableView* t : m_window->findChildren<QTableView*>()) {
      if (t->model() && t->model() != s()->runModel()) {
        new QAbstractItemModelTester(
            t->model(), QAbstractItemModelTester::FailureReportingMode::QtTest, m_window);
      }
    }
  }

  void cleanupTestCase() {
    if (m_window) m_window->close();
    delete m_window;
    m_window = nullptr;
  }

  void modelLoadsArchitectureConfigAndTokenizer() {
    ModelView* mv = m_window->modelView();
    QSignalSpy inspected(mv, &ModelView::inspectFinished);
    QVERIFY(mv->openFolder(m_model));
    QVERIFY(s()->model().valid());
    QVERIFY(s()->model().config.has_value());
    QCOMPARE(s()->model().config->num_layers, int64_t(2));
    QCOMPARE(mv->config()->value(u"hidden_size"_s), u"64"_s);
    QVERIFY(inspected.wait(120000));
    QCOMPARE(inspected.first().first().toBool(), true);
    QCOMPARE(mv->architecture()->layerCount(), 2);
    QCOMPARE(mv->architecture()->totalParameters(), s()->model().config->param_count());
    // Layer 0 has units with shapes, e.g. the MLP up projection (160 × 64).
    const QModelIndex layer0 = mv->architecture()->index(1, 0);
    bool foundUp = false;
    for (int r = 0; r < mv->architecture()->rowCount(layer0); ++r) {
      if (mv->architecture()->index(r, 0, layer0).data().toString() == u"up"_s) {
        foundUp =
            mv->architecture()->index(r, ArchitectureModel::Shape, layer0).data().toString() ==
            u"(160 × 64)"_s;
      }
    }
    QVERIFY(foundUp);
    // Expanding a layer fits the unit columns (kind and shape) to the units shown.
    QTreeView* tree = mv->tree();
    tree->expand(layer0);
    for (int c : {int(ArchitectureModel::Shape), 1}) {
      for (int r = 0; r < mv->architecture()->rowCount(layer0); ++r) {
        const QString text = mv->architecture()->index(r, c, layer0).data().toString();
        const int need = tree->fontMetrics().horizontalAdvance(text);
        QVERIFY2(tree->columnWidth(c) >= need,
                 qPrintable(u"%1: %2 < %3"_s.arg(text).arg(tree->columnWidth(c)).arg(need)));
      }
    }
    tree->collapse(layer0);
    QTRY_VERIFY_WITH_TIMEOUT(mv->tokenizerSummary().contains(u"512"_s), 20000);
  }

  void modelRefusesFoldersThatAreNoModels() {
    ModelView* mv = m_window->modelView();
    const QString empty = QDir(m_tmp).filePath(u"empty"_s);
    QDir().mkpath(empty);
    QVERIFY(!mv->openFolder(empty));
    QVERIFY(mv->lastMessage().contains(u"config.json"_s));
    const QString pickled = QDir(m_tmp).filePath(u"pickled"_s);
    QDir().mkpath(pickled);
    QFile::copy(m_model + u"/config.json"_s, pickled + u"/config.json"_s);
    writeFile(pickled + u"/pytorch_model.bin"_s, "not a pickle");
    QVERIFY(!mv->openFolder(pickled));
    QVERIFY(mv->lastMessage().contains(u"pickle"_s));
    QSignalSpy inspected(mv, &ModelView::inspectFinished);
    QVERIFY(mv->openFolder(m_model));  // back to the good model for the next tests
    QVERIFY(inspected.wait(120000));
  }

  void probeRunsThroughTheWorkerAndFillsTheHeatmap() {
    ImportanceView* iv = m_window->importanceView();
    m_window->showView(MainWindow::View::Importance);
    QSignalSpy finished(iv, &ImportanceView::probeFinished);
    QSignalSpy shown(iv, &ImportanceView::probeShown);
    QVERIFY2(iv->runProbe(u"taylor"_s, m_orig, QString(), 1024), qPrintable(iv->lastMessage()));
    QVERIFY(iv->probeRunning());
    QVERIFY(finished.wait(300000));
    QVERIFY2(finished.first().first().toBool(), qPrintable(finished.first().at(1).toString()));
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() > 0, 20000);
    HeatmapPlot* h = iv->heatmap();
    QCOMPARE(h->rowCount(), 2);
    QVERIFY(h->columnCount() >= 7);  // q k v o gate up down (+ norms)
    int finite = 0;
    for (int c = 0; c < h->columnCount(); ++c) finite += std::isfinite(h->value(1, c));
    QVERIFY(finite >= 7);
    // The tooltip names the layer and shows the cell's own value (not just any "1").
    QVERIFY(std::isfinite(h->value(1, 0)));
    const QString tip = h->cellToolTip(1, 0);
    QVERIFY2(tip.startsWith(u"Layer 1 · "_s), qPrintable(tip));
    QVERIFY2(tip.endsWith(u": "_s + QString::number(h->value(1, 0), 'g', 8)), qPrintable(tip));
    QVERIFY(h->cellToolTip(0, 0).startsWith(u"Layer 0 · "_s));
    // A layer-masking probe too (for the least-important policy) and an update-magnitude
    // probe (for the top-N policy).
    finished.clear();
    QVERIFY(iv->runProbe(u"masking"_s, m_orig, QString(), 1024));
    QVERIFY(finished.wait(300000));
    QVERIFY2(finished.first().first().toBool(), qPrintable(finished.first().at(1).toString()));
    finished.clear();
    const qint64 taylor = iv->latestProbe(u"taylor"_s);
    QVERIFY(taylor > 0);
    QVERIFY(iv->runProbe(u"update-magnitude"_s, m_orig, m_new, 1024));
    QVERIFY(finished.wait(300000));
    QVERIFY2(finished.first().first().toBool(), qPrintable(finished.first().at(1).toString()));
    // A probe shown before the refreshed list arrives stays shown: the refresh that would
    // show the new probe lands later and must not replace the user's choice.
    QCOMPARE(iv->latestProbe(u"update-magnitude"_s), qint64(-1));  // the list is not back yet
    iv->showProbe(taylor);
    QTRY_VERIFY_WITH_TIMEOUT(iv->latestProbe(u"update-magnitude"_s) > 0, 20000);
    QCOMPARE(iv->currentProbeId(), taylor);
  }

  void probeCanBeCancelled() {
    ImportanceView* iv = m_window->importanceView();
    QSignalSpy finished(iv, &ImportanceView::probeFinished);
    QVERIFY(iv->runProbe(u"fisher"_s, m_orig, QString(), 0));
    iv->cancelProbe();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().first().toBool(), false);
    QVERIFY(iv->lastMessage().contains(u"cancel"_s, Qt::CaseInsensitive));
    QVERIFY(!iv->probeRunning());
  }

  // A new effective-rank probe goes to its tab and list even when the user picked another
  // probe for the heatmap before the refreshed list arrived; that pick stays too.
  void newRankProbeIsShownBesideTheUsersPick() {
    ImportanceView* iv = m_window->importanceView();
    const qint64 taylor = iv->latestProbe(u"taylor"_s);
    QVERIFY(taylor > 0);
    QSignalSpy finished(iv, &ImportanceView::probeFinished);
    QVERIFY2(iv->runProbe(u"effective-rank"_s, m_orig, QString(), 256),
             qPrintable(iv->lastMessage()));
    QVERIFY(finished.wait(300000));
    QVERIFY2(finished.first().first().toBool(), qPrintable(finished.first().at(1).toString()));
    QCOMPARE(iv->latestProbe(u"effective-rank"_s), qint64(-1));  // the list is not back yet
    iv->showProbe(taylor);
    QTRY_VERIFY_WITH_TIMEOUT(iv->latestProbe(u"effective-rank"_s) > 0, 20000);
    QCOMPARE(iv->currentProbeId(), taylor);
    QCOMPARE(iv->tabs()->currentIndex(), 1);
    auto* rank = iv->tabs()->widget(1)->findChild<QComboBox*>();
    QVERIFY(rank);
    QCOMPARE(rank->currentData().toLongLong(), iv->latestProbe(u"effective-rank"_s));
    iv->tabs()->setCurrentIndex(0);
  }

  void heatmapSelectsLayersByMouse() {
    ImportanceView* iv = m_window->importanceView();
    m_window->showView(MainWindow::View::Importance);
    iv->tabs()->setCurrentIndex(0);
    // Show the Taylor probe (a layers x units matrix).
    const qint64 taylor = iv->latestProbe(u"taylor"_s);
    QVERIFY(taylor > 0);
    iv->showProbe(taylor);
    QTRY_VERIFY_WITH_TIMEOUT(iv->heatmap()->columnCount() >= 7, 10000);
    QTest::qWait(300);  // the dock is laid out
    HeatmapPlot* h = iv->heatmap();
    h->replot(QCustomPlot::rpImmediateRefresh);
    QTest::mouseClick(h, Qt::LeftButton, {}, h->cellCenter(1, 0));
    QCOMPARE(s()->selectedLayers(), (QVector<int>{1}));
    QTest::mousePress(h, Qt::LeftButton, {}, h->cellCenter(0, 2));
    QTest::mouseMove(h, h->cellCenter(1, 3));
    QTest::mouseRelease(h, Qt::LeftButton, {}, h->cellCenter(1, 3));
    QCOMPARE(s()->selectedLayers(), (QVector<int>{0, 1}));
    QTest::mouseClick(h, Qt::LeftButton, Qt::ControlModifier, h->cellCenter(0, 0));
    QCOMPARE(s()->selectedLayers(), (QVector<int>{1}));
    // The planner follows the selection.
    GrowPlanner* gp = m_window->planner();
    gp->setVariant(u"grow"_s);
    gp->setLayerSource(GrowPlanner::LayerSource::Selection);
    QCOMPARE(QString::fromStdString(gp->plan()["layers"].dump()), u"[1]"_s);
  }

  void selectionPoliciesSelectLayers() {
    ImportanceView* iv = m_window->importanceView();
    QVERIFY(iv->selectUniform(1));
    QCOMPARE(s()->selectedLayers(), (QVector<int>{1}));  // ((0 + 1) · 2) / 1 − 1
    QVERIFY(iv->selectAboveLfp(1));
    QCOMPARE(s()->selectedLayers(), (QVector<int>{1}));
    QVERIFY(iv->selectAboveLfp(0));
    QCOMPARE(s()->selectedLayers(), (QVector<int>{0, 1}));
    // k least important of the shown probe: the layer with the lower value.
    const qint64 probe = iv->currentProbeId();
    QVERIFY(probe > 0);
    {
      // The picked layer is the one with the lowest score the view shows (its bars).
      const auto& bars = iv->heatmap()->barValues();
      QCOMPARE(bars.size(), size_t(2));
      QVERIFY(std::isfinite(bars[0]) && std::isfinite(bars[1]) && bars[0] != bars[1]);
      QVERIFY(iv->selectLeastImportant(1));
      QCOMPARE(s()->selectedLayers(), (QVector<int>{bars[1] < bars[0] ? 1 : 0}));
    }
    // Top-N by update magnitude loads the stored update-magnitude probe.
    s()->setSelectedLayers({}, u"test"_s);
    QVERIFY(iv->selectUpdateMagnitude(1));
    QTRY_COMPARE_WITH_TIMEOUT(s()->selectedLayers().size(), 1, 10000);
    // Calibrated display needs a domain probe: without one the map says so.
    iv->setValueMode(ImportanceView::ValueMode::Calibrated);
    QCOMPARE(iv->heatmap()->rowCount(), 0);
    iv->setValueMode(ImportanceView::ValueMode::Absolute);
    QCOMPARE(iv->heatmap()->rowCount(), 2);
    // "Least important" ranks exactly the bars drawn: here the absolute layer values.
    {
      const auto& bars = iv->heatmap()->barValues();
      QCOMPARE(bars.size(), size_t(2));
      QVERIFY(iv->selectLeastImportant(1));
      QCOMPARE(s()->selectedLayers(), (QVector<int>{bars[1] < bars[0] ? 1 : 0}));
    }
    for (int c = 0; c < iv->heatmap()->columnCount(); ++c) {
      const double v = iv->heatmap()->value(0, c);
      QVERIFY(std::isnan(v) || v >= 0);
    }
    iv->setColumnNormalisation(true);
    for (int c = 0; c < iv->heatmap()->columnCount(); ++c) {
      const double v = iv->heatmap()->value(0, c);
      QVERIFY(std::isnan(v) || (v >= 0 && v <= 1));
    }
    iv->setColumnNormalisation(false);
    iv->setValueMode(ImportanceView::ValueMode::Raw);
  }

  // "Least important" selects exactly the lowest bars drawn, in every value mode, and the
  // view names the score it shows and ranks by (the method's name, not its id).
  void leastImportantMatchesTheBarsDrawn_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<int>("mode");
    QTest::newRow("taylor signed, raw") << u"taylor"_s << int(ImportanceView::ValueMode::Raw);
    QTest::newRow("taylor signed, absolute")
        << u"taylor"_s << int(ImportanceView::ValueMode::Absolute);
    QTest::newRow("masking, raw") << u"masking"_s << int(ImportanceView::ValueMode::Raw);
  }
  void leastImportantMatchesTheBarsDrawn() {
    QFETCH(QString, method);
    QFETCH(int, mode);
    ImportanceView* iv = m_window->importanceView();
    const qint64 probe = iv->latestProbe(method);
    QVERIFY(probe > 0);
    // Wait for this probe to be drawn (not only chosen: it may still be loading).
    QSignalSpy shown(iv, &ImportanceView::probeShown);
    iv->showProbe(probe);
    QTRY_VERIFY_WITH_TIMEOUT(!shown.isEmpty() && shown.last().first().toLongLong() == probe, 10000);
    QCOMPARE(iv->currentProbeId(), probe);
    QVERIFY(!iv->heatmap()->barValues().empty());
    iv->setValueMode(static_cast<ImportanceView::ValueMode>(mode));
    const std::vector<double> bars = iv->heatmap()->barValues();
    QCOMPARE(bars.size(), size_t(2));
    QVERIFY(iv->selectLeastImportant(1));
    const int lowest = bars[1] < bars[0] ? 1 : 0;
    QCOMPARE(s()->selectedLayers(), (QVector<int>{lowest}));
    // The score is named: the bar axis and the explanation carry it.
    QVERIFY(!iv->layerScoreText().isEmpty());
    QVERIFY(iv->layerScoreText().contains(method == u"masking"_s ? u"loss"_s : u"θ·g"_s));
    QVERIFY(iv->lastMessage().contains(iv->layerScoreText()));
    iv->setValueMode(ImportanceView::ValueMode::Raw);
  }

  void heatmapCellScalesLogRankAndPerUnit() {
    ImportanceView* iv = m_window->importanceView();
    const qint64 probe = iv->latestProbe(u"taylor"_s);
    iv->showProbe(probe);
    iv->setValueMode(ImportanceView::ValueMode::Raw);
    iv->setCellScale(ImportanceView::CellScale::Linear);
    HeatmapPlot* h = iv->heatmap();
    QTRY_VERIFY_WITH_TIMEOUT(h->columnCount() >= 7, 10000);
    const int L = h->rowCount(), U = h->columnCount();
    std::vector<std::vector<double>> raw(L, std::vector<double>(U));
    for (int l = 0; l < L; ++l) {
      for (int c = 0; c < U; ++c) raw[l][c] = h->value(l, c);
    }
    const std::vector<double> bars = h->barValues();
    iv->setCellScale(ImportanceView::CellScale::Log);
    for (int l = 0; l < L; ++l) {
      for (int c = 0; c < U; ++c) {
        const double r = raw[l][c];
        if (std::isfinite(r) && r != 0) {
          QVERIFY(std::fabs(h->value(l, c) - std::log10(std::fabs(r))) <= 1e-9);
        }
      }
    }
    QVERIFY(iv->unitScoreText().startsWith(u"log₁₀"_s));
    iv->setCellScale(ImportanceView::CellScale::Rank);
    for (int c = 0; c < U; ++c) {
      QVector<int> ranks;
      for (int l = 0; l < L; ++l) {
        if (std::isfinite(h->value(l, c))) ranks << int(h->value(l, c));
      }
      std::sort(ranks.begin(), ranks.end());
      for (int i = 0; i < ranks.size(); ++i) QCOMPARE(ranks[i], i + 1);
    }
    // The bars keep the layer score whatever the cells show.
    QCOMPARE(h->barValues(), bars);
    iv->setCellScale(ImportanceView::CellScale::Linear);
    QCOMPARE(ImportanceView::methodName("taylor-abs"), u"Taylor |θ·g|"_s);
  }

  // The planner's form is generated from each variant's schema (core/grow/variants/): a
  // field per offered key with the schema's label, help, range and choices; rows show only
  // where the key applies; the untouched form yields the schema's defaults.
  void plannerFormFollowsTheSchema() {
    GrowPlanner* gp = m_window->planner();
    s()->setSelectedLayers({1}, u"test"_s);
    gp->setLayerSource(GrowPlanner::LayerSource::Selection);
    using Spec = gb::grow::ParamSpec;
    for (const gb::grow::VariantModule* m : gb::grow::variants()) {
      gp->setVariant(qs(m->id));
      QCOMPARE(gp->variant(), qs(m->id));
      const nlohmann::json plan = gp->plan();
      for (const Spec& sp : m->params) {
        const QString key = qs(sp.name);
        QWidget* w = gp->field(key);
        if (sp.hidden || sp.type == Spec::Type::Layers || sp.type == Spec::Type::Plan) {
          QVERIFY2(!w, qPrintable(qs(m->id) + u"."_s + key));
          continue;
        }
        QVERIFY2(w, qPrintable(qs(m->id) + u"."_s + key));
        QCOMPARE(w->toolTip(), QCoreApplication::translate("GrowPlanner", sp.help.c_str()));
        if (auto* sb = qobject_cast<QSpinBox*>(w)) {
          QCOMPARE(sp.type, Spec::Type::Int);
          if (sp.min) QCOMPARE(sb->minimum(), int(*sp.min));
          if (sp.max && !sp.model_hint) QCOMPARE(sb->maximum(), int(std::min(*sp.max, 2e9)));
        } else if (auto* combo = qobject_cast<QComboBox*>(w)) {
          QCOMPARE(sp.type, Spec::Type::Choice);
          QCOMPARE(size_t(combo->count()), sp.choices.size());
          for (int i = 0; i < combo->count(); ++i) {
            QCOMPARE(combo->itemData(i).toString(), qs(sp.choices[size_t(i)]));
          }
        }
        // Shown exactly where the key applies; written to the plan only then.
        const bool applies = sp.applies(gb::grow::to_json(gb::grow::parse_plan(plan)));
        QCOMPARE(gp->fieldShown(key), applies);
        QCOMPARE(plan.contains(sp.name), applies);
        // Untouched fields hold the schema default (model hints and required keys aside:
        // a required key's default is outside its range, and the field starts at the
        // range's end).
        const bool required =
            sp.default_value.is_number() && sp.min && sp.default_value.get<double>() < *sp.min;
        if (applies && !sp.model_hint && !sp.default_for && !required &&
            !sp.default_value.is_null() && sp.type != Spec::Type::Number) {
          QCOMPARE(qs(plan.at(sp.name).dump()), qs(sp.default_value.dump()));
        }
      }
      const Spec* layers = m->layers_param();
      QCOMPARE(gp->layersShown(),
               layers != nullptr && layers->applies(gb::grow::to_json(gb::grow::parse_plan(plan))));
    }
    // Mode-dependent rows: SCALE's tau only in route mode, L_fp in adapt and route; ADEPT
    // takes layers, LLaMA-Pro a count.
    gp->setVariant(u"scale"_s);
    QVERIFY(gp->setParameter(u"mode"_s, u"preserve"_s));
    QVERIFY(!gp->fieldShown(u"tau"_s) && !gp->fieldShown(u"l_fp"_s));
    QVERIFY(gp->setParameter(u"mode"_s, u"adapt"_s));
    QVERIFY(!gp->fieldShown(u"tau"_s) && gp->fieldShown(u"l_fp"_s));
    QVERIFY(gp->setParameter(u"mode"_s, u"route"_s));
    QVERIFY(gp->fieldShown(u"tau"_s));
    QVERIFY(gp->plan().contains("tau"));
    gp->setVariant(u"depth"_s);
    QVERIFY(gp->setParameter(u"style"_s, u"llama-pro"_s));
    QVERIFY(gp->fieldShown(u"count"_s) && !gp->layersShown());
    // ADEPT's stage 2 follows the style: off for LLaMA-Pro, on for ADEPT.
    QVERIFY(!gp->plan().at("unit_lr").get<bool>());
    QVERIFY(gp->setParameter(u"style"_s, u"adept"_s));
    QVERIFY(!gp->fieldShown(u"count"_s) && gp->layersShown());
    QVERIFY(gp->plan().at("unit_lr").get<bool>());
    // A choice the user made stays when another choice changes (ADEPT without stage 2).
    QVERIFY(gp->setParameter(u"unit_lr"_s, false));
    QVERIFY(gp->setParameter(u"unit_importance"_s, u"fisher"_s));
    QVERIFY(!gp->plan().at("unit_lr").get<bool>());
    QVERIFY(gp->setParameter(u"unit_lr"_s, true));
    // Units the model lacks are offered but disabled (the llama fixture has every linear).
    gp->setVariant(u"lora"_s);
    QWidget* targets = gp->field(u"targets"_s);
    QVERIFY(targets);
    for (auto* cb : targets->findChildren<QCheckBox*>()) QVERIFY(cb->isEnabled());
    gp->setVariant(u"grow"_s);
  }

  // The keys every plan accepts (its own replay fraction, EWC) are offered for every variant
  // and written only when asked for; the "ewc" variant has EWC built in.
  void plannerOffersReplayAndEwc() {
    GrowPlanner* gp = m_window->planner();
    gp->setVariant(u"lora"_s);
    gp->setLayerSource(GrowPlanner::LayerSource::All);
    auto* replayOn = gp->findChild<QCheckBox*>(u"replayOn"_s);
    auto* replay = gp->findChild<QDoubleSpinBox*>(u"replay"_s);
    auto* ewcOn = gp->findChild<QCheckBox*>(u"ewcOn"_s);
    auto* lambda = gp->findChild<QDoubleSpinBox*>(u"ewcLambda"_s);
    auto* mode = gp->findChild<QComboBox*>(u"ewcMode"_s);
    auto* gamma = gp->findChild<QDoubleSpinBox*>(u"ewcGamma"_s);
    QVERIFY(replayOn && replay && ewcOn && lambda && mode && gamma);
    QVERIFY(!gp->plan().contains("replay") && !gp->plan().contains("ewc"));
    replayOn->setChecked(true);
    replay->setValue(0.0);
    ewcOn->setChecked(true);
    lambda->setValue(50);
    mode->setCurrentIndex(mode->findData(u"online"_s));
    gamma->setValue(0.5);
    auto* replayMode = gp->findChild<QComboBox*>(u"replayMode"_s);
    QVERIFY(replayMode && replayMode->isEnabled());
    QVERIFY(!gp->plan().contains("replay_mode"));  // "batches", the default, is not written
    replayMode->setCurrentIndex(replayMode->findData(u"rows"_s));
    const nlohmann::json j = gp->plan();
    QCOMPARE(j.at("replay").get<double>(), 0.0);
    QCOMPARE(qs(j.at("replay_mode").get<std::string>()), u"rows"_s);
    QCOMPARE(qs(j.at("ewc").dump()), qs(R"({"gamma":0.5,"lambda":50.0,"mode":"online"})"));
    QVERIFY2(gp->validationError().isEmpty(), qPrintable(gp->validationError()));
    const auto p = gb::grow::parse_plan(j);
    QVERIFY(p.ewc && p.ewc->mode == "online" && p.replay == 0.0 && p.replay_mode == "rows");
    replayMode->setCurrentIndex(replayMode->findData(u"batches"_s));
    gp->setVariant(u"ewc"_s);
    QVERIFY(!gp->plan().contains("ewc"));
    QVERIFY(gp->validationError().isEmpty());
    replayOn->setChecked(false);
    ewcOn->setChecked(false);
    gp->setVariant(u"grow"_s);
  }

  // The planner's closed-form figures equal what `growbench-cli grow --json` reports, and the
  // function-preserving variants preserve the logits.
  void plannerFiguresMatchTheWorker_data() {
    QTest::addColumn<QString>("variant");
    QTest::addColumn<QVariantMap>("params");
    QTest::addColumn<bool>("preserving");
    QTest::newRow("grow g-freeze") << u"grow"_s << QVariantMap{{u"mode"_s, u"freeze"_s}} << true;
    QTest::newRow("grow g-train k=3")
        << u"grow"_s << QVariantMap{{u"mode"_s, u"train"_s}, {u"k"_s, 3}} << true;
    QTest::newRow("lora") << u"lora"_s
                          << QVariantMap{{u"rank"_s, 4},
                                         {u"targets"_s, QStringList{u"q"_s, u"v"_s, u"up"_s}}}
                          << true;
    QTest::newRow("llama-pro") << u"depth"_s
                               << QVariantMap{{u"style"_s, u"llama-pro"_s}, {u"count"_s, 1}}
                               << true;
    QTest::newRow("adept") << u"depth"_s << QVariantMap{{u"style"_s, u"adept"_s}} << true;
    QTest::newRow("neutral residues")
        << u"neutral-residues"_s << QVariantMap{{u"budget"_s, 0.2}} << true;
    QTest::newRow("adapters") << u"adapters"_s << QVariantMap{{u"inner"_s, 16}} << true;
    QTest::newRow("loramoe") << u"loramoe"_s << QVariantMap{{u"experts"_s, 3}} << true;
    QTest::newRow("mh-moe") << u"mh-moe"_s << QVariantMap{{u"heads"_s, 4}} << true;
    QTest::newRow("freeze") << u"freeze"_s << QVariantMap{{u"bottom"_s, 1}} << true;
    QTest::newRow("scale preserve")
        << u"scale"_s << QVariantMap{{u"mode"_s, u"preserve"_s}, {u"d_up"_s, 32}, {u"p_up"_s, 64}}
        << true;
    QTest::newRow("scale adapt above l_fp")
        << u"scale"_s
        << QVariantMap{{u"mode"_s, u"adapt"_s}, {u"d_up"_s, 32}, {u"p_up"_s, 64}, {u"l_fp"_s, 1}}
        << true;
  }
  void plannerFiguresMatchTheWorker() {
    QFETCH(QString, variant);
    QFETCH(QVariantMap, params);
    QFETCH(bool, preserving);
    GrowPlanner* gp = m_window->planner();
    s()->setSelectedLayers({1}, u"test"_s);
    gp->setVariant(variant);
    gp->setLayerSource(GrowPlanner::LayerSource::Selection);
    for (auto it = params.begin(); it != params.end(); ++it) {
      QVERIFY2(gp->setParameter(it.key(), it.value()), qPrintable(it.key()));
    }
    QVERIFY2(gp->validationError().isEmpty(), qPrintable(gp->validationError()));
    QVERIFY(gp->estimate().ok);
    QSignalSpy done(gp, &GrowPlanner::checkFinished);
    QVERIFY(gp->checkPreservation());
    QVERIFY(done.wait(180000));
    QVERIFY2(done.first().first().toBool(), qPrintable(done.first().at(1).toString()));
    const QJsonObject exact = gp->lastCheckResult();
    const auto& e = gp->estimate();
    QCOMPARE(qint64(exact.value(u"added_params"_s).toDouble()), e.addedParams);
    QCOMPARE(qint64(exact.value(u"trainable_params"_s).toDouble()), e.trainableParams);
    QCOMPARE(qint64(exact.value(u"base_params"_s).toDouble()), e.baseParams);
    if (preserving) {
      QVERIFY2(gp->lastMaxLogitDiff() <= 1e-4, qPrintable(gp->lastCheck()));
    }
  }

  // Every change of model, variant or parameter invalidates what depends on it, visibly; a
  // model reload keeps the plan (an ADEPT plan stays ADEPT).
  void plannerInvalidatesWhatDependsOnModelAndPlan() {
    GrowPlanner* gp = m_window->planner();
    s()->setSelectedLayers({1}, u"test"_s);
    gp->setVariant(u"depth"_s);
    QVERIFY(gp->setParameter(u"style"_s, u"adept"_s));
    gp->setLayerSource(GrowPlanner::LayerSource::Selection);
    const nlohmann::json before = gp->plan();
    QCOMPARE(before.at("style").get<std::string>(), std::string("adept"));
    // Reload the model: the same plan.
    QSignalSpy inspected(m_window->modelView(), &ModelView::inspectFinished);
    QVERIFY(m_window->modelView()->openFolder(m_model));
    QVERIFY(inspected.wait(120000));
    QCOMPARE(gp->variant(), u"depth"_s);
    QCOMPARE(gp->plan().at("style").get<std::string>(), std::string("adept"));
    QCOMPARE(gp->plan().value("unit_lr", nlohmann::json()),
             before.value("unit_lr", nlohmann::json()));
    // A check result belongs to its plan: a parameter change makes it stale.
    s()->setSelectedLayers({1}, u"test"_s);
    gp->setVariant(u"lora"_s);
    QVERIFY(gp->setParameter(u"rank"_s, 4));
    QSignalSpy done(gp, &GrowPlanner::checkFinished);
    QVERIFY(gp->checkPreservation());
    QVERIFY(done.wait(180000));
    QVERIFY2(done.first().first().toBool(), qPrintable(done.first().at(1).toString()));
    QVERIFY(gp->checkIsCurrent());
    QVERIFY(!gp->lastCheckResult().isEmpty());
    QVERIFY(gp->setParameter(u"rank"_s, 2));
    QVERIFY(!gp->checkIsCurrent());
    QVERIFY(gp->lastCheckResult().isEmpty());
    QVERIFY(std::isnan(gp->lastMaxLogitDiff()));
    // A name typed for one variant does not follow to another.
    gp->setPlanName(u"my LoRA"_s);
    QCOMPARE(qs(gp->plan().at("name").get<std::string>()), u"my LoRA"_s);
    gp->setVariant(u"grow"_s);
    QVERIFY(gp->planName().isEmpty());
    QVERIFY(!gp->plan().contains("name"));
  }

  void plannerQueuesAComparison() {
    GrowPlanner* gp = m_window->planner();
    s()->clearQueuedPlans();
    s()->setSelectedLayers({1}, u"test"_s);
    gp->setVariant(u"grow"_s);
    gp->setParameter(u"mode"_s, u"freeze"_s);
    gp->setLayerSource(GrowPlanner::LayerSource::Selection);
    QVERIFY(gp->queueCurrentPlan());
    gp->setVariant(u"lora"_s);
    gp->setParameter(u"rank"_s, 4);
    gp->setLayerSource(GrowPlanner::LayerSource::All);
    QVERIFY(gp->queueCurrentPlan());
    QCOMPARE(s()->queuedPlans().size(), 2);
    QCOMPARE(s()->queuedPlans()[0].plan.value(u"variant"_s).toString(), u"grow"_s);
    // Invalid plans are refused: a layer outside the model, and no layers at all.
    gp->setVariant(u"grow"_s);
    gp->setLayerSource(GrowPlanner::LayerSource::Manual);
    gp->setManualLayers(u"7"_s);
    QVERIFY(!gp->validationError().isEmpty());
    QVERIFY(!gp->queueCurrentPlan());
    gp->setManualLayers(QString());
    QVERIFY(!gp->queueCurrentPlan());
    QCOMPARE(s()->queuedPlans().size(), 2);
    gp->setManualLayers(u"1"_s);
    QVERIFY2(gp->validationError().isEmpty(), qPrintable(gp->validationError()));
  }

  // The layers row offers one entry per registered policy the planner writes, under its
  // translated name, with the test's own "top-layers" (tests/toy_layer_policy.h) among them;
  // its plan parses as the CLI parses it and loads back into its entry, and a policy the
  // planner does not offer stays as loaded.
  void plannerOffersTheRegisteredLayerPolicies() {
    GrowPlanner* gp = m_window->planner();
    QString error;
    QVERIFY2(gp->setPlan({{"variant", "lora"}}, &error), qPrintable(error));  // no loaded policy
    QVERIFY(gp->layersShown());
    auto* source = gp->findChild<QComboBox*>(u"layerSource"_s);
    QVERIFY(source);
    QStringList offered;
    for (const gb::importance::LayerPolicy* p : gb::importance::layer_policies()) {
      if (!p->in_planner) continue;
      offered << qs(p->id);
      const int i = source->findText(QCoreApplication::translate("GrowPlanner", p->name.c_str()));
      QVERIFY2(i >= 0, p->id.c_str());
      QCOMPARE(source->itemData(i, Qt::ToolTipRole).toString(),
               QCoreApplication::translate("GrowPlanner", p->help.c_str()));
    }
    // All, the selection, the policies, Manual list.
    QCOMPARE(source->count(), offered.size() + 3);
    QVERIFY(offered.contains(u"least-important"_s) && offered.contains(u"top-layers"_s));
    QVERIFY(!offered.contains(u"uniform"_s));
    QVERIFY(!gp->setLayerPolicy(u"uniform"_s, 1));  // not offered
    QVERIFY(gp->setLayerPolicy(u"least-important"_s, 2));
    QCOMPARE(qs(gp->plan().at("layers").dump()),
             qs(R"({"k":2,"policy":"least-important","score":"masking"})"));
    QVERIFY(gp->setLayerPolicy(u"top-layers"_s, 1));
    QCOMPARE(gp->layerSource(), GrowPlanner::LayerSource::Policy);
    const nlohmann::json plan = gp->plan();
    QCOMPARE(qs(plan.at("layers").dump()), qs(R"({"k":1,"policy":"top-layers"})"));
    QVERIFY2(gp->validationError().isEmpty(), qPrintable(gp->validationError()));
    QCOMPARE(gb::grow::to_json(gb::grow::parse_plan(plan)).at("layers"), plan.at("layers"));
    gp->setLayerSource(GrowPlanner::LayerSource::All);
    QVERIFY2(gp->setPlan(plan, &error), qPrintable(error));
    QCOMPARE(gp->layerPolicy(), u"top-layers"_s);
    QCOMPARE(gp->plan().at("layers"), plan.at("layers"));
    nlohmann::json uniform = plan;
    uniform["layers"] = {{"policy", "uniform"}, {"count", 1}};
    QVERIFY2(gp->setPlan(uniform, &error), qPrintable(error));
    QCOMPARE(gp->layerSource(), GrowPlanner::LayerSource::Loaded);
    QCOMPARE(gp->plan().at("layers"), uniform.at("layers"));
    gp->setLayerSource(GrowPlanner::LayerSource::All);
    QCOMPARE(gp->layerSource(), GrowPlanner::LayerSource::All);
    gp->setVariant(u"grow"_s);
  }

  // A variant declared in test code alone (tests/toy_variant.h, with a per-step hook that
  // tst_runner runs): the planner offers it with a field per parameter from its schema, its
  // plan parses as the CLI parses it, and the experiment editor's plan form follows the same
  // schema. No file outside the test names it.
  void plannerAndEditorServeAVariantDeclaredInTestCode() {
    GrowPlanner* gp = m_window->planner();
    gp->setVariant(u"test-hooked"_s);
    QCOMPARE(gp->variant(), u"test-hooked"_s);
    auto* freezeAt = qobject_cast<QSpinBox*>(gp->field(u"freeze_at"_s));
    QVERIFY(freezeAt);
    QCOMPARE(freezeAt->value(), 2);
    QCOMPARE(freezeAt->maximum(), 1000);
    freezeAt->setValue(3);
    const nlohmann::json plan = gp->plan();
    QCOMPARE(plan.at("variant").get<std::string>(), std::string("test-hooked"));
    QCOMPARE(plan.at("freeze_at").get<int>(), 3);
    QVERIFY2(gp->validationError().isEmpty(), qPrintable(gp->validationError()));
    const auto parsed = gb::grow::parse_plan(plan);
    QCOMPARE(parsed.variant, std::string("test-hooked"));
    QCOMPARE(gb::grow::to_json(parsed).at("freeze_at"), plan.at("freeze_at"));
    PlanForm form;
    form.setValue(plan);
    QVERIFY(form.field(u"freeze_at"_s));
    // The editor's field declares the range the planner offers (one generator,
    // widgets/variantform.h; the toy variant has no model hint).
    QCOMPARE(form.field(u"freeze_at"_s)->schemaKey().max.value_or(0), double(freezeAt->maximum()));
    QCOMPARE(form.value(), plan);
    QVERIFY(form.inputError().isEmpty());
    gp->setVariant(u"grow"_s);
  }

  // The editor shows the parser's message on the field it names, refuses missing files before
  // anything runs, previews the command and the JSON, and builds plans from the schema.
  void experimentEditorValidatesPreviewsAndEditsPlans() {
    ExperimentEditor* ed = m_window->experimentEditor();
    nlohmann::json spec = {
        {"version", 1},
        {"name", "editor-test"},
        {"model", ss(m_model)},
        {"data",
         {{"original", {{"eval", ss(m_orig)}}},
          {"new",
           {{"train", {{"path", ss(m_new)}, {"part", "train"}, {"heldout", 0.1}}},
            {"eval", {{"path", ss(m_new)}, {"part", "heldout"}, {"heldout", 0.1}}}}}}},
        {"plans", nlohmann::json::array({{{"variant", "lora"}, {"rank", 4}}})},
        {"train", {{"steps", 4}, {"seq_len", 32}, {"batch_size", 2}}},
        {"eval", {{"interval", 2}, {"tokens", 256}}}};
    ed->setSpec(spec);
    QCOMPARE(ed->spec(), spec);
    QVERIFY2(ed->validate().isEmpty(), qPrintable(ed->validate()));
    // A bad value: the parser's message on the field.
    SpecField* lr = ed->field(u"train.lr"_s);
    QVERIFY(lr);
    lr->typeText(u"-1"_s);
    QCOMPARE(ed->spec()["train"]["lr"].get<double>(), -1.0);
    QVERIFY(!ed->validate().isEmpty());
    QVERIFY2(lr->error().contains(u"spec.train.lr"_s), qPrintable(lr->error()));
    lr->typeText(QString());  // back to the default: the key leaves the spec
    QVERIFY(!ed->spec()["train"].contains("lr"));
    QVERIFY2(ed->validate().isEmpty(), qPrintable(ed->validate()));
    QVERIFY(lr->error().isEmpty());
    // A field that cannot even be read says so.
    SpecField* steps = ed->field(u"train.steps"_s);
    steps->typeText(u"ten"_s);
    QVERIFY(!steps->inputError().isEmpty());
    QVERIFY(!ed->validate().isEmpty());
    steps->typeText(u"4"_s);
    // A missing training file is refused before a worker starts: no run is created.
    SourceEditor* train = ed->source(u"data.new.train"_s);
    QVERIFY(train);
    train->field(u"/path"_s)->typeText(QDir(m_tmp).filePath(u"no-such-file.txt"_s));
    const QString err = ed->validate();
    QVERIFY2(err.contains(u"does not exist"_s), qPrintable(err));
    QVERIFY(train->error().contains(u"does not exist"_s));
    const int jobsBefore = static_cast<int>(s()->runs()->jobs().size());
    const int runsBefore = s()->runModel()->rowCount();
    QCOMPARE(ed->launch(), -1);
    QCOMPARE(static_cast<int>(s()->runs()->jobs().size()), jobsBefore);
    QCOMPARE(s()->runModel()->rowCount(), runsBefore);
    train->field(u"/path"_s)->typeText(m_new);
    QVERIFY2(ed->validate().isEmpty(), qPrintable(ed->validate()));
    // The previews.
    QVERIFY(ed->commandPreview().contains(u" run "_s));
    QVERIFY(ed->commandPreview().contains(s()->databasePath()));
    QCOMPARE(nlohmann::json::parse(ss(ed->jsonPreview())), ed->spec());
    // Plans: a form per variant schema; switching the variant keeps the name and drops the
    // old variant's keys.
    PlanForm* pf = ed->planForm();
    QCOMPARE(pf->variant(), u"lora"_s);
    QVERIFY(pf->field(u"rank"_s));
    QVERIFY(pf->field(u"alpha"_s));
    pf->field(u"rank"_s)->typeText(u"8"_s);
    pf->field(u"name"_s)->typeText(u"small LoRA"_s);
    QCOMPARE(ed->spec()["plans"][0]["rank"].get<int>(), 8);
    pf->setVariant(u"grow"_s);
    ed->list(u"plans"_s)->commitCurrent();
    const nlohmann::json plan = ed->spec()["plans"][0];
    QCOMPARE(plan["variant"].get<std::string>(), std::string("grow"));
    QCOMPARE(plan["name"].get<std::string>(), std::string("small LoRA"));
    QVERIFY(!plan.contains("rank"));
    QVERIFY(pf->field(u"k"_s));
    QVERIFY2(ed->validate().isEmpty(), qPrintable(ed->validate()));
  }

  // The launch form refuses a missing training file too: no failed run for it.
  void launchFormRefusesMissingFiles() {
    RunsView* rv = m_window->runsView();
    LaunchSettings ls;
    ls.name = u"missing"_s;
    ls.trainData = QDir(m_tmp).filePath(u"missing-german.txt"_s);
    ls.origEvalData = m_orig;
    rv->setSettings(ls);
    QString error;
    QVERIFY(rv->buildSpec(&error).is_null());
    QVERIFY2(error.contains(u"does not exist"_s), qPrintable(error));
    const int runsBefore = s()->runModel()->rowCount();
    const int jobsBefore = static_cast<int>(s()->runs()->jobs().size());
    m_window->dock(MainWindow::View::Runs)->hide();  // no message box in a test
    QCOMPARE(rv->launch(), -1);
    m_window->showView(MainWindow::View::Runs);
    QVERIFY2(rv->lastMessage().contains(u"does not exist"_s), qPrintable(rv->lastMessage()));
    QCOMPARE(static_cast<int>(s()->runs()->jobs().size()), jobsBefore);
    QTest::qWait(200);
    QCOMPARE(s()->runModel()->rowCount(), runsBefore);
  }

  void runLaunchesFinishesAndShowsCurvesAndRows() {
    RunsView* rv = m_window->runsView();
    m_window->showView(MainWindow::View::Runs);
    LaunchSettings ls;
    ls.name = u"gui-test"_s;
    ls.trainData = m_new;
    ls.origEvalData = m_orig;
    ls.steps = 6;
    ls.lr = 1e-3;
    ls.batchSize = 2;
    ls.seqLen = 32;
    ls.evalInterval = 3;
    ls.evalTokens = 256;
    ls.jobs = 2;  // the two plans side by side (run --jobs 2)
    rv->setSettings(ls);
    QCOMPARE(rv->settings().jobs, 2);
    QString error;
    const nlohmann::json spec = rv->buildSpec(&error);
    QVERIFY2(!spec.is_null(), qPrintable(error));
    QCOMPARE(spec["plans"].size(), size_t(2));
    QSignalSpy finished(s()->runs(), &RunManager::jobFinished);
    QSignalSpy started(s()->runs(), &RunManager::runStarted);
    QSignalSpy progress(s()->runs(), &RunManager::progress);
    const int job = rv->launch();
    QVERIFY2(job > 0, qPrintable(rv->lastMessage()));
    QVERIFY(s()->queuedPlans().isEmpty());  // the comparison was launched
    QVERIFY(finished.wait(600000));
    const RunJob* j = s()->runs()->job(job);
    QVERIFY(j);
    QVERIFY2(j->state == RunJob::State::Finished, qPrintable(s()->runs()->runLog(j->currentRun)));
    QVERIFY2(j->arguments.join(u' ').contains(u"--jobs 2"_s), qPrintable(j->arguments.join(u' ')));
    QCOMPARE(started.count(), 2);
    QVERIFY(progress.count() > 0);
    const QList<qint64> ids = {j->runIds[0], j->runIds[1]};
    // The runs reach the table as finished, with forgetting and learning figures.
    QTRY_COMPARE_WITH_TIMEOUT(countStatus(ids, st::RunStatus::Finished), 2, 20000);
    for (qint64 id : ids) {
      const RunRow* r = s()->runModel()->run(id);
      QVERIFY(r);
      QVERIFY(!std::isnan(r->forgetting));
      QVERIFY(!std::isnan(r->learning));
      QVERIFY(!std::isnan(r->trainableShare));
      QCOMPARE(r->lastStep, qint64(6));
      const int row = s()->runModel()->rowOfRun(id);
      QCOMPARE(s()->runModel()->index(row, RunTableModel::Status).data().toString(),
               statusText(st::RunStatus::Finished));
    }
    QCOMPARE(s()->runModel()->run(ids[0])->variant, u"grow"_s);
    QCOMPARE(s()->runModel()->run(ids[0])->layers, u"1"_s);
    // The log pane shows the worker's log.
    rv->selectRun(ids[0]);
    QVERIFY(!rv->logPane()->toPlainText().isEmpty());
    // Curves: both runs, forgetting at steps 0, 3, 6.
    CurvesView* cv = m_window->curvesView();
    s()->setCurveRuns(ids);
    QTRY_VERIFY_WITH_TIMEOUT(cv->series().contains(ids[0]) && cv->series().contains(ids[1]), 20000);
    cv->setForgettingKey(u"eval/orig/ppl"_s);
    cv->setLearningKey(u"eval/new/ppl"_s);
    cv->replotNow();
    QCOMPARE(cv->pointCount(ids[0], false), 3);
    QCOMPARE(cv->pointCount(ids[1], true), 3);
    QVERIFY(!cv->paretoRuns().isEmpty());
    cv->setSmoothing(0.5);
    cv->setLogScale(true);
    cv->replotNow();
    QCOMPARE(cv->pointCount(ids[1], false), 3);
    cv->setLogScale(false);
    cv->setSmoothing(0);
    // Exports of the plots.
    for (const char* ext : {"png", "svg", "pdf"}) {
      const QString f = QDir(m_tmp).filePath(u"curves.%1"_s.arg(QLatin1String(ext)));
      QString err;
      QVERIFY2(cv->exportCurrentPlot(f, &err), qPrintable(err));
      QVERIFY(QFileInfo(f).size() > 500);
    }
  }

  // The runs' context menu exports a run as a model, a PEFT adapter, TensorBoard events,
  // CSV or JSON lines through growbench-cli; refusals are said before anything starts.
  void runsExportModelsAdaptersAndMetrics() {
    RunsView* rv = m_window->runsView();
    qint64 lora = -1, grow = -1;
    for (const RunRow& r : s()->store()->snapshot().runs) {
      if (r.info.status != st::RunStatus::Finished || !r.hasCheckpoint) continue;
      if (r.variant == u"lora"_s) lora = r.info.id;
      if (r.variant == u"grow"_s) grow = r.info.id;
    }
    QVERIFY(lora > 0 && grow > 0);
    QVERIFY(!rv->exportRefusal(grow, RunExport::Peft).isEmpty());
    QVERIFY(!rv->exportRun(grow, RunExport::Peft, QDir(m_tmp).filePath(u"x"_s)));
    QVERIFY(rv->lastMessage().contains(u"LoRA"_s));
    QVERIFY(rv->exportRefusal(lora, RunExport::Peft).isEmpty());
    auto exportAndWait = [&](qint64 id, RunExport kind, const QString& out) {
      QSignalSpy done(rv, &RunsView::exportFinished);
      if (!rv->exportRun(id, kind, out)) return rv->lastMessage();
      if (!done.wait(120000)) return u"timed out"_s;
      return done.first().at(1).toBool() ? QString() : done.first().at(2).toString();
    };
    const QString peft = QDir(m_tmp).filePath(u"export-peft"_s);
    QString err = exportAndWait(lora, RunExport::Peft, peft);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QVERIFY(QFileInfo(QDir(peft).filePath(u"adapter_model.safetensors"_s)).size() > 0);
    QFile cfg(QDir(peft).filePath(u"adapter_config.json"_s));
    QVERIFY(cfg.open(QIODevice::ReadOnly));
    const auto conf = nlohmann::json::parse(cfg.readAll().toStdString());
    QCOMPARE(conf.value("peft_type", ""), std::string("LORA"));
    QCOMPARE(conf.value("r", 0), 4);
    // The grown run (layer 1's MLP doubled) is no plain Hugging Face model: the worker's
    // refusal reaches the user without the internal prefix, and nothing is written.
    const QString hf = QDir(m_tmp).filePath(u"export-hf"_s);
    err = exportAndWait(grow, RunExport::HuggingFace, hf);
    QVERIFY2(err.contains(u"different MLP sizes"_s), qPrintable(err));
    QVERIFY(!QFileInfo::exists(hf));
    // The LoRA run is (LoRA merged into the weights).
    err = exportAndWait(lora, RunExport::HuggingFace, hf);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QVERIFY(QFileInfo::exists(QDir(hf).filePath(u"config.json"_s)));
    QVERIFY(QFileInfo::exists(QDir(hf).filePath(u"model.safetensors"_s)));
    QVERIFY(QFileInfo::exists(QDir(hf).filePath(u"tokenizer.json"_s)));
    const QString tb = QDir(m_tmp).filePath(u"export-tb"_s);
    err = exportAndWait(grow, RunExport::TensorBoard, tb);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    const QStringList events = QDir(tb).entryList({u"events.out.tfevents.*"_s}, QDir::Files);
    QCOMPARE(events.size(), 1);
    QVERIFY(QFileInfo(QDir(tb).filePath(events.first())).size() > 100);
    // Events are added to a folder, not replacing it: a second export into the same folder is
    // refused by the worker (TensorBoard would read both files), and the first file stays.
    err = exportAndWait(grow, RunExport::TensorBoard, tb);
    QVERIFY2(err.contains(u"already holds the event file"_s), qPrintable(err));
    QCOMPARE(QDir(tb).entryList({u"events.out.tfevents.*"_s}, QDir::Files), events);
    const QString csv = QDir(m_tmp).filePath(u"export.csv"_s);
    err = exportAndWait(grow, RunExport::Csv, csv);
    QVERIFY2(err.isEmpty(), qPrintable(err));
    QFile c(csv);
    QVERIFY(c.open(QIODevice::ReadOnly));
    const QByteArray text = c.readAll();
    QVERIFY(text.startsWith("run,step,key,value"));
    QVERIFY(text.contains("eval/orig/ppl"));
    // A run that is not in the store is refused before anything starts.
    QVERIFY(!rv->exportRun(999999, RunExport::Csv, csv));
    QVERIFY(rv->lastMessage().contains(u"999999"_s));
  }

  void compareFiltersExportsDiffsTagsAndDeletes() {
    CompareView* cmp = m_window->compareView();
    m_window->showView(MainWindow::View::Compare);
    QList<qint64> ids;
    for (const RunRow& r : s()->store()->snapshot().runs) ids << r.info.id;
    QVERIFY(ids.size() >= 2);
    cmp->selectRuns(ids.mid(0, 2));
    QCOMPARE(cmp->selectedRuns(), ids.mid(0, 2));
    QTRY_COMPARE_WITH_TIMEOUT(s()->curveRuns(), ids.mid(0, 2), 5000);  // overlaid in Curves
    // Spec diff: the plans differ.
    SpecDiffModel* diff = cmp->diffSpecs(ids[0], ids[1], false);
    QVERIFY(diff);
    QVERIFY(diff->differenceCount() > 0);
    diff->setOnlyDifferences(true);
    bool variantDiffers = false;
    for (int r = 0; r < diff->rowCount(); ++r) {
      variantDiffers |= diff->index(r, 0).data().toString() == u"plans[0].variant"_s;
    }
    QVERIFY(variantDiffers);
    // CSV export of the table as shown.
    const QString csv = QDir(m_tmp).filePath(u"runs.csv"_s);
    QString err;
    QVERIFY2(cmp->exportCsv(csv, &err), qPrintable(err));
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(f.readAll());
    QVERIFY(text.contains(u"gui-test"_s));
    QVERIFY(text.startsWith(RunTableModel::tr("Id")));
    // Filter by name.
    cmp->proxy()->setText(u"lora"_s);
    QCOMPARE(cmp->proxy()->rowCount(), 1);
    cmp->proxy()->setText({});
    // Tags and notes.
    cmp->setTags(ids[0], {u"baseline"_s, u" growth "_s});
    cmp->setNotes(ids[0], u"looks good"_s);
    QTRY_VERIFY_WITH_TIMEOUT(s()->runModel()->run(ids[0]) &&
                                 s()->runModel()->run(ids[0])->info.tags.size() == 2 &&
                                 s()->runModel()->run(ids[0])->info.notes == "looks good",
                             10000);
    cmp->proxy()->setTag(u"growth"_s);
    QCOMPARE(cmp->proxy()->rowCount(), 1);
    cmp->proxy()->setTag({});
  }

  // A finished run's spec is a starting point in the editor: its one plan, launchable.
  void experimentEditorOpensARunSpec() {
    QList<qint64> ids;
    for (const RunRow& r : s()->store()->snapshot().runs) {
      if (r.info.status == st::RunStatus::Finished) ids << r.info.id;
    }
    QVERIFY(!ids.isEmpty());
    ExperimentEditor* ed = m_window->experimentEditor();
    QVERIFY(ed->openRunSpec(ids.first()));
    QCOMPARE(ed->spec()["plans"].size(), size_t(1));
    QVERIFY2(ed->validate().isEmpty(), qPrintable(ed->validate()));
  }

  // Resume is offered only for runs with a checkpoint to resume from; a stopped run without
  // one is offered "Start again" (growbench-cli run --resume starts it from the beginning).
  void resumeNeedsACheckpointStartAgainDoesNot() {
    st::Store store = st::Store::open((m_ws + u"/growbench.db"_s).toStdString());
    st::NewRun nr;
    nr.name = "failed early";
    nr.spec = R"({"plans":[{"variant":"full"}],"train":{"steps":10}})";
    nr.variant = "full";
    const int64_t id = store.create_run(nr);
    store.set_status(id, st::RunStatus::Failed);
    QTRY_VERIFY_WITH_TIMEOUT(
        s()->runModel()->run(id) && s()->runModel()->run(id)->info.status == st::RunStatus::Failed,
        10000);
    QVERIFY(!s()->runModel()->run(id)->hasCheckpoint);
    RunsView* rv = m_window->runsView();
    const int jobs = static_cast<int>(s()->runs()->jobs().size());
    QVERIFY(!rv->resumeRun(id));
    QVERIFY2(rv->lastMessage().contains(u"no checkpoint"_s), qPrintable(rv->lastMessage()));
    QCOMPARE(static_cast<int>(s()->runs()->jobs().size()), jobs);
    rv->selectRun(id);
    auto* resume = rv->findChild<QPushButton*>(u"resumeButton"_s);
    auto* restart = rv->findChild<QPushButton*>(u"restartButton"_s);
    QVERIFY(resume && restart);
    QVERIFY(!resume->isEnabled());
    QVERIFY(restart->isEnabled());
    QVERIFY2(restart->toolTip().contains(u"from the beginning"_s), qPrintable(restart->toolTip()));
    QVERIFY(m_window->compareView()->deleteRuns({id}, false));
    QTRY_VERIFY_WITH_TIMEOUT(s()->runModel()->run(id) == nullptr, 10000);
  }

  void runCanBeCancelledAndResumed() {
    RunsView* rv = m_window->runsView();
    s()->clearQueuedPlans();
    m_window->planner()->setVariant(u"full"_s);
    LaunchSettings ls;
    ls.name = u"long"_s;
    ls.trainData = m_new;
    ls.origEvalData = m_orig;
    ls.steps = 3000;
    ls.batchSize = 2;
    ls.seqLen = 32;
    ls.evalInterval = 1000;
    ls.evalTokens = 256;
    rv->setSettings(ls);
    QSignalSpy progress(s()->runs(), &RunManager::progress);
    QSignalSpy finished(s()->runs(), &RunManager::jobFinished);
    const int job = rv->launch();
    QVERIFY(job > 0);
    // Cancel once training has begun.
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
          for (const auto& args : progress) {
            const auto p = args.at(1).value<LiveProgress>();
            if (p.stage == u"train"_s && p.step > 0) return true;
          }
          return false;
        }(),
        120000);
    const qint64 run = s()->runs()->job(job)->currentRun;
    QVERIFY(run > 0);
    QVERIFY(rv->cancelRun(run));
    QVERIFY(finished.wait(120000));
    QCOMPARE(s()->runs()->job(job)->state, RunJob::State::Cancelled);
    QTRY_COMPARE_WITH_TIMEOUT(countStatus({run}, st::RunStatus::Cancelled), 1, 20000);
    // Resume from the cancellation checkpoint and finish.
    finished.clear();
    QVERIFY(rv->resumeRun(run));
    QVERIFY(finished.wait(600000));
    QTRY_COMPARE_WITH_TIMEOUT(countStatus({run}, st::RunStatus::Finished), 1, 20000);
    QCOMPARE(s()->runModel()->run(run)->lastStep, qint64(3000));
  }

  // Runs written by another process (the CLI in a terminal) appear, and their curves grow.
  void externalRunsAppearAndStream() {
    st::Store store = st::Store::open((m_ws + u"/growbench.db"_s).toStdString());
    st::NewRun nr;
    nr.name = "external";
    nr.spec = R"({"plans":[{"variant":"lora","rank":2}],"train":{"steps":10}})";
    nr.variant = "lora r=2";
    const int64_t id = store.create_run(nr);
    // It appears queued; the status change and the first metrics arrive with later polls.
    QTRY_VERIFY_WITH_TIMEOUT(s()->runModel()->run(id) != nullptr, 10000);
    QCOMPARE(s()->runModel()->run(id)->info.status, st::RunStatus::Queued);
    store.set_status(id, st::RunStatus::Running);
    {
      auto w = store.metrics_writer();
      w.add(id, 0, "eval/orig/ppl", 10.0);
      w.add(id, 0, "eval/new/ppl", 50.0);
      w.add(id, 1, "train/loss", 4.0);
    }
    QTRY_COMPARE_WITH_TIMEOUT(s()->runModel()->run(id)->info.status, st::RunStatus::Running, 10000);
    CurvesView* cv = m_window->curvesView();
    s()->setCurveRuns({id});
    QTRY_VERIFY_WITH_TIMEOUT(cv->series().value(id).contains(u"eval/orig/ppl"_s), 10000);
    {
      auto w = store.metrics_writer();
      for (int step = 2; step <= 10; ++step) w.add(id, step, "train/loss", 4.0 - 0.1 * step);
      w.add(id, 10, "eval/orig/ppl", 11.0);
      w.add(id, 10, "eval/new/ppl", 30.0);
    }
    QTRY_COMPARE_WITH_TIMEOUT(cv->series().value(id).value(u"eval/orig/ppl"_s).steps.size(), 2,
                              10000);
    QCOMPARE(cv->series().value(id).value(u"train/loss"_s).steps.size(), 10);
    store.set_status(id, st::RunStatus::Finished);
    QTRY_VERIFY_WITH_TIMEOUT(s()->runModel()->run(id)->info.status == st::RunStatus::Finished,
                             10000);
    const RunRow* r = s()->runModel()->run(id);
    QVERIFY(std::fabs(r->forgetting - 0.1) < 1e-9);
    QVERIFY(std::fabs(r->learning - 0.4) < 1e-9);
    // Delete it from the Compare view.
    QVERIFY(m_window->compareView()->deleteRuns({id}, false));
    QTRY_VERIFY_WITH_TIMEOUT(s()->runModel()->run(id) == nullptr, 10000);
  }

  // The Task matrix tab opens on an overlaid run that has a matrix, not on the first run.
  void taskMatrixTabShowsARunWithAMatrix() {
    st::Store store = st::Store::open((m_ws + u"/growbench.db"_s).toStdString());
    st::NewRun nr;
    nr.name = "no sequence";
    nr.spec = R"({"plans":[{"variant":"full"}],"train":{"steps":10}})";
    nr.variant = "full";
    const int64_t plain = store.create_run(nr);
    nr.name = "three tasks";
    const int64_t seq = store.create_run(nr);
    for (int after = 0; after < 3; ++after) {
      for (int task = 0; task < 3; ++task) {
        store.set_task_value(seq, after, task, 0.5 + 0.1 * after - 0.05 * task);
      }
    }
    store.set_status(plain, st::RunStatus::Finished);
    store.set_status(seq, st::RunStatus::Finished);
    QTRY_VERIFY_WITH_TIMEOUT(s()->runModel()->run(seq) != nullptr, 10000);
    CurvesView* cv = m_window->curvesView();
    s()->setCurveRuns({plain, seq});
    QTRY_COMPARE_WITH_TIMEOUT(cv->taskRunCombo()->currentData().toLongLong(), qint64(seq), 10000);
    QCOMPARE(cv->taskRunCombo()->count(), 2);
    // Without task kinds in the spec, R is an accuracy, and OP and BWT say so.
    QTRY_VERIFY_WITH_TIMEOUT(cv->taskSummary().contains(u"mean accuracy"_s), 10000);
    // The user's choice stays: selecting the run without a matrix shows it.
    cv->taskRunCombo()->setCurrentIndex(0);
    QCOMPARE(cv->taskRunCombo()->currentData().toLongLong(), qint64(plain));
    // A sequence of lm tasks: R is minus the loss, and the summary does not call it accuracy.
    nr.name = "three lm tasks";
    nr.spec = R"({"plans":[{"variant":"full"}],"train":{"steps":10},"sequence":[)"
              R"({"name":"en","eval":{"kind":"lm"}},{"name":"de","eval":{"kind":"lm"}},)"
              R"({"name":"it","eval":{"kind":"lm"}}]})";
    const int64_t lm = store.create_run(nr);
    for (int after = 0; after < 3; ++after) {
      for (int task = 0; task < 3; ++task) store.set_task_value(lm, after, task, -3.0 - task);
    }
    store.set_status(lm, st::RunStatus::Finished);
    QTRY_VERIFY_WITH_TIMEOUT(s()->runModel()->run(lm) != nullptr, 10000);
    s()->setCurveRuns({lm});
    QTRY_COMPARE_WITH_TIMEOUT(cv->taskRunCombo()->currentData().toLongLong(), qint64(lm), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(cv->taskSummary().contains(u"−loss"_s), 10000);
    QVERIFY2(!cv->taskSummary().contains(u"accuracy"_s), qPrintable(cv->taskSummary()));
    QVERIFY(m_window->compareView()->deleteRuns({plain, seq, lm}, false));
    QTRY_VERIFY_WITH_TIMEOUT(s()->runModel()->run(seq) == nullptr, 10000);
  }

  // Dropping a model folder, a spec or a run store onto the window opens it; other files are
  // refused (the drag is not accepted).
  void dropOpensModelsSpecsAndStores() {
    auto drag = [&](const QString& path, bool* accepted) {
      QMimeData mime;
      mime.setUrls({QUrl::fromLocalFile(path)});
      const QPoint pos(100, 100);
      QDragEnterEvent enter(pos, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
      enter.setAccepted(false);
      QApplication::sendEvent(m_window, &enter);
      *accepted = enter.isAccepted();
      if (!*accepted) return;
      QDropEvent drop(QPointF(pos), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
      QApplication::sendEvent(m_window, &drop);
    };
    bool accepted = false;
    // A spec: into the editor.
    const QString spec =
        QStringLiteral(GB_SOURCE_DIR_FOR_GUI) + u"/resources/experiments/quickstart.json"_s;
    drag(spec, &accepted);
    QVERIFY(accepted);
    QCOMPARE(m_window->experimentEditor()->fileName(), QFileInfo(spec).absoluteFilePath());
    // A model folder: into the Model view.
    QSignalSpy inspected(m_window->modelView(), &ModelView::inspectFinished);
    s()->setModel(ModelRef{});
    drag(m_model, &accepted);
    QVERIFY(accepted);
    QCOMPARE(s()->model().folder, QFileInfo(m_model).absoluteFilePath());
    QVERIFY(inspected.wait(120000));
    // A run store: the workspace.
    QSignalSpy opened(s()->store(), &StoreService::opened);
    drag(QDir(m_ws).filePath(u"growbench.db"_s), &accepted);
    QVERIFY(accepted);
    QVERIFY(opened.wait(20000));
    QCOMPARE(s()->databasePath(), QDir(m_ws).filePath(u"growbench.db"_s));
    // Anything else: refused.
    drag(m_orig, &accepted);
    QVERIFY(!accepted);
    // Command-line arguments go the same way.
    QCOMPARE(m_window->openPaths({spec, m_orig}), 1);
  }

  // Help → User Guide shows docs/user-guide.md with its screenshots.
  void userGuideShowsTheGuideWithScreenshots() {
    m_window->showUserGuide();
    auto* browser = m_window->findChild<QTextBrowser*>(u"userGuideBrowser"_s);
    QVERIFY(browser);
    const QString text = browser->toPlainText();
    QVERIFY2(text.contains(u"Task 1: load a model"_s), qPrintable(text.left(200)));
    QVERIFY(text.contains(u"growbench-cli run resources/experiments/papers/"_s));
    QVERIFY(text.contains(u"Troubleshooting"_s));
    const QImage img =
        browser->document()
            ->resource(QTextDocument::ImageResource, QUrl(u"qrc:/doc/images/03-importance.png"_s))
            .value<QImage>();
    QVERIFY(!img.isNull());
    if (auto* dlg = m_window->findChild<QDialog*>(u"userGuide"_s)) dlg->close();
  }

  void aboutShowsQtAndLibTorchVersions() {
    AboutDialog about;
    QSignalSpy known(&about, &AboutDialog::versionsKnown);
    QVERIFY(known.wait(60000));
    QVERIFY2(about.libtorchVersion().contains(QRegularExpression(u"^[0-9]+\\.[0-9]+"_s)),
             qPrintable(about.libtorchVersion()));
    QVERIFY(about.text().contains(QString::fromLatin1(qVersion())));
  }

  void tourWritesAScreenshotOfEveryView() {
    MainWindow w;
    TourOptions o;
    // CI keeps the screenshots as artifacts: GB_TOUR_DIR (set by tests/tst_gui.cmake).
    o.outDir = qEnvironmentVariable("GB_TOUR_DIR", QDir(m_tmp).filePath(u"tour"_s));
    o.workspace = m_ws;
    o.model = m_model;
    o.width = 1200;
    o.height = 800;
    QStringList written;
    const int n = runTour(&w, o, &written);
    QCOMPARE(n, tourShotCount());
    QCOMPARE(n, 17);
    for (const QString& f : written) {
      QImage img(f);
      QVERIFY2(!img.isNull() && img.width() > 200 && img.height() > 150, qPrintable(f));
    }
    w.close();
  }
};

QTEST_MAIN(TstGui)
#include "tst_gui.moc"
