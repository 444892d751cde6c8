#include "session.h"

#include <QDir>
#include <QFileInfo>

#include "appsettings.h"
#include "runmanager.h"
#include "runtablemodel.h"
#include "storeservice.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

Session::Session(QObject* parent) : QObject(parent) {
  m_store = new StoreService(this);
  m_runs = new RunManager(this);
  m_runModel = new RunTableModel(this);
  connect(m_runs, &RunManager::storeChanged, m_store, &StoreService::refresh);
  connect(m_store, &StoreService::runsUpdated, m_runModel, &RunTableModel::setSnapshot);
  connect(m_runs, &RunManager::progress, m_runModel, &RunTableModel::setLiveProgress);
  connect(
      m_runs, &RunManager::runFinished, m_runModel,
      [this](qint64 run, const QString&, const QString&) { m_runModel->clearLiveProgress(run); });
}

Session::~Session() = default;

QString Session::databasePath() const {
  if (!m_dbFile.isEmpty()) return m_dbFile;
  return m_workspace.isEmpty() ? QString() : QDir(m_workspace).filePath(u"growbench.db"_s);
}

QString Session::specsDir() const {
  return m_workspace.isEmpty() ? QString() : QDir(m_workspace).filePath(u"specs"_s);
}

void Session::openWorkspace(const QString& dir) {
  const QString abs = QFileInfo(dir).absoluteFilePath();
  QDir().mkpath(abs);
  m_workspace = abs;
  m_dbFile.clear();
  m_curveRuns.clear();
  m_runModel->clear();
  m_store->open(databasePath());
  m_runs->setStore(databasePath(), abs);
  AppSettings().addRecentWorkspace(abs);
  emit workspaceChanged(abs);
  emit curveRunsChanged(m_curveRuns);
}

void Session::openStore(const QString& dbFile) {
  const QFileInfo fi(dbFile);
  if (fi.fileName() == u"growbench.db"_s) {
    openWorkspace(fi.absolutePath());
    return;
  }
  m_workspace = fi.absolutePath();
  m_dbFile = fi.absoluteFilePath();
  m_curveRuns.clear();
  m_runModel->clear();
  m_store->open(m_dbFile);
  m_runs->setStore(m_dbFile, m_workspace);
  emit workspaceChanged(m_workspace);
  emit curveRunsChanged(m_curveRuns);
}

void Session::setModel(const ModelRef& model) {
  m_model = model;
  m_layers.clear();
  emit modelChanged(m_model);
  emit selectedLayersChanged(m_layers, u"model"_s);
}

void Session::setSelectedLayers(const QVector<int>& layers, const QString& source) {
  if (layers == m_layers) return;
  m_layers = layers;
  emit selectedLayersChanged(m_layers, source);
}

void Session::queuePlan(const QueuedPlan& plan) {
  m_plans.push_back(plan);
  emit queuedPlansChanged();
}

void Session::removeQueuedPlan(int index) {
  if (index < 0 || index >= m_plans.size()) return;
  m_plans.removeAt(index);
  emit queuedPlansChanged();
}

void Session::clearQueuedPlans() {
  m_plans.clear();
  emit queuedPlansChanged();
}

void Session::setCurveRuns(const QList<qint64>& runIds) {
  if (runIds == m_curveRuns) return;
  m_curveRuns = runIds;
  emit curveRunsChanged(m_curveRuns);
}

QString Session::defaultDevice() const {
  return AppSettings().defaultDevice();
}

}  // namespace gb::gui
