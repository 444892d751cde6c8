#pragma once
// RunsView: launch runs (data, steps, learning rate, batch, sequence length, device, seed,
// evaluation interval; the plans queued in the Grow planner or its current plan), the job
// queue, every run of the store with status colours and progress bars (ETA, tokens/s),
// cancel and resume, and a per-run log pane (the worker's stderr for runs this GUI started,
// the stored events for the others).

#include <QItemDelegate>
#include <QStyledItemDelegate>
#include <QWidget>

#include <functional>

#include <nlohmann/json.hpp>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableView;

namespace gb::gui {

class CliJob;
class JobQueueModel;
class RunFilterProxy;
class Session;
class SweepEditor;

// Paints the Progress column as a progress bar with the model's ProgressTextRole.
class ProgressDelegate : public QStyledItemDelegate {
  Q_OBJECT

 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void paint(QPainter* painter, const QStyleOptionViewItem& option,
             const QModelIndex& index) const override;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

// What RunsView::exportRun writes: the run's model at its latest checkpoint as a Hugging
// Face folder (LoRA merged) or as a PEFT LoRA adapter folder (`growbench-cli export --run`),
// or its metrics as TensorBoard event files, CSV or JSONL (`growbench-cli runs export`).
enum class RunExport { HuggingFace, Peft, TensorBoard, Csv, Jsonl };

struct LaunchSettings {
  QString name = QStringLiteral("experiment");
  QString trainData, newEvalData, origEvalData;
  int steps = 100;
  double lr = 3e-4;
  int batchSize = 8;
  int seqLen = 128;
  QString device = QStringLiteral("cpu");
  int seed = 0;
  int evalInterval = 50;
  int evalTokens = 8192;
  int processes = 1;  // data-parallel worker processes on this machine
  int jobs = 1;       // runs of the spec side by side, each in its own worker (--jobs)
};

class RunsView : public QWidget {
  Q_OBJECT

 public:
  explicit RunsView(Session* session, QWidget* parent = nullptr);

  // Where the plans of a launch come from: the queued comparison, else this (the Grow
  // planner's current plan).
  void setCurrentPlanProvider(std::function<nlohmann::json()> provider) {
    m_currentPlan = std::move(provider);
  }

  LaunchSettings settings() const;
  void setSettings(const LaunchSettings& s);
  // Builds the experiment spec of the form (validated with the core's parser); empty and
  // `error` set when invalid.
  nlohmann::json buildSpec(QString* error) const;
  // The seeds and sweep section of the form.
  SweepEditor* sweepEditor() const { return m_sweep; }
  // How many runs the form's spec expands to (experiment::expand_runs); -1 and `error`
  // when the spec is not valid yet.
  int expectedRunCount(QString* error) const;
  // The form's spec without the checks (for the experiment editor).
  nlohmann::json draftSpec() const;
  // Writes the spec to the workspace and queues a worker; the job id or -1.
  int launch();
  int launchSpecFile(const QString& path);
  bool cancelRun(qint64 runId);
  bool resumeRun(qint64 runId);
  // A stopped run without a checkpoint, from the beginning.
  bool restartRun(qint64 runId);
  QList<qint64> selectedRuns() const;
  // Exports run `runId` to `out` (a folder for the model, PEFT and TensorBoard formats, a
  // file for CSV and JSONL) through growbench-cli; false (and a message) when the run cannot
  // be exported that way or another export is still running. `exportFinished` follows.
  bool exportRun(qint64 runId, RunExport kind, const QString& out);
  // Why run `runId` cannot be exported as `kind` (empty when it can): no checkpoint, not a
  // LoRA run.
  QString exportRefusal(qint64 runId, RunExport kind) const;
  QTableView* table() const { return m_table; }
  QPlainTextEdit* logPane() const { return m_log; }
  QString lastMessage() const { return m_message; }
  void selectRun(qint64 runId);

 signals:
  void showCurvesRequested(const QList<qint64>& runIds);
  void message(const QString& text);
  // The launch form's spec (as far as it is filled in), to edit in the experiment editor.
  void editSpecRequested(const nlohmann::json& spec);
  // A stored run's spec as the starting point of a new experiment.
  void editRunSpecRequested(qint64 runId);
  // An export started by exportRun ended; `message` says where it went or why it failed.
  void exportFinished(qint64 runId, bool ok, const QString& message);

 private:
  // Asks where to write run `runId` as `kind`, then exports it.
  void askAndExport(qint64 runId, RunExport kind);
  bool enqueueStoppedRun(qint64 runId, bool fromCheckpoint);
  void buildUi();
  void showLogOf(qint64 runId);
  void updatePlansLabel();
  void updateButtons();
  void setMessage(const QString& text);
  void updateRunCount();

  Session* m_session;
  std::function<nlohmann::json()> m_currentPlan;
  CliJob* m_exportJob = nullptr;
  qint64 m_exportRun = -1;
  QString m_exportOut;
  QLineEdit* m_name = nullptr;
  QLabel* m_model = nullptr;
  QLabel* m_plans = nullptr;
  QLineEdit* m_train = nullptr;
  QLineEdit* m_newEval = nullptr;
  QLineEdit* m_origEval = nullptr;
  QSpinBox* m_steps = nullptr;
  QDoubleSpinBox* m_lr = nullptr;
  QSpinBox* m_batch = nullptr;
  QSpinBox* m_seqLen = nullptr;
  QComboBox* m_device = nullptr;
  QSpinBox* m_seed = nullptr;
  QSpinBox* m_evalInterval = nullptr;
  QSpinBox* m_evalTokens = nullptr;
  QSpinBox* m_processes = nullptr;
  QSpinBox* m_jobs = nullptr;
  SweepEditor* m_sweep = nullptr;
  QPushButton* m_launch = nullptr;
  QLineEdit* m_filter = nullptr;
  QComboBox* m_statusFilter = nullptr;
  QTableView* m_table = nullptr;
  RunFilterProxy* m_proxy = nullptr;
  QTableView* m_queue = nullptr;
  JobQueueModel* m_queueModel = nullptr;
  QPushButton* m_cancel = nullptr;
  QPushButton* m_resume = nullptr;
  QPushButton* m_restart = nullptr;
  QPushButton* m_curves = nullptr;
  QPlainTextEdit* m_log = nullptr;
  QLabel* m_logTitle = nullptr;
  qint64 m_logRun = -1;
  qint64 m_lastEventId = 0;
  double m_logRunCreated = 0;  // when the run shown was created (0: not known)
  QString m_message;
};

}  // namespace gb::gui
