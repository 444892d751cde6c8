#include "runsview.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QDateTime>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSpinBox>
#include <QStyleOption>
#include <QSysInfo>
#include <QSplitter>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <csignal>
#include <signal.h>
#include <sys/types.h>

#include "appsettings.h"
#include "clijob.h"
#include "dist/world.h"
#include "experiment/expand.h"
#include "experiment/spec.h"
#include "filepicker.h"
#include "guiutil.h"
#include "runmanager.h"
#include "runtablemodel.h"
#include "session.h"
#include "storeservice.h"
#include "sweepeditor.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace st = gb::store;

void ProgressDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const {
  const double f = index.data(RunTableModel::ProgressFractionRole).toDouble();
  const QString text = index.data(RunTableModel::ProgressTextRole).toString();
  if (f < 0 && text.isEmpty()) {
    QStyledItemDelegate::paint(painter, option, index);
    return;
  }
  QStyleOptionProgressBar bar;
  bar.rect = option.rect.adjusted(2, 2, -2, -2);
  bar.minimum = 0;
  bar.maximum = f < 0 ? 0 : 1000;
  bar.progress = f < 0 ? 0 : static_cast<int>(f * 1000);
  bar.text = text;
  bar.textVisible = true;
  bar.textAlignment = Qt::AlignCenter;
  bar.state = option.state | QStyle::State_Horizontal;
  bar.palette = option.palette;
  bar.fontMetrics = option.fontMetrics;
  const QWidget* w = option.widget;
  QStyle* style = w ? w->style() : QApplication::style();
  style->drawControl(QStyle::CE_ProgressBar, &bar, painter, w);
}

QSize ProgressDelegate::sizeHint(const QStyleOptionViewItem& option,
                                 const QModelIndex& index) const {
  QSize s = QStyledItemDelegate::sizeHint(option, index);
  const QString text = index.data(RunTableModel::ProgressTextRole).toString();
  s.setWidth(std::max(s.width(), option.fontMetrics.horizontalAdvance(text) + 24));
  return s;
}

RunsView::RunsView(Session* session, QWidget* parent) : QWidget(parent), m_session(session) {
  buildUi();
  RunManager* rm = m_session->runs();
  connect(rm, &RunManager::logAppended, this, [this](qint64 run, const QString& line) {
    if (m_logRun < 0) return;
    const RunJob* j = m_session->runs()->jobOfRun(m_logRun);
    if (run == m_logRun || (run < 0 && j && j->runIds.isEmpty())) {
      QScrollBar* sb = m_log->verticalScrollBar();
      const bool atEnd = sb->value() >= sb->maximum() - 4;
      m_log->appendPlainText(line);
      if (atEnd) sb->setValue(sb->maximum());
    }
  });
  connect(rm, &RunManager::errorOccurred, this, &RunsView::setMessage);
  connect(rm, &RunManager::runStarted, this, [this](qint64 run) {
    if (m_logRun < 0) selectRun(run);
  });
  connect(rm, &RunManager::jobFinished, this, [this](int jobId, int code) {
    const RunJob* j = m_session->runs()->job(jobId);
    if (!j) return;
    if (j->state == RunJob::State::Failed) {
      setMessage(tr("Job “%1” failed: %2").arg(j->label, j->error));
    } else if (j->state == RunJob::State::Cancelled) {
      setMessage(tr("Job “%1” cancelled.").arg(j->label));
    } else {
      setMessage(tr("Job “%1” finished (exit code %2).").arg(j->label).arg(code));
    }
  });
  connect(m_session->store(), &StoreService::eventsReady, this,
          [this](qint64 run, const QVector<st::EventInfo>& events) {
            if (run != m_logRun || m_session->runs()->jobOfRun(run)) return;
            for (const auto& e : events) {
              // Two requests can be in flight (a store poll or reselecting the run before
              // the first answer): show each event once.
              if (e.id <= m_lastEventId) continue;
              m_lastEventId = e.id;
              const QString when =
                  QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(e.time * 1000))
                      .toString(u"HH:mm:ss"_s);
              m_log->appendPlainText(
                  u"%1 [%2] %3"_s.arg(when, QLatin1String(st::to_string(e.level)), qs(e.message)));
            }
          });
  connect(m_session->store(), &StoreService::runsUpdated, this, [this] {
    const RunRow* shown = m_logRun >= 0 ? m_session->runModel()->run(m_logRun) : nullptr;
    if (m_logRun >= 0 && !m_session->runs()->jobOfRun(m_logRun) &&
        (!shown || (m_logRunCreated > 0 && shown->info.created != m_logRunCreated))) {
      // The run shown was deleted: its id (and its events' ids) may be given to a new run,
      // maybe already (then it was created at another time).
      m_logRun = -1;
      m_lastEventId = 0;
      m_log->clear();
      m_logTitle->setText(tr("Log: select a run"));
    }
    if (m_logRun >= 0 && !m_session->runs()->jobOfRun(m_logRun)) {
      m_session->store()->requestEvents(m_logRun, m_lastEventId);
    }
    updateButtons();
  });
  connect(m_session, &Session::modelChanged, this, [this](const ModelRef& m) {
    m_model->setText(m.valid() ? displayPath(m.folder) : tr("none: open one in the Model view"));
    m_model->setToolTip(m.valid() ? m.folder : QString());
  });
  connect(m_session, &Session::queuedPlansChanged, this, &RunsView::updatePlansLabel);
  updatePlansLabel();
}

void RunsView::buildUi() {
  auto* top = new QVBoxLayout(this);
  top->setContentsMargins(6, 6, 6, 6);
  auto* split = new QSplitter(Qt::Vertical);
  top->addWidget(split);

  auto* launchBox = new QGroupBox(tr("Launch"));
  auto* grid = new QGridLayout(launchBox);
  auto fileEdit = [this](QLineEdit*& edit, const QString& placeholder, const QString& tip) {
    auto* w = new QWidget;
    auto* h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    edit = new QLineEdit;
    edit->setPlaceholderText(placeholder);
    edit->setToolTip(tip);
    auto* b = new QToolButton;
    b->setText(tr("File…"));
    b->setToolTip(tr("Choose a file (files without an extension are shown too)"));
    auto* d = new QToolButton;
    d->setText(tr("Folder…"));
    d->setToolTip(tr("Choose a folder (e.g. a folder of fortune files)"));
    QLineEdit* target = edit;
    connect(b, &QToolButton::clicked, this, [this, target] {
      const QString f = pickPath(this, PickKind::File, u"data"_s, tr("Data"), target->text());
      if (!f.isEmpty()) target->setText(f);
    });
    connect(d, &QToolButton::clicked, this, [this, target] {
      const QString f = pickPath(this, PickKind::Folder, u"data"_s, tr("Data"), target->text());
      if (!f.isEmpty()) target->setText(f);
    });
    h->addWidget(edit, 1);
    h->addWidget(b);
    h->addWidget(d);
    return w;
  };
  int r = 0;
  m_name = new QLineEdit(u"experiment"_s);
  grid->addWidget(new QLabel(tr("Name:")), r, 0);
  grid->addWidget(m_name, r, 1);
  m_model = new QLabel(tr("none: open one in the Model view"));
  m_model->setTextInteractionFlags(Qt::TextSelectableByMouse);
  grid->addWidget(new QLabel(tr("Model:")), r, 2);
  grid->addWidget(m_model, r, 3);
  ++r;
  grid->addWidget(new QLabel(tr("New-domain data:")), r, 0);
  grid->addWidget(fileEdit(m_train, tr("training text (file or folder)"),
                           tr("The new-domain training data: text, JSONL or fortunes")),
                  r, 1);
  grid->addWidget(new QLabel(tr("New-domain eval:")), r, 2);
  grid->addWidget(fileEdit(m_newEval, tr("optional: else 10 % held out of the training data"),
                           tr("Measures learning (new-domain perplexity)")),
                  r, 3);
  ++r;
  grid->addWidget(new QLabel(tr("Original-domain eval:")), r, 0);
  grid->addWidget(fileEdit(m_origEval, tr("original-domain text"),
                           tr("Measures forgetting (original-domain perplexity)")),
                  r, 1);
  m_plans = new QLabel;
  m_plans->setWordWrap(true);
  grid->addWidget(new QLabel(tr("Plans:")), r, 2);
  grid->addWidget(m_plans, r, 3);
  ++r;
  auto* nums = new QHBoxLayout;
  auto spin = [&](QSpinBox*& s, const QString& label, int lo, int hi, int v, const QString& tip) {
    s = new QSpinBox;
    s->setRange(lo, hi);
    s->setValue(v);
    s->setToolTip(tip);
    auto* l = new QLabel(label);
    l->setBuddy(s);
    nums->addWidget(l);
    nums->addWidget(s);
  };
  spin(m_steps, tr("Steps:"), 1, 10'000'000, 100, tr("Optimizer steps"));
  m_lr = new QDoubleSpinBox;
  m_lr->setDecimals(6);
  m_lr->setRange(1e-7, 1.0);
  m_lr->setSingleStep(1e-4);
  m_lr->setValue(3e-4);
  m_lr->setToolTip(tr("Peak learning rate (cosine schedule with warm-up)"));
  nums->addWidget(new QLabel(tr("LR:")));
  nums->addWidget(m_lr);
  spin(m_batch, tr("Batch:"), 1, 4096, 8, tr("Sequences per micro-batch"));
  spin(m_seqLen, tr("Seq len:"), 8, 65536, 128, tr("Tokens per sequence"));
  m_device = new QComboBox;
  m_device->setEditable(true);
  m_device->addItems({u"cpu"_s, u"cuda"_s, u"cuda:0"_s, u"cuda:1"_s});
  m_device->setCurrentText(AppSettings().defaultDevice());
  nums->addWidget(new QLabel(tr("Device:")));
  nums->addWidget(m_device);
  nums->addStretch(1);
  grid->addLayout(nums, r, 0, 1, 4);
  ++r;
  nums = new QHBoxLayout;
  spin(m_seed, tr("Seed:"), 0, 1'000'000'000, 0, tr("Seed of data order and initialisation"));
  spin(m_evalInterval, tr("Eval every:"), 1, 1'000'000, 50,
       tr("Steps between evaluations (step 0 and the last step are always evaluated)"));
  spin(m_evalTokens, tr("Eval tokens:"), 128, 100'000'000, 8192,
       tr("Token budget of each evaluation set"));
  spin(m_processes, tr("Processes:"), 1, 64, 1,
       tr("Data-parallel worker processes on this machine (growbench-cli run "
          "--nproc-per-node): each trains on its share of every batch, with the same numbers "
          "as one process; the batch needs at least one sequence per process"));
  m_processes->setEnabled(gb::dist::available());
  if (!gb::dist::available()) {
    m_processes->setToolTip(
        tr("This build has no distributed support (LibTorch's c10d with "
           "Gloo; install libgloo-dev and rebuild)"));
  }
  spin(m_jobs, tr("Runs at once:"), 1, 64, 1,
       tr("Runs of the experiment (plans, sweep points, seeds) that train side by side, each "
          "in its own worker process (growbench-cli run --jobs): one per core is fastest on "
          "a CPU; each run's numbers are those of the run alone"));
  // One or the other: a data-parallel run, or several runs side by side.
  connect(m_processes, &QSpinBox::valueChanged, this,
          [this](int v) { m_jobs->setEnabled(v <= 1); });
  connect(m_jobs, &QSpinBox::valueChanged, this,
          [this](int v) { m_processes->setEnabled(gb::dist::available() && v <= 1); });
  nums->addStretch(1);
  grid->addLayout(nums, r, 0, 1, 4);
  ++r;
  m_sweep = new SweepEditor;
  m_sweep->setVariantsProvider([this] {
    QStringList ids;
    for (const auto& q : m_session->queuedPlans()) ids << q.plan.value(u"variant"_s).toString();
    if (ids.isEmpty() && m_currentPlan) ids << qs(m_currentPlan().value("variant", std::string()));
    return ids;
  });
  grid->addWidget(m_sweep, r, 0, 1, 4);
  ++r;
  auto* buttons = new QHBoxLayout;
  m_launch = new QPushButton(tr("Launch"));
  m_launch->setToolTip(
      tr("Write the experiment spec to the workspace and start "
         "growbench-cli run"));
  auto* specButton = new QPushButton(tr("Run a spec file…"));
  specButton->setToolTip(
      tr("Launch an existing experiment spec (JSON), e.g. "
         "resources/experiments/quickstart.json"));
  auto* editButton = new QPushButton(tr("Edit as experiment…"));
  editButton->setToolTip(
      tr("Open this form's spec in the experiment editor: replay, held-out test sets, tasks, "
         "task sequences, probes, checkpoints and every other key of a spec"));
  buttons->addWidget(m_launch);
  buttons->addWidget(specButton);
  buttons->addWidget(editButton);
  connect(editButton, &QPushButton::clicked, this, [this] { emit editSpecRequested(draftSpec()); });
  buttons->addStretch(1);
  grid->addLayout(buttons, r, 0, 1, 4);
  grid->setColumnStretch(1, 1);
  grid->setColumnStretch(3, 1);
  split->addWidget(launchBox);

  auto* runsBox = new QWidget;
  auto* rv = new QVBoxLayout(runsBox);
  rv->setContentsMargins(0, 0, 0, 0);
  auto* filterRow = new QHBoxLayout;
  m_filter = new QLineEdit;
  m_filter->setPlaceholderText(tr("Filter runs"));
  m_filter->setClearButtonEnabled(true);
  m_statusFilter = new QComboBox;
  m_statusFilter->addItem(tr("All statuses"), -1);
  for (auto s : st::all_run_statuses()) m_statusFilter->addItem(statusText(s), int(s));
  m_cancel = new QPushButton(tr("Cancel run"));
  m_resume = new QPushButton(tr("Resume"));
  m_resume->setObjectName(u"resumeButton"_s);
  m_resume->setToolTip(
      tr("Continue an interrupted, cancelled or failed run from its newest "
         "valid checkpoint"));
  m_restart = new QPushButton(tr("Start again"));
  m_restart->setObjectName(u"restartButton"_s);
  m_restart->setToolTip(
      tr("Start a stopped run that has no checkpoint (killed before its "
         "first one, or queued by a worker that ended) from the beginning"));
  m_curves = new QPushButton(tr("Show curves"));
  filterRow->addWidget(m_filter, 1);
  filterRow->addWidget(m_statusFilter);
  filterRow->addWidget(m_cancel);
  filterRow->addWidget(m_resume);
  filterRow->addWidget(m_restart);
  filterRow->addWidget(m_curves);
  rv->addLayout(filterRow);
  m_table = new QTableView;
  m_proxy = new RunFilterProxy(this);
  m_proxy->setSourceModel(m_session->runModel());
  m_table->setModel(m_proxy);
  m_table->setSortingEnabled(true);
  m_table->sortByColumn(RunTableModel::Id, Qt::DescendingOrder);
  m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
  m_table->verticalHeader()->setVisible(false);
  m_table->setItemDelegateForColumn(RunTableModel::Progress, new ProgressDelegate(m_table));
  m_table->setWordWrap(false);
  m_table->setContextMenuPolicy(Qt::CustomContextMenu);
  for (int c : {RunTableModel::Layers, RunTableModel::Op, RunTableModel::Bwt, RunTableModel::Tags,
                RunTableModel::TrainableShare}) {
    m_table->setColumnHidden(c, true);
  }
  m_table->horizontalHeader()->setSectionResizeMode(RunTableModel::Name, QHeaderView::Stretch);
  m_table->horizontalHeader()->resizeSection(RunTableModel::Progress, 280);
  m_table->horizontalHeader()->resizeSection(RunTableModel::Id, 48);
  rv->addWidget(m_table, 1);
  split->addWidget(runsBox);

  auto* bottom = new QSplitter(Qt::Horizontal);
  auto* queueBox = new QWidget;
  auto* qv = new QVBoxLayout(queueBox);
  qv->setContentsMargins(0, 0, 0, 0);
  qv->addWidget(new QLabel(tr("Job queue")));
  m_queue = new QTableView;
  m_queueModel = new JobQueueModel(m_session->runs(), this);
  m_queue->setModel(m_queueModel);
  m_queue->verticalHeader()->setVisible(false);
  m_queue->horizontalHeader()->setStretchLastSection(true);
  m_queue->setSelectionBehavior(QAbstractItemView::SelectRows);
  m_queue->setContextMenuPolicy(Qt::CustomContextMenu);
  qv->addWidget(m_queue, 1);
  bottom->addWidget(queueBox);
  auto* logBox = new QWidget;
  auto* lv = new QVBoxLayout(logBox);
  lv->setContentsMargins(0, 0, 0, 0);
  m_logTitle = new QLabel(tr("Log: select a run"));
  lv->addWidget(m_logTitle);
  m_log = new QPlainTextEdit;
  m_log->setReadOnly(true);
  m_log->setMaximumBlockCount(20000);
  m_log->setLineWrapMode(QPlainTextEdit::NoWrap);
  QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
  m_log->setFont(mono);
  lv->addWidget(m_log, 1);
  bottom->addWidget(logBox);
  bottom->setStretchFactor(0, 1);
  bottom->setStretchFactor(1, 3);
  split->addWidget(bottom);
  split->setStretchFactor(0, 0);
  split->setStretchFactor(1, 3);
  split->setStretchFactor(2, 2);

  connect(m_sweep, &SweepEditor::changed, this, &RunsView::updateRunCount);
  connect(m_session, &Session::queuedPlansChanged, this, &RunsView::updateRunCount);
  connect(m_session, &Session::modelChanged, this, &RunsView::updateRunCount);
  connect(m_train, &QLineEdit::editingFinished, this, &RunsView::updateRunCount);
  connect(m_launch, &QPushButton::clicked, this, [this] { launch(); });
  connect(specButton, &QPushButton::clicked, this, [this] {
    const QString f = pickPath(this, PickKind::File, u"spec"_s, tr("Experiment spec"),
                               m_session->specsDir(), tr("Experiment spec (*.json)"));
    if (!f.isEmpty()) launchSpecFile(f);
  });
  connect(m_filter, &QLineEdit::textChanged, m_proxy, &RunFilterProxy::setText);
  connect(m_statusFilter, &QComboBox::currentIndexChanged, this,
          [this] { m_proxy->setStatus(m_statusFilter->currentData().toInt()); });
  connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this, [this] {
    const auto ids = selectedRuns();
    if (ids.size() == 1) showLogOf(ids.first());
    updateButtons();
  });
  connect(m_cancel, &QPushButton::clicked, this, [this] {
    for (qint64 id : selectedRuns()) cancelRun(id);
  });
  connect(m_resume, &QPushButton::clicked, this, [this] {
    for (qint64 id : selectedRuns()) resumeRun(id);
  });
  connect(m_restart, &QPushButton::clicked, this, [this] {
    for (qint64 id : selectedRuns()) restartRun(id);
  });
  connect(m_curves, &QPushButton::clicked, this,
          [this] { emit showCurvesRequested(selectedRuns()); });
  connect(m_table, &QTableView::doubleClicked, this,
          [this] { emit showCurvesRequested(selectedRuns()); });
  connect(m_table, &QTableView::customContextMenuRequested, this, [this](const QPoint& pos) {
    const auto ids = selectedRuns();
    if (ids.isEmpty()) return;
    QMenu menu;
    menu.addAction(tr("Show curves"), this, [this, ids] { emit showCurvesRequested(ids); });
    QAction* cancel = menu.addAction(tr("Cancel"), this, [this, ids] {
      for (qint64 id : ids) cancelRun(id);
    });
    cancel->setEnabled(m_cancel->isEnabled());
    QAction* resume = menu.addAction(tr("Resume"), this, [this, ids] {
      for (qint64 id : ids) resumeRun(id);
    });
    resume->setEnabled(m_resume->isEnabled());
    QAction* restart = menu.addAction(tr("Start again"), this, [this, ids] {
      for (qint64 id : ids) restartRun(id);
    });
    restart->setEnabled(m_restart->isEnabled());
    menu.addSeparator();
    menu.addAction(tr("Open spec in the experiment editor"), this,
                   [this, ids] { emit editRunSpecRequested(ids.first()); });
    // Exports of the run under the cursor's selection (the first selected run).
    QMenu* exp = menu.addMenu(tr("Export run %1").arg(ids.first()));
    exp->setToolTipsVisible(true);
    const std::pair<RunExport, QString> kinds[] = {
        {RunExport::HuggingFace, tr("Model as a Hugging Face folder…")},
        {RunExport::Peft, tr("LoRA adapter as a PEFT folder…")},
        {RunExport::TensorBoard, tr("Metrics as TensorBoard events…")},
        {RunExport::Csv, tr("Metrics as CSV…")},
        {RunExport::Jsonl, tr("Metrics as JSON lines…")}};
    for (const auto& [kind, label] : kinds) {
      const qint64 id = ids.first();
      QAction* a = exp->addAction(label, this, [this, id, k = kind] { askAndExport(id, k); });
      const QString why = exportRefusal(id, kind);
      a->setEnabled(why.isEmpty());
      a->setToolTip(why);
    }
    menu.exec(m_table->viewport()->mapToGlobal(pos));
  });
  connect(m_queue, &QTableView::customContextMenuRequested, this, [this](const QPoint& pos) {
    const QModelIndex idx = m_queue->indexAt(pos);
    QMenu menu;
    if (idx.isValid()) {
      const int jobId = idx.data(JobQueueModel::JobIdRole).toInt();
      menu.addAction(tr("Cancel job"), this,
                     [this, jobId] { m_session->runs()->cancelJob(jobId); });
      menu.addAction(tr("Copy command line"), this, [this, jobId] {
        QApplication::clipboard()->setText(m_session->runs()->commandLine(jobId));
        setMessage(
            tr("Command line copied: run it in a terminal to keep it independent of "
               "the GUI."));
      });
    }
    menu.addAction(tr("Remove finished jobs"), this,
                   [this] { m_session->runs()->removeFinished(); });
    menu.exec(m_queue->viewport()->mapToGlobal(pos));
  });
  updateButtons();
}

void RunsView::setMessage(const QString& text) {
  m_message = text;
  emit message(text);
}

void RunsView::updatePlansLabel() {
  const auto& plans = m_session->queuedPlans();
  if (plans.isEmpty()) {
    m_plans->setText(
        tr("the Grow planner's current plan (queue plans there to compare "
           "several)"));
    return;
  }
  QStringList labels;
  for (const auto& p : plans) labels << p.label;
  m_plans->setText(tr("%n queued plan(s): %1", nullptr, static_cast<int>(plans.size()))
                       .arg(labels.join(u"; "_s)));
}

LaunchSettings RunsView::settings() const {
  LaunchSettings s;
  s.name = m_name->text().trimmed();
  s.trainData = m_train->text().trimmed();
  s.newEvalData = m_newEval->text().trimmed();
  s.origEvalData = m_origEval->text().trimmed();
  s.steps = m_steps->value();
  s.lr = m_lr->value();
  s.batchSize = m_batch->value();
  s.seqLen = m_seqLen->value();
  s.device = m_device->currentText().trimmed();
  s.seed = m_seed->value();
  s.evalInterval = m_evalInterval->value();
  s.evalTokens = m_evalTokens->value();
  s.processes = m_processes->value();
  s.jobs = m_jobs->value();
  return s;
}

void RunsView::setSettings(const LaunchSettings& s) {
  m_name->setText(s.name);
  m_train->setText(s.trainData);
  m_newEval->setText(s.newEvalData);
  m_origEval->setText(s.origEvalData);
  m_steps->setValue(s.steps);
  m_lr->setValue(s.lr);
  m_batch->setValue(s.batchSize);
  m_seqLen->setValue(s.seqLen);
  m_device->setCurrentText(s.device);
  m_seed->setValue(s.seed);
  m_evalInterval->setValue(s.evalInterval);
  m_evalTokens->setValue(s.evalTokens);
  m_processes->setValue(s.processes);
  m_jobs->setValue(s.jobs);
  updateRunCount();
}

nlohmann::json RunsView::draftSpec() const {
  const LaunchSettings s = settings();
  const ModelRef& model = m_session->model();
  nlohmann::json plans = nlohmann::json::array();
  for (const auto& q : m_session->queuedPlans()) {
    plans.push_back(nlohmann::json::parse(QJsonDocument(q.plan).toJson().toStdString()));
  }
  if (plans.empty() && m_currentPlan) plans.push_back(m_currentPlan());
  nlohmann::json spec;
  spec["version"] = 1;
  spec["name"] = ss(s.name.isEmpty() ? u"experiment"_s : s.name);
  spec["seed"] = s.seed;
  spec["device"] = ss(s.device);
  if (model.valid()) spec["model"] = ss(model.folder);
  nlohmann::json data = nlohmann::json::object();
  // Plain text is read paragraph by paragraph (documents for splits and shuffling); the
  // unit is ignored for JSONL and fortune files.
  auto source = [](const QString& path) {
    return nlohmann::json{{"path", ss(path)}, {"unit", "paragraph"}};
  };
  if (!s.trainData.isEmpty()) {
    if (s.newEvalData.isEmpty()) {
      data["new"]["train"] = source(s.trainData);
      data["new"]["train"]["part"] = "train";
      data["new"]["train"]["heldout"] = 0.1;
      data["new"]["eval"] = source(s.trainData);
      data["new"]["eval"]["part"] = "heldout";
      data["new"]["eval"]["heldout"] = 0.1;
    } else {
      data["new"]["train"] = source(s.trainData);
      data["new"]["eval"] = source(s.newEvalData);
    }
  }
  if (!s.origEvalData.isEmpty()) data["original"]["eval"] = source(s.origEvalData);
  spec["data"] = data;
  if (!plans.empty()) spec["plans"] = plans;
  spec["train"] = {{"steps", s.steps},          {"seq_len", s.seqLen},
                   {"batch_size", s.batchSize}, {"lr", s.lr},
                   {"schedule", "cosine"},      {"warmup", std::min(100, s.steps / 10)}};
  spec["eval"] = {{"interval", s.evalInterval}, {"tokens", s.evalTokens}};
  return spec;
}

nlohmann::json RunsView::buildSpec(QString* error) const {
  const LaunchSettings s = settings();
  const ModelRef& model = m_session->model();
  auto fail = [&](const QString& e) {
    if (error) *error = e;
    return nlohmann::json();
  };
  if (!model.valid()) return fail(tr("Open a model in the Model view first."));
  if (!model.hasTokenizer) return fail(tr("The model folder has no tokenizer.json."));
  if (s.trainData.isEmpty()) return fail(tr("Choose the new-domain training data."));
  // Refused here, before a worker starts: no run is recorded for a file that is not there.
  const std::pair<QString, QString> files[] = {
      {s.trainData, tr("The new-domain training data")},
      {s.newEvalData, tr("The new-domain evaluation data")},
      {s.origEvalData, tr("The original-domain evaluation data")}};
  for (const auto& [path, what] : files) {
    if (!path.isEmpty() && !QFileInfo::exists(path)) {
      return fail(tr("%1 does not exist: %2").arg(what, path));
    }
  }
  nlohmann::json spec = draftSpec();
  if (!spec.contains("plans")) return fail(tr("No plan: build one in the Grow planner."));
  QString sweepError;
  if (!m_sweep->apply(spec, &sweepError)) return fail(sweepError);
  try {
    gb::experiment::parse_spec(spec, ss(m_session->specsDir()));
  } catch (const std::exception& e) {
    return fail(tr("The spec is not valid: %1").arg(QString::fromUtf8(e.what())));
  }
  return spec;
}

int RunsView::expectedRunCount(QString* error) const {
  const nlohmann::json spec = buildSpec(error);
  if (spec.is_null()) return -1;
  try {
    return static_cast<int>(
        gb::experiment::expand_runs(gb::experiment::parse_spec(spec, ss(m_session->specsDir())))
            .size());
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return -1;
  }
}

void RunsView::updateRunCount() {
  QString error;
  const int n = expectedRunCount(&error);
  m_sweep->setRunCount(n, n < 0 ? error
                                : tr("The spec expands to %n run(s) (plans × sweep "
                                     "points × seeds)",
                                     nullptr, n));
}

int RunsView::launch() {
  if (!m_session->store()->isOpen()) {
    setMessage(tr("Open a workspace first."));
    return -1;
  }
  QString error;
  const nlohmann::json spec = buildSpec(&error);
  if (spec.is_null()) {
    setMessage(error);
    if (isVisible()) QMessageBox::warning(this, tr("Cannot launch"), error);
    return -1;
  }
  QDir().mkpath(m_session->specsDir());
  QString base = settings().name;
  base.replace(QRegularExpression(u"[^A-Za-z0-9_.-]+"_s), u"-"_s);
  const QString path = QDir(m_session->specsDir())
                           .filePath(u"%1-%2.json"_s.arg(
                               QDateTime::currentDateTime().toString(u"yyyyMMdd-HHmmss-zzz"_s),
                               base.isEmpty() ? u"experiment"_s : base));
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
    setMessage(tr("Could not write %1: %2").arg(path, f.errorString()));
    return -1;
  }
  f.write(QByteArray::fromStdString(spec.dump(2)));
  f.close();
  const int id =
      m_session->runs()->enqueueSpec(path, settings().name, settings().processes, settings().jobs);
  if (!m_session->queuedPlans().isEmpty()) m_session->clearQueuedPlans();
  setMessage(tr("Launched %1 (spec %2).").arg(settings().name, path));
  return id;
}

int RunsView::launchSpecFile(const QString& path) {
  if (!m_session->store()->isOpen()) {
    setMessage(tr("Open a workspace first."));
    return -1;
  }
  try {
    gb::experiment::load_spec(ss(path));
  } catch (const std::exception& e) {
    const QString msg = tr("The spec is not valid: %1").arg(QString::fromUtf8(e.what()));
    setMessage(msg);
    if (isVisible()) QMessageBox::warning(this, tr("Cannot launch"), msg);
    return -1;
  }
  return m_session->runs()->enqueueSpec(path, QFileInfo(path).completeBaseName(), 1,
                                        m_jobs->value());
}

bool RunsView::cancelRun(qint64 runId) {
  if (m_session->runs()->cancelRun(runId)) {
    setMessage(tr("Cancelling run %1…").arg(runId));
    return true;
  }
  // A run started outside the GUI: ask its worker process to stop (SIGTERM: a clean cancel).
  const RunRow* row = m_session->runModel()->run(runId);
  if (!row || row->info.status != st::RunStatus::Running || !row->info.worker_pid) return false;
  if (qs(row->info.worker_host) != QSysInfo::machineHostName()) {
    setMessage(tr("Run %1 runs on %2: cancel it there.").arg(runId).arg(qs(row->info.worker_host)));
    return false;
  }
  if (isVisible() &&
      QMessageBox::question(this, tr("Cancel run"),
                            tr("Run %1 was started outside this window (process %2). Ask it to "
                               "stop? It is cancelled cleanly and can be resumed.")
                                .arg(runId)
                                .arg(*row->info.worker_pid)) != QMessageBox::Yes) {
    return false;
  }
  if (::kill(static_cast<pid_t>(*row->info.worker_pid), SIGTERM) != 0) {
    setMessage(tr("Could not signal process %1.").arg(*row->info.worker_pid));
    return false;
  }
  setMessage(tr("Asked process %1 to cancel run %2.").arg(*row->info.worker_pid).arg(runId));
  return true;
}

QString RunsView::exportRefusal(qint64 runId, RunExport kind) const {
  const RunRow* row = m_session->runModel()->run(runId);
  if (!row) return tr("Run %1 is not in this store.").arg(runId);
  const bool model = kind == RunExport::HuggingFace || kind == RunExport::Peft;
  if (model && !row->hasCheckpoint) {
    return tr("Run %1 has no checkpoint: the model of a run is exported from its latest "
              "checkpoint.")
        .arg(runId);
  }
  if (kind == RunExport::Peft && row->variant != u"lora"_s) {
    return tr("Only LoRA runs can be written as a PEFT adapter (run %1 is %2).")
        .arg(runId)
        .arg(row->variant.isEmpty() ? tr("of no known variant") : row->variant);
  }
  return {};
}

void RunsView::askAndExport(qint64 runId, RunExport kind) {
  QString name, filter;
  switch (kind) {
    case RunExport::HuggingFace:
      name = u"run-%1-model"_s;
      break;
    case RunExport::Peft:
      name = u"run-%1-peft"_s;
      break;
    case RunExport::TensorBoard:
      name = u"run-%1-tensorboard"_s;
      break;
    case RunExport::Csv:
      name = u"run-%1.csv"_s;
      filter = tr("CSV (*.csv)");
      break;
    case RunExport::Jsonl:
      name = u"run-%1.jsonl"_s;
      filter = tr("JSON lines (*.jsonl)");
      break;
  }
  const bool folder = filter.isEmpty();
  const QString out = pickPath(
      this, PickKind::SaveFile, u"export"_s,
      folder ? tr("Export run %1: the folder to write").arg(runId)
             : tr("Export the metrics of run %1").arg(runId),
      QDir(recentLocations(u"export"_s).value(0, QDir::homePath())).filePath(name.arg(runId)),
      filter);
  if (out.isEmpty()) return;
  // A model export replaces its folder as a whole: an existing, non-empty one only after
  // asking. (TensorBoard events are added to a folder; the worker refuses one that already
  // holds an event file.)
  const bool replaces = kind == RunExport::HuggingFace || kind == RunExport::Peft;
  if (replaces && QFileInfo(out).isDir() && !QDir(out).isEmpty() &&
      QMessageBox::question(this, tr("Replace folder"),
                            tr("%1 exists and is not empty. Replace it as a whole with the export?")
                                .arg(QDir::toNativeSeparators(out))) != QMessageBox::Yes) {
    return;
  }
  exportRun(runId, kind, out);
}

bool RunsView::exportRun(qint64 runId, RunExport kind, const QString& out) {
  const QString why = exportRefusal(runId, kind);
  if (!why.isEmpty()) {
    setMessage(why);
    return false;
  }
  if (m_exportJob && m_exportJob->isRunning()) {
    setMessage(tr("An export is still running: wait for it to finish."));
    return false;
  }
  if (!m_exportJob) {
    m_exportJob = new CliJob(this);
    connect(m_exportJob, &CliJob::finished, this, [this](int code, bool crashed) {
      const bool ok = code == 0 && !crashed;
      const QString msg =
          ok ? tr("Run %1 exported to %2.")
                   .arg(m_exportRun)
                   .arg(QDir::toNativeSeparators(m_exportOut))
             : tr("Export of run %1 failed: %2").arg(m_exportRun).arg(m_exportJob->errorSummary());
      setMessage(msg);
      emit exportFinished(m_exportRun, ok, msg);
    });
    connect(m_exportJob, &CliJob::failed, this, [this](const QString& error) {
      const QString msg = tr("Export of run %1 failed: %2").arg(m_exportRun).arg(error);
      setMessage(msg);
      emit exportFinished(m_exportRun, false, msg);
    });
  }
  const QString id = QString::number(runId), db = m_session->databasePath();
  QStringList args;
  switch (kind) {
    case RunExport::HuggingFace:
    case RunExport::Peft:
      args = {u"export"_s,
              u"--run"_s,
              id,
              u"--db"_s,
              db,
              u"--out"_s,
              out,
              u"--format"_s,
              kind == RunExport::Peft ? u"peft"_s : u"hf"_s};
      break;
    case RunExport::TensorBoard:
    case RunExport::Csv:
    case RunExport::Jsonl:
      args = {u"runs"_s,
              u"export"_s,
              id,
              u"--db"_s,
              db,
              u"--format"_s,
              kind == RunExport::TensorBoard ? u"tensorboard"_s
              : kind == RunExport::Csv       ? u"csv"_s
                                             : u"jsonl"_s,
              u"--out"_s,
              out};
      break;
  }
  m_exportRun = runId;
  m_exportOut = out;
  if (!m_exportJob->start(args)) return false;  // `failed` said why
  setMessage(tr("Exporting run %1 to %2…").arg(runId).arg(QDir::toNativeSeparators(out)));
  return true;
}

// Resume (from a checkpoint) and start again (without one) both run `growbench-cli run
// --resume ID`, which continues from the newest valid checkpoint or, when there is none,
// starts the run from the beginning; the GUI offers each only where it applies.
bool RunsView::resumeRun(qint64 runId) {
  return enqueueStoppedRun(runId, true);
}

bool RunsView::restartRun(qint64 runId) {
  return enqueueStoppedRun(runId, false);
}

bool RunsView::enqueueStoppedRun(qint64 runId, bool fromCheckpoint) {
  const RunRow* row = m_session->runModel()->run(runId);
  if (!row) return false;
  const auto s = row->info.status;
  if (s != st::RunStatus::Interrupted && s != st::RunStatus::Cancelled &&
      s != st::RunStatus::Failed) {
    setMessage(fromCheckpoint
                   ? tr("Only interrupted, cancelled or failed runs can be resumed.")
                   : tr("Only interrupted, cancelled or failed runs can be started again."));
    return false;
  }
  if (fromCheckpoint && !row->hasCheckpoint) {
    setMessage(tr("Run %1 has no checkpoint to resume from: start it again (Start again, or its "
                  "context menu).")
                   .arg(runId));
    return false;
  }
  if (!fromCheckpoint && row->hasCheckpoint) {
    setMessage(tr("Run %1 has a checkpoint: resume it instead.").arg(runId));
    return false;
  }
  if (m_session->runs()->jobOfRun(runId) && m_session->runs()->activeCount() > 0) {
    for (const auto& j : m_session->runs()->jobs()) {
      if ((j.state == RunJob::State::Running || j.state == RunJob::State::Queued) &&
          (j.runIds.contains(runId) || j.resumeRunId == runId)) {
        setMessage(tr("Run %1 is already queued or running.").arg(runId));
        return false;
      }
    }
  }
  if (fromCheckpoint) {
    m_session->runs()->enqueueResume(runId, tr("resume run %1").arg(runId));
    setMessage(tr("Resuming run %1…").arg(runId));
  } else {
    m_session->runs()->enqueueResume(runId, tr("start run %1 again").arg(runId));
    setMessage(tr("Starting run %1 again from the beginning…").arg(runId));
  }
  return true;
}

QList<qint64> RunsView::selectedRuns() const {
  QList<qint64> ids;
  for (const QModelIndex& i : m_table->selectionModel()->selectedRows()) {
    ids << i.data(RunTableModel::RunIdRole).toLongLong();
  }
  return ids;
}

void RunsView::selectRun(qint64 runId) {
  const int row = m_session->runModel()->rowOfRun(runId);
  if (row < 0) {
    showLogOf(runId);
    return;
  }
  const QModelIndex src = m_session->runModel()->index(row, 0);
  const QModelIndex idx = m_proxy->mapFromSource(src);
  if (idx.isValid()) {
    m_table->selectionModel()->select(
        idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    m_table->scrollTo(idx);
  }
  showLogOf(runId);
}

void RunsView::showLogOf(qint64 runId) {
  if (runId == m_logRun) return;
  m_logRun = runId;
  m_lastEventId = 0;
  m_log->clear();
  const RunRow* row = m_session->runModel()->run(runId);
  m_logRunCreated = row ? row->info.created : 0;
  m_logTitle->setText(row ? tr("Log of run %1: %2").arg(runId).arg(qs(row->info.name))
                          : tr("Log of run %1").arg(runId));
  if (m_session->runs()->jobOfRun(runId)) {
    m_log->setPlainText(m_session->runs()->runLog(runId));
    m_log->verticalScrollBar()->setValue(m_log->verticalScrollBar()->maximum());
  } else {
    m_session->store()->requestEvents(runId, 0);
  }
}

void RunsView::updateButtons() {
  const auto ids = selectedRuns();
  bool canCancel = false, canResume = false, canRestart = false;
  for (qint64 id : ids) {
    const RunRow* r = m_session->runModel()->run(id);
    if (!r) continue;
    const auto s = r->info.status;
    canCancel = canCancel || s == st::RunStatus::Running || s == st::RunStatus::Queued;
    const bool stopped = s == st::RunStatus::Interrupted || s == st::RunStatus::Cancelled ||
                         s == st::RunStatus::Failed;
    canResume = canResume || (stopped && r->hasCheckpoint);
    canRestart = canRestart || (stopped && !r->hasCheckpoint);
  }
  m_cancel->setEnabled(canCancel);
  m_resume->setEnabled(canResume);
  m_restart->setEnabled(canRestart);
  m_curves->setEnabled(!ids.isEmpty());
}

}  // namespace gb::gui
