#pragma once
// StoreService: the GUI's access to the SQLite run store. Every query runs on a worker
// thread that owns its own Store connection (a Store is used by one thread at a time), so
// the event loop never waits for SQLite; results come back as typed, queued signals.
//
// The worker polls Store::data_version() (cheap) with a timer. When another connection has
// committed (a growbench-cli worker started by the GUI or from a terminal), it re-lists the
// runs with their latest metrics and appends new points to the series being watched
// (metric_series with after_step), so curves and tables follow a running worker.

#include <QHash>
#include <QMap>
#include <QObject>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QThread>
#include <QVector>

#include <cstdint>
#include <optional>

#include "importance/result.h"
#include "store/types.h"

namespace gb::gui {

// One row of the runs tables: the stored run plus the figures the tables show, derived on the
// worker thread.
struct RunRow {
  gb::store::RunInfo info;  // spec included
  QString variant;          // the plan's variant name ("grow", "lora", ...)
  QString planLabel;        // the stored variant label ("Grow G-Freeze k=2")
  QString layers;           // "0, 3", "all", "least-important k=2"
  double addedParams = qQNaN();
  double trainableParams = qQNaN();
  double trainableShare = qQNaN();                 // trainable / base parameters
  double origFirst = qQNaN(), origLast = qQNaN();  // forgetting metric at step 0 / latest
  double newFirst = qQNaN(), newLast = qQNaN();    // learning metric at step 0 / latest
  double forgetting = qQNaN();  // relative increase of the original-domain perplexity
  double learning = qQNaN();    // relative decrease of the new-domain perplexity
  double op = qQNaN(), bwt = qQNaN();
  qint64 evalStep = -1;       // step of the latest forgetting/learning evaluation (-1: none)
  qint64 lastStep = -1;       // highest step with a train/loss
  qint64 totalSteps = 0;      // from the spec (train.steps, or the sequence's steps)
  double duration = qQNaN();  // seconds: started → finished (or now)
  int worldSize = 1;          // data-parallel processes (run parameter dist.world_size)
  QString backend;            // their collective backend ("gloo", "nccl"), empty for one
  // Interrupted, cancelled, failed or finished runs: a checkpoint is recorded and its folder
  // exists (resume, and the export of the run's model, are offered only then).
  bool hasCheckpoint = false;
};

struct RunSnapshot {
  QVector<RunRow> runs;  // by id ascending
  QStringList tags;      // every tag in use
  qint64 dataVersion = 0;
};

struct SeriesData {
  QVector<double> steps;
  QVector<double> values;
};
using SeriesMap = QMap<QString, SeriesData>;

struct SeriesUpdate {
  qint64 runId = 0;
  bool reset = false;  // true: `series` replaces what the receiver has; false: append
  SeriesMap series;
};

struct ProbeRow {
  gb::store::ProbeInfo info;
  QString modelKey;
};

struct TaskMatrixData {
  qint64 runId = 0;
  std::vector<std::vector<double>> values;  // R[after][eval], NaN where missing
  QStringList taskNames;                    // from the spec's sequence, when known
  // The evaluation kind of each task (mc, qa: accuracy; lm: R is minus the held-out loss).
  QStringList taskKinds;
};

class StoreWorker;

class StoreService : public QObject {
  Q_OBJECT

 public:
  explicit StoreService(QObject* parent = nullptr);
  ~StoreService() override;

  // Opens (creating if missing) the store; `opened` reports the outcome. Marks runs whose
  // worker process died as interrupted.
  void open(const QString& dbPath);
  void close();
  QString path() const { return m_path; }
  bool isOpen() const { return m_open; }
  void setPollInterval(int ms);
  // Re-lists runs now (after the GUI started a worker, say).
  void refresh();

  // Series of these runs are fetched once in full, then incrementally on every poll.
  void watchSeries(const QList<qint64>& runIds);
  void requestEvents(qint64 runId, qint64 afterId);
  void requestTaskMatrix(qint64 runId);
  // Probes of the models with these keys (every probe when empty).
  void requestProbes(const QStringList& modelKeys);
  void requestProbe(qint64 probeId);
  void setTags(qint64 runId, const QStringList& tags);
  void setNotes(qint64 runId, const QString& notes);
  void renameRun(qint64 runId, const QString& name);
  void deleteRuns(const QList<qint64>& runIds);

  // The latest snapshot received (GUI thread copy).
  const RunSnapshot& snapshot() const { return m_snapshot; }

 signals:
  void opened(const QString& path, const QString& error);
  void runsUpdated(const gb::gui::RunSnapshot& snapshot);
  void seriesUpdated(const gb::gui::SeriesUpdate& update);
  void eventsReady(qint64 runId, const QVector<gb::store::EventInfo>& events);
  void taskMatrixReady(const gb::gui::TaskMatrixData& matrix);
  void probesReady(const QVector<gb::gui::ProbeRow>& probes);
  void probeLoaded(qint64 probeId, const gb::importance::ProbeResult& result, const QString& error);
  void runsDeleted(const QList<qint64>& runIds, const QStringList& checkpointPaths);
  void errorOccurred(const QString& message);

 private:
  QThread m_thread;
  StoreWorker* m_worker = nullptr;  // lives in m_thread
  QString m_path;
  bool m_open = false;
  RunSnapshot m_snapshot;
};

// The worker side (public for QMetaObject; used only by StoreService).
class StoreWorker : public QObject {
  Q_OBJECT

 public:
  StoreWorker();
  ~StoreWorker() override;

  void open(const QString& path);
  void close();
  void setPollInterval(int ms);
  void poll(bool force);
  void watch(const QList<qint64>& runIds);
  void events(qint64 runId, qint64 afterId);
  void taskMatrix(qint64 runId);
  void probes(const QStringList& modelKeys);
  void probe(qint64 probeId);
  void setTags(qint64 runId, const QStringList& tags);
  void setNotes(qint64 runId, const QString& notes);
  void rename(qint64 runId, const QString& name);
  void deleteRuns(const QList<qint64>& runIds);

 signals:
  void opened(const QString& path, const QString& error);
  void runsUpdated(const gb::gui::RunSnapshot& snapshot);
  void seriesUpdated(const gb::gui::SeriesUpdate& update);
  void eventsReady(qint64 runId, const QVector<gb::store::EventInfo>& events);
  void taskMatrixReady(const gb::gui::TaskMatrixData& matrix);
  void probesReady(const QVector<gb::gui::ProbeRow>& probes);
  void probeLoaded(qint64 probeId, const gb::importance::ProbeResult& result, const QString& error);
  void runsDeleted(const QList<qint64>& runIds, const QStringList& checkpointPaths);
  void errorOccurred(const QString& message);

 private:
  struct State;
  void relistRuns();
  void fetchSeries(qint64 runId, bool full);
  State* d = nullptr;
};

}  // namespace gb::gui

Q_DECLARE_METATYPE(gb::gui::RunSnapshot)
Q_DECLARE_METATYPE(gb::gui::SeriesUpdate)
Q_DECLARE_METATYPE(gb::gui::ProbeRow)
Q_DECLARE_METATYPE(gb::gui::TaskMatrixData)
Q_DECLARE_METATYPE(gb::importance::ProbeResult)
Q_DECLARE_METATYPE(gb::store::EventInfo)
