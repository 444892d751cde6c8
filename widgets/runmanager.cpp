#include "runmanager.h"

#include <QDir>

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <variant>
#include <QRegularExpression>

#include <nlohmann/json.hpp>

#include "guiutil.h"
#include "util/events.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace {
// A number of a progress event; absent, NaN (null on the wire) or infinite: the fallback.
double number(const std::optional<double>& v, double fallback = qQNaN()) {
  return v && std::isfinite(*v) ? *v : fallback;
}
}  // namespace

RunManager::RunManager(QObject* parent) : QObject(parent) {
  qRegisterMetaType<gb::gui::LiveProgress>();
}

RunManager::~RunManager() {
  // Jobs still running are cancelled cleanly (SIGTERM: status cancelled, checkpoint kept);
  // CliJob's destructor waits briefly and kills as a last resort.
  for (auto& j : m_jobs) {
    if (j.process) j.process->cancel();
  }
}

void RunManager::setStore(const QString& dbPath, const QString& workspaceDir) {
  m_db = dbPath;
  m_workspace = workspaceDir;
}

void RunManager::setMaxParallel(int n) {
  m_maxParallel = std::max(1, n);
  schedule();
}

int RunManager::enqueueSpec(const QString& specPath, const QString& label, int processes,
                            int jobs) {
  RunJob j;
  j.id = m_nextId++;
  j.label = label;
  j.specPath = specPath;
  // JSON events whatever the worker's stdout is (a pipe: its default too).
  j.arguments = {u"run"_s, specPath, u"--db"_s, m_db, u"--events"_s, u"json"_s};
  if (!m_workspace.isEmpty()) j.arguments << u"--workspace"_s << m_workspace;
  if (processes > 1) {
    j.arguments << u"--nproc-per-node"_s << QString::number(processes);
  } else if (jobs > 1) {
    j.arguments << u"--jobs"_s << QString::number(jobs);
  }
  m_jobs.push_back(j);
  emit jobsChanged();
  schedule();
  return j.id;
}

int RunManager::enqueueResume(qint64 runId, const QString& label) {
  RunJob j;
  j.id = m_nextId++;
  j.label = label;
  j.resumeRunId = runId;
  j.arguments = {u"run"_s,      u"--resume"_s, QString::number(runId), u"--db"_s, m_db,
                 u"--events"_s, u"json"_s};
  if (!m_workspace.isEmpty()) j.arguments << u"--workspace"_s << m_workspace;
  m_jobs.push_back(j);
  emit jobsChanged();
  schedule();
  return j.id;
}

RunJob* RunManager::findJob(int jobId) {
  for (auto& j : m_jobs) {
    if (j.id == jobId) return &j;
  }
  return nullptr;
}

const RunJob* RunManager::job(int jobId) const {
  for (const auto& j : m_jobs) {
    if (j.id == jobId) return &j;
  }
  return nullptr;
}

const RunJob* RunManager::jobOfRun(qint64 runId) const {
  for (const auto& j : m_jobs) {
    if (j.runIds.contains(runId) || j.resumeRunId == runId) return &j;
  }
  return nullptr;
}

int RunManager::activeCount() const {
  int n = 0;
  for (const auto& j : m_jobs) {
    if (j.state == RunJob::State::Queued || j.state == RunJob::State::Running) ++n;
  }
  return n;
}

void RunManager::cancelJob(int jobId) {
  RunJob* j = findJob(jobId);
  if (!j) return;
  if (j->state == RunJob::State::Queued) {
    j->state = RunJob::State::Cancelled;
    emit jobsChanged();
    schedule();
  } else if (j->state == RunJob::State::Running && j->process) {
    j->process->cancel();
  }
}

bool RunManager::cancelRun(qint64 runId) {
  const RunJob* j = jobOfRun(runId);
  if (!j) return false;
  cancelJob(j->id);
  return true;
}

void RunManager::cancelAll() {
  for (auto& j : m_jobs) cancelJob(j.id);
}

void RunManager::removeFinished() {
  const auto before = m_jobs.size();
  m_jobs.erase(std::remove_if(m_jobs.begin(), m_jobs.end(),
                              [](const RunJob& j) {
                                return j.state != RunJob::State::Queued &&
                                       j.state != RunJob::State::Running;
                              }),
               m_jobs.end());
  if (m_jobs.size() != before) emit jobsChanged();
}

QString RunManager::runLog(qint64 runId) const {
  const RunJob* j = jobOfRun(runId);
  QString log = j ? j->preamble : QString();
  return log + m_logs.value(runId);
}

QString RunManager::commandLine(int jobId) const {
  const RunJob* j = job(jobId);
  if (!j) return {};
  QStringList parts;
  const QString prog = m_program.isEmpty() ? findCli() : m_program;
  for (const QString& a : QStringList{prog} + j->arguments) {
    // POSIX shell quoting for display (the GUI itself never goes through a shell).
    if (!a.isEmpty() && a.indexOf(QRegularExpression(u"[^A-Za-z0-9_./:=@%+-]"_s)) < 0) {
      parts << a;
    } else {
      QString q = a;
      q.replace(u"'"_s, u"'\\''"_s);
      parts << u"'"_s + q + u"'"_s;
    }
  }
  return parts.join(QLatin1Char(' '));
}

void RunManager::schedule() {
  int running = 0;
  for (const auto& j : m_jobs) {
    if (j.state == RunJob::State::Running) ++running;
  }
  for (auto& j : m_jobs) {
    if (running >= m_maxParallel) break;
    if (j.state == RunJob::State::Queued) {
      startJob(j);
      ++running;
    }
  }
}

void RunManager::startJob(RunJob& job) {
  auto* p = new CliJob(this);
  if (!m_program.isEmpty()) p->setProgram(m_program);
  p->setKillTimeout(30000);
  job.process = p;
  job.state = RunJob::State::Running;
  const int id = job.id;
  connect(p, &CliJob::stdoutLine, this, [this, id](const QByteArray& l) { onStdout(id, l); });
  connect(p, &CliJob::stderrLine, this, [this, id](const QString& l) { onStderr(id, l); });
  connect(p, &CliJob::finished, this,
          [this, id](int code, bool crashed) { onFinished(id, code, crashed); });
  connect(p, &CliJob::failed, this, [this, id](const QString& msg) {
    if (RunJob* j = findJob(id)) {
      j->state = RunJob::State::Failed;
      j->error = msg;
    }
    emit errorOccurred(msg);
    emit jobsChanged();
    schedule();
  });
  emit jobsChanged();
  if (job.resumeRunId >= 0) {
    job.runIds.push_back(job.resumeRunId);
    job.currentRun = job.resumeRunId;
  }
  p->start(job.arguments);
}

void RunManager::onStdout(int jobId, const QByteArray& line) {
  RunJob* j = findJob(jobId);
  if (!j || line.trimmed().isEmpty()) return;
  const nlohmann::json o =
      nlohmann::json::parse(line.constData(), line.constData() + line.size(), nullptr, false);
  if (!o.is_object()) {
    onStderr(jobId, QString::fromUtf8(line));
    return;
  }
  events::Event event;
  try {
    event = events::parse(o);
  } catch (const std::exception& e) {
    onStderr(jobId, QString::fromUtf8(line));
    onStderr(jobId, tr("unreadable progress line: %1").arg(QString::fromUtf8(e.what())));
    return;
  }
  const qint64 run = events::run_of(event).value_or(j->currentRun);
  auto logLine = [&](const QString& text) {
    if (run >= 0) {
      m_logs[run] += u"» "_s + text + QLatin1Char('\n');
      emit logAppended(run, u"» "_s + text);
    } else {
      j->preamble += u"» "_s + text + QLatin1Char('\n');
      emit logAppended(-1, u"» "_s + text);
    }
  };
  if (std::holds_alternative<events::RunStarted>(event)) {
    j->currentRun = run;
    if (!j->runIds.contains(run)) {
      // In the spec's order (with --jobs the runs start side by side, in any order).
      j->runIds.push_back(run);
      std::sort(j->runIds.begin(), j->runIds.end());
    }
    emit jobsChanged();
    emit runStarted(run);
    emit storeChanged();
  } else if (const auto* e = std::get_if<events::Progress>(&event)) {
    LiveProgress p;
    p.stage = QString::fromStdString(e->stage);
    p.step = e->step.value_or(-1);
    p.total = e->total.value_or(0);
    p.fraction = number(e->fraction, -1);
    p.loss = number(e->loss);
    p.lr = number(e->lr);
    p.tokensPerS = number(e->tokens_per_s);
    p.etaS = number(e->eta_s, -1);
    if (run >= 0) emit progress(run, p);
  } else if (const auto* e = std::get_if<events::RunFinished>(&event)) {
    emit runFinished(run, QString::fromStdString(e->status), QString::fromStdString(e->error));
    emit storeChanged();
  } else if (const auto* e = std::get_if<events::Stage>(&event)) {
    const QString stage = QString::fromStdString(e->stage);
    logLine(tr("stage: %1").arg(stage));
    if (run < 0) {
      // Preset building and data preparation: show it as the progress of every run of the
      // job (they are all waiting for it).
      LiveProgress p;
      p.stage = stage;
      for (qint64 r : j->runIds) emit progress(r, p);
    }
  } else if (const auto* e = std::get_if<events::Eval>(&event)) {
    logLine(tr("evaluated at step %1").arg(static_cast<double>(e->step)));
    emit storeChanged();
  } else if (const auto* e = std::get_if<events::Checkpoint>(&event)) {
    logLine(tr("checkpoint at step %1: %2")
                .arg(static_cast<double>(e->step))
                .arg(QString::fromStdString(e->path)));
  } else if (std::holds_alternative<events::Grown>(event)) {
    logLine(tr("model grown"));
  } else if (const auto* e = std::get_if<events::Done>(&event)) {
    j->exitCode = e->exit_code;
  }
}

void RunManager::onStderr(int jobId, const QString& line) {
  RunJob* j = findJob(jobId);
  if (!j) return;
  if (j->currentRun >= 0) {
    m_logs[j->currentRun] += line + QLatin1Char('\n');
    // Keep logs bounded (long runs print a line per logging interval).
    QString& log = m_logs[j->currentRun];
    if (log.size() > 2'000'000) log.remove(0, log.size() - 1'500'000);
  } else {
    j->preamble += line + QLatin1Char('\n');
  }
  emit logAppended(j->currentRun, line);
}

void RunManager::onFinished(int jobId, int exitCode, bool crashed) {
  RunJob* j = findJob(jobId);
  if (!j) return;
  j->exitCode = exitCode;
  const bool cancelled = j->process && j->process->wasCancelled();
  if (cancelled || exitCode == 130) {
    j->state = RunJob::State::Cancelled;
  } else if (exitCode == 0 && !crashed) {
    j->state = RunJob::State::Finished;
  } else {
    j->state = RunJob::State::Failed;
    j->error = crashed ? tr("growbench-cli crashed (exit status %1)").arg(exitCode)
                       : (j->process ? j->process->errorSummary() : QString());
  }
  if (j->process) j->process->deleteLater();
  j->process = nullptr;
  emit jobFinished(jobId, exitCode);
  emit jobsChanged();
  emit storeChanged();
  schedule();
}

// ---------------------------------------------------------------------------------------

JobQueueModel::JobQueueModel(RunManager* manager, QObject* parent)
    : QAbstractTableModel(parent), m_manager(manager) {
  m_rows = static_cast<int>(manager->jobs().size());
  connect(manager, &RunManager::jobsChanged, this, &JobQueueModel::sync);
}

void JobQueueModel::sync() {
  const int n = static_cast<int>(m_manager->jobs().size());
  if (n < m_rows) {
    beginResetModel();
    m_rows = n;
    endResetModel();
    return;
  }
  if (n > m_rows) {
    beginInsertRows({}, m_rows, n - 1);
    m_rows = n;
    endInsertRows();
  }
  if (m_rows > 0) emit dataChanged(index(0, 0), index(m_rows - 1, ColumnCount - 1));
}

int JobQueueModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : m_rows;
}

int JobQueueModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant JobQueueModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Label:
      return tr("Job");
    case State:
      return tr("State");
    case Runs:
      return tr("Runs");
    default:
      return {};
  }
}

QVariant JobQueueModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) {
    return {};
  }
  const RunJob& j = m_manager->jobs().at(index.row());
  if (role == JobIdRole) return j.id;
  if (role == Qt::ToolTipRole) return j.error.isEmpty() ? j.label : j.error;
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case Label:
      return j.label;
    case State:
      switch (j.state) {
        case RunJob::State::Queued:
          return tr("queued");
        case RunJob::State::Running:
          return tr("running");
        case RunJob::State::Finished:
          return tr("finished");
        case RunJob::State::Failed:
          return tr("failed");
        case RunJob::State::Cancelled:
          return tr("cancelled");
      }
      return {};
    case Runs: {
      QStringList ids;
      for (qint64 r : j.runIds) ids << QString::number(r);
      return ids.join(u", "_s);
    }
    default:
      return {};
  }
}

}  // namespace gb::gui
