#pragma once
// RunTableModel: the runs of the open store, one row per run, for the Runs and Compare
// views; RunFilterProxy sorts and filters it (text, status, tag). Rows are updated in place
// from StoreService snapshots (inserted, removed, changed), so selections survive polling.

#include <QAbstractTableModel>
#include <QHash>
#include <QSortFilterProxyModel>
#include <QVector>

#include "storeservice.h"

namespace gb::gui {

// Live progress of a run whose worker the GUI started (from its stdout progress lines).
struct LiveProgress {
  QString stage;  // "train", "probe/masking", "preset", ...
  qint64 step = -1;
  qint64 total = 0;
  double fraction = -1;  // 0..1 when known
  double loss = qQNaN();
  double lr = qQNaN();
  double tokensPerS = qQNaN();
  double etaS = -1;
};

class RunTableModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column {
    Id,
    Name,
    Variant,
    Layers,
    TrainableShare,
    Forgetting,
    Learning,
    Op,
    Bwt,
    Duration,
    Processes,  // data-parallel world size and backend
    Status,
    Progress,
    Tags,
    ColumnCount
  };
  enum Role {
    RunIdRole = Qt::UserRole + 1,
    SortRole,
    StatusRole,            // int(gb::store::RunStatus)
    ProgressFractionRole,  // double 0..1, or -1
    ProgressTextRole,      // "120 / 150 · 812 tok/s · ETA 12 s"
  };

  explicit RunTableModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  // Applies a snapshot: rows of removed runs go, new runs are inserted, the rest change.
  void setSnapshot(const RunSnapshot& snapshot);
  void setLiveProgress(qint64 runId, const LiveProgress& progress);
  void clearLiveProgress(qint64 runId);
  void clear();

  int rowOfRun(qint64 runId) const;
  const RunRow* run(qint64 runId) const;
  const RunRow& runAt(int row) const { return m_rows.at(row); }
  QVector<qint64> runIds() const;
  // Evaluated after step 0 but not finished: its figures are marked with their step.
  static bool isPartial(const RunRow& r);

 private:
  QVariant display(const RunRow& r, int column) const;
  QVariant sortValue(const RunRow& r, int column) const;
  double progressFraction(const RunRow& r) const;
  QString progressText(const RunRow& r) const;

  QVector<RunRow> m_rows;  // by run id ascending
  QHash<qint64, int> m_rowOf;
  QHash<qint64, LiveProgress> m_live;
};

class RunFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit RunFilterProxy(QObject* parent = nullptr);
  void setText(const QString& text);  // substring of name, variant, layers or tags
  void setStatus(int status);         // int(RunStatus), or -1 for all
  void setTag(const QString& tag);    // empty: any

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;
  bool lessThan(const QModelIndex& left, const QModelIndex& right) const override;

 private:
  QString m_text;
  int m_status = -1;
  QString m_tag;
};

}  // namespace gb::gui
