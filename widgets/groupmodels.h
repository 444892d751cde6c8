#pragma once
// Item models of the grouped compare view:
// - GroupRunModel: one row per run of a group; columns: id, name, status, group (by the
//   current grouping), every flattened hyper-parameter, the figures (forgetting as a
//   relative change, forgetting at matched learning, learning as the final value of the
//   learning metric (the new domain's absolute loss by default), learning as a relative
//   change) and the final value of every other metric key. Hidden/shown by the view's column
//   chooser.
// - GroupRunProxy: sorts (numbers numerically, runs without a figure last) and filters by
//   text and by the set of runs the parallel-coordinates brushes let through.
// - GroupStatsModel: one row per group (configuration or parameter value): its runs, how
//   many are complete, and mean ± std of every figure over the complete runs; forgetting at
//   matched learning over the group's seeds (matchedFigure).

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <memory>
#include <optional>

#include "groupdata.h"

namespace gb::gui {

class GroupRunModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Role {
    RunIdRole = Qt::UserRole + 1,
    SortRole,      // double for numbers (NaN → +inf so that they sort last), else text
    ColumnIdRole,  // header: "id", "name", "status", "group", "param:KEY", "fig:FIGURE-ID"
    PartialRole,   // bool: the figure is partial (run not finished)
  };
  enum FixedColumn { Id, Name, Status, Group, FixedCount };

  explicit GroupRunModel(QObject* parent = nullptr);

  void setGroupData(std::shared_ptr<const GroupData> data);
  const GroupData* groupData() const { return m_data.get(); }
  // Labels of the Group column (by a parameter key or kGroupByConfiguration).
  void setGrouping(const QString& by);
  QString grouping() const { return m_by; }
  // The level of the forgetting-at-matched-learning column (std::nullopt: no traces); each
  // run's own figure at it (matchedFigure over the run alone) is computed here once.
  void setMatchedLevel(const std::optional<MatchedLevel>& level);
  const std::optional<MatchedLevel>& matchedLevel() const { return m_level; }
  // A run's figure at the level (nullptr without a level).
  const MatchedFigure* matchedFigureAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  // Column of an id ("param:train.lr", "fig:final:eval/new/loss"); -1 when absent.
  int columnOf(const QString& columnId) const;
  QString columnId(int column) const;
  // The figures shown as columns (forgetting, learning, then every final metric).
  const QVector<Figure>& figures() const { return m_figures; }
  qint64 runIdAt(int row) const;

 private:
  std::shared_ptr<const GroupData> m_data;
  QString m_by;
  QVector<Figure> m_figures;
  QVector<QString> m_groupLabel;  // per run row
  std::optional<MatchedLevel> m_level;
  QVector<MatchedFigure> m_matched;  // per run row, at m_level
  void computeMatched();
};

class GroupRunProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit GroupRunProxy(QObject* parent = nullptr);
  // Substring of the name, the group label or any parameter value (case-insensitive).
  void setText(const QString& text);
  QString text() const { return m_text; }
  // Only these runs (parallel-coordinates brushes); std::nullopt: every run.
  void setAllowedRuns(const std::optional<QSet<qint64>>& runs);
  // Runs of the source accepted by the filter, in source order.
  QVector<qint64> acceptedRuns() const;

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  QString m_text;
  std::optional<QSet<qint64>> m_allowed;
};

class GroupStatsModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Role { SortRole = Qt::UserRole + 1, MeanRole, StdRole, CountRole };
  enum FixedColumn { Label, Runs, FixedCount };

  explicit GroupStatsModel(QObject* parent = nullptr);
  // Groups the runs (indices into data->runs; every run when std::nullopt) by `by`; one
  // column per figure; a Matched figure at `level` (none without).
  void setGroups(std::shared_ptr<const GroupData> data, const QString& by,
                 const std::optional<QVector<int>>& runIndices, const QVector<Figure>& figures,
                 const std::optional<MatchedLevel>& level = std::nullopt);
  const QVector<RunGroup>& groups() const { return m_groups; }
  const FigureStat& stat(int row, int figure) const { return m_stats[row][figure]; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::shared_ptr<const GroupData> m_data;
  QVector<RunGroup> m_groups;
  QVector<Figure> m_figures;
  QVector<QVector<FigureStat>> m_stats;
  std::optional<MatchedLevel> m_level;
  QHash<QPair<int, int>, MatchedFigure> m_matched;  // (row, figure) of Matched figures
};

// Column header and header tooltip of a figure (both tables).
QString figureHeader(const GroupData& data, const Figure& figure,
                     const std::optional<MatchedLevel>& level, bool tooltip);

// "1.234 ± 0.05" (or "–" without runs); accuracy-like figures keep 4 significant digits.
QString meanStdText(const FigureStat& s);

}  // namespace gb::gui
