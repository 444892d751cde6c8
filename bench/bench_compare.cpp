// bench_compare: the grouped compare view on a large run group. Builds a store with one
// group of 60 runs (3 plans × 5 learning rates × 4 seeds) × 1 000 steps × 30 metrics
// (1.8 M metric rows), opens it in the main window's compare view and prints
//   - the time from choosing the group until the grouped view is filled (table, group
//     statistics, parallel coordinates and trade-off built and painted; goal < 1 s),
//   - the time until the curves tab shows mean ± std bands of one metric,
//   - the time per brushing update of the parallel-coordinates view (a mouse drag on an
//     axis: brush, shared filter of the table, statistics, repaint; goal < 50 ms),
//   - compare_group alone on the same store.
// Usage: bench_compare [--runs-per-config N] [--keep DIR] (offscreen platform by default).
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QThread>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

#include <sys/resource.h>

#include <nlohmann/json.hpp>

#include "compareview.h"
#include "experiment/compare.h"
#include "groupdata.h"
#include "groupmodels.h"
#include "groupview.h"
#include "mainwindow.h"
#include "parallelcoords.h"
#include "session.h"
#include "store/store.h"
#include "storeservice.h"
#include "tour.h"

using namespace Qt::StringLiterals;
namespace st = gb::store;

namespace {

// CPU time of the process (every thread) in ms: on a machine shared with other jobs the
// wall time includes waiting for a core; the CPU time is what the work costs.
double cpuMs() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
         (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

const char* kGroup = "bench-sweep@1700000000";

// 60 runs × 1000 steps × 30 metrics.
void buildStore(const std::string& path, int seeds) {
  st::Store store = st::Store::open(path);
  const std::vector<std::string> plans = {"Full fine-tuning", "LoRA r=16", "Grow G-Freeze k=2"};
  const std::vector<double> lrs = {1e-4, 3e-4, 1e-3, 3e-3, 1e-2};
  std::vector<std::string> keys = {
      "train/loss",    "train/lm_loss", "train/grad_norm",   "train/lr",           "eval/orig/loss",
      "eval/orig/ppl", "eval/new/loss", "eval/new/ppl",      "test/orig/loss",     "test/orig/ppl",
      "test/new/loss", "test/new/ppl",  "perf/tokens_per_s", "perf/peak_memory_mb"};
  for (int i = 0; keys.size() < 30; ++i) keys.push_back("eval/task" + std::to_string(i) + "/acc");
  const nlohmann::json spec = {
      {"name", "bench-sweep"},
      {"data",
       {{"original", {{"eval", {{"path", "/data/en.txt"}, {"part", "heldout"}}}}},
        {"new", {{"eval", {{"path", "/data/de.txt"}, {"part", "heldout"}}}}}}},
      {"train", {{"steps", 1000}, {"seq_len", 128}}},
      {"eval", {{"tokens", 4096}}}};
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0, 0.01);
  auto writer = store.metrics_writer();
  for (size_t p = 0; p < plans.size(); ++p) {
    for (double lr : lrs) {
      for (int seed = 0; seed < seeds; ++seed) {
        st::NewRun r;
        r.name = "bench-sweep: " + plans[p] + " [train.lr=" + std::to_string(lr) +
                 "] seed=" + std::to_string(seed);
        nlohmann::json s = spec;
        s["train"]["lr"] = lr;
        s["run_seed"] = seed;
        r.spec = s.dump();
        r.variant = plans[p];
        r.experiment = kGroup;
        r.seed = seed;
        r.status = st::RunStatus::Finished;
        r.params = {{"plan", plans[p]},
                    {"seed", seed},
                    {"variant", p == 0 ? "full" : p == 1 ? "lora" : "grow"},
                    {"train.lr", lr},
                    {"train.steps", 1000},
                    {"train.batch_size", 8}};
        const int64_t id = store.create_run(r);
        const double forget = 0.02 * (p + 1) * std::log10(lr / 1e-5);
        const double learn = 1.5 - 0.2 * std::log10(lr / 1e-5) + 0.1 * p;
        for (int step = 0; step < 1000; ++step) {
          const double t = step / 999.0;
          for (size_t k = 0; k < keys.size(); ++k) {
            double v;
            if (keys[k].find("orig/loss") != std::string::npos) {
              v = 3.0 + forget * t + noise(rng);
            } else if (keys[k].find("orig/ppl") != std::string::npos) {
              v = std::exp(3.0 + forget * t);
            } else if (keys[k].find("new/loss") != std::string::npos) {
              v = 6.0 - (6.0 - learn) * t + noise(rng);
            } else if (keys[k].find("new/ppl") != std::string::npos) {
              v = std::exp(6.0 - (6.0 - learn) * t);
            } else {
              v = 0.5 + 0.1 * std::sin(step * 0.01 + k) + noise(rng);
            }
            writer.add(id, step, keys[k], v);
          }
        }
        writer.flush();
      }
    }
  }
}

void settle(int ms) {
  QElapsedTimer t;
  t.start();
  while (t.elapsed() < ms) {
    QApplication::processEvents(QEventLoop::AllEvents, 10);
    QThread::msleep(2);
  }
}

void mouse(QWidget* w, QEvent::Type type, QPoint p, Qt::MouseButtons buttons) {
  QMouseEvent e(type, QPointF(p), w->mapToGlobal(QPointF(p)), Qt::LeftButton, buttons,
                Qt::NoModifier);
  QApplication::sendEvent(w, &e);
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  Q_INIT_RESOURCE(growbench);
  int seeds = 4;
  QString keep;
  const QStringList args = app.arguments();
  for (int i = 1; i + 1 < args.size(); ++i) {
    if (args[i] == u"--runs-per-config"_s) seeds = args[i + 1].toInt();
    if (args[i] == u"--keep"_s) keep = args[i + 1];
  }
  QTemporaryDir tmp;
  const QString dir = keep.isEmpty() ? tmp.path() : keep;
  QDir().mkpath(dir);
  const QString db = QDir(dir).filePath(u"bench-compare.db"_s);
  QFile::remove(db);
  QElapsedTimer t;
  t.start();
  buildStore(db.toStdString(), seeds);
  std::printf("bench_compare: store with %d runs x 1000 steps x 30 metrics built in %.1f s\n",
              15 * seeds, t.elapsed() / 1000.0);

  {
    std::vector<double> ms;
    st::Store store = st::Store::open(db.toStdString(), st::OpenMode::ReadOnly);
    for (int i = 0; i < 5; ++i) {
      gb::experiment::CompareOptions o;
      o.group = kGroup;
      QElapsedTimer c;
      c.start();
      auto res = gb::experiment::compare_group(store, o);
      ms.push_back(c.nsecsElapsed() / 1e6);
      if (res.methods.empty()) return 1;
    }
    std::printf("bench_compare: compare_group on the group: %.1f ms (median of 5)\n", median(ms));
  }

  {
    std::vector<double> ms;
    QVector<qint64> ids;
    for (qint64 i = 1; i <= 15 * seeds; ++i) ids << i;
    for (int i = 0; i < 3; ++i) {
      QElapsedTimer c;
      c.start();
      const auto series =
          gb::gui::loadGroupSeries(db, QString::fromLatin1(kGroup), ids, u"eval/new/loss"_s);
      ms.push_back(c.nsecsElapsed() / 1e6);
      if (series.series.size() != ids.size()) return 1;
    }
    std::printf("bench_compare: one metric's series of every run read in %.1f ms (median of 3)\n",
                median(ms));
  }

  gb::gui::MainWindow w;
  w.setConfirmClose(false);
  w.resize(1500, 950);
  w.show();
  gb::gui::Session* s = w.session();
  bool listed = false;
  QObject::connect(s->store(), &gb::gui::StoreService::runsUpdated, &w, [&] { listed = true; });
  s->store()->open(db);
  if (!gb::gui::waitFor([&] { return listed; }, 60000)) {
    std::fprintf(stderr, "bench_compare: the store did not open\n");
    return 1;
  }
  w.showView(gb::gui::MainWindow::View::Compare);
  gb::gui::CompareView* cmp = w.compareView();
  cmp->pages()->setCurrentIndex(1);
  gb::gui::GroupCompareView* gv = cmp->groupView();
  settle(300);

  // Open the group (the view may already be loading it: wait, then time fresh loads).
  gb::gui::waitFor([&] { return !gv->isLoading(); }, 60000);
  std::vector<double> fill, fillCpu;
  for (int i = 0; i < 6; ++i) {
    gv->tabs()->setCurrentIndex(i % 2 == 0 ? gb::gui::GroupCompareView::TableTab
                                           : gb::gui::GroupCompareView::TradeoffTab);
    bool loaded = false;
    auto c =
        QObject::connect(gv, &gb::gui::GroupCompareView::groupLoaded, &w, [&] { loaded = true; });
    QElapsedTimer f;
    f.start();
    const double c0 = cpuMs();
    gv->setGroupData(nullptr);
    gv->setGroup(QString::fromLatin1(kGroup));
    if (!gb::gui::waitFor([&] { return loaded; }, 60000)) {
      std::fprintf(stderr, "bench_compare: the group did not load\n");
      return 1;
    }
    gv->refreshNow();
    // Paint what is shown now (the table or the trade-off), and the parallel coordinates.
    gv->repaint();
    gv->parallel()->grab();
    QApplication::processEvents();
    fill.push_back(f.nsecsElapsed() / 1e6);
    fillCpu.push_back(cpuMs() - c0);
    QObject::disconnect(c);
  }
  const int rows = gv->runProxy()->rowCount();
  std::printf(
      "bench_compare: grouped view filled (%d runs, %d groups; table, statistics, parallel "
      "coordinates, trade-off) in %.0f ms wall, %.0f ms process CPU (median of %zu; first %.0f "
      "ms wall); goal < 1000 ms\n",
      rows, gv->statsModel()->rowCount(), median(fill), median(fillCpu), fill.size(), fill.front());

  // Curves: mean ± std bands of one metric over the seeds (series read lazily).
  {
    std::vector<double> ms;
    for (const char* key : {"eval/new/loss", "eval/orig/loss", "train/loss"}) {
      bool done = false;
      auto c =
          QObject::connect(gv, &gb::gui::GroupCompareView::curvesLoaded, &w, [&] { done = true; });
      QElapsedTimer f;
      f.start();
      gv->tabs()->setCurrentIndex(gb::gui::GroupCompareView::CurvesTab);
      gv->setCurveKey(QString::fromLatin1(key));
      gv->refreshNow();
      gb::gui::waitFor([&] { return done || gv->curvesReady(); }, 60000);
      gv->repaint();
      ms.push_back(f.nsecsElapsed() / 1e6);
      QObject::disconnect(c);
    }
    std::printf(
        "bench_compare: curves tab (mean ± std of one metric, 60 series x 1000 steps read) "
        "in %.0f ms (median of %zu)\n",
        median(ms), ms.size());
  }

  // Brushing: drag on the learning-rate axis, one update per mouse move.
  gv->tabs()->setCurrentIndex(gb::gui::GroupCompareView::ParallelTab);
  settle(200);
  gb::gui::ParallelCoordinates* pc = gv->parallel();
  int axis = -1;
  for (int a = 0; a < pc->axes().size(); ++a) {
    if (pc->axes()[a].id == u"param:train.lr"_s) axis = a;
  }
  if (axis < 0) {
    std::fprintf(stderr, "bench_compare: no train.lr axis\n");
    return 1;
  }
  const QRect area = pc->plotArea();
  const int x = pc->axisX(axis);
  std::vector<double> upd, updCpu;
  int minRows = rows, maxRows = 0;
  for (int rep = 0; rep < 3; ++rep) {
    mouse(pc, QEvent::MouseButtonPress, QPoint(x, area.top() + 5), Qt::LeftButton);
    for (int y = area.top() + 10; y < area.bottom(); y += std::max(1, area.height() / 40)) {
      QElapsedTimer u;
      u.start();
      const double c0 = cpuMs();
      mouse(pc, QEvent::MouseMove, QPoint(x, y), Qt::LeftButton);
      pc->repaint();
      upd.push_back(u.nsecsElapsed() / 1e6);
      updCpu.push_back(cpuMs() - c0);
      minRows = std::min(minRows, gv->runProxy()->rowCount());
      maxRows = std::max(maxRows, gv->runProxy()->rowCount());
    }
    mouse(pc, QEvent::MouseButtonRelease, QPoint(x, area.bottom() - 5), Qt::NoButton);
    pc->clearBrushes();
  }
  std::sort(upd.begin(), upd.end());
  std::printf(
      "bench_compare: brushing the parallel coordinates: %.1f ms wall, %.1f ms process CPU per "
      "update (median of %zu mouse moves; wall p90 %.1f ms, max %.1f ms; table rows %d..%d); "
      "goal < 50 ms\n",
      median(upd), median(updCpu), upd.size(), upd[upd.size() * 9 / 10], upd.back(), minRows,
      maxRows);
  w.close();
  return 0;
}
