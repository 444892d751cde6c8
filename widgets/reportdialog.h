#pragma once
// ReportDialog: writes the report of a run group (growbench-cli report GROUP --out FILE.html
// --json FILE.json, the same page as the command line), shows its claims and verdicts, and
// opens the page in the desktop's browser (inline SVG figures need one).

#include <QDialog>
#include <QString>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace gb::gui {

class CliJob;

class ReportDialog : public QDialog {
  Q_OBJECT

 public:
  // `dbPath`: the run store; `group`: preselected group (may be empty).
  ReportDialog(const QString& dbPath, const QString& group, QWidget* parent = nullptr);

  // The groups of the store, newest first (read directly: a small query).
  static QStringList groupsOf(const QString& dbPath);

  QString outputPath() const;
  // Starts writing the report; the verdicts table fills when it is written.
  void write();
  // After a report was written: its verdicts as shown (claim id → verdict).
  QStringList verdicts() const;

 signals:
  void written(const QString& htmlPath);

 private:
  void chooseOutput();
  void showVerdicts(const QString& jsonPath);

  QString m_db;
  QComboBox* m_group = nullptr;
  QLineEdit* m_out = nullptr;
  QPushButton* m_write = nullptr;
  QPushButton* m_open = nullptr;
  QString m_writing;  // the path the last report job writes (fixed when it starts)
  QLabel* m_status = nullptr;
  QTableWidget* m_table = nullptr;
  CliJob* m_job = nullptr;
};

}  // namespace gb::gui
