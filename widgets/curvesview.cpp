#include "curvesview.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QSignalBlocker>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QTabWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <qcustomplot.h>

#include "groupdata.h"
#include "guiutil.h"
#include "heatmapplot.h"
#include "plotutil.h"
#include "runtablemodel.h"
#include "session.h"
#include "util/metrics.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace {

namespace mk = gb::metrics;

QString keyText(const char* key) {
  return QString::fromLatin1(key);
}

// Metrics where lower is better (losses, perplexities), from the metric registry; the rest
// (accuracy, OP, cosine) improve upwards.
bool lowerIsBetter(const QString& key) {
  return mk::lower_is_better(key.toStdString());
}

// Axis title of a metric: the key, with its unit from the registry when it has one.
QString axisLabel(const QString& key) {
  const std::string unit = mk::unit(key.toStdString());
  return unit.empty() ? key : key + u" ("_s + QString::fromStdString(unit) + u")"_s;
}

// Relative change of a metric from its first value, signed so that larger = more
// forgetting (forgetting = true) or more learning.
double relativeChange(const QString& key, double v0, double v, bool forgetting) {
  if (std::isnan(v0) || std::isnan(v)) return qQNaN();
  double change;
  if (lowerIsBetter(key)) {
    if (v0 == 0) return qQNaN();
    change = (v - v0) / std::fabs(v0);  // > 0: got worse
  } else {
    change = v0 - v;  // accuracies: absolute points; > 0: got worse
  }
  return 100.0 * (forgetting ? change : -change);
}

}  // namespace

CurvesView::CurvesView(Session* session, QWidget* parent) : QWidget(parent), m_session(session) {
  m_replotTimer.setSingleShot(true);
  m_replotTimer.setInterval(60);
  connect(&m_replotTimer, &QTimer::timeout, this, &CurvesView::replotNow);
  buildUi();
  connect(m_session->store(), &StoreService::seriesUpdated, this, &CurvesView::onSeries);
  connect(m_session->store(), &StoreService::taskMatrixReady, this,
          [this](const TaskMatrixData& m) {
            m_tasks.insert(m.runId, m);
            // The Task matrix tab opens on a run that has one: while the selected run has
            // none, the first overlaid run with a matrix is selected, unless the user chose
            // the run since the runs were overlaid.
            const auto shown = m_tasks.constFind(m_taskRun->currentData().toLongLong());
            if (!m.values.empty() && !m_taskRunChosen &&
                (shown == m_tasks.constEnd() || shown->values.empty())) {
              const int index = m_taskRun->findData(QVariant::fromValue<qlonglong>(m.runId));
              if (index >= 0) {
                QSignalBlocker block(m_taskRun);
                m_taskRun->setCurrentIndex(index);
              }
            }
            replotTask();
          });
  connect(m_session->store(), &StoreService::opened, this,
          [this](const QString&, const QString& error) {
            if (error.isEmpty()) m_tasks.clear();  // another store: its run ids name other runs
          });
  connect(m_session, &Session::curveRunsChanged, this, &CurvesView::setRuns);
  connect(m_session->store(), &StoreService::runsUpdated, this, [this] {
    // Names may have changed; runs may have finished (task matrices complete then).
    for (qint64 id : m_runs) {
      const RunRow* r = m_session->runModel()->run(id);
      if (r && !std::isnan(r->op) && !m_tasks.contains(id)) {
        m_session->store()->requestTaskMatrix(id);
      }
    }
    updateRunInfo();
    scheduleReplot();
  });
}

void CurvesView::buildUi() {
  auto* top = new QVBoxLayout(this);
  top->setContentsMargins(6, 6, 6, 6);
  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Forgetting:")));
  m_forgetKey = new QComboBox;
  m_forgetKey->setToolTip(tr("Original-domain metric (forgetting)"));
  m_forgetKey->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  controls->addWidget(m_forgetKey);
  controls->addWidget(new QLabel(tr("Learning:")));
  m_learnKey = new QComboBox;
  m_learnKey->setToolTip(tr("New-domain metric or task accuracy (learning)"));
  m_learnKey->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  controls->addWidget(m_learnKey);
  controls->addWidget(new QLabel(tr("Smoothing:")));
  m_smooth = new QSlider(Qt::Horizontal);
  m_smooth->setRange(0, 99);
  m_smooth->setValue(0);
  m_smooth->setMaximumWidth(140);
  m_smooth->setToolTip(tr("Exponential moving average weight of the curves (0 = raw)"));
  controls->addWidget(m_smooth);
  m_smoothLabel = new QLabel(u"0.00"_s);
  controls->addWidget(m_smoothLabel);
  m_log = new QCheckBox(tr("Log scale"));
  m_log->setToolTip(
      tr("Logarithmic metric axes (the curves' y axes; both trade-off axes when "
         "it shows final values)"));
  controls->addWidget(m_log);
  controls->addWidget(new QLabel(tr("Trade-off:")));
  m_tradeoffMode = new QComboBox;
  m_tradeoffMode->addItem(tr("final values"));
  m_tradeoffMode->addItem(tr("change from step 0 (%)"));
  m_tradeoffMode->setToolTip(
      tr("Final values of the two metrics (absolute; relative changes of perplexity saturate), "
         "or their relative change from step 0"));
  controls->addWidget(m_tradeoffMode);
  controls->addStretch(1);
  auto* exportButton = new QPushButton(tr("Export plot…"));
  exportButton->setToolTip(tr("Save the plot shown as PNG, SVG or PDF"));
  controls->addWidget(exportButton);
  top->addLayout(controls);
  m_runsLabel = new QLabel(tr("No runs selected: select runs in Compare or Runs."));
  m_runsLabel->setWordWrap(true);
  top->addWidget(m_runsLabel);
  m_warning = new QLabel;
  m_warning->setWordWrap(true);
  m_warning->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_warning->setStyleSheet(
      u"QLabel { background: #fff3cd; color: #5c4400; border: 1px solid #e0c060; "
      "padding: 4px; }"_s);
  m_warning->hide();
  top->addWidget(m_warning);

  m_tabs = new QTabWidget;
  m_curves = new QCustomPlot;
  m_forgetRect = m_curves->axisRect();
  m_learnRect = new QCPAxisRect(m_curves);
  m_curves->plotLayout()->addElement(1, 0, m_learnRect);
  auto* group = new QCPMarginGroup(m_curves);
  m_forgetRect->setMarginGroup(QCP::msLeft | QCP::msRight, group);
  m_learnRect->setMarginGroup(QCP::msLeft | QCP::msRight, group);
  connect(m_forgetRect->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
          m_learnRect->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::setRange));
  connect(m_learnRect->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
          m_forgetRect->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::setRange));
  m_curves->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  for (QCPAxisRect* r : {m_forgetRect, m_learnRect}) {
    r->setRangeDrag(Qt::Horizontal);
    r->setRangeZoom(Qt::Horizontal);
  }
  m_learnRect->axis(QCPAxis::atBottom)->setLabel(tr("Step"));
  m_curves->legend->setVisible(true);
  stylePlot(m_curves);
  placeLegendOutside(m_curves);
  m_tabs->addTab(m_curves, tr("Forgetting and learning"));

  m_tradeoff = new QCustomPlot;
  m_tradeoff->legend->setVisible(true);
  m_tradeoff->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  stylePlot(m_tradeoff);
  placeLegendOutside(m_tradeoff);
  m_tabs->addTab(m_tradeoff, tr("Trade-off"));

  auto* taskPage = new QWidget;
  auto* tv = new QVBoxLayout(taskPage);
  tv->setContentsMargins(0, 0, 0, 0);
  auto* trow = new QHBoxLayout;
  trow->addWidget(new QLabel(tr("Run:")));
  m_taskRun = new QComboBox;
  trow->addWidget(m_taskRun, 1);
  tv->addLayout(trow);
  m_task = new HeatmapPlot;
  m_task->setSelectionEnabled(false);
  m_task->setAxisLabels(tr("After training on task"), tr("Evaluated on task"));
  tv->addWidget(m_task, 1);
  m_taskInfo = new QLabel;
  tv->addWidget(m_taskInfo);
  m_tabs->addTab(taskPage, tr("Task matrix"));
  top->addWidget(m_tabs, 1);

  connect(m_forgetKey, &QComboBox::currentIndexChanged, this, &CurvesView::scheduleReplot);
  connect(m_learnKey, &QComboBox::currentIndexChanged, this, &CurvesView::scheduleReplot);
  connect(m_smooth, &QSlider::valueChanged, this, [this](int v) {
    m_smoothLabel->setText(QString::number(v / 100.0, 'f', 2));
    scheduleReplot();
  });
  connect(m_log, &QCheckBox::toggled, this, &CurvesView::scheduleReplot);
  connect(m_tradeoffMode, &QComboBox::currentIndexChanged, this, &CurvesView::scheduleReplot);
  connect(m_taskRun, &QComboBox::currentIndexChanged, this, [this] {
    m_taskRunChosen = true;  // the view's own changes block this signal
    replotTask();
  });
  connect(exportButton, &QPushButton::clicked, this, [this] {
    const QString f =
        QFileDialog::getSaveFileName(this, tr("Export plot"), u"plot.png"_s, plotFileFilter());
    if (f.isEmpty()) return;
    QString error;
    if (!exportCurrentPlot(f, &error)) m_runsLabel->setText(error);
  });
}

QCustomPlot* CurvesView::currentPlot() const {
  switch (m_tabs->currentIndex()) {
    case 1:
      return m_tradeoff;
    case 2:
      return m_task;
    default:
      return m_curves;
  }
}

bool CurvesView::exportCurrentPlot(const QString& fileName, QString* error) {
  return exportPlot(currentPlot(), fileName, error);
}

void CurvesView::setRuns(const QList<qint64>& runIds) {
  m_runs = runIds;
  for (auto it = m_series.begin(); it != m_series.end();) {
    if (!runIds.contains(it.key()) && !m_testNames.contains(it.key()))
      it = m_series.erase(it);
    else
      ++it;
  }
  m_session->store()->watchSeries(runIds);
  m_taskRun->blockSignals(true);
  m_taskRunChosen = false;
  m_taskRun->clear();
  for (qint64 id : runIds) {
    m_taskRun->addItem(runName(id), QVariant::fromValue<qlonglong>(id));
    m_session->store()->requestTaskMatrix(id);
  }
  m_taskRun->blockSignals(false);
  if (runIds.isEmpty()) {
    m_runsLabel->setText(tr("No runs selected: select runs in Compare or Runs."));
  } else {
    m_runsLabel->setText(tr("%n run(s) overlaid.", nullptr, static_cast<int>(runIds.size())));
  }
  updateRunInfo();
  updateKeyCombos();
  scheduleReplot();
}

void CurvesView::updateRunInfo() {
  // Names: the plan label plus the hyper-parameters (plan keys, train keys, seed) whose
  // values differ between the overlaid runs of the same plan.
  m_nameSuffix.clear();
  QVector<QPair<qint64, nlohmann::json>> sets;
  std::map<qint64, std::map<std::string, std::string>> flat;
  std::map<qint64, QString> label;
  std::set<std::string> keys;
  for (qint64 id : m_runs) {
    const RunRow* r = m_session->runModel()->run(id);
    if (!r) continue;
    label[id] = r->planLabel.isEmpty() ? qs(r->info.name) : r->planLabel;
    const nlohmann::json spec = nlohmann::json::parse(r->info.spec, nullptr, false);
    if (!spec.is_object()) continue;
    sets.push_back({id, evalSetsOf(spec)});
    auto& f = flat[id];
    if (spec.contains("plans") && spec["plans"].is_array() && !spec["plans"].empty() &&
        spec["plans"][0].is_object()) {
      for (auto it = spec["plans"][0].begin(); it != spec["plans"][0].end(); ++it) {
        if (it.key() == "name" || it.key() == "variant") continue;
        f[it.key()] = it->is_string() ? it->get<std::string>() : it->dump();
      }
    }
    if (spec.contains("train") && spec["train"].is_object()) {
      for (auto it = spec["train"].begin(); it != spec["train"].end(); ++it) {
        f["train." + it.key()] = it->dump();
      }
    }
    f["seed"] = spec.contains("run_seed") ? spec["run_seed"].dump()
                                          : spec.value("seed", nlohmann::json(0)).dump();
    for (const auto& [k, v] : f) keys.insert(k);
  }
  for (const std::string& k : keys) {
    // Per plan label: the values of this key among its runs.
    std::map<QString, std::set<std::string>> values;
    for (const auto& [id, f] : flat) {
      auto it = f.find(k);
      values[label[id]].insert(it == f.end() ? std::string() : it->second);
    }
    for (const auto& [id, f] : flat) {
      if (values[label[id]].size() < 2) continue;
      auto it = f.find(k);
      QString v = it == f.end() ? u"–"_s : qs(it->second);
      if (v.size() > 24) v = v.left(22) + u"…"_s;
      QString& suffix = m_nameSuffix[id];
      if (!suffix.isEmpty()) suffix += u", "_s;
      suffix += qs(k) + u'=' + v;
    }
  }
  const QStringList diff = evalSetDifferences(sets);
  m_evalWarning =
      diff.isEmpty()
          ? QString()
          : tr("These runs were not evaluated on the same sets; their curves are not directly "
               "comparable:\n%1")
                .arg(diff.join(u"\n"_s));
  m_warning->setText(m_evalWarning);
  m_warning->setVisible(!m_evalWarning.isEmpty());
}

void CurvesView::setTradeoffRelative(bool relative) {
  m_tradeoffMode->setCurrentIndex(relative ? 1 : 0);
}

bool CurvesView::tradeoffRelative() const {
  return m_tradeoffMode->currentIndex() == 1;
}

void CurvesView::setSeriesForTesting(qint64 runId, const QString& name, const SeriesMap& s) {
  m_testNames.insert(runId, name);
  m_series.insert(runId, s);
  if (!m_runs.contains(runId)) m_runs << runId;
  updateKeyCombos();
}

QString CurvesView::runName(qint64 runId) const {
  if (m_testNames.contains(runId)) return m_testNames.value(runId);
  const RunRow* r = m_session->runModel()->run(runId);
  if (!r) return tr("run %1").arg(runId);
  const QString label = r->planLabel.isEmpty() ? qs(r->info.name) : r->planLabel;
  const QString suffix = m_nameSuffix.value(runId);
  return suffix.isEmpty() ? tr("#%1 %2").arg(runId).arg(label)
                          : tr("#%1 %2 (%3)").arg(runId).arg(label, suffix);
}

void CurvesView::onSeries(const SeriesUpdate& up) {
  if (!m_runs.contains(up.runId)) return;
  SeriesMap& mine = m_series[up.runId];
  if (up.reset) mine.clear();
  for (auto it = up.series.begin(); it != up.series.end(); ++it) {
    SeriesData& d = mine[it.key()];
    d.steps += it.value().steps;
    d.values += it.value().values;
  }
  updateKeyCombos();
  scheduleReplot();
}

void CurvesView::updateKeyCombos() {
  QStringList keys;
  for (qint64 id : m_runs) {
    // constFind: series() must only hold runs whose metrics have arrived.
    const auto run = m_series.constFind(id);
    if (run == m_series.constEnd()) continue;
    for (auto it = run->cbegin(); it != run->cend(); ++it) {
      if (!keys.contains(it.key())) keys << it.key();
    }
  }
  keys.sort();
  auto fill = [&](QComboBox* combo, const QStringList& preferred, const QString& prefix) {
    const QString keep = combo->currentText();
    QStringList items;
    for (const QString& k : keys) {
      if (mk::is_perf(k.toStdString())) continue;
      items << k;
    }
    QStringList current;
    for (int i = 0; i < combo->count(); ++i) current << combo->itemText(i);
    if (current == items) return;
    QSignalBlocker b(combo);
    combo->clear();
    combo->addItems(items);
    int idx = items.indexOf(keep);
    for (const QString& p : preferred) {
      if (idx >= 0) break;
      idx = items.indexOf(p);
    }
    if (idx < 0) {
      for (int i = 0; i < items.size(); ++i) {
        if (items[i].startsWith(prefix)) {
          idx = i;
          break;
        }
      }
    }
    combo->setCurrentIndex(std::max(0, idx));
  };
  // Loss first: the trade-off of final values then plots absolute losses by default
  // (perplexities of a model new to a domain are in the thousands and saturate).
  fill(m_forgetKey, {keyText(mk::kEvalOrigLoss), keyText(mk::kEvalOrigPpl)},
       keyText(mk::kEvalOrigPrefix));
  QStringList learnPreferred = {keyText(mk::kEvalNewLoss), keyText(mk::kEvalNewPpl)};
  for (const QString& k : keys) {
    auto tk = mk::split_task_key(k.toStdString());
    if (tk && tk->suffix == mk::kAcc) learnPreferred << k;
  }
  fill(m_learnKey, learnPreferred, keyText(mk::kEvalPrefix));
}

void CurvesView::setForgettingKey(const QString& key) {
  const int i = m_forgetKey->findText(key);
  if (i >= 0) m_forgetKey->setCurrentIndex(i);
}

void CurvesView::setLearningKey(const QString& key) {
  const int i = m_learnKey->findText(key);
  if (i >= 0) m_learnKey->setCurrentIndex(i);
}

QString CurvesView::forgettingKey() const {
  return m_forgetKey->currentText();
}
QString CurvesView::learningKey() const {
  return m_learnKey->currentText();
}

void CurvesView::setSmoothing(double weight) {
  m_smooth->setValue(static_cast<int>(std::lround(weight * 100)));
}

void CurvesView::setLogScale(bool on) {
  m_log->setChecked(on);
}

void CurvesView::scheduleReplot() {
  if (!m_replotTimer.isActive()) m_replotTimer.start();
}

void CurvesView::replotNow() {
  m_replotTimer.stop();
  replotCurves();
  replotTradeoff();
  replotTask();
  emit replotted();
}

int CurvesView::pointCount(qint64 runId, bool learning) const {
  const auto it = m_pointCounts.constFind(runId);
  if (it == m_pointCounts.constEnd()) return 0;
  return learning ? it->second : it->first;
}

void CurvesView::replotCurves() {
  m_curves->clearPlottables();
  m_pointCounts.clear();
  const QString fk = forgettingKey(), lk = learningKey();
  const double w = m_smooth->value() / 100.0;
  const bool log = m_log->isChecked();
  m_forgetRect->axis(QCPAxis::atLeft)->setLabel(fk.isEmpty() ? tr("Forgetting") : axisLabel(fk));
  m_learnRect->axis(QCPAxis::atLeft)->setLabel(lk.isEmpty() ? tr("Learning") : axisLabel(lk));
  for (QCPAxisRect* r : {m_forgetRect, m_learnRect}) {
    QCPAxis* y = r->axis(QCPAxis::atLeft);
    y->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (log)
      y->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
      y->setTicker(QSharedPointer<QCPAxisTicker>::create());
  }
  int i = 0;
  for (qint64 id : m_runs) {
    const QColor color = seriesColor(i++);
    const SeriesMap& s = m_series.value(id);
    QPair<int, int> counts{0, 0};
    for (int panel = 0; panel < 2; ++panel) {
      const QString key = panel == 0 ? fk : lk;
      QCPAxisRect* rect = panel == 0 ? m_forgetRect : m_learnRect;
      auto it = s.constFind(key);
      if (key.isEmpty() || it == s.constEnd()) continue;
      auto* g = new QCPGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
      g->setData(it->steps, emaSmooth(it->values, w), true);
      g->setPen(QPen(color, 1.6));
      g->setName(runName(id));
      g->setAdaptiveSampling(true);
      if (it->steps.size() <= 40) {
        g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 5));
      }
      if (panel == 1) g->removeFromLegend();
      (panel == 0 ? counts.first : counts.second) = static_cast<int>(it->steps.size());
    }
    m_pointCounts.insert(id, counts);
  }
  for (QCPAxisRect* r : {m_forgetRect, m_learnRect}) {
    bool any = false;
    QCPRange kr, vr;
    for (QCPGraph* g : r->graphs()) {
      bool ok = false;
      QCPRange k = g->getKeyRange(ok);
      if (!ok) continue;
      QCPRange v = g->getValueRange(ok, QCP::sdBoth, QCPRange());
      if (!ok) continue;
      if (!any) {
        kr = k;
        vr = v;
        any = true;
      } else {
        kr.expand(k);
        vr.expand(v);
      }
    }
    if (any) {
      r->axis(QCPAxis::atBottom)->setRange(kr.lower, std::max(kr.upper, kr.lower + 1));
      const double pad = 0.05 * std::max(vr.size(), std::fabs(vr.upper) * 1e-3 + 1e-12);
      if (log && vr.lower > 0)
        r->axis(QCPAxis::atLeft)->setRange(vr.lower / 1.1, vr.upper * 1.1);
      else
        r->axis(QCPAxis::atLeft)->setRange(vr.lower - pad, vr.upper + pad);
    }
  }
  m_curves->legend->setVisible(!m_runs.isEmpty());
  m_curves->replot(QCustomPlot::rpQueuedReplot);
}

void CurvesView::replotTradeoff() {
  m_tradeoff->clearPlottables();
  m_pareto.clear();
  m_tradeoffSkipped.clear();
  const QString fk = forgettingKey(), lk = learningKey();
  const bool relative = tradeoffRelative();
  // Final values on log axes need positive values (perplexities and losses are).
  bool log = !relative && m_log->isChecked();
  if (relative) {
    m_tradeoff->xAxis->setLabel(
        tr("Forgetting: change of %1 from step 0 (%, right = more forgetting)").arg(fk));
    m_tradeoff->yAxis->setLabel(tr("Learning: improvement of %1 from step 0 (%)").arg(lk));
  } else {
    m_tradeoff->xAxis->setLabel(tr("Forgetting: %1 (final value)").arg(axisLabel(fk)));
    m_tradeoff->yAxis->setLabel(tr("Learning: %1 (final value)").arg(axisLabel(lk)));
  }
  struct Traj {
    qint64 id;
    QVector<double> xs, ys, steps;
  };
  QVector<Traj> trajs;
  for (qint64 id : m_runs) {
    const SeriesMap& s = m_series.value(id);
    auto f = s.constFind(fk), l = s.constFind(lk);
    if (f == s.constEnd() || l == s.constEnd() || f->steps.isEmpty() || l->steps.isEmpty()) {
      continue;
    }
    // Pair the two metrics at the steps where both were evaluated.
    QHash<qint64, double> lv;
    for (int k = 0; k < l->steps.size(); ++k) lv.insert(qint64(l->steps[k]), l->values[k]);
    const double f0 = f->values.first(), l0 = l->values.first();
    Traj t{id, {}, {}, {}};
    for (int k = 0; k < f->steps.size(); ++k) {
      const qint64 step = qint64(f->steps[k]);
      if (!lv.contains(step)) continue;
      const double x = relative ? relativeChange(fk, f0, f->values[k], true) : f->values[k];
      const double y = relative ? relativeChange(lk, l0, lv.value(step), false) : lv.value(step);
      if (std::isnan(x) || std::isnan(y)) continue;
      t.xs << x;
      t.ys << y;
      t.steps << double(step);
    }
    // Only the step-0 evaluation: no figure at all (not a perfect "0 %").
    if (t.xs.isEmpty() || t.steps.last() <= 0) {
      m_tradeoffSkipped << id;
      continue;
    }
    if (log) {
      for (int k = 0; k < t.xs.size(); ++k) log = log && t.xs[k] > 0 && t.ys[k] > 0;
    }
    trajs << t;
  }
  for (QCPAxis* a : {m_tradeoff->xAxis, m_tradeoff->yAxis}) {
    a->setScaleType(log ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    if (log)
      a->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    else
      a->setTicker(QSharedPointer<QCPAxisTicker>::create());
  }
  // The Pareto frontier wants x lower-is-better and y higher-is-better.
  const bool flipX = !relative && !lowerIsBetter(fk);
  const bool flipY = !relative && lowerIsBetter(lk);
  QVector<double> fx, fy, px, py;
  QVector<qint64> ids;
  for (const Traj& t : trajs) {
    const int i = static_cast<int>(m_runs.indexOf(t.id));
    const QColor color = seriesColor(i);
    const RunRow* row = m_session->runModel()->run(t.id);
    const bool partial =
        row && !m_testNames.contains(t.id) && row->info.status != gb::store::RunStatus::Finished;
    auto* c = new QCPCurve(m_tradeoff->xAxis, m_tradeoff->yAxis);
    QVector<double> ts;
    for (int k = 0; k < t.xs.size(); ++k) ts << k;
    c->setData(ts, t.xs, t.ys);
    c->setPen(QPen(color, 1.6, partial ? Qt::DashLine : Qt::SolidLine));
    c->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, color, color, 4));
    c->setName(partial ? tr("%1 (partial: step %2)").arg(runName(t.id)).arg(t.steps.last())
                       : runName(t.id));
    auto* endPoint = new QCPGraph(m_tradeoff->xAxis, m_tradeoff->yAxis);
    endPoint->setData({t.xs.last()}, {t.ys.last()});
    endPoint->setLineStyle(QCPGraph::lsNone);
    // Partial runs: a hollow end point.
    endPoint->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(color, 1.6),
                                              partial ? QBrush(Qt::NoBrush) : QBrush(color), 11));
    endPoint->removeFromLegend();
    fx << (flipX ? -t.xs.last() : t.xs.last());
    fy << (flipY ? -t.ys.last() : t.ys.last());
    px << t.xs.last();
    py << t.ys.last();
    ids << t.id;
  }
  const QVector<int> front = paretoFrontier(fx, fy);
  if (!front.isEmpty()) {
    QVector<double> qx, qy;
    QVector<int> sorted = front;
    std::sort(sorted.begin(), sorted.end(), [&](int a, int b) { return px[a] < px[b]; });
    for (int k : sorted) {
      qx << px[k];
      qy << py[k];
      m_pareto << ids[k];
    }
    auto* g = new QCPGraph(m_tradeoff->xAxis, m_tradeoff->yAxis);
    g->setData(qx, qy, true);
    g->setLineStyle(QCPGraph::lsLine);
    QColor c = QApplication::palette().color(QPalette::Text);
    g->setPen(QPen(c, 1.2, Qt::DashLine));
    g->setName(tr("Pareto frontier of final points"));
  }
  const bool any = !trajs.isEmpty();
  if (any) {
    m_tradeoff->rescaleAxes();
    for (QCPAxis* a : {m_tradeoff->xAxis, m_tradeoff->yAxis}) {
      const QCPRange r = a->range();
      if (log) {
        a->setRange(r.lower / 1.1, r.upper * 1.1);
      } else {
        const double pad = 0.08 * std::max(r.size(), std::fabs(r.upper) * 1e-3 + 1e-12);
        a->setRange(r.lower - pad, r.upper + pad);
      }
    }
  }
  m_tradeoff->legend->setVisible(any);
  m_tradeoff->replot(QCustomPlot::rpQueuedReplot);
  if (!m_tradeoffSkipped.isEmpty() && !m_runs.isEmpty()) {
    QStringList t;
    for (qint64 id : m_tradeoffSkipped) t << QString::number(id);
    m_runsLabel->setText(
        tr("%n run(s) overlaid.", nullptr, static_cast<int>(m_runs.size())) + u" "_s +
        tr("Not in the trade-off (no evaluation after step 0): %1").arg(t.join(u", "_s)));
  } else if (!m_runs.isEmpty()) {
    m_runsLabel->setText(tr("%n run(s) overlaid.", nullptr, static_cast<int>(m_runs.size())));
  }
}

void CurvesView::replotTask() {
  const qint64 id = m_taskRun->currentData().toLongLong();
  auto it = m_tasks.constFind(id);
  if (it == m_tasks.constEnd() || it->values.empty()) {
    m_task->clearMatrix(tr("No task sequence in this run"));
    m_taskInfo->setText(
        tr("Task sequences (spec key “sequence”) record an accuracy matrix R: "
           "after each task, every task is evaluated."));
    return;
  }
  const auto& v = it->values;
  QStringList rows, cols;
  for (size_t k = 0; k < v.size(); ++k) {
    const QString name = it->taskNames.value(static_cast<int>(k), tr("T%1").arg(k + 1));
    rows << name;
    cols << name;
  }
  // R is an accuracy for multiple-choice and QA tasks, minus the held-out loss for lm tasks.
  const qsizetype lm = it->taskKinds.count(u"lm"_s);
  const QString label = lm == 0                      ? tr("accuracy")
                        : lm == it->taskKinds.size() ? tr("R = −loss (nats)")
                                                     : tr("accuracy, or −loss (nats) for lm tasks");
  m_task->setMatrix(rows, cols, v, label, false);
  const OpBwt m = computeOpBwt(v);
  // OP and BWT are means of R: accuracies, or minus losses for lm tasks (then a BWT of −0.3
  // means the earlier tasks' losses rose by 0.3 nats on average).
  const QString text =
      lm == 0 ? tr("OP (mean accuracy after the last task) = %1 · BWT (mean change of the "
                   "earlier tasks' accuracy) = %2")
      : lm == it->taskKinds.size()
          ? tr("OP (mean −loss after the last task, nats) = %1 · BWT (mean change of the "
               "earlier tasks' −loss, nats; negative: their loss rose) = %2")
          : tr("OP (mean R after the last task: accuracy, or −loss for lm tasks) = %1 · BWT "
               "(mean change of the earlier tasks' R) = %2");
  m_taskInfo->setText(text.arg(formatValue(m.op), formatValue(m.bwt)));
}

QString CurvesView::taskSummary() const {
  return m_taskInfo->text();
}

}  // namespace gb::gui
