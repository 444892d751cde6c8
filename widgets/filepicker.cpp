#include "filepicker.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

#include "appsettings.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace {

QString key(const QString& category) {
  return u"recent/"_s + category;
}

// The folder a path names: itself for a folder, its parent for a file.
QString folderOf(const QString& path) {
  const QFileInfo fi(path);
  return fi.isDir() ? fi.absoluteFilePath() : fi.absolutePath();
}

}  // namespace

QStringList recentLocations(const QString& category) {
  AppSettings s;
  QStringList out;
  for (const QString& d : s.raw().value(key(category)).toStringList()) {
    if (QFileInfo(d).isDir() && !out.contains(d)) out << d;
  }
  return out;
}

void addRecentLocation(const QString& category, const QString& path) {
  if (path.isEmpty()) return;
  const QString dir = folderOf(path);
  AppSettings s;
  QStringList r = s.raw().value(key(category)).toStringList();
  r.removeAll(dir);
  r.prepend(dir);
  while (r.size() > 8) r.removeLast();
  s.raw().setValue(key(category), r);
}

QString pickPath(QWidget* parent, PickKind kind, const QString& category, const QString& title,
                 const QString& current, const QString& filter) {
  const QStringList recent = recentLocations(category);
  QString start = current.isEmpty() ? QString() : current;
  if (start.isEmpty() || !QFileInfo::exists(start)) {
    start = recent.isEmpty() ? QDir::homePath() : recent.first();
  }
  QFileDialog dlg(parent, title, folderOf(start));
  // Qt's own dialog: the sidebar of recent locations works on every platform the same way.
  dlg.setOption(QFileDialog::DontUseNativeDialog, true);
  const QString all = QCoreApplication::translate("FilePicker", "All files (*)");
  switch (kind) {
    case PickKind::File:
      dlg.setFileMode(QFileDialog::ExistingFile);
      dlg.setAcceptMode(QFileDialog::AcceptOpen);
      break;
    case PickKind::Folder:
      dlg.setFileMode(QFileDialog::Directory);
      dlg.setOption(QFileDialog::ShowDirsOnly, false);  // see the files a folder holds
      dlg.setAcceptMode(QFileDialog::AcceptOpen);
      break;
    case PickKind::SaveFile:
      dlg.setFileMode(QFileDialog::AnyFile);
      dlg.setAcceptMode(QFileDialog::AcceptSave);
      break;
  }
  if (kind != PickKind::Folder) {
    dlg.setNameFilters(filter.isEmpty() ? QStringList{all} : QStringList{filter, all});
    if (QFileInfo(start).isFile() || kind == PickKind::SaveFile) dlg.selectFile(start);
  }
  QList<QUrl> side = {QUrl::fromLocalFile(QDir::homePath())};
  for (const QString& d : recent) side << QUrl::fromLocalFile(d);
  dlg.setSidebarUrls(side);
  if (dlg.exec() != QDialog::Accepted || dlg.selectedFiles().isEmpty()) return {};
  const QString picked = dlg.selectedFiles().first();
  addRecentLocation(category, picked);
  return picked;
}

PathKind classifyPath(const QString& path) {
  const QFileInfo fi(path);
  if (!fi.exists()) return PathKind::Unknown;
  if (fi.isDir()) {
    if (QFileInfo::exists(QDir(path).filePath(u"config.json"_s))) return PathKind::ModelFolder;
    if (QFileInfo::exists(QDir(path).filePath(u"growbench.db"_s))) return PathKind::Workspace;
    return PathKind::Unknown;
  }
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return PathKind::Unknown;
  const QByteArray head = f.peek(16);
  if (head.startsWith("SQLite format 3")) return PathKind::Store;
  if (fi.fileName() == u"config.json"_s) return PathKind::ModelFolder;
  if (fi.suffix().compare(u"json"_s, Qt::CaseInsensitive) == 0 && fi.size() < 64 * 1024 * 1024) {
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll());
    const QJsonObject o = doc.object();
    if (o.contains(u"model"_s) || o.contains(u"plans"_s) || o.contains(u"plan"_s) ||
        o.contains(u"sequence"_s)) {
      return PathKind::Spec;
    }
  }
  return PathKind::Unknown;
}

}  // namespace gb::gui
