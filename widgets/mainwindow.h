#pragma once
// MainWindow: the GrowBench workbench. Eight dockable views (Workspace, Model, Importance,
// Grow planner, Runs, Curves, Compare, Experiment editor) whose layout and window geometry
// are restored from QSettings; menus and keyboard shortcuts for the main actions; settings,
// about and the user guide. Model folders, experiment specs and run stores dropped onto the
// window (or given on the command line) open in their view.

#include <QMainWindow>

class QDockWidget;
class QLabel;

namespace gb::gui {

class CompareView;
class CurvesView;
class ExperimentEditor;
class GrowPlanner;
class ImportanceView;
class ModelView;
class RunsView;
class Session;
class WorkspaceView;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum class View {
    Workspace,
    Model,
    Importance,
    Planner,
    Runs,
    Curves,
    Compare,
    Experiment,
    Count
  };

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  Session* session() const { return m_session; }
  WorkspaceView* workspaceView() const { return m_workspace; }
  ModelView* modelView() const { return m_model; }
  ImportanceView* importanceView() const { return m_importance; }
  GrowPlanner* planner() const { return m_planner; }
  RunsView* runsView() const { return m_runs; }
  CurvesView* curvesView() const { return m_curves; }
  CompareView* compareView() const { return m_compare; }
  ExperimentEditor* experimentEditor() const { return m_experiment; }
  QDockWidget* dock(View view) const;
  static QString viewName(View view);

  void showView(View view);
  // The default arrangement of the docks.
  void resetLayout();
  // Restores the saved geometry and dock layout (false when there is none).
  bool restoreLayout();
  // Skip the "runs are still active" question on close (tests, the tour).
  void setConfirmClose(bool on) { m_confirmClose = on; }
  // Opens what each path is: a model folder (or its config.json) in the Model view, an
  // experiment spec in the editor, a run store or a workspace folder as the workspace.
  // Returns how many were opened; the others are named in a message.
  int openPaths(const QStringList& paths);

 public slots:
  void showSettings();
  void showAbout();
  void exportPlot();
  void exportTable();
  void showUserGuide();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void changeEvent(QEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void createDocks();
  void createActions();
  void showMessage(const QString& text);
  void updateTitle();

  Session* m_session = nullptr;
  WorkspaceView* m_workspace = nullptr;
  ModelView* m_model = nullptr;
  ImportanceView* m_importance = nullptr;
  GrowPlanner* m_planner = nullptr;
  RunsView* m_runs = nullptr;
  CurvesView* m_curves = nullptr;
  CompareView* m_compare = nullptr;
  ExperimentEditor* m_experiment = nullptr;
  QDockWidget* m_docks[static_cast<int>(View::Count)] = {};
  QLabel* m_storeLabel = nullptr;
  QLabel* m_jobsLabel = nullptr;
  bool m_confirmClose = true;
};

}  // namespace gb::gui
