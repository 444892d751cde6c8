#include "appsettings.h"

#include <QDir>
#include <QFileInfo>

#include "guiutil.h"
#include "util/paths.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

AppSettings::AppSettings() : m_settings(u"GrowBench"_s, u"growbench"_s) {}

QString AppSettings::defaultWorkspace() {
  return qs(gb::default_workspace_dir());
}

QString AppSettings::workspace() const {
  const QString w = m_settings.value(u"workspace/current"_s).toString();
  return w.isEmpty() ? defaultWorkspace() : w;
}

void AppSettings::setWorkspace(const QString& dir) {
  m_settings.setValue(u"workspace/current"_s, dir);
}

QStringList AppSettings::recentWorkspaces() const {
  QStringList out;
  for (const QString& d : m_settings.value(u"workspace/recent"_s).toStringList()) {
    if (QFileInfo(d).isDir()) out << d;
  }
  return out;
}

void AppSettings::addRecentWorkspace(const QString& dir) {
  QStringList r = m_settings.value(u"workspace/recent"_s).toStringList();
  r.removeAll(dir);
  r.prepend(dir);
  while (r.size() > 10) r.removeLast();
  m_settings.setValue(u"workspace/recent"_s, r);
  setWorkspace(dir);
}

QString AppSettings::defaultDevice() const {
  return m_settings.value(u"runs/device"_s, u"cpu"_s).toString();
}

void AppSettings::setDefaultDevice(const QString& device) {
  m_settings.setValue(u"runs/device"_s, device);
}

QString AppSettings::language() const {
  return m_settings.value(u"ui/language"_s).toString();
}

void AppSettings::setLanguage(const QString& language) {
  m_settings.setValue(u"ui/language"_s, language);
}

QByteArray AppSettings::windowGeometry() const {
  return m_settings.value(u"window/geometry"_s).toByteArray();
}

QByteArray AppSettings::windowState() const {
  return m_settings.value(u"window/state"_s).toByteArray();
}

void AppSettings::setWindow(const QByteArray& geometry, const QByteArray& state) {
  m_settings.setValue(u"window/geometry"_s, geometry);
  m_settings.setValue(u"window/state"_s, state);
}

QString AppSettings::lastDataFile() const {
  return m_settings.value(u"data/last"_s).toString();
}

void AppSettings::setLastDataFile(const QString& path) {
  m_settings.setValue(u"data/last"_s, path);
}

QString AppSettings::lastModelFolder() const {
  return m_settings.value(u"model/last"_s).toString();
}

void AppSettings::setLastModelFolder(const QString& path) {
  m_settings.setValue(u"model/last"_s, path);
}

}  // namespace gb::gui
