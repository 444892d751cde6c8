#pragma once
// GroupCompareView: one run group (the runs of one spec) compared fairly.
// - Group by any flattened hyper-parameter, or by configuration (runs that differ only in
//   their seed).
// - Table: one row per run (column chooser over every hyper-parameter and figure, sortable,
//   filterable), or one row per group with mean ± std over its complete runs.
// - Curves: per group, the mean of a metric over the seeds with a ± std (or min–max) band.
// - Parallel coordinates: hyper-parameters → forgetting and learning, coloured by method;
//   brushing an axis filters the runs, and the same filter applies to the table, the
//   group statistics, the curves and the trade-off.
// - Trade-off, two ways:
//   fronts (the default): each plan's front (experiment::front_curves over front_levels:
//   forgetting at matched learning, mean line and ± std band over the seeds, where every
//   seed reaches the level), the evaluated points faintly, and the matched level as a
//   vertical line the user drags (double-click: back to auto). The comparison at that level
//   (experiment::compare_at on the traces loaded with the group, no store query) fills a
//   table below, the "forgetting at matched learning" column of both tables and its
//   parallel-coordinates axis, live while dragging;
//   configurations: each group as mean ± std with error bars on two figures (absolute final
//   values by default: original-domain loss against new-domain loss; log scales), the
//   best configuration per method within a forgetting budget (experiment::compare_group)
//   marked, and its choice in a table.
//   The learning and forgetting metrics of both are the view's choice (eval/new/loss and
//   eval/orig/loss by default); another one reads the traces again.
// Runs whose evaluation sets differ are not compared silently: a warning names the
// difference. Runs without an evaluation after step 0 show no figure; unfinished ones are
// marked partial with their step.
//
// Data are read on a background thread with a read-only store connection (groupdata.h), so
// the view never blocks the event loop; series are read lazily, one key at a time.

#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QHash>
#include <QSet>
#include <QTimer>
#include <QWidget>

#include <memory>

#include "experiment/fronts.h"
#include "groupdata.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QMenu;
class QStackedWidget;
class QTabWidget;
class QTableView;
class QTableWidget;
class QToolButton;

namespace gb::gui {

class GroupRunModel;
class GroupRunProxy;
class GroupStatsModel;
class ParallelCoordinates;
class Session;

class GroupCompareView : public QWidget {
  Q_OBJECT

 public:
  enum Tab { TableTab, CurvesTab, ParallelTab, TradeoffTab };
  enum class TradeoffMode { Fronts, Configurations };
  static constexpr int kFrontLevels = 40;  // learning levels of a front (front_levels)

  explicit GroupCompareView(Session* session, QWidget* parent = nullptr);
  ~GroupCompareView() override;

  // Groups of the open store (most recent first) and the one shown.
  QStringList groups() const;
  QString group() const { return m_group; }
  void setGroup(const QString& group);
  // Installs group data directly (tests, benchmarks); also what a background load ends in.
  void setGroupData(std::shared_ptr<const GroupData> data);
  const GroupData* groupData() const { return m_data.get(); }
  // Re-reads the group now (normally when its runs change, or the budget).
  void reload();
  bool isLoading() const { return m_loading; }

  void setGrouping(const QString& by);  // a parameter key or kGroupByConfiguration
  QString grouping() const;
  void setBudget(double fraction);
  double budget() const;
  void setTradeoffFigures(const Figure& x, const Figure& y);
  Figure tradeoffX() const;
  Figure tradeoffY() const;
  void setTradeoffLog(bool x, bool y);
  void setTradeoffMode(TradeoffMode mode);
  TradeoffMode tradeoffMode() const;
  // The metrics of the fronts and the matched comparison: the learning and forgetting
  // figures' keys when they are evaluation keys (test/... → eval/...), else eval/new/loss and
  // eval/orig/loss.
  gb::experiment::FrontOptions frontOptions() const;
  // The matched level: a value of the learning metric, or std::nullopt for auto (the best
  // level every seed of every plan reaches). Dragging the line on the fronts sets it.
  void setMatchedLevel(std::optional<double> value);
  std::optional<double> matchedLevel() const { return m_level; }
  // The comparison at the level (compare_at on the group's traces); empty without traces.
  const std::optional<gb::experiment::MatchedResult>& matched() const { return m_matched; }
  QString matchedError() const { return m_matchedError; }
  QCustomPlot* frontsPlot() const { return m_fronts; }
  QTableWidget* matchedTable() const { return m_matchedTable; }
  QString matchedLevelText() const;
  void setCurveKey(const QString& key);
  QString curveKey() const;
  void setBandMode(BandMode mode);
  // Parallel-coordinates axes by column id ("param:train.lr", "fig:forgetting:eval/orig/ppl").
  void setParallelAxes(const QStringList& ids);
  QStringList parallelAxes() const { return m_pcAxes; }
  // The table shows one row per group (mean ± std) instead of one per run.
  void setGroupRows(bool groups);
  // Shows or hides a table column by id.
  void setColumnVisible(const QString& columnId, bool visible);
  bool isColumnVisible(const QString& columnId) const;

  QTabWidget* tabs() const { return m_tabs; }
  QTableView* runTable() const { return m_runTable; }
  QTableView* statsTable() const { return m_statsTable; }
  GroupRunModel* runModel() const { return m_runModel; }
  GroupRunProxy* runProxy() const { return m_proxy; }
  // The group statistics, brought up to date with the filter when read.
  GroupStatsModel* statsModel();
  ParallelCoordinates* parallel() const { return m_pc; }
  QCustomPlot* curvesPlot() const { return m_curves; }
  QCustomPlot* tradeoffPlot() const { return m_tradeoff; }
  QTableWidget* choiceTable() const { return m_choice; }
  // The warning about differing evaluation sets ("" when none).
  QString evalWarning() const;
  // Curves: whether the series of the current key are loaded (and drawn).
  bool curvesReady() const;
  // Redraws what is out of date now (normally on showing a tab).
  void refreshNow();
  // Figures drawn in the trade-off (tests): group label → (x mean, y mean).
  QHash<QString, QPointF> tradeoffPoints() const { return m_tradeoffPoints; }
  QStringList budgetMarks() const { return m_budgetMarks; }

 signals:
  void groupLoaded();
  void matchedLevelChanged();
  void curvesLoaded();
  void message(const QString& text);

 private:
  void buildUi();
  void updateGroupList();
  void onSnapshot();
  void onFilterChanged();
  void rebuildAll();
  void rebuildColumns();
  void rebuildStats();
  void rebuildParallel();
  void replotTradeoff();
  void replotFronts();
  void recomputeMatched();
  void updateMatchedLine();
  void updateMatchedTable();
  void updateTradeoffMode();
  bool frontMetricsDiffer() const;
  void replotCurves();
  void requestSeries();
  void fillFigureCombos();
  void updateChoiceTable();
  QMenu* columnMenu();
  QVector<int> acceptedIndices() const;
  gb::experiment::CompareOptions compareOptions() const;

  Session* m_session;
  QString m_group;
  std::shared_ptr<const GroupData> m_data;
  QFutureWatcher<GroupData>* m_loader = nullptr;
  QFutureWatcher<GroupSeries>* m_seriesLoader = nullptr;
  bool m_loading = false;
  bool m_reloadPending = false;
  QString m_fingerprint;
  QTimer m_reloadTimer;
  QHash<QString, GroupSeries> m_series;  // key → series of the group's runs
  QString m_seriesRequested;
  bool m_dirtyCurves = true, m_dirtyTradeoff = true, m_dirtyStats = true;
  QSet<QString> m_userShown, m_userHidden;  // column ids the user toggled
  QStringList m_pcAxes;
  bool m_pcAxesChosen = false;
  QHash<QString, QPointF> m_tradeoffPoints;
  QStringList m_budgetMarks;
  bool m_dirtyFronts = true;
  std::optional<double> m_level;  // std::nullopt: auto
  std::optional<gb::experiment::MatchedResult> m_matched;
  QString m_matchedError;
  bool m_levelDrag = false;

  QComboBox* m_groupCombo = nullptr;
  QComboBox* m_by = nullptr;
  QLineEdit* m_filter = nullptr;
  QToolButton* m_columns = nullptr;
  QLabel* m_status = nullptr;
  QLabel* m_warning = nullptr;
  QTabWidget* m_tabs = nullptr;
  QComboBox* m_rows = nullptr;
  QStackedWidget* m_tableStack = nullptr;
  QTableView* m_runTable = nullptr;
  QTableView* m_statsTable = nullptr;
  GroupRunModel* m_runModel = nullptr;
  GroupRunProxy* m_proxy = nullptr;
  GroupStatsModel* m_stats = nullptr;
  QComboBox* m_curveKey = nullptr;
  QComboBox* m_band = nullptr;
  QCheckBox* m_curveLog = nullptr;
  QCustomPlot* m_curves = nullptr;
  QLabel* m_curvesNote = nullptr;
  ParallelCoordinates* m_pc = nullptr;
  QToolButton* m_pcAxesButton = nullptr;
  QComboBox* m_xFig = nullptr;
  QComboBox* m_yFig = nullptr;
  QCheckBox* m_logX = nullptr;
  QCheckBox* m_logY = nullptr;
  QDoubleSpinBox* m_budget = nullptr;
  QCustomPlot* m_tradeoff = nullptr;
  QLabel* m_tradeoffNote = nullptr;
  QTableWidget* m_choice = nullptr;
  QComboBox* m_tradeoffMode = nullptr;
  QStackedWidget* m_tradeoffStack = nullptr;
  QWidget* m_budgetBox = nullptr;
  QCheckBox* m_points = nullptr;
  QCustomPlot* m_fronts = nullptr;
  QCPItemStraightLine* m_levelLine = nullptr;
  QCPItemText* m_levelLabel = nullptr;
  QCPGraph* m_levelMarks = nullptr;
  QLabel* m_levelInfo = nullptr;
  QToolButton* m_autoLevel = nullptr;
  QLabel* m_frontsNote = nullptr;
  QTableWidget* m_matchedTable = nullptr;
};

}  // namespace gb::gui
