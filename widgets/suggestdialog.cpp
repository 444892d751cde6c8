#include "suggestdialog.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSpinBox>
#include <QTextDocument>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "clijob.h"
#include "experiment/suggest.h"
#include "filepicker.h"
#include "guiutil.h"
#include "util/events.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace {

// A path for the command line shown: quoted when it has spaces.
QString shellWord(const QString& s) {
  if (!s.isEmpty() && !s.contains(QRegularExpression(u"[\\s'\"\\\\$`]"_s))) return s;
  QString q = s;
  q.replace(u"'"_s, u"'\\''"_s);
  return u"'"_s + q + u"'"_s;
}

double numberAt(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return qQNaN();
  return j[key].get<double>();
}

qint64 intAt(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return 0;
  return j[key].get<qint64>();
}

// "+24.4 %" of a relative change.
QString signedPercent(double fraction) {
  if (std::isnan(fraction)) return u"–"_s;
  return QCoreApplication::translate("Format", "%1 %")
      .arg((fraction >= 0 ? u"+"_s : QString()) + QString::number(100.0 * fraction, 'f', 2));
}

}  // namespace

bool parsePercentField(const QString& text, double* percent) {
  QString t = text.trimmed();
  if (t.endsWith(u'%')) t.chop(1);
  t = t.trimmed();
  if (t.isEmpty()) return false;
  bool ok = false;
  double v = QLocale::c().toDouble(t, &ok);
  if (!ok) v = QLocale().toDouble(t, &ok);
  if (!ok || !std::isfinite(v) || v < 0) return false;
  *percent = v;
  return true;
}

QStringList suggestArguments(const SuggestSettings& s, const QString& jsonOut, QString* error) {
  auto fail = [&](const QString& e) {
    if (error) *error = e;
    return QStringList();
  };
  const QString model = s.model.trimmed();
  if (model.isEmpty()) {
    return fail(SuggestDialog::tr("Choose the model: open one in the Model view."));
  }
  if (!QFileInfo::exists(QDir(model).filePath(u"config.json"_s))) {
    return fail(SuggestDialog::tr("The model folder has no config.json: %1").arg(model));
  }
  const QString nd = s.newData.trimmed();
  if (nd.isEmpty()) {
    return fail(SuggestDialog::tr("Choose the new-domain data (a file or a folder)."));
  }
  if (!QFileInfo::exists(nd)) {
    return fail(SuggestDialog::tr("The new-domain data does not exist: %1").arg(nd));
  }
  const QString od = s.originalData.trimmed();
  if (od.isEmpty()) {
    return fail(
        SuggestDialog::tr("Choose the original-domain data: the forgetting is measured on it."));
  }
  if (!QFileInfo::exists(od)) {
    return fail(SuggestDialog::tr("The original-domain data does not exist: %1").arg(od));
  }
  double forgetting = 0, params = 0;
  if (!parsePercentField(s.forgetting, &forgetting)) {
    return fail(SuggestDialog::tr("The forgetting budget must be a percentage such as 5 % "
                                  "(found “%1”).")
                    .arg(s.forgetting));
  }
  if (!parsePercentField(s.params, &params)) {
    return fail(SuggestDialog::tr("The parameter budget must be a percentage such as 10 % "
                                  "(found “%1”).")
                    .arg(s.params));
  }
  const QString time = s.time.trimmed();
  try {
    gb::experiment::parse_duration(ss(time), "--time");
  } catch (const std::exception&) {
    return fail(SuggestDialog::tr("The time budget must be a duration such as 30m, 90s or 1.5h "
                                  "(found “%1”).")
                    .arg(s.time));
  }
  if (s.steps < 1) return fail(SuggestDialog::tr("The steps must be at least 1."));
  if (s.db.trimmed().isEmpty()) {
    return fail(SuggestDialog::tr("Open a workspace first: the search's runs go to its store."));
  }
  if (jsonOut.isEmpty()) return fail(SuggestDialog::tr("No file for the search's result."));
  QStringList a = {u"suggest"_s, model, u"--new"_s, nd, u"--original"_s, od};
  if (!s.format.isEmpty() && s.format != u"text"_s) a << u"--format"_s << s.format;
  a << u"--budget"_s << u"forgetting=%1%"_s.arg(QString::number(forgetting, 'g', 12));
  a << u"--params"_s << u"max=%1%"_s.arg(QString::number(params, 'g', 12));
  a << u"--time"_s << time;
  a << u"--steps"_s << QString::number(s.steps);
  if (s.maxCandidates > 0) a << u"--max-candidates"_s << QString::number(s.maxCandidates);
  a << u"--db"_s << s.db.trimmed() << u"--json"_s << jsonOut;
  return a;
}

SuggestResult parseSuggestResult(const QByteArray& json) {
  SuggestResult r;
  const nlohmann::json j =
      nlohmann::json::parse(json.constData(), json.constData() + json.size(), nullptr, false);
  if (!j.is_object()) {
    r.error = SuggestDialog::tr("The result is not a JSON object.");
    return r;
  }
  if (!j.contains("recommendation") || !j["recommendation"].is_object()) {
    r.error = SuggestDialog::tr("The result has no recommendation.");
    return r;
  }
  const nlohmann::json& rec = j["recommendation"];
  if (!rec.contains("plan") || !rec["plan"].is_object() || !rec["plan"].contains("variant")) {
    r.error = SuggestDialog::tr("The recommendation has no plan.");
    return r;
  }
  if (!rec.contains("lr") || !rec["lr"].is_number() || !(rec["lr"].get<double>() > 0)) {
    r.error = SuggestDialog::tr("The recommendation has no learning rate.");
    return r;
  }
  r.plan = rec["plan"];
  r.lr = rec["lr"].get<double>();
  r.label = rec.contains("label") && rec["label"].is_string()
                ? qs(rec["label"].get<std::string>())
                : qs(r.plan.value("name", r.plan.value("variant", std::string())));
  r.run = intAt(rec, "run");
  r.step = intAt(rec, "step");
  r.steps = intAt(rec, "steps");
  r.withinBudget = rec.contains("within_budget") && rec["within_budget"].is_boolean() &&
                   rec["within_budget"].get<bool>();
  if (rec.contains("validation")) {
    r.valLearning = numberAt(rec["validation"], "learning");
    r.valForgetting = numberAt(rec["validation"], "forgetting");
  }
  if (rec.contains("test")) {
    r.testLearning = numberAt(rec["test"], "learning");
    r.testForgetting = numberAt(rec["test"], "forgetting");
  }
  r.partial = rec.contains("partial");
  if (j.contains("search") && j["search"].is_object()) {
    const nlohmann::json& s = j["search"];
    if (s.contains("options")) r.forgettingBudget = numberAt(s["options"], "forgetting_budget");
    r.finalStep = intAt(s, "final_step");
    if (s.contains("group") && s["group"].is_string()) r.group = qs(s["group"].get<std::string>());
  }
  if (j.contains("candidates") && j["candidates"].is_array()) {
    r.candidates = static_cast<int>(j["candidates"].size());
  }
  r.timeS = numberAt(j, "time_s");
  r.ok = true;
  return r;
}

SuggestDialog::SuggestDialog(QWidget* parent) : QDialog(parent) {
  setObjectName(u"suggestDialog"_s);
  setWindowTitle(tr("Suggest a plan"));
  buildUi();
  m_job = new CliJob(this);
  connect(m_job, &CliJob::stderrLine, this, &SuggestDialog::onStderrLine);
  connect(m_job, &CliJob::finished, this, &SuggestDialog::onFinished);
  connect(m_job, &CliJob::failed, this, [this](const QString& msg) {
    m_tick.stop();
    setMessage(msg, true);
    setState(State::Failed);
  });
  m_tick.setInterval(1000);
  connect(&m_tick, &QTimer::timeout, this, &SuggestDialog::updateProgress);
  setState(State::Idle);
  updateCommand();
}

SuggestDialog::~SuggestDialog() = default;

void SuggestDialog::buildUi() {
  // Everything but the buttons scrolls instead of squeezing the form when the progress and
  // the recommendation show.
  auto* outer = new QVBoxLayout(this);
  m_scroll = new QScrollArea;
  m_scroll->setWidgetResizable(true);
  m_scroll->setFrameShape(QFrame::NoFrame);
  auto* content = new QWidget;
  m_scroll->setWidget(content);
  outer->addWidget(m_scroll, 1);
  auto* v = new QVBoxLayout(content);
  v->setContentsMargins(0, 0, 0, 0);
  auto* intro = new QLabel(
      tr("A budgeted search over every variant, layer policy, size and a rate grid: short "
         "pilot runs in one run group of the store, successive halving on validation data, "
         "and one recommended plan with its learning rate (docs/suggest.md)."));
  intro->setWordWrap(true);
  v->addWidget(intro);

  m_form = new QWidget;
  auto* f = new QFormLayout(m_form);
  f->setContentsMargins(0, 0, 0, 0);
  auto pathRow = [this](QLineEdit*& edit, bool files, const QString& category,
                        const QString& placeholder, const QString& tip) {
    auto* w = new QWidget;
    auto* h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    edit = new QLineEdit;
    edit->setPlaceholderText(placeholder);
    edit->setToolTip(tip);
    QLineEdit* target = edit;
    h->addWidget(edit, 1);
    if (files) {
      auto* b = new QToolButton;
      b->setText(tr("File…"));
      b->setToolTip(tr("Choose a file (files without an extension are shown too)"));
      connect(b, &QToolButton::clicked, this, [this, target, category] {
        const QString p = pickPath(this, PickKind::File, category, tr("Data"), target->text());
        if (!p.isEmpty()) target->setText(p);
      });
      h->addWidget(b);
    }
    auto* d = new QToolButton;
    d->setText(tr("Folder…"));
    d->setToolTip(tr("Choose a folder"));
    connect(d, &QToolButton::clicked, this, [this, target, category] {
      const QString p = pickPath(this, PickKind::Folder, category, tr("Folder"), target->text());
      if (!p.isEmpty()) target->setText(p);
    });
    h->addWidget(d);
    return w;
  };
  f->addRow(tr("Model:"), pathRow(m_model, false, u"model"_s, tr("a model folder"),
                                  tr("The base model (the one open in the Model view)")));
  f->addRow(tr("New-domain data:"),
            pathRow(m_new, true, u"data"_s, tr("new-domain text (file or folder)"),
                    tr("Split at the document level into training, validation and test parts")));
  f->addRow(tr("Original-domain data:"),
            pathRow(m_original, true, u"data"_s, tr("original-domain text (file or folder)"),
                    tr("The forgetting is measured on it (validation and test parts)")));
  m_format = new QComboBox;
  m_format->addItem(tr("text (paragraphs)"), u"text"_s);
  m_format->addItem(tr("fortunes"), u"fortunes"_s);
  m_format->addItem(tr("JSONL"), u"jsonl"_s);
  m_format->setToolTip(tr("The corpus format of both data sets"));
  f->addRow(tr("Format:"), m_format);
  m_forgetting = new QLineEdit;
  m_forgetting->setObjectName(u"forgettingBudget"_s);
  m_forgetting->setToolTip(
      tr("The most the original-domain validation perplexity may rise, in percent (5 %: "
         "at most 5 % above the base model's)"));
  f->addRow(tr("Forgetting budget:"), m_forgetting);
  m_params = new QLineEdit;
  m_params->setObjectName(u"paramsBudget"_s);
  m_params->setToolTip(tr("The most parameters a plan may add, in percent of the base model"));
  f->addRow(tr("Parameter budget:"), m_params);
  m_time = new QLineEdit;
  m_time->setObjectName(u"timeBudget"_s);
  m_time->setToolTip(
      tr("How long the search may take: 30m, 90s, 1.5h or seconds. It affords as many "
         "candidates as it can and ends within a few seconds of the budget."));
  f->addRow(tr("Time budget:"), m_time);
  m_steps = new QSpinBox;
  m_steps->setRange(1, 10'000'000);
  m_steps->setToolTip(tr("The full length of a run; the halving's rungs divide it"));
  f->addRow(tr("Steps:"), m_steps);
  m_maxCandidates = new QSpinBox;
  m_maxCandidates->setRange(0, 100000);
  m_maxCandidates->setSpecialValueText(tr("as many as the time affords"));
  m_maxCandidates->setToolTip(tr("At most this many candidate plans"));
  f->addRow(tr("Candidates:"), m_maxCandidates);
  m_store = new QLabel;
  m_store->setTextInteractionFlags(Qt::TextSelectableByMouse);
  f->addRow(tr("Run store:"), m_store);
  m_command = new QLabel;
  m_command->setObjectName(u"suggestCommand"_s);
  m_command->setWordWrap(true);
  m_command->setTextInteractionFlags(Qt::TextSelectableByMouse);
  m_command->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  m_command->setToolTip(tr("The command the search runs"));
  f->addRow(tr("Command:"), m_command);
  v->addWidget(m_form);

  m_messageLabel = new QLabel;
  m_messageLabel->setWordWrap(true);
  m_messageLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
  v->addWidget(m_messageLabel);

  m_progressBox = new QGroupBox(tr("Progress"));
  auto* pv = new QVBoxLayout(m_progressBox);
  m_bar = new QProgressBar;
  m_bar->setTextVisible(true);
  pv->addWidget(m_bar);
  m_elapsed = new QLabel;
  pv->addWidget(m_elapsed);
  m_detail = new QLabel;
  m_detail->setWordWrap(true);
  pv->addWidget(m_detail);
  m_log = new QPlainTextEdit;
  m_log->setReadOnly(true);
  m_log->setMaximumHeight(110);
  m_log->setPlaceholderText(tr("Messages of growbench-cli"));
  m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  pv->addWidget(m_log);
  v->addWidget(m_progressBox);

  m_resultBox = new QGroupBox(tr("Recommendation"));
  auto* rv = new QVBoxLayout(m_resultBox);
  m_summary = new QLabel;
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  rv->addWidget(m_summary);
  m_planJson = new QPlainTextEdit;
  m_planJson->setReadOnly(true);
  m_planJson->setMaximumHeight(m_planJson->fontMetrics().lineSpacing() * 3 + 12);
  m_planJson->setToolTip(tr("The recommended plan as JSON (docs/plans.md)"));
  rv->addWidget(m_planJson);
  m_loaded = new QLabel;
  m_loaded->setWordWrap(true);
  rv->addWidget(m_loaded);
  v->addWidget(m_resultBox);
  v->addStretch(1);

  auto* buttons = new QDialogButtonBox;
  m_start = buttons->addButton(tr("Start search"), QDialogButtonBox::ActionRole);
  m_start->setToolTip(
      tr("Run the search; started again with the same fields, a cancelled search continues"));
  m_cancel = buttons->addButton(tr("Cancel search"), QDialogButtonBox::ActionRole);
  m_cancel->setToolTip(
      tr("Stop the search cleanly; its runs stay in the store and it continues when started "
         "again with the same fields"));
  m_close = buttons->addButton(QDialogButtonBox::Close);
  m_close->setToolTip(tr("Hide this window; a running search goes on"));
  outer->addWidget(buttons);
  connect(m_start, &QPushButton::clicked, this, &SuggestDialog::start);
  connect(m_cancel, &QPushButton::clicked, this, &SuggestDialog::cancel);
  connect(m_close, &QPushButton::clicked, this, &QDialog::close);
  for (QLineEdit* e : {m_model, m_new, m_original, m_forgetting, m_params, m_time}) {
    connect(e, &QLineEdit::textChanged, this, &SuggestDialog::updateCommand);
  }
  connect(m_format, &QComboBox::currentIndexChanged, this, &SuggestDialog::updateCommand);
  for (QSpinBox* sb : {m_steps, m_maxCandidates}) {
    connect(sb, &QSpinBox::valueChanged, this, &SuggestDialog::updateCommand);
  }
}

void SuggestDialog::setSettings(const SuggestSettings& s) {
  m_model->setText(s.model);
  m_new->setText(s.newData);
  m_original->setText(s.originalData);
  const int fi = m_format->findData(s.format);
  m_format->setCurrentIndex(fi < 0 ? 0 : fi);
  m_forgetting->setText(s.forgetting);
  m_params->setText(s.params);
  m_time->setText(s.time);
  m_steps->setValue(s.steps);
  m_maxCandidates->setValue(s.maxCandidates);
  m_db = s.db;
  m_store->setText(s.db.isEmpty() ? tr("none: open a workspace") : displayPath(s.db));
  m_store->setToolTip(s.db);
  updateCommand();
}

SuggestSettings SuggestDialog::settings() const {
  SuggestSettings s;
  s.model = m_model->text().trimmed();
  s.newData = m_new->text().trimmed();
  s.originalData = m_original->text().trimmed();
  s.format = m_format->currentData().toString();
  s.forgetting = m_forgetting->text();
  s.params = m_params->text();
  s.time = m_time->text();
  s.steps = m_steps->value();
  s.maxCandidates = m_maxCandidates->value();
  s.db = m_db;
  return s;
}

QString SuggestDialog::resultPath() const {
  const QString base = m_db.isEmpty() ? QDir::tempPath() : QFileInfo(m_db).absolutePath();
  return QDir(base).filePath(u"tmp/suggest-%1.json"_s.arg(QCoreApplication::applicationPid()));
}

QStringList SuggestDialog::arguments(QString* error) const {
  return suggestArguments(settings(), resultPath(), error);
}

void SuggestDialog::setProgram(const QString& program) {
  m_job->setProgram(program);
  updateCommand();
}

void SuggestDialog::updateCommand() {
  QString error;
  const QStringList args = arguments(&error);
  if (args.isEmpty()) {
    m_command->setText(tr("– (%1)").arg(error));
    return;
  }
  QStringList words = {u"growbench-cli"_s};
  for (const QString& a : args) words << shellWord(a);
  m_command->setText(words.join(u' '));
}

void SuggestDialog::setMessage(const QString& text, bool error) {
  m_message = text;
  m_messageLabel->setText(error ? u"<span style='color:#c62828'>%1</span>"_s.arg(
                                      text.toHtmlEscaped().replace(u"\n"_s, u"<br/>"_s))
                                : text.toHtmlEscaped());
}

void SuggestDialog::setState(State state) {
  m_state = state;
  const bool running = state == State::Running;
  m_form->setEnabled(!running);
  m_start->setEnabled(!running);
  m_start->setText(state == State::Cancelled ? tr("Continue search") : tr("Start search"));
  m_cancel->setEnabled(running);
  m_progressBox->setVisible(state != State::Idle);
  m_resultBox->setVisible(state == State::Finished);
  // The worker's messages matter while it runs and when it failed; after a search that
  // ended well the recommendation takes their place.
  m_log->setVisible(state != State::Finished);
  if (state == State::Finished) {
    m_scroll->widget()->adjustSize();
    m_scroll->ensureWidgetVisible(m_resultBox);
  }
  emit stateChanged(state);
}

bool SuggestDialog::start() {
  if (isRunning()) return false;
  QString error;
  const QStringList args = arguments(&error);
  if (args.isEmpty()) {
    setMessage(error, true);
    return false;
  }
  m_resultPath = resultPath();
  QFile::remove(m_resultPath);
  QDir().mkpath(QFileInfo(m_resultPath).absolutePath());
  m_budgetS = gb::experiment::parse_duration(ss(m_time->text().trimmed()), "--time");
  m_runsStarted = m_runsFinished = m_evals = 0;
  m_run = m_step = m_total = -1;
  m_runLabel.clear();
  m_stage.clear();
  m_runEta = qQNaN();
  m_result = {};
  m_log->clear();
  m_summary->clear();
  m_planJson->clear();
  m_loaded->clear();
  if (!m_job->start(args)) return false;  // `failed` said why
  m_clock.start();
  m_tick.start();
  setMessage(tr("Searching…"));
  setState(State::Running);
  updateProgress();
  return true;
}

void SuggestDialog::cancel() {
  if (!isRunning()) return;
  setMessage(tr("Cancelling: the current run stops at its next step…"));
  m_job->cancel();
}

QString SuggestDialog::elapsedText(double elapsedS, double budgetS) {
  if (elapsedS <= budgetS) {
    return tr("Elapsed %1 of %2 · at most %3 left")
        .arg(formatDuration(elapsedS), formatDuration(budgetS), formatDuration(budgetS - elapsedS));
  }
  return tr("Elapsed %1 of %2 · the time is up: the search ends its current run")
      .arg(formatDuration(elapsedS), formatDuration(budgetS));
}

QString SuggestDialog::progressText() const {
  return m_elapsed->text() + u"\n"_s + m_detail->text();
}

void SuggestDialog::updateProgress() {
  if (m_state != State::Running) return;
  const double elapsed = m_clock.isValid() ? m_clock.elapsed() / 1000.0 : 0.0;
  const int budget = std::max(1, static_cast<int>(std::lround(m_budgetS)));
  m_bar->setRange(0, budget);
  m_bar->setValue(std::min(budget, static_cast<int>(elapsed)));
  m_elapsed->setText(elapsedText(elapsed, m_budgetS));
  QStringList parts;
  if (m_run >= 0) {
    QString run = tr("Run %1").arg(m_run);
    if (!m_runLabel.isEmpty()) run += u" ("_s + m_runLabel + u")"_s;
    if (m_step >= 0 && m_total > 0) {
      run += u": "_s + tr("step %1 of %2").arg(m_step).arg(m_total);
      if (!std::isnan(m_runEta)) run += u", "_s + tr("%1 left").arg(formatDuration(m_runEta));
    }
    parts << run;
  } else if (!m_stage.isEmpty()) {
    parts << tr("Preparing: %1").arg(m_stage);
  }
  parts << tr("%n run(s) started", nullptr, m_runsStarted)
        << tr("%n ended", nullptr, m_runsFinished) << tr("%n evaluation(s)", nullptr, m_evals);
  m_detail->setText(parts.join(u" · "_s));
}

void SuggestDialog::onStderrLine(const QString& line) {
  const QString t = line.trimmed();
  if (t.startsWith(u'{')) {
    const QByteArray utf8 = t.toUtf8();
    const nlohmann::json j =
        nlohmann::json::parse(utf8.constData(), utf8.constData() + utf8.size(), nullptr, false);
    if (j.is_object() && j.contains("event")) {
      try {
        const events::Event e = events::parse(j);
        if (const auto* rs = std::get_if<events::RunStarted>(&e)) {
          ++m_runsStarted;
          m_run = rs->run;
          m_runLabel = qs(rs->label);
          m_step = rs->resumed_from.value_or(0);
          m_total = -1;
          m_runEta = qQNaN();
        } else if (const auto* p = std::get_if<events::Progress>(&e)) {
          if (p->stage == "train" && p->run) {
            if (*p->run != m_run) m_runLabel.clear();
            m_run = *p->run;
            if (p->step) m_step = *p->step;
            if (p->total) m_total = *p->total;
            m_runEta = p->eta_s.value_or(qQNaN());
          } else if (!p->stage.empty()) {
            m_stage = qs(p->stage);
          }
        } else if (const auto* st = std::get_if<events::Stage>(&e)) {
          m_stage = qs(st->stage);
        } else if (std::holds_alternative<events::Eval>(e)) {
          ++m_evals;
        } else if (std::holds_alternative<events::RunFinished>(e)) {
          ++m_runsFinished;
        }
        updateProgress();
        return;
      } catch (const std::exception&) {
        // Not an event after all: shown as a line.
      }
    }
  }
  if (!t.isEmpty()) m_log->appendPlainText(line);
}

void SuggestDialog::onFinished(int exitCode, bool crashed) {
  updateProgress();  // the last events
  m_tick.stop();
  const double took = m_clock.isValid() ? m_clock.elapsed() / 1000.0 : 0.0;
  m_elapsed->setText(
      tr("Took %1 (time budget %2)").arg(formatDuration(took), formatDuration(m_budgetS)));
  if (exitCode == 0 && !crashed && !m_job->wasCancelled()) m_bar->setValue(m_bar->maximum());
  if (m_job->wasCancelled() || exitCode == 130) {
    setMessage(
        tr("Cancelled. The runs so far stay in the store: start the search again with the same "
           "fields to continue it."));
    setState(State::Cancelled);
    return;
  }
  if (crashed || exitCode != 0) {
    const QString why = m_job->errorSummary();
    setMessage(crashed ? tr("growbench-cli crashed: %1").arg(why)
                       : tr("The search failed (exit code %1): %2").arg(exitCode).arg(why),
               true);
    // Everything the worker said, not only its events.
    m_log->setPlainText(m_job->standardError().trimmed());
    setState(State::Failed);
    return;
  }
  loadResult(m_resultPath);
}

bool SuggestDialog::loadResult(const QString& jsonFile) {
  QFile f(jsonFile);
  if (!f.open(QIODevice::ReadOnly)) {
    setMessage(tr("The search ended but its result %1 could not be read: %2")
                   .arg(jsonFile, f.errorString()),
               true);
    setState(State::Failed);
    return false;
  }
  m_result = parseSuggestResult(f.readAll());
  if (!m_result.ok) {
    setMessage(tr("The search's result %1 could not be read: %2").arg(jsonFile, m_result.error),
               true);
    setState(State::Failed);
    return false;
  }
  const SuggestResult& r = m_result;
  QStringList lines;
  lines << tr("<b>Recommended: %1</b> (variant %2), learning rate %3, at step %4 of %5.")
               .arg(r.label.toHtmlEscaped(),
                    qs(r.plan.value("variant", std::string())).toHtmlEscaped(),
                    QString::number(r.lr, 'g', 4))
               .arg(r.step)
               .arg(r.steps);
  lines << tr("Validation: new-domain loss %1, original-domain perplexity %2.")
               .arg(formatValue(r.valLearning), signedPercent(r.valForgetting));
  lines << tr("Test: new-domain loss %1, original-domain perplexity %2.")
               .arg(formatValue(r.testLearning), signedPercent(r.testForgetting));
  double fieldBudget = qQNaN();
  parsePercentField(m_forgetting->text(), &fieldBudget);
  const QString budget = QString::number(
      std::isnan(r.forgettingBudget) ? fieldBudget : 100.0 * r.forgettingBudget, 'g', 6);
  if (r.withinBudget) {
    lines << tr("Within the forgetting budget of %1 % on the validation data.").arg(budget);
  } else {
    lines << tr("<span style='color:#c62828'>No candidate stays within the forgetting budget of "
                "%1 %: this is the one that forgets least.</span>")
                 .arg(budget);
  }
  if (r.partial) {
    lines << tr("The time ran out before the full length: chosen at step %1 of %2.")
                 .arg(r.finalStep)
                 .arg(r.steps);
  }
  lines << tr("%n candidate(s) in group %1, %2 spent.", nullptr, r.candidates)
               .arg(r.group.toHtmlEscaped(), formatDuration(r.timeS));
  m_summary->setText(lines.join(u"<br/>"_s));
  m_planJson->setPlainText(qs(r.plan.dump()));
  setMessage(tr("The search is done."));
  setState(State::Finished);
  emit recommendationReady(r.plan, r.lr, r.steps);
  return true;
}

QString SuggestDialog::summaryText() const {
  QTextDocument doc;
  doc.setHtml(m_summary->text() + u"<br/>"_s + m_loaded->text());
  return doc.toPlainText().trimmed();
}

void SuggestDialog::setLoadOutcome(bool ok, const QString& text) {
  m_loaded->setText(ok ? text.toHtmlEscaped()
                       : u"<span style='color:#c62828'>%1</span>"_s.arg(text.toHtmlEscaped()));
}

}  // namespace gb::gui
