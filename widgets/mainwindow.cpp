#include "mainwindow.h"
#include "reportdialog.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMimeData>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTableView>
#include <QTreeView>
#include <QToolButton>

#include <qcustomplot.h>

#include "appsettings.h"
#include "compareview.h"
#include "curvesview.h"
#include "dialogs.h"
#include "elide.h"
#include "experimenteditor.h"
#include "filepicker.h"
#include "growplanner.h"
#include "guiutil.h"
#include "heatmapplot.h"
#include "importanceview.h"
#include "modelview.h"
#include "plotutil.h"
#include "runmanager.h"
#include "runsview.h"
#include "session.h"
#include "storeservice.h"
#include "workspaceview.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

QString MainWindow::viewName(View view) {
  switch (view) {
    case View::Workspace:
      return tr("Workspace");
    case View::Model:
      return tr("Model");
    case View::Importance:
      return tr("Importance");
    case View::Planner:
      return tr("Grow planner");
    case View::Runs:
      return tr("Runs");
    case View::Curves:
      return tr("Curves");
    case View::Compare:
      return tr("Compare");
    case View::Experiment:
      return tr("Experiment");
    default:
      return {};
  }
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(u"GrowBenchMainWindow"_s);
  setWindowIcon(QIcon(u":/icons/growbench.svg"_s));
  setAcceptDrops(true);
  m_session = new Session(this);
  m_workspace = new WorkspaceView(m_session);
  m_model = new ModelView(m_session);
  m_importance = new ImportanceView(m_session);
  m_planner = new GrowPlanner(m_session);
  m_runs = new RunsView(m_session);
  m_curves = new CurvesView(m_session);
  m_compare = new CompareView(m_session);
  m_experiment = new ExperimentEditor(m_session);
  m_runs->setCurrentPlanProvider([this] { return m_planner->plan(); });
  // "Suggest a plan…" starts from the workspace: its model, the Runs view's data, its store.
  m_planner->setSuggestDefaultsProvider([this] {
    SuggestSettings s;
    s.model = m_session->model().folder;
    const LaunchSettings l = m_runs->settings();
    s.newData = l.trainData;
    s.originalData = l.origEvalData;
    s.db = m_session->databasePath();
    return s;
  });
  createDocks();
  createActions();
  // Every table fits its content or elides with the full text as a tooltip.
  for (QAbstractItemView* v : findChildren<QAbstractItemView*>()) {
    if (qobject_cast<QTableView*>(v) || qobject_cast<QTreeView*>(v)) fitToContents(v);
  }
  m_storeLabel = new QLabel;
  m_jobsLabel = new QLabel;
  statusBar()->addPermanentWidget(m_jobsLabel);
  statusBar()->addPermanentWidget(m_storeLabel);

  connect(m_workspace, &WorkspaceView::message, this, &MainWindow::showMessage);
  connect(m_model, &ModelView::message, this, &MainWindow::showMessage);
  connect(m_importance, &ImportanceView::message, this, &MainWindow::showMessage);
  connect(m_runs, &RunsView::message, this, &MainWindow::showMessage);
  connect(m_compare, &CompareView::message, this, &MainWindow::showMessage);
  connect(m_experiment, &ExperimentEditor::message, this, &MainWindow::showMessage);
  connect(m_experiment, &ExperimentEditor::launched, this, [this] { showView(View::Runs); });
  connect(m_runs, &RunsView::editSpecRequested, this, [this](const nlohmann::json& spec) {
    m_experiment->setSpec(spec);
    showView(View::Experiment);
  });
  connect(m_runs, &RunsView::editRunSpecRequested, this, [this](qint64 run) {
    if (m_experiment->openRunSpec(run)) showView(View::Experiment);
  });
  connect(m_session, &Session::statusMessage, this, &MainWindow::showMessage);
  connect(m_session->store(), &StoreService::opened, this,
          [this](const QString& path, const QString& error) {
            if (!error.isEmpty()) {
              QMessageBox::warning(this, tr("Workspace"),
                                   tr("Could not open the run store %1:\n%2").arg(path, error));
            }
            m_storeLabel->setText(error.isEmpty() ? displayPath(path) : tr("no store"));
            m_storeLabel->setToolTip(error.isEmpty() ? path : error);
            updateTitle();
          });
  connect(m_session->store(), &StoreService::errorOccurred, this, &MainWindow::showMessage);
  connect(m_session->runs(), &RunManager::jobsChanged, this, [this] {
    const int n = m_session->runs()->activeCount();
    m_jobsLabel->setText(n > 0 ? tr("%n job(s) active", nullptr, n) : QString());
  });
  connect(m_session, &Session::workspaceChanged, this, [this] { updateTitle(); });
  connect(m_session, &Session::modelChanged, this, [this] { updateTitle(); });
  connect(m_planner, &GrowPlanner::launchRequested, this, [this] { showView(View::Runs); });
  // A recommendation's rate and run length go to the launch form, with its plan in the
  // planner.
  connect(m_planner, &GrowPlanner::recommendationLoaded, this, [this](double lr, qint64 steps) {
    LaunchSettings l = m_runs->settings();
    l.lr = lr;
    if (steps > 0) l.steps = static_cast<int>(steps);
    m_runs->setSettings(l);
    showView(View::Planner);
    showMessage(tr("The recommended plan is in the Grow planner; the launch form's learning "
                   "rate is %1 and its steps %2.")
                    .arg(QString::number(lr, 'g', 4))
                    .arg(l.steps));
  });
  connect(m_planner, &GrowPlanner::checkFinished, this,
          [this](bool, const QString& msg) { showMessage(msg); });
  connect(m_runs, &RunsView::showCurvesRequested, this, [this](const QList<qint64>& ids) {
    m_session->setCurveRuns(ids);
    showView(View::Curves);
  });
  connect(m_workspace, &WorkspaceView::runQuickstartRequested, this, [this](const QString& s) {
    if (m_runs->launchSpecFile(s) >= 0) showView(View::Runs);
  });
  connect(m_importance, &ImportanceView::probeFinished, this,
          [this](bool, const QString& msg) { showMessage(msg); });
  updateTitle();
}

MainWindow::~MainWindow() = default;

void MainWindow::createDocks() {
  setDockNestingEnabled(true);
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks |
                 QMainWindow::AllowNestedDocks | QMainWindow::GroupedDragging);
  QWidget* widgets[] = {m_workspace, m_model,  m_importance, m_planner,
                        m_runs,      m_curves, m_compare,    m_experiment};
  const char* names[] = {"dock-workspace", "dock-model",  "dock-importance", "dock-planner",
                         "dock-runs",      "dock-curves", "dock-compare",    "dock-experiment"};
  for (int i = 0; i < static_cast<int>(View::Count); ++i) {
    auto* d = new QDockWidget(viewName(static_cast<View>(i)), this);
    d->setObjectName(QLatin1String(names[i]));
    d->setWidget(widgets[i]);
    d->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable |
                   QDockWidget::DockWidgetFloatable);
    m_docks[i] = d;
  }
  // No central widget: every view is a dock.
  auto* central = new QWidget;
  central->setMaximumSize(0, 0);
  setCentralWidget(central);
  resetLayout();
}

QDockWidget* MainWindow::dock(View view) const {
  return m_docks[static_cast<int>(view)];
}

void MainWindow::resetLayout() {
  for (QDockWidget* d : m_docks) {
    removeDockWidget(d);
    d->setFloating(false);
  }
  // Left: the workspace, the model and the planner; right: the big views. The planner and
  // the importance heatmap are side by side, since one feeds the other.
  addDockWidget(Qt::LeftDockWidgetArea, dock(View::Workspace));
  addDockWidget(Qt::LeftDockWidgetArea, dock(View::Model));
  addDockWidget(Qt::LeftDockWidgetArea, dock(View::Planner));
  tabifyDockWidget(dock(View::Workspace), dock(View::Model));
  tabifyDockWidget(dock(View::Model), dock(View::Planner));
  addDockWidget(Qt::RightDockWidgetArea, dock(View::Importance));
  addDockWidget(Qt::RightDockWidgetArea, dock(View::Runs));
  addDockWidget(Qt::RightDockWidgetArea, dock(View::Curves));
  addDockWidget(Qt::RightDockWidgetArea, dock(View::Compare));
  addDockWidget(Qt::RightDockWidgetArea, dock(View::Experiment));
  tabifyDockWidget(dock(View::Importance), dock(View::Runs));
  tabifyDockWidget(dock(View::Runs), dock(View::Curves));
  tabifyDockWidget(dock(View::Curves), dock(View::Compare));
  tabifyDockWidget(dock(View::Compare), dock(View::Experiment));
  for (QDockWidget* d : m_docks) d->show();
  dock(View::Model)->raise();
  dock(View::Importance)->raise();
  resizeDocks({dock(View::Model), dock(View::Importance)}, {440, 1000}, Qt::Horizontal);
}

bool MainWindow::restoreLayout() {
  AppSettings s;
  const QByteArray g = s.windowGeometry();
  const QByteArray st = s.windowState();
  bool ok = false;
  if (!g.isEmpty()) ok = restoreGeometry(g);
  if (!st.isEmpty()) ok = restoreState(st) && ok;
  return ok;
}

void MainWindow::showView(View view) {
  QDockWidget* d = dock(view);
  d->show();
  d->raise();
  d->widget()->setFocus();
}

void MainWindow::createActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* openWs =
      file->addAction(tr("&Open workspace…"), m_workspace, &WorkspaceView::chooseAndOpen);
  openWs->setShortcut(QKeySequence::Open);
  QAction* newWs =
      file->addAction(tr("&New workspace…"), m_workspace, &WorkspaceView::chooseAndCreate);
  newWs->setShortcut(QKeySequence(u"Ctrl+Shift+N"_s));
  QAction* openModel = file->addAction(tr("Open &model…"), this, [this] {
    showView(View::Model);
    const QString dir = pickPath(this, PickKind::Folder, u"model"_s, tr("Open a model folder"),
                                 AppSettings().lastModelFolder());
    if (!dir.isEmpty()) m_model->openFolder(dir);
  });
  openModel->setShortcut(QKeySequence(u"Ctrl+M"_s));
  QAction* openSpec = file->addAction(tr("Open experiment &spec…"), this, [this] {
    const QString f = pickPath(this, PickKind::File, u"spec"_s, tr("Open an experiment spec"),
                               QString(), tr("Experiment spec (*.json)"));
    if (f.isEmpty()) return;
    if (m_experiment->loadFile(f)) showView(View::Experiment);
  });
  openSpec->setShortcut(QKeySequence(u"Ctrl+Shift+O"_s));
  file->addSeparator();
  QAction* expPlot = file->addAction(tr("Export &plot…"), this, &MainWindow::exportPlot);
  expPlot->setShortcut(QKeySequence(u"Ctrl+E"_s));
  QAction* expTable = file->addAction(tr("Export &table as CSV…"), this, &MainWindow::exportTable);
  expTable->setShortcut(QKeySequence(u"Ctrl+Shift+E"_s));
  file->addSeparator();
  QAction* settings = file->addAction(tr("&Settings…"), this, &MainWindow::showSettings);
  settings->setShortcut(QKeySequence(u"Ctrl+,"_s));
  settings->setMenuRole(QAction::PreferencesRole);
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);

  QMenu* run = menuBar()->addMenu(tr("&Run"));
  QAction* launch = run->addAction(tr("&Launch run"), this, [this] {
    showView(View::Runs);
    m_runs->launch();
  });
  launch->setShortcut(QKeySequence(u"Ctrl+R"_s));
  QAction* addPlan =
      run->addAction(tr("&Add plan to comparison"), m_planner, &GrowPlanner::queueCurrentPlan);
  addPlan->setShortcut(QKeySequence(u"Ctrl+D"_s));
  QAction* check = run->addAction(tr("&Check preservation"), this, [this] {
    showView(View::Planner);
    m_planner->checkPreservation();
  });
  check->setShortcut(QKeySequence(u"Ctrl+K"_s));
  run->addAction(tr("&Suggest a plan…"), this, [this] {
    showView(View::Planner);
    m_planner->openSuggestDialog();
  });
  QAction* probe = run->addAction(tr("New &probe…"), this, [this] {
    showView(View::Importance);
    if (auto* b = m_importance->findChild<QToolButton*>()) b->setChecked(true);
  });
  probe->setShortcut(QKeySequence(u"Ctrl+P"_s));
  run->addSeparator();
  QAction* cancel = run->addAction(tr("Ca&ncel selected runs"), this, [this] {
    for (qint64 id : m_runs->selectedRuns()) m_runs->cancelRun(id);
  });
  cancel->setShortcut(QKeySequence(u"Ctrl+Shift+X"_s));
  QAction* resume = run->addAction(tr("&Resume selected runs"), this, [this] {
    for (qint64 id : m_runs->selectedRuns()) m_runs->resumeRun(id);
  });
  resume->setShortcut(QKeySequence(u"Ctrl+Shift+R"_s));
  run->addAction(tr("Re&port of a group…"), this, [this] {
    auto* dlg = new ReportDialog(m_session->databasePath(), QString(), this);
    dlg->setAttribute(Qt::WA_DeleteOnClose);
    dlg->show();
  });
  QAction* refresh = run->addAction(tr("Re&fresh"), m_session->store(), &StoreService::refresh);
  refresh->setShortcut(QKeySequence::Refresh);

  QMenu* view = menuBar()->addMenu(tr("&View"));
  for (int i = 0; i < static_cast<int>(View::Count); ++i) {
    QAction* a = view->addAction(tr("Show %1").arg(viewName(static_cast<View>(i))), this,
                                 [this, i] { showView(static_cast<View>(i)); });
    a->setShortcut(QKeySequence(u"Ctrl+%1"_s.arg(i + 1)));
  }
  view->addSeparator();
  QMenu* toggles = view->addMenu(tr("Views"));
  for (QDockWidget* d : m_docks) toggles->addAction(d->toggleViewAction());
  view->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  QAction* guide = help->addAction(tr("&User Guide"), this, &MainWindow::showUserGuide);
  guide->setShortcut(QKeySequence::HelpContents);
  help->addSeparator();
  help->addAction(tr("&About GrowBench"), this, &MainWindow::showAbout);
  help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::showMessage(const QString& text) {
  statusBar()->showMessage(text, 8000);
}

void MainWindow::updateTitle() {
  QString title = tr("GrowBench");
  const QString ws = m_session->workspaceDir();
  if (!ws.isEmpty()) title = tr("%1 — GrowBench").arg(QDir(ws).dirName());
  if (m_session->model().valid()) {
    title = tr("%1 · %2").arg(m_session->model().displayName, title);
  }
  setWindowTitle(title);
}

void MainWindow::showSettings() {
  SettingsDialog dlg(this);
  if (dlg.exec() != QDialog::Accepted) return;
  const bool languageChanged = dlg.apply();
  const QString ws = AppSettings().workspace();
  if (ws != m_session->workspaceDir()) m_session->openWorkspace(ws);
  if (languageChanged) {
    QMessageBox::information(this, tr("Settings"),
                             tr("The new language applies when GrowBench starts again."));
  }
}

void MainWindow::showAbout() {
  AboutDialog dlg(this);
  dlg.exec();
}

void MainWindow::exportPlot() {
  // The plot of the view that has the focus, else the one raised last among the plot views.
  QCustomPlot* plot = nullptr;
  QWidget* focus = QApplication::focusWidget();
  if (focus && m_docks[int(View::Importance)]->isAncestorOf(focus)) {
    plot = m_importance->tabs()->currentIndex() == 0
               ? static_cast<QCustomPlot*>(m_importance->heatmap())
               : m_importance->rankMap();
  }
  if (!plot) {
    showView(View::Curves);
    plot = m_curves->currentPlot();
  }
  const QString f =
      QFileDialog::getSaveFileName(this, tr("Export plot"), u"plot.png"_s, plotFileFilter());
  if (f.isEmpty()) return;
  QString error;
  if (gb::gui::exportPlot(plot, f, &error))
    showMessage(tr("Wrote %1.").arg(f));
  else
    QMessageBox::warning(this, tr("Export failed"), error);
}

void MainWindow::exportTable() {
  showView(View::Compare);
  const QString f =
      QFileDialog::getSaveFileName(this, tr("Export table"), u"runs.csv"_s, tr("CSV (*.csv)"));
  if (f.isEmpty()) return;
  QString error;
  if (m_compare->exportCsv(f, &error))
    showMessage(tr("Wrote %1.").arg(f));
  else
    QMessageBox::warning(this, tr("Export failed"), error);
}

void MainWindow::showUserGuide() {
  auto* dlg = findChild<QDialog*>(u"userGuide"_s);
  if (!dlg) {
    dlg = new QDialog(this);
    dlg->setObjectName(u"userGuide"_s);
    dlg->setWindowTitle(tr("GrowBench User Guide"));
    dlg->resize(980, 760);
    auto* v = new QVBoxLayout(dlg);
    auto* browser = new QTextBrowser;
    browser->setObjectName(u"userGuideBrowser"_s);
    browser->setOpenExternalLinks(true);
    // The guide and its screenshots are resources (docs/user-guide.md, docs/images/).
    browser->setSource(QUrl(u"qrc:/doc/user-guide.md"_s), QTextDocument::MarkdownResource);
    v->addWidget(browser);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, dlg, &QDialog::close);
    v->addWidget(buttons);
  }
  dlg->show();
  dlg->raise();
  dlg->activateWindow();
}

int MainWindow::openPaths(const QStringList& paths) {
  int opened = 0;
  QStringList refused;
  for (const QString& p : paths) {
    const QString path = QFileInfo(p).absoluteFilePath();
    switch (classifyPath(path)) {
      case PathKind::ModelFolder: {
        const QString folder = QFileInfo(path).isDir() ? path : QFileInfo(path).absolutePath();
        showView(View::Model);
        if (m_model->openFolder(folder)) {
          addRecentLocation(u"model"_s, folder);
          ++opened;
        }
        break;
      }
      case PathKind::Spec:
        if (m_experiment->loadFile(path)) {
          showView(View::Experiment);
          ++opened;
        }
        break;
      case PathKind::Store:
        m_session->openStore(path);
        showView(View::Workspace);
        ++opened;
        break;
      case PathKind::Workspace:
        m_session->openWorkspace(path);
        showView(View::Workspace);
        ++opened;
        break;
      case PathKind::Unknown:
        refused << QFileInfo(path).fileName();
        break;
    }
  }
  if (!refused.isEmpty()) {
    showMessage(
        tr("Not a model folder, an experiment spec or a run store: %1").arg(refused.join(u", "_s)));
  }
  return opened;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const QMimeData* mime = event->mimeData();
  if (!mime || !mime->hasUrls()) return;
  for (const QUrl& u : mime->urls()) {
    if (u.isLocalFile() && classifyPath(u.toLocalFile()) != PathKind::Unknown) {
      event->acceptProposedAction();
      return;
    }
  }
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QMimeData* mime = event->mimeData();
  if (!mime || !mime->hasUrls()) return;
  QStringList paths;
  for (const QUrl& u : mime->urls()) {
    if (u.isLocalFile()) paths << u.toLocalFile();
  }
  if (openPaths(paths) > 0) event->acceptProposedAction();
}

void MainWindow::closeEvent(QCloseEvent* event) {
  // A plan search ("Suggest a plan…") is one worker of its own.
  SuggestDialog* search = m_planner->suggestDialog();
  if (search && search->isRunning() && m_confirmClose) {
    const auto answer = QMessageBox::question(
        this, tr("A search is running"),
        tr("“Suggest a plan” is still searching. Closing cancels it cleanly; started again with "
           "the same fields, it continues. Close anyway?"));
    if (answer != QMessageBox::Yes) {
      event->ignore();
      return;
    }
  }
  if (search && search->isRunning()) {
    search->cancel();
    QElapsedTimer t;
    t.start();
    while (search->isRunning() && t.elapsed() < 15000) {
      QApplication::processEvents(QEventLoop::AllEvents, 50);
    }
  }
  RunManager* rm = m_session->runs();
  if (rm->activeCount() > 0 && m_confirmClose) {
    const auto answer = QMessageBox::question(
        this, tr("Runs are active"),
        tr("%n job(s) are still running or queued. Closing cancels them cleanly: each run keeps "
           "its last checkpoint and can be resumed from the Runs view. Close anyway?",
           nullptr, rm->activeCount()));
    if (answer != QMessageBox::Yes) {
      event->ignore();
      return;
    }
  }
  if (rm->activeCount() > 0) {
    rm->cancelAll();
    // Give the workers a moment to record the cancellation.
    QElapsedTimer t;
    t.start();
    while (rm->activeCount() > 0 && t.elapsed() < 15000) {
      QApplication::processEvents(QEventLoop::AllEvents, 50);
    }
  }
  AppSettings().setWindow(saveGeometry(), saveState());
  event->accept();
}

void MainWindow::changeEvent(QEvent* event) {
  if (event->type() == QEvent::PaletteChange || event->type() == QEvent::ApplicationPaletteChange) {
    for (QCustomPlot* p : findChildren<QCustomPlot*>()) {
      if (!qobject_cast<HeatmapPlot*>(p)) {
        stylePlot(p);
        p->replot(QCustomPlot::rpQueuedReplot);
      }
    }
  }
  QMainWindow::changeEvent(event);
}

}  // namespace gb::gui
