#include "dialogs.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtGlobal>

#include <qcustomplot.h>

#include "appsettings.h"
#include "clijob.h"
#include "guiutil.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

QList<QPair<QString, QString>> SettingsDialog::languages() {
  return {{QString(), tr("System language")},
          {u"en"_s, u"English"_s},
          {u"de"_s, u"Deutsch"_s},
          {u"zh_CN"_s, u"简体中文"_s}};
}

SettingsDialog::SettingsDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Settings"));
  AppSettings s;
  auto* form = new QFormLayout;
  m_device = new QComboBox;
  m_device->setEditable(true);
  m_device->addItems({u"cpu"_s, u"cuda"_s, u"cuda:0"_s, u"cuda:1"_s});
  m_device->setCurrentText(s.defaultDevice());
  m_device->setToolTip(tr("Device of new runs: cpu, cuda or cuda:N"));
  form->addRow(tr("Default device:"), m_device);
  auto* ws = new QWidget;
  auto* wl = new QHBoxLayout(ws);
  wl->setContentsMargins(0, 0, 0, 0);
  m_workspace = new QLineEdit(s.workspace());
  auto* browse = new QToolButton;
  browse->setText(tr("Browse…"));
  wl->addWidget(m_workspace, 1);
  wl->addWidget(browse);
  form->addRow(tr("Workspace at start:"), ws);
  m_language = new QComboBox;
  for (const auto& [code, name] : languages()) m_language->addItem(name, code);
  m_initialLanguage = s.language();
  m_language->setCurrentIndex(std::max(0, m_language->findData(m_initialLanguage)));
  form->addRow(tr("Language:"), m_language);
  auto* theme =
      new QLabel(tr("The colours follow the system theme (light or dark); plots "
                    "follow it too."));
  theme->setWordWrap(true);
  form->addRow(tr("Theme:"), theme);
  auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  auto* v = new QVBoxLayout(this);
  v->addLayout(form);
  v->addWidget(box);
  connect(box, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(browse, &QToolButton::clicked, this, [this] {
    const QString d = QFileDialog::getExistingDirectory(this, tr("Workspace"), m_workspace->text());
    if (!d.isEmpty()) m_workspace->setText(d);
  });
}

bool SettingsDialog::apply() {
  AppSettings s;
  s.setDefaultDevice(m_device->currentText().trimmed());
  if (!m_workspace->text().trimmed().isEmpty()) s.setWorkspace(m_workspace->text().trimmed());
  const QString lang = m_language->currentData().toString();
  s.setLanguage(lang);
  return lang != m_initialLanguage;
}

QString parseTorchVersion(const QString& line) {
  static const QRegularExpression re(u"LibTorch\\s+([0-9][^\\s)]*)"_s);
  const auto m = re.match(line);
  return m.hasMatch() ? m.captured(1) : QString();
}

AboutDialog::AboutDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("About GrowBench"));
  auto* v = new QVBoxLayout(this);
  m_label = new QLabel;
  m_label->setWordWrap(true);
  m_label->setTextFormat(Qt::RichText);
  m_label->setTextInteractionFlags(Qt::TextBrowserInteraction);
  m_label->setOpenExternalLinks(true);
  v->addWidget(m_label);
  auto* box = new QDialogButtonBox(QDialogButtonBox::Close);
  v->addWidget(box);
  connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
  m_job = new CliJob(this);
  connect(m_job, &CliJob::finished, this, [this](int code, bool) {
    const QString out = QString::fromUtf8(m_job->standardOutput()).trimmed();
    m_cli = out;
    m_torch = code == 0 ? parseTorchVersion(out) : QString();
    if (m_torch.isEmpty()) m_torch = tr("unknown (growbench-cli did not say)");
    updateText();
    emit versionsKnown();
  });
  connect(m_job, &CliJob::failed, this, [this](const QString& msg) {
    m_torch = tr("unknown: %1").arg(msg);
    updateText();
    emit versionsKnown();
  });
  updateText();
  m_job->start({u"--version"_s});
}

QString AboutDialog::text() const {
  return m_label->text();
}

void AboutDialog::updateText() {
  const QString torch = m_torch.isEmpty() ? tr("asking growbench-cli…") : m_torch;
  m_label->setText(
      tr("<h3>GrowBench %1</h3>"
         "<p>A workbench for growing pretrained language models without catastrophic "
         "forgetting: importance probes, growth plans, runs, and the forgetting–learning "
         "trade-off.</p>"
         "<table>"
         "<tr><td>Qt</td><td>%2 (built with %3)</td></tr>"
         "<tr><td>QCustomPlot</td><td>%4</td></tr>"
         "<tr><td>LibTorch</td><td>%5</td></tr>"
         "<tr><td>growbench-cli</td><td>%6</td></tr>"
         "</table>")
          .arg(QStringLiteral(GB_VERSION), QString::fromLatin1(qVersion()),
               QStringLiteral(QT_VERSION_STR), QStringLiteral(QCUSTOMPLOT_VERSION_STR), torch,
               (m_cli.isEmpty() ? findCli() : m_cli).toHtmlEscaped()));
}

}  // namespace gb::gui
