#include "tour.h"

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QPixmap>
#include <QRandomGenerator>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QThread>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>
#include <qcustomplot.h>

#include "appsettings.h"
#include "compareview.h"
#include "curvesview.h"
#include "groupview.h"
#include "experimenteditor.h"
#include "growplanner.h"
#include "guiutil.h"
#include "heatmapplot.h"
#include "importanceview.h"
#include "mainwindow.h"
#include "modelview.h"
#include "runmanager.h"
#include "runsview.h"
#include "runtablemodel.h"
#include "session.h"
#include "storeservice.h"
#include "util/metrics.h"
#include "workspaceview.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

bool waitFor(const std::function<bool()>& done, int timeoutMs) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > timeoutMs) return false;
    QApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(5);
  }
  return true;
}

namespace {

void settle(int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) {
    QApplication::processEvents(QEventLoop::AllEvents, 20);
    QThread::msleep(5);
  }
}

// The model folder of a workspace: a probed model, else the model of the runs' specs, else a
// built preset.
QString tourModel(Session* s) {
  const QStringList presets = ModelView::presetFolders();
  QString fromProbes;
  bool gotProbes = false;
  auto conn = QObject::connect(s->store(), &StoreService::probesReady, s,
                               [&](const QVector<ProbeRow>& probes) {
                                 gotProbes = true;
                                 for (const auto& p : probes) {
                                   if (!fromProbes.isEmpty()) break;
                                   const QString key = p.modelKey;
                                   if (key.startsWith(u"preset:"_s)) {
                                     for (const QString& f : presets) {
                                       if (QFileInfo(f).fileName() == key.mid(7)) fromProbes = f;
                                     }
                                   } else if (QFileInfo(key).isDir()) {
                                     fromProbes = key;
                                   }
                                 }
                               });
  s->store()->requestProbes({});
  waitFor([&] { return gotProbes; }, 10000);
  QObject::disconnect(conn);
  if (!fromProbes.isEmpty()) return fromProbes;
  for (const RunRow& r : s->store()->snapshot().runs) {
    auto spec = nlohmann::json::parse(r.info.spec, nullptr, false);
    if (spec.is_object() && spec.contains("model") && spec["model"].is_string()) {
      const QString f = qs(spec["model"].get<std::string>());
      if (QFileInfo(f).isDir()) return f;
    }
  }
  return presets.isEmpty() ? QString() : presets.first();
}

// A screenshot of one colour shows nothing (a view that never painted).
bool blank(const QImage& img) {
  const QRgb first = img.pixel(0, 0);
  for (int y = 0; y < img.height(); y += 3) {
    for (int x = 0; x < img.width(); x += 3) {
      if (img.pixel(x, y) != first) return false;
    }
  }
  return true;
}

bool save(QWidget* w, const QString& path, QStringList* written) {
  const QPixmap px = w->grab();
  if (px.isNull() || !px.save(path)) {
    std::fprintf(stderr, "growbench --tour: could not write %s\n", qPrintable(path));
    return false;
  }
  if (blank(px.toImage())) {
    std::fprintf(stderr, "growbench --tour: %s is blank (the view did not paint)\n",
                 qPrintable(path));
    return false;
  }
  if (written) *written << path;
  std::printf("tour: %s (%dx%d)\n", qPrintable(path), px.width(), px.height());
  return true;
}

// English text for the tour's probes: Debian's fortunes (the quickstart's original domain).
QString englishData() {
  const QString fortunes = u"/usr/share/games/fortunes"_s;
  return QFileInfo(fortunes).isDir() ? fortunes : QString();
}

// A short quickstart in an empty workspace: the quickstart's model, data and plans, a few
// steps each, so that every view has real runs to show.
bool runShortQuickstart(MainWindow* w) {
  Session* s = w->session();
  const QString path = WorkspaceView::quickstartSpec();
  QFile f(path);
  if (path.isEmpty() || !f.open(QIODevice::ReadOnly)) {
    std::fprintf(stderr, "growbench --tour: the quickstart spec was not found\n");
    return false;
  }
  nlohmann::json spec = nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
  if (!spec.is_object()) return false;
  spec["name"] = "tour-quickstart";
  spec["train"]["steps"] = 8;
  spec["train"]["warmup"] = 2;
  spec["eval"]["interval"] = 4;
  spec["eval"]["tokens"] = 1024;
  spec["probe"]["tokens"] = 2048;
  QDir().mkpath(s->specsDir());
  const QString out = QDir(s->specsDir()).filePath(u"tour-quickstart.json"_s);
  QFile o(out);
  if (!o.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  o.write(QByteArray::fromStdString(spec.dump(2)));
  o.close();
  std::printf("tour: the workspace is empty: running a short quickstart (%s)\n", qPrintable(out));
  std::fflush(stdout);
  const int job = s->runs()->enqueueSpec(out, u"tour-quickstart"_s);
  const bool done = waitFor(
      [&] {
        const RunJob* j = s->runs()->job(job);
        return j && j->state != RunJob::State::Queued && j->state != RunJob::State::Running;
      },
      30 * 60 * 1000);
  const RunJob* j = s->runs()->job(job);
  if (!done || !j || j->state != RunJob::State::Finished) {
    std::fprintf(stderr, "growbench --tour: the short quickstart did not finish: %s\n",
                 j ? qPrintable(j->error) : "no job");
    return false;
  }
  bool refreshed = false;
  auto c = QObject::connect(s->store(), &StoreService::runsUpdated, w, [&] { refreshed = true; });
  s->store()->refresh();
  waitFor([&] { return refreshed && !s->store()->snapshot().runs.isEmpty(); }, 30000);
  QObject::disconnect(c);
  return true;
}

// A probe of `method` on the open model, recorded in the workspace.
bool runTourProbe(MainWindow* w, const QString& method, const QString& data) {
  ImportanceView* iv = w->importanceView();
  bool finished = false, ok = false;
  auto c = QObject::connect(
      iv, &ImportanceView::probeFinished, w, [&](bool success, const QString& msg) {
        finished = true;
        ok = success;
        if (!success) std::fprintf(stderr, "growbench --tour: probe: %s\n", qPrintable(msg));
      });
  std::printf("tour: running a %s probe on %s\n", qPrintable(method), qPrintable(data));
  std::fflush(stdout);
  if (iv->runProbe(method, data, QString(), 2048)) waitFor([&] { return finished; }, 600000);
  QObject::disconnect(c);
  return ok;
}

}  // namespace

int runTour(MainWindow* w, const TourOptions& o, QStringList* written) {
  QDir().mkpath(o.outDir);
  w->setConfirmClose(false);
  w->resize(o.width, o.height);
  w->resetLayout();
  w->show();
  settle(200);
  Session* s = w->session();
  const QString ws = o.workspace.isEmpty() ? AppSettings::defaultWorkspace() : o.workspace;
  bool snapshot = false;
  auto conn = QObject::connect(s->store(), &StoreService::runsUpdated, w, [&] { snapshot = true; });
  s->openWorkspace(ws);
  if (!waitFor([&] { return snapshot; }, 30000)) {
    std::fprintf(stderr, "growbench --tour: the store of %s did not open\n", qPrintable(ws));
    return -1;
  }
  QObject::disconnect(conn);
  int nRuns = static_cast<int>(s->store()->snapshot().runs.size());
  if (nRuns == 0 && runShortQuickstart(w)) {
    nRuns = static_cast<int>(s->store()->snapshot().runs.size());
  }
  std::printf("tour: workspace %s, %d runs\n", qPrintable(ws), nRuns);

  // Model.
  const QString model = o.model.isEmpty() ? tourModel(s) : o.model;
  bool probeShown = false;
  QObject::connect(w->importanceView(), &ImportanceView::probeShown, w, [&] { probeShown = true; });
  if (!model.isEmpty()) {
    bool inspected = false;
    QObject::connect(w->modelView(), &ModelView::inspectFinished, w, [&] { inspected = true; });
    w->modelView()->openFolder(model);
    waitFor([&] { return inspected; }, 120000);
    QTreeView* tree = w->modelView()->tree();
    tree->expand(tree->model()->index(1, 0));
    waitFor([&] { return probeShown; }, 10000);
    // A model without a unit probe gets one (and a masking probe for "least important").
    ImportanceView* iv = w->importanceView();
    const QString data = o.probeData.isEmpty() ? englishData() : o.probeData;
    if (iv->latestProbe(u"taylor-code"_s) < 0 && !data.isEmpty() && s->model().hasTokenizer) {
      if (iv->latestProbe(u"masking"_s) < 0) runTourProbe(w, u"masking"_s, data);
      probeShown = false;
      if (runTourProbe(w, u"taylor-code"_s, data)) waitFor([&] { return probeShown; }, 20000);
    }
  }
  w->importanceView()->selectLeastImportant(2);
  settle(300);

  // Planner: Grow G-Freeze on the selected layers; a LoRA and a SCALE plan queued.
  GrowPlanner* planner = w->planner();
  planner->setVariant(u"lora"_s);
  planner->setParameter(u"rank"_s, 16);
  planner->queueCurrentPlan();
  planner->setVariant(u"scale"_s);
  planner->queueCurrentPlan();
  planner->setVariant(u"grow"_s);
  planner->setLayerSource(GrowPlanner::LayerSource::Selection);

  // Runs and curves: every run overlaid (the first ten).
  QList<qint64> ids;
  for (const RunRow& r : s->store()->snapshot().runs) {
    if (ids.size() < 10) ids << r.info.id;
  }
  w->compareView()->selectRuns(ids);
  s->setCurveRuns(ids);
  if (!ids.isEmpty()) w->runsView()->selectRun(ids.first());
  waitFor(
      [&] {
        for (qint64 id : ids) {
          if (!w->curvesView()->series().contains(id)) return false;
        }
        return true;
      },
      20000);
  w->curvesView()->replotNow();
  settle(400);

  int n = 0;
  auto shot = [&](MainWindow::View v, const QString& file) {
    w->showView(v);
    settle(350);
    if (save(w->dock(v), QDir(o.outDir).filePath(file), written)) ++n;
  };
  shot(MainWindow::View::Workspace, u"01-workspace.png"_s);
  w->modelView()->tabs()->setCurrentIndex(0);
  shot(MainWindow::View::Model, u"02-model.png"_s);
  w->modelView()->tabs()->setCurrentIndex(1);
  shot(MainWindow::View::Model, u"02b-model-config.png"_s);
  w->modelView()->tabs()->setCurrentIndex(0);
  w->importanceView()->tabs()->setCurrentIndex(0);
  // Log colours: a few large norms would wash out the other units.
  w->importanceView()->setCellScale(ImportanceView::CellScale::Log);
  if (w->importanceView()->heatmap()->rowCount() > 0) {
    shot(MainWindow::View::Importance, u"03-importance.png"_s);
  } else {
    std::fprintf(stderr, "growbench --tour: the importance heatmap is empty (no probe)\n");
  }
  w->importanceView()->tabs()->setCurrentIndex(1);
  shot(MainWindow::View::Importance, u"03b-effective-rank.png"_s);
  w->importanceView()->tabs()->setCurrentIndex(0);
  shot(MainWindow::View::Planner, u"04-planner.png"_s);
  shot(MainWindow::View::Runs, u"05-runs.png"_s);
  w->curvesView()->tabs()->setCurrentIndex(0);
  shot(MainWindow::View::Curves, u"06-curves.png"_s);
  w->curvesView()->tabs()->setCurrentIndex(1);
  shot(MainWindow::View::Curves, u"06b-tradeoff.png"_s);
  w->curvesView()->tabs()->setCurrentIndex(2);
  shot(MainWindow::View::Curves, u"06c-task-matrix.png"_s);
  w->curvesView()->tabs()->setCurrentIndex(0);
  shot(MainWindow::View::Compare, u"07-compare.png"_s);
  // The grouped comparison of the most recent run group (seeds, sweep points, plans).
  {
    GroupCompareView* gv = w->compareView()->groupView();
    w->compareView()->pages()->setCurrentIndex(1);
    waitFor([&] { return !gv->isLoading() && (gv->groupData() || gv->groups().isEmpty()); }, 20000);
    gv->setGroupRows(true);
    gv->tabs()->setCurrentIndex(GroupCompareView::TableTab);
    shot(MainWindow::View::Compare, u"07b-compare-groups.png"_s);
    gv->setGroupRows(false);
    gv->tabs()->setCurrentIndex(GroupCompareView::CurvesTab);
    waitFor([&] { return !gv->groupData() || gv->curvesReady(); }, 20000);
    shot(MainWindow::View::Compare, u"07c-compare-group-curves.png"_s);
    gv->tabs()->setCurrentIndex(GroupCompareView::ParallelTab);
    shot(MainWindow::View::Compare, u"07d-parallel-coordinates.png"_s);
    gv->tabs()->setCurrentIndex(GroupCompareView::TradeoffTab);
    gv->refreshNow();
    shot(MainWindow::View::Compare, u"07e-group-tradeoff.png"_s);
    gv->tabs()->setCurrentIndex(GroupCompareView::TableTab);
    w->compareView()->pages()->setCurrentIndex(0);
  }
  // The experiment editor with the quickstart spec.
  if (!WorkspaceView::quickstartSpec().isEmpty()) {
    w->experimentEditor()->loadFile(WorkspaceView::quickstartSpec());
  }
  w->experimentEditor()->tabs()->setCurrentIndex(4);  // the plans
  if (ListEditor* plans = w->experimentEditor()->list(u"plans"_s); plans && plans->count() > 3) {
    plans->select(3);  // ADEPT: a form with several schema parameters
  }
  shot(MainWindow::View::Experiment, u"08-experiment.png"_s);
  w->experimentEditor()->tabs()->setCurrentIndex(0);
  w->showView(MainWindow::View::Importance);
  settle(300);
  if (save(w, QDir(o.outDir).filePath(u"00-window.png"_s), written)) ++n;
  return n;
}

int tourShotCount() {
  return 17;  // the shot() calls above and the window
}

// ---------------------------------------------------------------------------------------

namespace {

struct GapProbe {
  QTimer timer;
  QElapsedTimer clock;
  qint64 last = -1;
  QVector<double> gaps;
  void start() {
    timer.setTimerType(Qt::PreciseTimer);
    timer.setInterval(10);
    QObject::connect(&timer, &QTimer::timeout, [this] {
      const qint64 now = clock.nsecsElapsed();
      if (last >= 0) gaps << (now - last) / 1e6;
      last = now;
    });
    clock.start();
    timer.start();
  }
  void stop() { timer.stop(); }
  double max() const { return gaps.isEmpty() ? 0 : *std::max_element(gaps.begin(), gaps.end()); }
  double percentile(double p) const {
    if (gaps.isEmpty()) return 0;
    QVector<double> g = gaps;
    std::sort(g.begin(), g.end());
    return g[std::min<int>(g.size() - 1, static_cast<int>(p * g.size()))];
  }
  int over(double ms) const {
    return static_cast<int>(
        std::count_if(gaps.begin(), gaps.end(), [ms](double g) { return g > ms; }));
  }
};

double median(QVector<double> v) {
  std::sort(v.begin(), v.end());
  return v.isEmpty() ? 0 : v[v.size() / 2];
}

}  // namespace

int runMeasure(MainWindow* w, const MeasureOptions& o) {
  w->setConfirmClose(false);
  if (o.startupMs >= 0) {
    std::printf(
        "measure: start-up to an interactive window: %.0f ms after main() "
        "(process start to main(): %.0f ms)\n",
        o.startupMs, o.processMs);
  }
  // Heatmap redraw, 36 layers x 9 units.
  {
    HeatmapPlot plot;
    plot.resize(900, 620);
    plot.show();
    settle(100);
    std::vector<std::vector<double>> m(36, std::vector<double>(9));
    auto* rng = QRandomGenerator::global();
    for (auto& row : m) {
      for (auto& v : row) v = rng->generateDouble() - 0.3;
    }
    QStringList rows, cols;
    for (int i = 0; i < 36; ++i) rows << QString::number(i);
    for (const char* u : {"q", "k", "v", "o", "gate", "up", "down", "input_norm", "post_norm"}) {
      cols << QLatin1String(u);
    }
    std::vector<double> bars(36);
    for (auto& b : bars) b = rng->generateDouble();
    QVector<double> setTimes, replotTimes;
    for (int i = 0; i < 30; ++i) {
      QElapsedTimer t;
      t.start();
      plot.setMatrix(rows, cols, m, u"importance"_s, true);
      plot.setBars(bars, u"layer"_s);
      plot.replot(QCustomPlot::rpImmediateRefresh);
      setTimes << t.nsecsElapsed() / 1e6;
      t.restart();
      plot.replot(QCustomPlot::rpImmediateRefresh);
      replotTimes << t.nsecsElapsed() / 1e6;
    }
    std::printf(
        "measure: heatmap 36 x 9 (900 x 620 px): set data + redraw %.2f ms, redraw "
        "%.2f ms (median of 30)\n",
        median(setTimes), median(replotTimes));
  }
  // Overlay of 20 runs x 5000 points (two panels: forgetting and learning).
  {
    CurvesView* cv = w->curvesView();
    w->resize(1500, 950);
    w->show();
    w->showView(MainWindow::View::Curves);
    settle(200);
    auto* rng = QRandomGenerator::global();
    for (int r = 0; r < 20; ++r) {
      SeriesMap s;
      SeriesData f, l;
      double a = 30 + r, b = 60 - r;
      for (int i = 0; i < 5000; ++i) {
        f.steps << i;
        l.steps << i;
        a += 0.002 + 0.05 * (rng->generateDouble() - 0.5);
        b *= 0.9997 + 0.0004 * (rng->generateDouble() - 0.5);
        f.values << a;
        l.values << b;
      }
      s.insert(QString::fromLatin1(gb::metrics::kEvalOrigPpl), f);
      s.insert(QString::fromLatin1(gb::metrics::kEvalNewPpl), l);
      cv->setSeriesForTesting(-1000 - r, u"synthetic %1"_s.arg(r), s);
    }
    cv->setForgettingKey(QString::fromLatin1(gb::metrics::kEvalOrigPpl));
    cv->setLearningKey(QString::fromLatin1(gb::metrics::kEvalNewPpl));
    QVector<double> times, smooth;
    for (int i = 0; i < 10; ++i) {
      QElapsedTimer t;
      t.start();
      cv->replotNow();
      cv->curvesPlot()->replot(QCustomPlot::rpImmediateRefresh);
      times << t.nsecsElapsed() / 1e6;
    }
    cv->setSmoothing(0.9);
    for (int i = 0; i < 5; ++i) {
      QElapsedTimer t;
      t.start();
      cv->replotNow();
      cv->curvesPlot()->replot(QCustomPlot::rpImmediateRefresh);
      smooth << t.nsecsElapsed() / 1e6;
    }
    cv->setSmoothing(0);
    std::printf(
        "measure: overlay 20 runs x 5000 points x 2 panels (+ trade-off): rebuild and "
        "draw %.1f ms, with EMA smoothing %.1f ms (median)\n",
        median(times), median(smooth));
    cv->setRuns({});
  }
  // Opening a large store (after the earlier figures' queued repaints have drained, so
  // that they are not counted here).
  if (!o.storePath.isEmpty()) {
    settle(1000);
    Session* s = w->session();
    bool got = false;
    qint64 rows = 0;
    GapProbe probe;
    probe.start();
    QElapsedTimer t;
    t.start();
    auto conn =
        QObject::connect(s->store(), &StoreService::runsUpdated, w, [&](const RunSnapshot& snap) {
          got = true;
          rows = snap.runs.size();
        });
    s->store()->open(o.storePath);
    waitFor([&] { return got; }, 120000);
    const double openMs = t.nsecsElapsed() / 1e6;
    waitFor([&] { return s->runModel()->rowCount() == rows; }, 10000);
    const double tableMs = t.nsecsElapsed() / 1e6;
    QObject::disconnect(conn);
    // One run's full series (the big one has 4 keys x 5000 steps in bench_store).
    bool series = false;
    int points = 0;
    auto c2 =
        QObject::connect(s->store(), &StoreService::seriesUpdated, w, [&](const SeriesUpdate& u) {
          series = true;
          for (const auto& d : u.series) points += d.steps.size();
        });
    QElapsedTimer t2;
    t2.start();
    const qint64 first = s->runModel()->rowCount() > 0 ? s->runModel()->runAt(0).info.id : 1;
    s->setCurveRuns({first});
    waitFor([&] { return series; }, 60000);
    const double seriesMs = t2.nsecsElapsed() / 1e6;
    settle(300);
    QObject::disconnect(c2);
    probe.stop();
    std::printf(
        "measure: open store %s: %lld runs listed with latest metrics in %.0f ms, in "
        "the table after %.0f ms; one run's series (%d points) in %.0f ms; longest "
        "event-loop gap meanwhile %.1f ms\n",
        qPrintable(o.storePath), static_cast<long long>(rows), openMs, tableMs, points, seriesMs,
        probe.max());
    s->setCurveRuns({});
  }
  // Responsiveness while a run streams metrics.
  if (!o.streamSpec.isEmpty()) {
    Session* s = w->session();
    QTemporaryDir tmp;
    const QString ws = o.workspace.isEmpty() ? tmp.path() : o.workspace;
    bool opened = false;
    auto c0 = QObject::connect(s->store(), &StoreService::runsUpdated, w, [&] { opened = true; });
    s->openWorkspace(ws);
    waitFor([&] { return opened; }, 20000);
    QObject::disconnect(c0);
    w->showView(MainWindow::View::Curves);
    int progressLines = 0;
    auto c1 = QObject::connect(s->runs(), &RunManager::progress, w,
                               [&](qint64, const LiveProgress&) { ++progressLines; });
    auto c2 = QObject::connect(s->runs(), &RunManager::runStarted, w, [&](qint64 run) {
      QList<qint64> ids = s->curveRuns();
      ids << run;
      s->setCurveRuns(ids);
    });
    GapProbe probe;
    const int job = s->runs()->enqueueSpec(o.streamSpec, u"measure"_s);
    probe.start();
    QElapsedTimer t;
    t.start();
    waitFor(
        [&] {
          const RunJob* j = s->runs()->job(job);
          return j && j->state != RunJob::State::Queued && j->state != RunJob::State::Running;
        },
        570000);
    probe.stop();
    const RunJob* j = s->runs()->job(job);
    std::printf(
        "measure: streaming run (%s, %.0f s, %d progress lines, job %s): event-loop "
        "gaps max %.1f ms, p99 %.1f ms, %d gaps over 100 ms of %lld\n",
        qPrintable(QFileInfo(o.streamSpec).fileName()), t.elapsed() / 1000.0, progressLines,
        j && j->state == RunJob::State::Finished ? "finished" : "not finished", probe.max(),
        probe.percentile(0.99), probe.over(100.0), static_cast<long long>(probe.gaps.size()));
    QObject::disconnect(c1);
    QObject::disconnect(c2);
  }
  return 0;
}

}  // namespace gb::gui
