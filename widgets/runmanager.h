#pragma once
// RunManager: the queue of `growbench-cli run` workers the GUI starts. Each job is one
// experiment spec (one run per plan) or one resume; jobs run one at a time by default (the
// development machines have two cores). Progress lines (JSON, one per line) on the worker's
// stdout become LiveProgress per run; its stderr (spdlog) is kept per run for the log pane.
// Results are read from the store, never from the pipe.

#include <QAbstractTableModel>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QVector>

#include "clijob.h"
#include "runtablemodel.h"

namespace gb::gui {

struct RunJob {
  enum class State { Queued, Running, Finished, Failed, Cancelled };
  int id = 0;
  QString label;     // what the queue shows
  QString specPath;  // empty for a resume
  qint64 resumeRunId = -1;
  QStringList arguments;  // of growbench-cli
  State state = State::Queued;
  QVector<qint64> runIds;  // runs the worker reported (run_started)
  qint64 currentRun = -1;
  QString preamble;  // log lines before the first run started (preset, data)
  QString error;
  int exitCode = 0;
  QPointer<CliJob> process;
};

class RunManager : public QObject {
  Q_OBJECT

 public:
  explicit RunManager(QObject* parent = nullptr);
  ~RunManager() override;

  void setStore(const QString& dbPath, const QString& workspaceDir);
  void setCliProgram(const QString& program) { m_program = program; }
  void setMaxParallel(int n);
  int maxParallel() const { return m_maxParallel; }

  // processes > 1: a data-parallel run of that many local workers (--nproc-per-node);
  // jobs > 1: that many of the spec's runs side by side (--jobs; not with processes > 1).
  int enqueueSpec(const QString& specPath, const QString& label, int processes = 1, int jobs = 1);
  int enqueueResume(qint64 runId, const QString& label);
  void cancelJob(int jobId);
  // Cancels the job that runs `runId` (the whole job: its later plans are cancelled too).
  bool cancelRun(qint64 runId);
  void cancelAll();
  void removeFinished();

  const QVector<RunJob>& jobs() const { return m_jobs; }
  const RunJob* job(int jobId) const;
  const RunJob* jobOfRun(qint64 runId) const;
  int activeCount() const;  // running + queued
  QString runLog(qint64 runId) const;
  // The command line a terminal would use for a job (for "copy command").
  QString commandLine(int jobId) const;

 signals:
  void jobsChanged();
  void progress(qint64 runId, const gb::gui::LiveProgress& progress);
  void runStarted(qint64 runId);
  void runFinished(qint64 runId, const QString& status, const QString& error);
  void logAppended(qint64 runId, const QString& line);
  void jobFinished(int jobId, int exitCode);
  void storeChanged();
  void errorOccurred(const QString& message);

 private:
  void schedule();
  void startJob(RunJob& job);
  void onStdout(int jobId, const QByteArray& line);
  void onStderr(int jobId, const QString& line);
  void onFinished(int jobId, int exitCode, bool crashed);
  RunJob* findJob(int jobId);

  QVector<RunJob> m_jobs;
  QHash<qint64, QString> m_logs;  // per run
  QString m_db, m_workspace, m_program;
  int m_nextId = 1;
  int m_maxParallel = 1;
};

// The job queue as a table: label, state, runs.
class JobQueueModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Column { Label, State, Runs, ColumnCount };
  enum Role { JobIdRole = Qt::UserRole + 1 };
  explicit JobQueueModel(RunManager* manager, QObject* parent = nullptr);
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  void sync();
  RunManager* m_manager;
  int m_rows = 0;
};

}  // namespace gb::gui

Q_DECLARE_METATYPE(gb::gui::LiveProgress)
