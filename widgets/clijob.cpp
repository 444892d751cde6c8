#include "clijob.h"

#include <QCoreApplication>
#include <QFileInfo>

#include "guiutil.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

CliJob::CliJob(QObject* parent) : QObject(parent) {
  m_killTimer.setSingleShot(true);
  m_killTimer.setInterval(10000);
  connect(&m_killTimer, &QTimer::timeout, this, [this] {
    if (m_process && m_process->state() != QProcess::NotRunning) m_process->kill();
  });
}

CliJob::~CliJob() {
  if (m_process && m_process->state() != QProcess::NotRunning) {
    m_process->disconnect(this);
    m_process->terminate();
    if (!m_process->waitForFinished(3000)) {
      m_process->kill();
      m_process->waitForFinished(1000);
    }
  }
}

QString CliJob::program() const {
  return m_program.isEmpty() ? findCli() : m_program;
}

bool CliJob::start(const QStringList& arguments) {
  if (isRunning()) {
    emit failed(tr("A growbench-cli job is already running."));
    return false;
  }
  const QString prog = program();
  if (prog.isEmpty() || !QFileInfo(prog).isExecutable()) {
    emit failed(
        tr("growbench-cli was not found next to growbench or in PATH. Set "
           "GROWBENCH_CLI to its path."));
    return false;
  }
  if (m_process) m_process->deleteLater();
  m_process = new QProcess(this);
  m_args = arguments;
  m_stdout.clear();
  m_stderr.clear();
  m_stdoutPartial.clear();
  m_stderrPartial.clear();
  m_cancelled = false;
  m_process->setProgram(prog);
  m_process->setArguments(arguments);
  m_process->setProcessChannelMode(QProcess::SeparateChannels);
  connect(m_process, &QProcess::readyReadStandardOutput, this, [this] { drainStdout(false); });
  connect(m_process, &QProcess::readyReadStandardError, this, [this] { drainStderr(false); });
  connect(m_process, &QProcess::started, this, &CliJob::started);
  connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
    if (e == QProcess::FailedToStart) {
      emit failed(tr("Could not start %1: %2").arg(m_process->program(), m_process->errorString()));
    }
  });
  connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
    m_killTimer.stop();
    drainStdout(true);
    drainStderr(true);
    emit finished(code, status == QProcess::CrashExit);
  });
  m_process->start();
  return true;
}

void CliJob::cancel() {
  if (!isRunning()) return;
  m_cancelled = true;
  m_process->terminate();  // SIGTERM: growbench-cli cancels cleanly
  m_killTimer.start();
}

bool CliJob::isRunning() const {
  return m_process && m_process->state() != QProcess::NotRunning;
}

QString CliJob::errorSummary() const {
  const QStringList lines = m_stderr.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  for (auto it = lines.crbegin(); it != lines.crend(); ++it) {
    if (it->contains(u"error"_s, Qt::CaseInsensitive)) return userErrorMessage(*it);
  }
  return lines.isEmpty() ? QString() : userErrorMessage(lines.last());
}

void CliJob::drainStdout(bool all) {
  if (!m_process) return;
  m_stdoutPartial += m_process->readAllStandardOutput();
  int nl;
  while ((nl = m_stdoutPartial.indexOf('\n')) >= 0) {
    QByteArray line = m_stdoutPartial.left(nl);
    m_stdoutPartial.remove(0, nl + 1);
    m_stdout += line;
    m_stdout += '\n';
    emit stdoutLine(line);
  }
  if (all && !m_stdoutPartial.isEmpty()) {
    m_stdout += m_stdoutPartial;
    emit stdoutLine(m_stdoutPartial);
    m_stdoutPartial.clear();
  }
}

void CliJob::drainStderr(bool all) {
  if (!m_process) return;
  m_stderrPartial += m_process->readAllStandardError();
  int nl;
  while ((nl = m_stderrPartial.indexOf('\n')) >= 0) {
    const QString line = QString::fromUtf8(m_stderrPartial.left(nl));
    m_stderrPartial.remove(0, nl + 1);
    m_stderr += line + QLatin1Char('\n');
    emit stderrLine(line);
  }
  if (all && !m_stderrPartial.isEmpty()) {
    const QString line = QString::fromUtf8(m_stderrPartial);
    m_stderr += line;
    emit stderrLine(line);
    m_stderrPartial.clear();
  }
}

}  // namespace gb::gui
