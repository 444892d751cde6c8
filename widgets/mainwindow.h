#pragma once
// MainWindow: the GrowBench workbench. Seven dockable views (Workspace, Model, Importance,
// Grow planner, Runs, Curves, Compare) whose layout and window geometry are restored from
// QSettings; menus and keyboard shortcuts for the main actions; settings and about dialogs.

#include <QMainWindow>

class QDockWidget;
class QLabel;

namespace gb::gui {

class CompareView;
class CurvesView;
class GrowPlanner;
class ImportanceView;
class ModelView;
class RunsView;
class Session;
class WorkspaceView;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  enum class View { Workspace, Model, Importance, Planner, Runs, Curves, Compare, Count };

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
  QDockWidget* dock(View view) const;
  static QString viewName(View view);

  void showView(View view);
  // The default arrangement of the docks.
  void resetLayout();
  // Restores the saved geometry and dock layout (false when there is none).
  bool restoreLayout();
  // Skip the "runs are still active" question on close (tests, the tour).
  void setConfirmClose(bool on) { m_confirmClose = on; }

 public slots:
  void showSettings();
  void showAbout();
  void exportPlot();
  void exportTable();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void changeEvent(QEvent* event) override;

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
  QDockWidget* m_docks[static_cast<int>(View::Count)] = {};
  QLabel* m_storeLabel = nullptr;
  QLabel* m_jobsLabel = nullptr;
  bool m_confirmClose = true;
};

}  // namespace gb::gui
