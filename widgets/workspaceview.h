#pragma once
// WorkspaceView: the open workspace (a folder holding growbench.db and the runs'
// checkpoints), opening or creating another, the default workspace (the one
// `growbench-cli quickstart` and `run` use without --db), recent workspaces, and a summary
// of what the store holds.

#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace gb::gui {

class Session;

class WorkspaceView : public QWidget {
  Q_OBJECT

 public:
  explicit WorkspaceView(Session* session, QWidget* parent = nullptr);

  void chooseAndOpen();
  void chooseAndCreate();
  // The bundled quickstart spec (resources/experiments/quickstart.json), or "".
  static QString quickstartSpec();

 signals:
  void runQuickstartRequested(const QString& specPath);
  void message(const QString& text);

 private:
  void refreshRecent();
  void refreshSummary();

  Session* m_session;
  QLabel* m_path = nullptr;
  QLabel* m_summary = nullptr;
  QListWidget* m_recent = nullptr;
  QPushButton* m_quickstart = nullptr;
};

}  // namespace gb::gui
