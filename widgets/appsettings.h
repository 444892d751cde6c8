#pragma once
// AppSettings: typed access to the GUI's QSettings (organisation "GrowBench", application
// "growbench"): default device and workspace, language, recent workspaces, window state.

#include <QByteArray>
#include <QSettings>
#include <QString>
#include <QStringList>

namespace gb::gui {

class AppSettings {
 public:
  AppSettings();

  // The workspace opened at start: the last one, else the default one.
  QString workspace() const;
  void setWorkspace(const QString& dir);
  // $GROWBENCH_WORKSPACE, else gb::default_workspace_dir() (the CLI's default too).
  static QString defaultWorkspace();

  QStringList recentWorkspaces() const;
  void addRecentWorkspace(const QString& dir);

  QString defaultDevice() const;  // "cpu" unless set
  void setDefaultDevice(const QString& device);

  // "" = follow the system locale; else a locale name such as "de" or "zh_CN".
  QString language() const;
  void setLanguage(const QString& language);

  QByteArray windowGeometry() const;
  QByteArray windowState() const;
  void setWindow(const QByteArray& geometry, const QByteArray& state);

  QString lastDataFile() const;
  void setLastDataFile(const QString& path);
  QString lastModelFolder() const;
  void setLastModelFolder(const QString& path);

  QSettings& raw() { return m_settings; }

 private:
  QSettings m_settings;
};

}  // namespace gb::gui
