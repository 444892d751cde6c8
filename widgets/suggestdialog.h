#pragma once
// SuggestDialog: "Suggest a plan…" of the Grow planner. A form prefilled from the workspace
// (the model, the new-domain and original-domain data of the Runs view's launch form, the
// workspace's run store) with the forgetting, parameter and time budgets; it runs
// `growbench-cli suggest ... --json <tmp> --db <store>` in a worker (CliJob), shows the
// search's progress (elapsed time against the time budget, the run and step of the worker's
// progress events), can cancel it (the search continues when it is started again with the
// same fields, like any experiment), and when it ends shows the recommendation and hands
// its plan and rate to the planner (recommendationReady). docs/suggest.md describes the
// search and its JSON.

#include <QDialog>
#include <QElapsedTimer>
#include <QString>
#include <QStringList>
#include <QTimer>

#include <nlohmann/json.hpp>

class QComboBox;
class QGroupBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QSpinBox;

namespace gb::gui {

class CliJob;

// The fields of a search, as typed.
struct SuggestSettings {
  QString model;  // a model folder
  QString newData, originalData;
  QString format = QStringLiteral("text");  // text, fortunes or jsonl
  QString forgetting = QStringLiteral("5%");
  QString params = QStringLiteral("10%");
  QString time = QStringLiteral("30m");
  int steps = 200;
  int maxCandidates = 0;  // 0: as many as the time affords
  QString db;             // the run store
};

// The growbench-cli arguments (without the program) of a search writing its result to
// `jsonOut`; empty, with `error` set to a message for the user, when a field is not valid
// (nothing missing, paths that exist, budgets that are percentages, a duration).
QStringList suggestArguments(const SuggestSettings& settings, const QString& jsonOut,
                             QString* error);
// "5", "5%", "2.5 %" → the percentage (5, 5, 2.5); false unless a number ≥ 0.
bool parsePercentField(const QString& text, double* percent);

// The recommendation of a `suggest --json` result (docs/suggest.md).
struct SuggestResult {
  bool ok = false;
  QString error;  // why not ok
  QString label;
  nlohmann::json plan;
  double lr = 0;
  qint64 run = 0, step = 0, steps = 0;
  bool withinBudget = false;
  double valLearning = qQNaN(), valForgetting = qQNaN();
  double testLearning = qQNaN(), testForgetting = qQNaN();
  double forgettingBudget = qQNaN();  // search.options.forgetting_budget (a fraction)
  bool partial = false;               // the time ran out before the full length
  qint64 finalStep = 0;
  int candidates = 0;
  QString group;
  double timeS = qQNaN();
};
SuggestResult parseSuggestResult(const QByteArray& json);

class SuggestDialog : public QDialog {
  Q_OBJECT

 public:
  enum class State { Idle, Running, Finished, Failed, Cancelled };

  explicit SuggestDialog(QWidget* parent = nullptr);
  ~SuggestDialog() override;

  // Fills the fields (prefill from the workspace).
  void setSettings(const SuggestSettings& settings);
  SuggestSettings settings() const;
  // The arguments of the fields now; empty and `error` set when a field is not valid.
  QStringList arguments(QString* error) const;
  // The program run instead of growbench-cli (tests: a fake worker).
  void setProgram(const QString& program);
  // Where the worker writes its JSON (in the store's folder, tmp/).
  QString resultPath() const;

  // Validates the fields and starts the search; false (and the message shown) when a field
  // is not valid or the worker could not start.
  bool start();
  void cancel();
  State state() const { return m_state; }
  bool isRunning() const { return m_state == State::Running; }
  // The message shown under the form (errors in red, progress, the outcome).
  QString message() const { return m_message; }
  // The progress line (elapsed against the budget, the run and step), and the summary of
  // the recommendation (plain text) once the search ended.
  QString progressText() const;
  QString summaryText() const;
  const SuggestResult& result() const { return m_result; }
  // Reads a finished search's JSON, shows its recommendation and emits recommendationReady
  // (also what start() does when the worker ends); false with the message when it cannot be
  // read.
  bool loadResult(const QString& jsonFile);
  // What the planner did with the recommendation (shown under the summary).
  void setLoadOutcome(bool ok, const QString& text);

  // "Elapsed 1 min 05 s of 30 min 00 s · at most 28 min 55 s left" (exposed for tests).
  static QString elapsedText(double elapsedS, double budgetS);

 signals:
  void recommendationReady(const nlohmann::json& plan, double lr, qint64 steps);
  void stateChanged(gb::gui::SuggestDialog::State state);

 private:
  void buildUi();
  void setState(State state);
  void setMessage(const QString& text, bool error = false);
  void onStderrLine(const QString& line);
  void onFinished(int exitCode, bool crashed);
  void updateProgress();
  void updateCommand();

  CliJob* m_job = nullptr;
  State m_state = State::Idle;
  QString m_message;
  SuggestResult m_result;
  QString m_db;
  QString m_resultPath;
  double m_budgetS = 0;
  QElapsedTimer m_clock;
  QTimer m_tick;
  // What the worker's events said.
  int m_runsStarted = 0, m_runsFinished = 0, m_evals = 0;
  qint64 m_run = -1, m_step = -1, m_total = -1;
  QString m_runLabel, m_stage;
  double m_runEta = qQNaN();

  QLineEdit* m_model = nullptr;
  QLineEdit* m_new = nullptr;
  QLineEdit* m_original = nullptr;
  QComboBox* m_format = nullptr;
  QLineEdit* m_forgetting = nullptr;
  QLineEdit* m_params = nullptr;
  QLineEdit* m_time = nullptr;
  QSpinBox* m_steps = nullptr;
  QSpinBox* m_maxCandidates = nullptr;
  QLabel* m_store = nullptr;
  QLabel* m_command = nullptr;
  QScrollArea* m_scroll = nullptr;
  QWidget* m_form = nullptr;
  QGroupBox* m_progressBox = nullptr;
  QProgressBar* m_bar = nullptr;
  QLabel* m_elapsed = nullptr;
  QLabel* m_detail = nullptr;
  QLabel* m_messageLabel = nullptr;
  QPlainTextEdit* m_log = nullptr;
  QGroupBox* m_resultBox = nullptr;
  QLabel* m_summary = nullptr;
  QPlainTextEdit* m_planJson = nullptr;
  QLabel* m_loaded = nullptr;
  QPushButton* m_start = nullptr;
  QPushButton* m_cancel = nullptr;
  QPushButton* m_close = nullptr;
};

}  // namespace gb::gui
