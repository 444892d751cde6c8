#include "storeservice.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTimer>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "guiutil.h"
#include "importance/probe_writer.h"
#include "store/store.h"
#include "util/metrics.h"

using namespace Qt::StringLiterals;

namespace gb::gui {

namespace st = gb::store;
namespace mk = gb::metrics;

namespace {

QString describeSelection(const nlohmann::json& layers) {
  if (layers.is_null()) return {};
  if (layers.is_string()) return qs(layers.get<std::string>());
  if (layers.is_array()) {
    QVector<int> v;
    for (const auto& x : layers) {
      if (x.is_number_integer()) v.push_back(x.get<int>());
    }
    return layersText(v);
  }
  if (layers.is_object()) {
    const std::string policy = layers.value("policy", std::string("?"));
    QString s = qs(policy);
    for (const char* k : {"k", "n", "count", "l_fp"}) {
      if (layers.contains(k) && layers[k].is_number()) {
        s += u" %1=%2"_s.arg(QLatin1String(k)).arg(layers[k].get<double>());
      }
    }
    if (layers.contains("layers") && layers["layers"].is_array()) {
      s += u" "_s + describeSelection(layers["layers"]);
    }
    return s;
  }
  return {};
}

// The plan-dependent columns, from the run's stored spec (one plan per run).
void deriveFromSpec(RunRow& row) {
  if (row.info.spec.empty()) return;
  nlohmann::json spec = nlohmann::json::parse(row.info.spec, nullptr, false);
  if (spec.is_discarded() || !spec.is_object()) return;
  nlohmann::json plan;
  if (spec.contains("plans") && spec["plans"].is_array() && !spec["plans"].empty()) {
    plan = spec["plans"][0];
  } else if (spec.contains("plan")) {
    plan = spec["plan"];
  }
  if (plan.is_object()) {
    row.variant = qs(plan.value("variant", std::string()));
    if (plan.contains("layers")) {
      row.layers = describeSelection(plan["layers"]);
    } else if (row.variant == u"depth"_s && plan.contains("count")) {
      row.layers = QCoreApplication::translate("Runs", "uniform, %1 blocks")
                       .arg(plan["count"].get<double>());
    } else if (row.variant == u"freeze"_s) {
      row.layers =
          QCoreApplication::translate("Runs", "bottom %1 frozen").arg(plan.value("bottom", 2));
    } else {
      row.layers = u"all"_s;
    }
  }
  qint64 steps = 100;
  if (spec.contains("train") && spec["train"].is_object()) {
    steps = spec["train"].value("steps", static_cast<int64_t>(100));
  }
  if (spec.contains("sequence") && spec["sequence"].is_array() && !spec["sequence"].empty()) {
    qint64 total = 0;
    for (const auto& s : spec["sequence"]) {
      const int64_t n = s.is_object() ? s.value("steps", static_cast<int64_t>(0)) : 0;
      total += n > 0 ? n : steps;
    }
    steps = total;
  }
  row.totalSteps = steps;
}

}  // namespace

// ---------------------------------------------------------------------------------------
// Worker

struct StoreWorker::State {
  std::optional<st::Store> store;
  QString path;
  QTimer* timer = nullptr;
  qint64 lastVersion = -1;
  // Per run: spec-derived fields (specs never change), first values of the ppl metrics.
  QHash<qint64, RunRow> specCache;
  struct First {
    double orig = qQNaN(), nw = qQNaN();
    bool done = false;
  };
  QHash<qint64, First> first;
  QHash<qint64, st::RunStatus> lastStatus;
  // Watched series: run → key → last step delivered.
  QHash<qint64, QHash<QString, qint64>> watched;
};

StoreWorker::StoreWorker() : d(new State) {}

StoreWorker::~StoreWorker() {
  delete d;
}

void StoreWorker::open(const QString& path) {
  close();
  try {
    QFileInfo fi(path);
    QDir().mkpath(fi.absolutePath());
    st::OpenOptions o;
    o.check = st::IntegrityCheck::None;  // the worker checks; the viewer must open fast
    o.busy_timeout_ms = 2000;
    d->store.emplace(st::Store::open(ss(path), st::OpenMode::ReadWrite, o));
    d->path = path;
    try {
      d->store->mark_interrupted_runs();
    } catch (const std::exception&) {
      // A busy writer: the next worker start marks them.
    }
  } catch (const std::exception& e) {
    d->store.reset();
    emit opened(path, QString::fromUtf8(e.what()));
    return;
  }
  if (!d->timer) {
    d->timer = new QTimer(this);
    d->timer->setInterval(500);
    connect(d->timer, &QTimer::timeout, this, [this] { poll(false); });
  }
  d->timer->start();
  emit opened(path, {});
  poll(true);
}

void StoreWorker::close() {
  if (d->timer) d->timer->stop();
  d->store.reset();
  d->path.clear();
  d->lastVersion = -1;
  d->specCache.clear();
  d->first.clear();
  d->lastStatus.clear();
  d->watched.clear();
}

void StoreWorker::setPollInterval(int ms) {
  if (!d->timer) {
    d->timer = new QTimer(this);
    connect(d->timer, &QTimer::timeout, this, [this] { poll(false); });
  }
  d->timer->setInterval(ms);
}

void StoreWorker::poll(bool force) {
  if (!d->store) return;
  try {
    const qint64 v = d->store->data_version();
    if (!force && v == d->lastVersion) return;
    d->lastVersion = v;
    relistRuns();
    for (auto it = d->watched.begin(); it != d->watched.end(); ++it) {
      fetchSeries(it.key(), false);
    }
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromUtf8(e.what()));
  }
}

void StoreWorker::relistRuns() {
  st::Store& s = *d->store;
  RunSnapshot snap;
  snap.dataVersion = d->lastVersion;
  std::vector<st::RunInfo> runs = s.list_runs();
  std::vector<int64_t> needSpec;
  for (const auto& r : runs) {
    if (!d->specCache.contains(r.id)) needSpec.push_back(r.id);
  }
  for (int64_t id : needSpec) {
    auto full = s.find_run(id);
    if (!full) continue;
    RunRow row;
    row.info = *full;
    deriveFromSpec(row);
    d->specCache.insert(id, row);
  }
  const std::vector<std::string> keys = {mk::kTrainLoss,       mk::kEvalOrigPpl, mk::kEvalNewPpl,
                                         mk::kTrainableParams, mk::kAddedParams, mk::kTotalParams,
                                         mk::kEvalOp,          mk::kEvalBwt};
  std::map<int64_t, std::map<std::string, st::LatestMetric>> latest;
  for (auto& m : s.latest_metrics({}, keys)) latest[m.run_id][m.key] = m;
  const double now = QDateTime::currentMSecsSinceEpoch() / 1000.0;
  QSet<qint64> alive;
  snap.runs.reserve(static_cast<int>(runs.size()));
  for (const auto& r : runs) {
    alive.insert(r.id);
    RunRow row = d->specCache.value(r.id);
    const std::string spec = std::move(row.info.spec);
    row.info = r;
    row.info.spec = spec;
    row.planLabel = qs(r.variant);
    auto lit = latest.find(r.id);
    auto get = [&](const char* k) -> const st::LatestMetric* {
      if (lit == latest.end()) return nullptr;
      auto it = lit->second.find(k);
      return it == lit->second.end() ? nullptr : &it->second;
    };
    if (auto m = get(mk::kTrainLoss)) row.lastStep = m->step;
    if (auto m = get(mk::kTrainableParams)) row.trainableParams = m->value;
    if (auto m = get(mk::kAddedParams)) row.addedParams = m->value;
    if (auto m = get(mk::kTotalParams)) {
      const double base = m->value - (std::isnan(row.addedParams) ? 0 : row.addedParams);
      if (base > 0 && !std::isnan(row.trainableParams)) {
        row.trainableShare = row.trainableParams / base;
      }
    }
    if (auto m = get(mk::kEvalOrigPpl)) {
      row.origLast = m->value;
      row.lastStep = std::max<qint64>(row.lastStep, m->step);
    }
    if (auto m = get(mk::kEvalNewPpl)) {
      row.newLast = m->value;
      row.evalStep = std::max<qint64>(row.evalStep, m->step);
    }
    if (auto m = get(mk::kEvalOrigPpl)) row.evalStep = std::max<qint64>(row.evalStep, m->step);
    if (auto m = get(mk::kEvalOp)) row.op = m->value;
    if (auto m = get(mk::kEvalBwt)) row.bwt = m->value;
    // Step-0 values, read once per run (step 0 is always evaluated first).
    auto& f = d->first[r.id];
    if (!f.done && (get(mk::kEvalOrigPpl) || get(mk::kEvalNewPpl))) {
      st::MetricQuery q;
      q.keys = {mk::kEvalOrigPpl, mk::kEvalNewPpl};
      auto series = s.metric_series(r.id, q);
      auto firstOf = [&](const char* k) {
        auto it = series.find(k);
        return it == series.end() || it->second.values.empty() ? qQNaN()
                                                               : it->second.values.front();
      };
      f.orig = firstOf(mk::kEvalOrigPpl);
      f.nw = firstOf(mk::kEvalNewPpl);
      f.done = true;
    }
    row.origFirst = f.orig;
    row.newFirst = f.nw;
    // Only the step-0 evaluation (queued, interrupted or cancelled early): no figure, never
    // "+0.0 %".
    if (row.evalStep > 0 && row.origFirst > 0 && !std::isnan(row.origLast)) {
      row.forgetting = row.origLast / row.origFirst - 1.0;
    }
    if (row.evalStep > 0 && row.newFirst > 0 && !std::isnan(row.newLast)) {
      row.learning = 1.0 - row.newLast / row.newFirst;
    }
    // Stopped runs: resume or start again; finished ones: export of the model.
    if (r.status == st::RunStatus::Interrupted || r.status == st::RunStatus::Cancelled ||
        r.status == st::RunStatus::Failed || r.status == st::RunStatus::Finished) {
      const auto ck = s.latest_checkpoint(r.id);
      row.hasCheckpoint = ck && QFileInfo::exists(qs(ck->path));
    }
    if (r.started) {
      const double end = r.finished                           ? *r.finished
                         : r.status == st::RunStatus::Running ? now
                                                              : *r.started;
      row.duration = std::max(0.0, end - *r.started);
    }
    // A run that goes back to running was resumed: its metrics after the checkpoint were
    // truncated, so watched series are fetched again in full.
    auto prev = d->lastStatus.find(r.id);
    if (prev != d->lastStatus.end() && prev.value() != st::RunStatus::Running &&
        r.status == st::RunStatus::Running && d->watched.contains(r.id)) {
      d->watched[r.id].clear();
    }
    if (prev == d->lastStatus.end() || prev.value() != r.status) {
      // The data-parallel world, read again when the status changes (a resume may change it).
      const auto params = s.run_params(r.id);
      const auto ws = params.find("dist.world_size");
      const auto be = params.find("dist.backend");
      RunRow& cached = d->specCache[r.id];
      cached.worldSize =
          ws != params.end() && ws->second.is_number_integer() ? ws->second.get<int>() : 1;
      cached.backend = be != params.end() && be->second.is_string()
                           ? qs(be->second.get<std::string>())
                           : QString();
      row.worldSize = cached.worldSize;
      row.backend = cached.backend;
    }
    d->lastStatus[r.id] = r.status;
    snap.runs.push_back(std::move(row));
  }
  // Forget deleted runs.
  for (auto it = d->specCache.begin(); it != d->specCache.end();) {
    if (!alive.contains(it.key())) {
      d->first.remove(it.key());
      d->lastStatus.remove(it.key());
      it = d->specCache.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& t : s.all_tags()) snap.tags << qs(t);
  emit runsUpdated(snap);
}

void StoreWorker::fetchSeries(qint64 runId, bool full) {
  auto& last = d->watched[runId];
  st::MetricQuery q;
  bool reset = full || last.isEmpty();
  if (!reset) {
    // Rows arrive in non-decreasing step order, but one step's rows may span two commits
    // (train/loss flushed, then the evaluation at the same step): re-read the last step and
    // drop what was delivered, key by key.
    qint64 maxStep = -1;
    for (auto v : last) maxStep = std::max(maxStep, v);
    q.after_step = maxStep - 1;
  }
  auto series = d->store->metric_series(runId, q);
  SeriesUpdate up;
  up.runId = runId;
  up.reset = reset;
  for (auto& [key, s] : series) {
    const QString k = qs(key);
    const qint64 seen = reset ? std::numeric_limits<qint64>::min() : last.value(k, -1);
    SeriesData out;
    out.steps.reserve(static_cast<int>(s.steps.size()));
    out.values.reserve(static_cast<int>(s.steps.size()));
    for (size_t i = 0; i < s.steps.size(); ++i) {
      if (s.steps[i] <= seen) continue;
      out.steps.push_back(static_cast<double>(s.steps[i]));
      out.values.push_back(s.values[i]);
    }
    if (!s.steps.empty()) last[k] = std::max<qint64>(last.value(k, -1), s.steps.back());
    if (!out.steps.isEmpty()) up.series.insert(k, std::move(out));
  }
  if (last.isEmpty()) {
    last.insert(QString(), -1);  // watched, nothing yet
  } else if (last.size() > 1) {
    last.remove(QString());
  }
  if (reset || !up.series.isEmpty()) emit seriesUpdated(up);
}

void StoreWorker::watch(const QList<qint64>& runIds) {
  if (!d->store) return;
  QSet<qint64> want(runIds.begin(), runIds.end());
  for (auto it = d->watched.begin(); it != d->watched.end();) {
    if (!want.contains(it.key())) {
      it = d->watched.erase(it);
    } else {
      ++it;
    }
  }
  try {
    for (qint64 id : runIds) {
      if (!d->watched.contains(id)) {
        d->watched.insert(id, {});
        fetchSeries(id, true);
      }
    }
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromUtf8(e.what()));
  }
}

void StoreWorker::events(qint64 runId, qint64 afterId) {
  if (!d->store) return;
  try {
    auto ev = d->store->events(runId, afterId);
    emit eventsReady(runId, QVector<st::EventInfo>(ev.begin(), ev.end()));
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromUtf8(e.what()));
  }
}

void StoreWorker::taskMatrix(qint64 runId) {
  if (!d->store) return;
  try {
    TaskMatrixData m;
    m.runId = runId;
    m.values = d->store->task_matrix(runId).values;
    if (auto r = d->store->find_run(runId)) {
      auto spec = nlohmann::json::parse(r->spec, nullptr, false);
      if (!spec.is_discarded() && spec.contains("sequence") && spec["sequence"].is_array()) {
        for (const auto& s : spec["sequence"]) {
          m.taskNames << qs(s.is_object() ? s.value("name", std::string("?")) : "?");
          const bool kind = s.is_object() && s.contains("eval") && s["eval"].is_object() &&
                            s["eval"].contains("kind") && s["eval"]["kind"].is_string();
          m.taskKinds << (kind ? qs(s["eval"]["kind"].get<std::string>()) : QString());
        }
      }
    }
    emit taskMatrixReady(m);
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromUtf8(e.what()));
  }
}

void StoreWorker::probes(const QStringList& modelKeys) {
  if (!d->store) return;
  try {
    std::map<int64_t, std::string> keyOf;
    for (const auto& m : d->store->list_models()) keyOf[m.id] = m.key;
    QVector<ProbeRow> out;
    for (const auto& p : d->store->list_probes()) {
      ProbeRow row;
      row.info = p;
      row.modelKey = qs(keyOf[p.model_id]);
      if (!modelKeys.isEmpty() && !modelKeys.contains(row.modelKey)) continue;
      out.push_back(row);
    }
    emit probesReady(out);
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromUtf8(e.what()));
  }
}

void StoreWorker::probe(qint64 probeId) {
  if (!d->store) return;
  try {
    auto r = gb::importance::load_probe(*d->store, probeId);
    emit probeLoaded(probeId, r, {});
  } catch (const std::exception& e) {
    emit probeLoaded(probeId, {}, QString::fromUtf8(e.what()));
  }
}

void StoreWorker::setTags(qint64 runId, const QStringList& tags) {
  if (!d->store) return;
  try {
    std::vector<std::string> t;
    for (const auto& s : tags) {
      if (!s.trimmed().isEmpty()) t.push_back(ss(s.trimmed()));
    }
    d->store->set_tags(runId, t);
    d->specCache.remove(runId);
    poll(true);
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromUtf8(e.what()));
  }
}

void StoreWorker::setNotes(qint64 runId, const QString& notes) {
  if (!d->store) return;
  try {
    d->store->set_notes(runId, ss(notes));
    poll(true);
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromUtf8(e.what()));
  }
}

void StoreWorker::rename(qint64 runId, const QString& name) {
  if (!d->store) return;
  try {
    d->store->rename_run(runId, ss(name));
    poll(true);
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromUtf8(e.what()));
  }
}

void StoreWorker::deleteRuns(const QList<qint64>& runIds) {
  if (!d->store) return;
  try {
    std::vector<int64_t> ids(runIds.begin(), runIds.end());
    QStringList paths;
    for (const auto& p : d->store->delete_runs(ids)) paths << qs(p);
    // Checkpoint folders of deleted runs (<workspace>/runs/<id>/step-N) go too.
    QSet<QString> parents;
    for (const auto& p : paths) {
      QFileInfo fi(p);
      if (fi.isDir())
        QDir(p).removeRecursively();
      else
        QFile::remove(p);
      parents.insert(fi.absolutePath());
    }
    for (const auto& parent : parents) {
      QDir dir(parent);
      if (dir.exists() && dir.isEmpty()) dir.removeRecursively();
    }
    for (qint64 id : runIds) d->watched.remove(id);
    emit runsDeleted(runIds, paths);
    poll(true);
  } catch (const std::exception& e) {
    emit errorOccurred(QString::fromUtf8(e.what()));
  }
}

// ---------------------------------------------------------------------------------------
// GUI side

StoreService::StoreService(QObject* parent) : QObject(parent) {
  qRegisterMetaType<gb::gui::RunSnapshot>();
  qRegisterMetaType<gb::gui::SeriesUpdate>();
  qRegisterMetaType<gb::gui::ProbeRow>();
  qRegisterMetaType<QVector<gb::gui::ProbeRow>>();
  qRegisterMetaType<gb::gui::TaskMatrixData>();
  qRegisterMetaType<gb::importance::ProbeResult>();
  qRegisterMetaType<QVector<gb::store::EventInfo>>();
  m_thread.setObjectName(u"store"_s);
  m_worker = new StoreWorker;
  m_worker->moveToThread(&m_thread);
  connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
  connect(m_worker, &StoreWorker::opened, this, [this](const QString& p, const QString& e) {
    m_open = e.isEmpty();
    if (m_open) m_path = p;
    emit opened(p, e);
  });
  connect(m_worker, &StoreWorker::runsUpdated, this, [this](const RunSnapshot& s) {
    m_snapshot = s;
    emit runsUpdated(s);
  });
  connect(m_worker, &StoreWorker::seriesUpdated, this, &StoreService::seriesUpdated);
  connect(m_worker, &StoreWorker::eventsReady, this, &StoreService::eventsReady);
  connect(m_worker, &StoreWorker::taskMatrixReady, this, &StoreService::taskMatrixReady);
  connect(m_worker, &StoreWorker::probesReady, this, &StoreService::probesReady);
  connect(m_worker, &StoreWorker::probeLoaded, this, &StoreService::probeLoaded);
  connect(m_worker, &StoreWorker::runsDeleted, this, &StoreService::runsDeleted);
  connect(m_worker, &StoreWorker::errorOccurred, this, &StoreService::errorOccurred);
  m_thread.start();
}

StoreService::~StoreService() {
  QMetaObject::invokeMethod(
      m_worker, [w = m_worker] { w->close(); }, Qt::BlockingQueuedConnection);
  m_thread.quit();
  m_thread.wait();
}

void StoreService::open(const QString& dbPath) {
  m_open = false;
  m_snapshot = {};
  QMetaObject::invokeMethod(m_worker, [w = m_worker, dbPath] { w->open(dbPath); });
}

void StoreService::close() {
  m_open = false;
  m_path.clear();
  m_snapshot = {};
  QMetaObject::invokeMethod(m_worker, [w = m_worker] { w->close(); });
}

void StoreService::setPollInterval(int ms) {
  QMetaObject::invokeMethod(m_worker, [w = m_worker, ms] { w->setPollInterval(ms); });
}

void StoreService::refresh() {
  QMetaObject::invokeMethod(m_worker, [w = m_worker] { w->poll(true); });
}

void StoreService::watchSeries(const QList<qint64>& runIds) {
  QMetaObject::invokeMethod(m_worker, [w = m_worker, runIds] { w->watch(runIds); });
}

void StoreService::requestEvents(qint64 runId, qint64 afterId) {
  QMetaObject::invokeMethod(m_worker,
                            [w = m_worker, runId, afterId] { w->events(runId, afterId); });
}

void StoreService::requestTaskMatrix(qint64 runId) {
  QMetaObject::invokeMethod(m_worker, [w = m_worker, runId] { w->taskMatrix(runId); });
}

void StoreService::requestProbes(const QStringList& modelKeys) {
  QMetaObject::invokeMethod(m_worker, [w = m_worker, modelKeys] { w->probes(modelKeys); });
}

void StoreService::requestProbe(qint64 probeId) {
  QMetaObject::invokeMethod(m_worker, [w = m_worker, probeId] { w->probe(probeId); });
}

void StoreService::setTags(qint64 runId, const QStringList& tags) {
  QMetaObject::invokeMethod(m_worker, [w = m_worker, runId, tags] { w->setTags(runId, tags); });
}

void StoreService::setNotes(qint64 runId, const QString& notes) {
  QMetaObject::invokeMethod(m_worker, [w = m_worker, runId, notes] { w->setNotes(runId, notes); });
}

void StoreService::renameRun(qint64 runId, const QString& name) {
  QMetaObject::invokeMethod(m_worker, [w = m_worker, runId, name] { w->rename(runId, name); });
}

void StoreService::deleteRuns(const QList<qint64>& runIds) {
  QMetaObject::invokeMethod(m_worker, [w = m_worker, runIds] { w->deleteRuns(runIds); });
}

}  // namespace gb::gui
