#pragma once
// CompareView: two pages.
// - All runs: every run of the store in a sortable, filterable table (name, variant,
//   layers, trainable share, final forgetting and learning, OP/BWT, duration, status, tags).
//   The selection is overlaid in the Curves view; two selected runs can be diffed spec by
//   spec; tags and notes are edited in place; runs can be deleted; the table exports to CSV.
// - Groups: one run group (seeds, sweep points, plans) compared fairly (GroupCompareView).

#include <QTimer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QTableView;
class QTabWidget;

namespace gb::gui {

class GroupCompareView;
class RunFilterProxy;
class Session;
class SpecDiffModel;

class CompareView : public QWidget {
  Q_OBJECT

 public:
  explicit CompareView(Session* session, QWidget* parent = nullptr);

  QTableView* table() const { return m_table; }
  // The pages: 0 all runs, 1 groups.
  QTabWidget* pages() const { return m_pages; }
  GroupCompareView* groupView() const { return m_groups; }
  RunFilterProxy* proxy() const { return m_proxy; }
  QList<qint64> selectedRuns() const;
  void selectRuns(const QList<qint64>& runIds);
  // Writes the table as shown (filtered, sorted, visible columns; numbers unformatted).
  bool exportCsv(const QString& path, QString* error) const;
  // Opens the side-by-side spec diff of two runs (modal unless `show` is false).
  SpecDiffModel* diffSpecs(qint64 left, qint64 right, bool show = true);
  void setTags(qint64 runId, const QStringList& tags);
  void setNotes(qint64 runId, const QString& notes);
  // Deletes runs (after confirmation when `confirm`).
  bool deleteRuns(const QList<qint64>& runIds, bool confirm = true);

 signals:
  void message(const QString& text);

 private:
  void buildUi();
  void onSelectionChanged();
  void updateTagFilter();

  Session* m_session;
  QTabWidget* m_pages = nullptr;
  GroupCompareView* m_groups = nullptr;
  QLineEdit* m_filter = nullptr;
  QComboBox* m_status = nullptr;
  QComboBox* m_tag = nullptr;
  QTableView* m_table = nullptr;
  RunFilterProxy* m_proxy = nullptr;
  QPushButton* m_diff = nullptr;
  QPushButton* m_delete = nullptr;
  QLineEdit* m_tags = nullptr;
  QPlainTextEdit* m_notes = nullptr;
  QPushButton* m_saveMeta = nullptr;
  QLabel* m_selection = nullptr;
  QTimer m_overlayTimer;
  qint64 m_metaRun = -1;
  SpecDiffModel* m_diffModel = nullptr;
};

}  // namespace gb::gui
