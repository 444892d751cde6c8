#include "reportdialog.h"

#include <QComboBox>
#include <QDesktopServices>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTableWidget>
#include <QUrl>
#include <QVBoxLayout>

#include <algorithm>
#include <set>

#include "clijob.h"
#include "store/store.h"

namespace gb::gui {

QStringList ReportDialog::groupsOf(const QString& dbPath) {
  QStringList out;
  if (dbPath.isEmpty() || !QFileInfo::exists(dbPath)) return out;
  try {
    store::Store store = store::Store::open(dbPath.toStdString(), store::OpenMode::ReadOnly);
    std::vector<std::pair<double, std::string>> groups;
    std::set<std::string> seen;
    for (const auto& r : store.list_runs()) {
      if (r.experiment.empty() || !seen.insert(r.experiment).second) continue;
      groups.emplace_back(r.created, r.experiment);
    }
    std::sort(groups.begin(), groups.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    for (const auto& g : groups) out << QString::fromStdString(g.second);
  } catch (const std::exception&) {
    // An unreadable store lists no groups; writing the report then says why.
  }
  return out;
}

ReportDialog::ReportDialog(const QString& dbPath, const QString& group, QWidget* parent)
    : QDialog(parent), m_db(dbPath) {
  setWindowTitle(tr("Report of a run group"));
  auto* form = new QFormLayout;
  m_group = new QComboBox(this);
  m_group->addItems(groupsOf(dbPath));
  if (!group.isEmpty()) {
    const int i = m_group->findText(group);
    if (i >= 0) m_group->setCurrentIndex(i);
  }
  m_group->setToolTip(tr("The runs one spec started together (its seeds and sweep points)."));
  form->addRow(tr("Group"), m_group);
  auto* outRow = new QHBoxLayout;
  m_out = new QLineEdit(this);
  auto* browse = new QPushButton(tr("Choose…"), this);
  outRow->addWidget(m_out);
  outRow->addWidget(browse);
  form->addRow(tr("Export to"), outRow);
  auto suggest = [this] {
    QString name = m_group->currentText();
    name.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]")), QStringLiteral("_"));
    m_out->setText(QDir::home().filePath(QStringLiteral("growbench-report-%1.html").arg(name)));
  };
  suggest();
  connect(m_group, &QComboBox::currentTextChanged, this, suggest);
  connect(browse, &QPushButton::clicked, this, &ReportDialog::chooseOutput);

  m_status = new QLabel(this);
  m_status->setWordWrap(true);
  m_table = new QTableWidget(0, 3, this);
  m_table->setHorizontalHeaderLabels({tr("Claim"), tr("Verdict"), tr("What decided it")});
  m_table->horizontalHeader()->setStretchLastSection(true);
  m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  m_table->setWordWrap(true);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  m_write = buttons->addButton(tr("Write report"), QDialogButtonBox::ActionRole);
  m_open = buttons->addButton(tr("Open in browser"), QDialogButtonBox::ActionRole);
  m_open->setEnabled(false);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(m_write, &QPushButton::clicked, this, &ReportDialog::write);
  connect(m_open, &QPushButton::clicked, this,
          [this] { QDesktopServices::openUrl(QUrl::fromLocalFile(m_writing)); });

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(m_status);
  layout->addWidget(m_table, 1);
  layout->addWidget(buttons);
  resize(820, 460);

  m_job = new CliJob(this);
  connect(m_job, &CliJob::failed, this, [this](const QString& message) {
    m_status->setText(message);
    m_write->setEnabled(true);
  });
  connect(m_job, &CliJob::finished, this, [this](int code, bool crashed) {
    m_write->setEnabled(true);
    if (crashed || code != 0) {
      m_status->setText(tr("The report could not be written: %1").arg(m_job->errorSummary()));
      return;
    }
    // The path the job wrote, not what the field says now (it may have been edited since).
    m_status->setText(tr("Written to %1").arg(m_writing));
    m_open->setEnabled(true);
    showVerdicts(m_writing + QStringLiteral(".json"));
    emit written(m_writing);
  });
  if (m_group->count() == 0) {
    m_status->setText(tr("This store has no run groups yet."));
    m_write->setEnabled(false);
  }
}

QString ReportDialog::outputPath() const {
  return m_out->text().trimmed();
}

void ReportDialog::chooseOutput() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export report"), outputPath(),
                                                    tr("HTML pages (*.html)"));
  if (!path.isEmpty()) m_out->setText(path);
}

void ReportDialog::write() {
  if (m_job->isRunning()) return;  // one report at a time (its path is kept until it ends)
  if (m_group->currentText().isEmpty() || outputPath().isEmpty()) return;
  m_write->setEnabled(false);
  m_open->setEnabled(false);
  m_table->setRowCount(0);
  m_status->setText(tr("Writing the report…"));
  m_writing = outputPath();
  m_job->start({QStringLiteral("report"), m_group->currentText(), QStringLiteral("--db"), m_db,
                QStringLiteral("--out"), m_writing, QStringLiteral("--json"),
                m_writing + QStringLiteral(".json")});
}

void ReportDialog::showVerdicts(const QString& jsonPath) {
  QFile f(jsonPath);
  if (!f.open(QIODevice::ReadOnly)) return;
  const auto doc = QJsonDocument::fromJson(f.readAll());
  const QJsonArray claims = doc.object().value(QStringLiteral("claims")).toArray();
  m_table->setRowCount(claims.size());
  for (int i = 0; i < claims.size(); ++i) {
    const QJsonObject c = claims[i].toObject();
    auto* id = new QTableWidgetItem(c.value(QStringLiteral("id")).toString());
    id->setToolTip(c.value(QStringLiteral("text")).toString());
    m_table->setItem(i, 0, id);
    m_table->setItem(i, 1, new QTableWidgetItem(c.value(QStringLiteral("verdict")).toString()));
    auto* rule = new QTableWidgetItem(c.value(QStringLiteral("rule")).toString());
    rule->setToolTip(rule->text());
    m_table->setItem(i, 2, rule);
  }
  if (claims.isEmpty())
    m_status->setText(m_status->text() + QLatin1Char('\n') +
                      tr("This group's spec states no claims: the report "
                         "holds its table and curves."));
  m_table->resizeRowsToContents();
}

QStringList ReportDialog::verdicts() const {
  QStringList out;
  for (int i = 0; i < m_table->rowCount(); ++i) {
    out << m_table->item(i, 0)->text() + QStringLiteral(": ") + m_table->item(i, 1)->text();
  }
  return out;
}

}  // namespace gb::gui
