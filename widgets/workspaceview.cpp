#include "workspaceview.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QVBoxLayout>

#include <map>

#include "appsettings.h"
#include "guiutil.h"
#include "session.h"
#include "storeservice.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

WorkspaceView::WorkspaceView(Session* session, QWidget* parent)
    : QWidget(parent), m_session(session) {
  auto* top = new QVBoxLayout(this);
  top->setContentsMargins(6, 6, 6, 6);
  auto* title = new QLabel(tr("<b>Workspace</b>"));
  top->addWidget(title);
  m_path = new QLabel;
  m_path->setWordWrap(true);
  m_path->setTextInteractionFlags(Qt::TextSelectableByMouse);
  top->addWidget(m_path);
  auto* buttons = new QHBoxLayout;
  auto* open = new QPushButton(tr("Open…"));
  open->setToolTip(tr("Open a folder holding growbench.db"));
  auto* create = new QPushButton(tr("New…"));
  create->setToolTip(tr("Create an empty workspace in a new folder"));
  auto* def = new QPushButton(tr("Default"));
  def->setToolTip(tr("The default workspace: %1 (where growbench-cli writes without --db)")
                      .arg(AppSettings::defaultWorkspace()));
  buttons->addWidget(open);
  buttons->addWidget(create);
  buttons->addWidget(def);
  buttons->addStretch(1);
  top->addLayout(buttons);
  m_summary = new QLabel;
  m_summary->setWordWrap(true);
  m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
  top->addWidget(m_summary);
  m_quickstart = new QPushButton(tr("Run the quickstart here"));
  m_quickstart->setToolTip(
      tr("Adapt the built-in tiny English model to German with six "
         "methods (a few minutes on a CPU)"));
  top->addWidget(m_quickstart, 0, Qt::AlignLeft);
  top->addWidget(new QLabel(tr("Recent workspaces:")));
  m_recent = new QListWidget;
  top->addWidget(m_recent, 1);

  connect(open, &QPushButton::clicked, this, &WorkspaceView::chooseAndOpen);
  connect(create, &QPushButton::clicked, this, &WorkspaceView::chooseAndCreate);
  connect(def, &QPushButton::clicked, this,
          [this] { m_session->openWorkspace(AppSettings::defaultWorkspace()); });
  connect(m_recent, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    m_session->openWorkspace(item->data(Qt::UserRole).toString());
  });
  connect(m_quickstart, &QPushButton::clicked, this, [this] {
    const QString spec = quickstartSpec();
    if (spec.isEmpty()) {
      emit message(tr("The quickstart spec was not found."));
      return;
    }
    emit runQuickstartRequested(spec);
  });
  connect(m_session, &Session::workspaceChanged, this, [this] {
    refreshRecent();
    refreshSummary();
  });
  connect(m_session->store(), &StoreService::runsUpdated, this, &WorkspaceView::refreshSummary);
  connect(m_session->store(), &StoreService::opened, this,
          [this](const QString& path, const QString& error) {
            if (!error.isEmpty()) {
              m_summary->setText(tr("<span style='color:#c62828'>Could not open %1: %2</span>")
                                     .arg(path.toHtmlEscaped(), error.toHtmlEscaped()));
            }
          });
  refreshRecent();
  refreshSummary();
}

QString WorkspaceView::quickstartSpec() {
  const QStringList candidates = {
      QDir(QCoreApplication::applicationDirPath())
          .filePath(u"../share/growbench/experiments/quickstart.json"_s),
      QStringLiteral(GB_SOURCE_DIR_FOR_GUI) + u"/resources/experiments/quickstart.json"_s};
  for (const QString& c : candidates) {
    if (QFileInfo::exists(c)) return QFileInfo(c).canonicalFilePath();
  }
  return {};
}

void WorkspaceView::chooseAndOpen() {
  const QString dir =
      QFileDialog::getExistingDirectory(this, tr("Open workspace"), m_session->workspaceDir());
  if (dir.isEmpty()) return;
  if (!QFileInfo::exists(QDir(dir).filePath(u"growbench.db"_s)) &&
      QMessageBox::question(
          this, tr("Open workspace"),
          tr("%1 holds no growbench.db. Create a new workspace there?").arg(dir)) !=
          QMessageBox::Yes) {
    return;
  }
  m_session->openWorkspace(dir);
}

void WorkspaceView::chooseAndCreate() {
  const QString dir = QFileDialog::getExistingDirectory(
      this, tr("New workspace: choose an empty folder"), QDir::homePath());
  if (dir.isEmpty()) return;
  m_session->openWorkspace(dir);
}

void WorkspaceView::refreshRecent() {
  m_recent->clear();
  for (const QString& d : AppSettings().recentWorkspaces()) {
    auto* item = new QListWidgetItem(displayPath(d), m_recent);
    item->setData(Qt::UserRole, d);
    item->setToolTip(d);
    if (d == m_session->workspaceDir()) {
      QFont f = item->font();
      f.setBold(true);
      item->setFont(f);
    }
  }
}

void WorkspaceView::refreshSummary() {
  const QString dir = m_session->workspaceDir();
  m_path->setText(dir.isEmpty() ? tr("No workspace open.") : displayPath(dir));
  m_path->setToolTip(dir);
  if (dir.isEmpty()) {
    m_summary->clear();
    return;
  }
  const RunSnapshot& s = m_session->store()->snapshot();
  std::map<int, int> byStatus;
  for (const auto& r : s.runs) ++byStatus[static_cast<int>(r.info.status)];
  QStringList parts;
  for (auto [status, n] : byStatus) {
    parts << tr("%1 %2").arg(n).arg(
        statusText(static_cast<gb::store::RunStatus>(status)).toLower());
  }
  const qint64 bytes = QFileInfo(m_session->databasePath()).size();
  QString text = tr("%n run(s)", nullptr, static_cast<int>(s.runs.size()));
  if (!parts.isEmpty()) text += u" ("_s + parts.join(u", "_s) + u")"_s;
  text += u"<br/>"_s + tr("Store: %1 (%2)")
                           .arg(displayPath(m_session->databasePath()).toHtmlEscaped(),
                                formatBytes(double(bytes)));
  if (s.runs.isEmpty()) {
    text += u"<br/>"_s +
            tr("Empty. Run the quickstart below, launch a run from the Runs view, or point "
               "growbench-cli at this store with --db.");
  }
  m_summary->setText(text);
}

}  // namespace gb::gui
