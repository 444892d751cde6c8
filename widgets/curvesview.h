#pragma once
// CurvesView: for the selected runs, forgetting (an original-domain metric) and learning (a
// new-domain metric or task accuracy) against step, overlaid with a legend (beside the plot,
// never over the data; names unique: plan label plus the hyper-parameters that differ), EMA
// smoothing and a log-scale toggle; the forgetting–learning trade-off with one trajectory per
// run (final values by default, or relative change from step 0) and the Pareto frontier of
// the final points; and, for task sequences, the accuracy matrix as a heatmap with OP and
// BWT. Series stream in from the store while runs are running. Runs evaluated on different
// sets are not overlaid silently (a warning names the difference); runs with only a step-0
// evaluation are left out of the trade-off, unfinished ones are marked partial.

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
  QComboBox* taskRunCombo() const { return m_taskRun; }
  QCustomPlot* curvesPlot() const { return m_curves; }
  QCustomPlot* tradeoffPlot() const { return m_tradeoff; }
  HeatmapPlot* taskPlot() const { return m_task; }
  QCustomPlot* currentPlot() const;
  // Points currently drawn for a run in the forgetting / learning panel (tests).
  int pointCount(qint64 runId, bool learning) const;
  // Indices into runs() of the runs on the Pareto frontier.
  QList<qint64> paretoRuns() const { return m_pareto; }
  QString taskSummary() const;
  // The warning shown when the overlaid runs use different evaluation sets ("" when not).
  QString evalWarning() const { return m_evalWarning; }
  // The trade-off's axes: final values of the two metrics (default), or their relative
  // change from step 0 in percent.
  void setTradeoffRelative(bool relative);
  bool tradeoffRelative() const;
  // The legend name of a run: plan label plus the hyper-parameters that tell it apart from
  // the other overlaid runs.
  QString runName(qint64 runId) const;
  // Runs left out of the trade-off because they have no evaluation after step 0.
  QList<qint64> tradeoffSkipped() const { return m_tradeoffSkipped; }
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
  void updateRunInfo();

  Session* m_session;
  QList<qint64> m_runs;
  QHash<qint64, SeriesMap> m_series;
  QHash<qint64, QString> m_testNames;
  QHash<qint64, TaskMatrixData> m_tasks;
  QList<qint64> m_pareto;
  QList<qint64> m_tradeoffSkipped;
  QHash<qint64, QString> m_nameSuffix;  // distinguishing hyper-parameters per run
  QString m_evalWarning;
  QLabel* m_warning = nullptr;
  QComboBox* m_tradeoffMode = nullptr;
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
  bool m_taskRunChosen = false;  // the user picked the task-matrix run since setRuns
  QLabel* m_taskInfo = nullptr;
  QHash<qint64, QPair<int, int>> m_pointCounts;
};

}  // namespace gb::gui
