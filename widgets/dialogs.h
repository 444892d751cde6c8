#pragma once
// The settings dialog (default device, workspace, language; the theme follows the system)
// and the about dialog (versions of GrowBench, Qt, QCustomPlot and LibTorch, the latter
// asked from `growbench-cli --version` so the GUI never loads LibTorch for it).

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;

namespace gb::gui {

class CliJob;

class SettingsDialog : public QDialog {
  Q_OBJECT

 public:
  explicit SettingsDialog(QWidget* parent = nullptr);
  // Stores the choices in AppSettings; true when the language changed (restart needed).
  bool apply();
  // Languages the GUI offers: locale name → native name ("" = the system's).
  static QList<QPair<QString, QString>> languages();

 private:
  QComboBox* m_device = nullptr;
  QLineEdit* m_workspace = nullptr;
  QComboBox* m_language = nullptr;
  QString m_initialLanguage;
};

class AboutDialog : public QDialog {
  Q_OBJECT

 public:
  explicit AboutDialog(QWidget* parent = nullptr);
  // The LibTorch version line once growbench-cli answered ("" before).
  QString libtorchVersion() const { return m_torch; }
  QString text() const;

 signals:
  void versionsKnown();

 private:
  void updateText();
  QLabel* m_label = nullptr;
  CliJob* m_job = nullptr;
  QString m_torch;
  QString m_cli;
};

// "LibTorch 1.13.0" from a `growbench-cli --version` line, or "".
QString parseTorchVersion(const QString& versionLine);

}  // namespace gb::gui
