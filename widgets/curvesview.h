#pragma once
// CurvesView: for the selected runs, forgetting (an original-domain metric) and learning (a
// new-domain metric or task accuracy) against step, overlaid with a legend, EMA smoothing
// and a log-scale toggle; the forgetting–learning trade-off with one trajectory per run and
// the Pareto frontier of the final points; and, for task sequences, the accuracy matrix as a
// heatmap with OP and BWT. Series stream in from the store while runs are running.

#include <QHash>
#include <QList>
#include <QTimer>
#include <QWidget>

#include "storeservice.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPAxisRect;
class QLabel;
class QListWidget;
class QSlider;
class QTabWidget;

namespace gb::gui {

class HeatmapPlot;
class Session;

class CurvesView : public QWidget {
  Q_OBJECT

 public:
  explicit CurvesView(Session* session, QWidget* parent = nullptr);

  void setRuns(const QList<qint64>& runIds);
  const QList<qint64>& runs() const { return m_runs; }
  void setForgettingKey(const QString& key);
  void setLearningKey(const QString& key);
  QString forgettingKey() const;
  QString learningKey() const;
  void setSmoothing(double weight);  // 0 … 0.99
  void setLogScale(bool on);
  QTabWidget* tabs() const { return m_tabs; }
  QCustomPlot* curvesPlot() const { return m_curves; }
  QCustomPlot* tradeoffPlot() const { return m_tradeoff; }
  HeatmapPlot* taskPlot() const { return m_task; }
  QCustomPlot* currentPlot() const;
  // Points currently drawn for a run in the forgetting / learning panel (tests).
  int pointCount(qint64 runId, bool learning) const;
  // Indices into runs() of the runs on the Pareto frontier.
  QList<qint64> paretoRuns() const { return m_pareto; }
  QString taskSummary() const;
  // Replots now (normally coalesced on a timer).
  void replotNow();
  // Series received (tests, --measure): runId → key → data.
  const QHash<qint64, SeriesMap>& series() const { return m_series; }
  // Installs series directly (benchmarks without a store).
  void setSeriesForTesting(qint64 runId, const QString& name, const SeriesMap& series);
  bool exportCurrentPlot(const QString& fileName, QString* error);

 signals:
  void replotted();

 private:
  void buildUi();
  void onSeries(const SeriesUpdate& update);
  void updateKeyCombos();
  void scheduleReplot();
  void replotCurves();
  void replotTradeoff();
  void replotTask();
  QString runName(qint64 runId) const;

  Session* m_session;
  QList<qint64> m_runs;
  QHash<qint64, SeriesMap> m_series;
  QHash<qint64, QString> m_testNames;
  QHash<qint64, TaskMatrixData> m_tasks;
  QList<qint64> m_pareto;
  QTimer m_replotTimer;
  QComboBox* m_forgetKey = nullptr;
  QComboBox* m_learnKey = nullptr;
  QSlider* m_smooth = nullptr;
  QLabel* m_smoothLabel = nullptr;
  QCheckBox* m_log = nullptr;
  QLabel* m_runsLabel = nullptr;
  QTabWidget* m_tabs = nullptr;
  QCustomPlot* m_curves = nullptr;
  QCPAxisRect* m_forgetRect = nullptr;
  QCPAxisRect* m_learnRect = nullptr;
  QCustomPlot* m_tradeoff = nullptr;
  HeatmapPlot* m_task = nullptr;
  QComboBox* m_taskRun = nullptr;
  QLabel* m_taskInfo = nullptr;
  QHash<qint64, QPair<int, int>> m_pointCounts;
};

}  // namespace gb::gui
