#pragma once
// Session: what the views share: the open workspace (its store service and run manager),
// the current model, the selected layers and the plans queued for a comparison. Views read
// it and listen to its typed signals instead of talking to each other.

#include <QJsonObject>
#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

#include "model/config.h"

namespace gb::gui {

class StoreService;
class RunManager;
class RunTableModel;

// A model the GUI works on: a Hugging Face (or GrowBench checkpoint) folder.
struct ModelRef {
  QString folder;       // absolute
  QString displayName;  // folder name, or the preset's name
  QStringList keys;     // identities in the store's models table (folder, "preset:...")
  QJsonObject configJson;
  std::optional<gb::ModelConfig> config;  // parsed; empty if config.json is unsupported
  bool isPreset = false;
  bool hasTokenizer = false;
  bool valid() const { return !folder.isEmpty(); }
};

struct QueuedPlan {
  QString label;
  QJsonObject plan;  // GrowthPlan JSON (docs/plans.md)
};

class Session : public QObject {
  Q_OBJECT

 public:
  explicit Session(QObject* parent = nullptr);
  ~Session() override;

  StoreService* store() const { return m_store; }
  RunManager* runs() const { return m_runs; }
  // Every run of the open store (one model shared by the Runs and Compare views).
  RunTableModel* runModel() const { return m_runModel; }

  // Opens (creating if needed) a workspace folder: <dir>/growbench.db, checkpoints under
  // <dir>/runs, specs under <dir>/specs.
  void openWorkspace(const QString& dir);
  // Opens a run store file of any name; its folder is the workspace (checkpoints, specs).
  void openStore(const QString& dbFile);
  QString workspaceDir() const { return m_workspace; }
  QString databasePath() const;
  QString specsDir() const;

  void setModel(const ModelRef& model);
  const ModelRef& model() const { return m_model; }

  void setSelectedLayers(const QVector<int>& layers, const QString& source);
  const QVector<int>& selectedLayers() const { return m_layers; }

  void queuePlan(const QueuedPlan& plan);
  void removeQueuedPlan(int index);
  void clearQueuedPlans();
  const QList<QueuedPlan>& queuedPlans() const { return m_plans; }

  // Runs chosen in Compare (or Runs) to overlay in Curves.
  void setCurveRuns(const QList<qint64>& runIds);
  const QList<qint64>& curveRuns() const { return m_curveRuns; }

  // The default device of new runs ("cpu", "cuda").
  QString defaultDevice() const;

 signals:
  void workspaceChanged(const QString& dir);
  void modelChanged(const gb::gui::ModelRef& model);
  void selectedLayersChanged(const QVector<int>& layers, const QString& source);
  void queuedPlansChanged();
  void curveRunsChanged(const QList<qint64>& runIds);
  void statusMessage(const QString& message);

 private:
  StoreService* m_store = nullptr;
  RunManager* m_runs = nullptr;
  RunTableModel* m_runModel = nullptr;
  QString m_workspace;
  QString m_dbFile;  // a store not named growbench.db (openStore)
  ModelRef m_model;
  QVector<int> m_layers;
  QList<QueuedPlan> m_plans;
  QList<qint64> m_curveRuns;
};

}  // namespace gb::gui
