#pragma once
// CliJob: one growbench-cli process (inspect, probe, grow, generate, --version) started with
// QProcess from a program path and an argument list (never a shell string). Stdout and
// stderr arrive line by line; cancel() asks the worker to stop (SIGTERM, which growbench-cli
// handles as a clean cancel) and kills it if it has not exited after a grace period.

#include <QByteArray>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTimer>

namespace gb::gui {

class CliJob : public QObject {
  Q_OBJECT

 public:
  explicit CliJob(QObject* parent = nullptr);
  ~CliJob() override;

  // Program to run; default findCli().
  void setProgram(const QString& program) { m_program = program; }
  QString program() const;
  // Starts the process; false (and `failed`) when growbench-cli is missing or a job runs.
  bool start(const QStringList& arguments);
  void cancel();
  bool isRunning() const;
  bool wasCancelled() const { return m_cancelled; }
  const QByteArray& standardOutput() const { return m_stdout; }
  const QString& standardError() const { return m_stderr; }
  QStringList arguments() const { return m_args; }
  // The last stderr line that reads like an error ("growbench-cli probe: error: ..."), or
  // the last non-empty line.
  QString errorSummary() const;
  // Grace period between SIGTERM and SIGKILL (default 10 s).
  void setKillTimeout(int ms) { m_killTimer.setInterval(ms); }

 signals:
  void started();
  void stdoutLine(const QByteArray& line);
  void stderrLine(const QString& line);
  // exitCode: the process's exit code; crashed: it died from a signal.
  void finished(int exitCode, bool crashed);
  void failed(const QString& message);

 private:
  void drainStdout(bool all);
  void drainStderr(bool all);

  QString m_program;
  QStringList m_args;
  QProcess* m_process = nullptr;
  QByteArray m_stdout, m_stdoutPartial, m_stderrPartial;
  QString m_stderr;
  QTimer m_killTimer;
  bool m_cancelled = false;
};

}  // namespace gb::gui
