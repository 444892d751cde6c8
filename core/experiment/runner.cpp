#include "experiment/runner.h"

#include "experiment/expand.h"
#include "experiment/integrity.h"
#include "experiment/run_executor.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <thread>
#include <memory>

#include <torch/torch.h>

#include "dist/group.h"
#include "dist/shard.h"
#include "grow/checkpoint.h"
#include "store/process.h"
#include "store/store.h"
#include "util/error.h"
#include "util/events.h"
#include "util/files.h"
#include "util/json.h"
#include "util/log.h"
#include "util/metrics.h"

namespace gb::experiment {

namespace fs = std::filesystem;
namespace mk = gb::metrics;
namespace ev = gb::events;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string default_workspace(const std::string& db_path) {
  fs::path p(db_path);
  fs::path stem = p.parent_path() / p.stem();
  return stem.string() + ".runs";
}

namespace {

// ---------------------------------------------------------------------------------------
// Data-parallel: the store of a rank other than 0 (a scratch file, deleted on exit), the
// order of preparation (rank 0 first: it may build a preset or a tokenised cache that the
// others then read), and the end of an experiment after a run that did not finish.

class ScratchStore {
 public:
  store::Store open(int64_t rank) {
    m_path = fs::temp_directory_path() /
             fmt::format("growbench-rank{}-{}.db", rank, static_cast<int64_t>(::getpid()));
    remove();
    return store::Store::open(m_path.string());
  }
  ~ScratchStore() { remove(); }

 private:
  void remove() {
    if (m_path.empty()) return;
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(m_path.string() + suffix, ec);
  }
  fs::path m_path;
};

// How long ranks other than 0 wait for rank 0 to prepare: at least the group's timeout,
// and long enough for a preset to be pretrained (the wait ends early when rank 0 left a
// failure notice or its heartbeat stopped: Group::store_get).
constexpr double kPrepareWaitS = 4 * 3600;

std::unique_ptr<detail::Prepared> prepare_in_order(const ExperimentSpec& spec,
                                                   const RunnerOptions& options) {
  const auto& g = options.dist;
  if (!g) return detail::prepare(spec, options);
  const std::string key = "gb/prepared";
  if (const DistFault& f = options.dist_fault;
      f.rank == g->rank() && f.step == DistFault::kPrepare) {
    log::get("runner")->warn("rank {}: injected fault '{}' while preparing", f.rank, f.kind);
    if (f.kind == "kill") std::raise(SIGKILL);
    if (f.kind == "hang") std::raise(SIGSTOP);
    fail("injected failure of rank {} while preparing", f.rank);
  }
  if (g->leader()) {
    std::unique_ptr<detail::Prepared> p;
    try {
      p = detail::prepare(spec, options);
    } catch (const std::exception& e) {
      g->store_set(key, std::string("error: ") + e.what());
      throw;
    }
    g->store_set(key, "ok");
    return p;
  }
  const std::string status = g->store_get(key, std::max(g->timeout_s(), kPrepareWaitS));
  if (status != "ok") fail("rank 0 could not prepare the experiment: {}", status);
  return detail::prepare(spec, options);
}

// A rank other than 0 whose data-parallel run failed, on the machine of rank 0 (the store is
// a local file there): when rank 0 died, its runs (running, and the queued ones it owned)
// are marked interrupted now, resumable, with this rank's diagnosis as an event, instead of
// staying `running` until a later worker opens the store (under torchrun or srun no
// launcher of ours watches rank 0). A live rank 0 records the failure itself: nothing is
// touched then (the store marks only runs whose worker process is gone).
void record_dead_leader(const RunnerOptions& options, const std::string& error) {
  const auto& g = options.dist;
  if (!g || g->leader() || error.empty()) return;
  // Under our own launcher (--nproc-per-node) the launcher marks rank 0's runs failed.
  if (const char* l = std::getenv(dist::env::kLaunched); l && *l) return;
  try {
    if (g->hosts().empty() || g->hosts().front() != dist::host_name()) return;
    if (!fs::exists(options.db_path)) return;  // never create a store here
    store::Store store = store::Store::open(options.db_path);
    // Rank 0's sockets close (which ended this rank's collective) a moment before its process
    // is gone: give it up to 5 s to end (a live rank 0 records the failure itself).
    std::vector<int64_t> marked;
    for (int attempt = 0; attempt < 20 && marked.empty(); ++attempt) {
      if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(250));
      marked = store.mark_interrupted_runs();
    }
    for (int64_t id : marked) {
      store.add_event(
          id, store::EventLevel::Error,
          fmt::format("rank {} on {} found rank 0 gone: {}", g->rank(), dist::host_name(), error));
      log::get("runner")->warn("rank {}: marked run {} of the dead rank 0 interrupted", g->rank(),
                               id);
    }
  } catch (const std::exception& e) {
    log::get("runner")->warn("rank {}: could not record rank 0's failure in {}: {}", g->rank(),
                             options.db_path, e.what());
  }
}

// After a data-parallel run that did not finish, the ranks may stand at different points:
// no further run starts.
bool ends_distributed_experiment(const RunnerOptions& options, const RunOutcome& oc) {
  return options.dist && oc.status != "finished" && oc.status != "stopped";
}

// The fingerprints of the inputs of freshly created runs (experiment/integrity.h).
void record_inputs(const detail::Prepared& p, store::Store& store,
                   const std::vector<int64_t>& ids) {
  const std::string inputs =
      input_fingerprints(p.spec, p.base_folder, find_tokenizer(p.base_folder)).dump();
  for (int64_t id : ids) store.set_run_inputs(id, inputs);
}

// Temporary files and folders of killed writers (*.tmp-PID) below the workspace's runs.
void clean_workspace_leftovers(const std::string& workspace) {
  for (const auto& removed : remove_stale_temporaries((fs::path(workspace) / "runs").string(), 3)) {
    log::get("runner")->warn("removed {}, left behind by a worker that ended while writing it",
                             removed);
  }
}

}  // namespace

std::vector<RunOutcome> run_experiment(const ExperimentSpec& spec, const RunnerOptions& o) {
  RunnerOptions options = o;
  if (options.db_path.empty()) fail("run: no run store given (--db)");
  if (options.workspace.empty()) options.workspace = default_workspace(options.db_path);
  // The store keeps checkpoint paths relative to its own folder (Store::root), resolved on
  // read: a relative --db or --workspace, another working directory or a moved workspace all
  // find them.
  options.workspace = fs::absolute(options.workspace).lexically_normal().string();
  const bool follower = options.dist && !options.dist->leader();
  ScratchStore scratch;
  store::Store store =
      follower ? scratch.open(options.dist->rank()) : store::Store::open(options.db_path);
  if (!follower) {
    store.mark_interrupted_runs();
    clean_workspace_leftovers(options.workspace);
  }

  // Every run is created up front (queued), so viewers see the whole comparison: one per
  // plan, sweep point and seed (experiment/expand.h), all in one group.
  const std::vector<ExpandedRun> runs = expand_runs(spec);
  std::vector<ExperimentSpec> run_specs;
  for (const auto& r : runs) run_specs.push_back(r.typed);
  const std::string experiment =
      fmt::format("{}@{}", spec.name, static_cast<int64_t>(std::time(nullptr)));
  const std::string hash = spec_hash(spec);
  std::vector<int64_t> ids;
  // The runs and this worker's claim on them in one transaction: a kill never leaves
  // queued runs without an owner (which nothing would ever mark orphaned).
  store::WriteTransaction created(store);
  for (const auto& r : runs) {
    store::NewRun nr;
    nr.name = r.name;
    nr.spec = r.spec.dump();
    nr.variant = spec.plans[r.plan_index].label();
    nr.experiment = experiment;
    nr.device = spec.device;
    nr.seed = static_cast<int64_t>(r.seed);
    nr.tags = options.tags;
    nr.spec_hash = hash;
    nr.params = r.params;
    ids.push_back(store.create_run(nr));
  }
  // This worker owns the queued runs: if it dies before starting them, the next start marks
  // them orphaned (startable again) instead of leaving them queued forever.
  store.claim_queued_runs(ids);
  created.commit();
  std::unique_ptr<detail::Prepared> prepared;
  try {
    prepared = prepare_in_order(spec, options);
  } catch (const std::exception& e) {
    record_dead_leader(options, e.what());
    bool cancelled = dynamic_cast<const CancelledError*>(&e) != nullptr;
    for (int64_t id : ids) {
      store.set_status(id, cancelled ? store::RunStatus::Cancelled : store::RunStatus::Failed,
                       e.what());
    }
    throw;
  }
  record_inputs(*prepared, store, ids);
  if (auto m = store.find_model(prepared->model_key); !m) {
    store::ModelInfo mi;
    mi.key = prepared->model_key;
    LoadedModel base = grow::load_model(prepared->base_folder);
    mi.family = family_name(base.config.family);
    mi.config = base.config.raw.dump();
    mi.params = count_parameters(*base.model);
    store.upsert_model(mi);
  }
  std::vector<RunOutcome> outcomes;
  if (options.create_only) {
    for (size_t i = 0; i < runs.size(); ++i) {
      RunOutcome oc;
      oc.run_id = ids[i];
      oc.label = run_specs[i].plans[0].label();
      oc.name = runs[i].name;
      oc.status = "queued";
      outcomes.push_back(oc);
    }
    return outcomes;
  }
  std::string ended_by;  // a data-parallel run that did not finish
  for (size_t i = 0; i < runs.size(); ++i) {
    const grow::GrowthPlan& plan = run_specs[i].plans[0];
    if (!ended_by.empty()) {
      store.set_status(ids[i], store::RunStatus::Failed, "not started: " + ended_by);
      RunOutcome oc;
      oc.run_id = ids[i];
      oc.label = plan.label();
      oc.name = runs[i].name;
      oc.status = "failed";
      oc.error = "not started: " + ended_by;
      outcomes.push_back(oc);
      continue;
    }
    if (options.cancel.cancelled()) {
      store.set_status(ids[i], store::RunStatus::Cancelled, "cancelled before it started");
      RunOutcome oc;
      oc.run_id = ids[i];
      oc.label = plan.label();
      oc.name = runs[i].name;
      oc.status = "cancelled";
      outcomes.push_back(oc);
      continue;
    }
    ev::RunStarted started;
    started.run = ids[i];
    started.label = plan.label();
    started.index = static_cast<int64_t>(i);
    started.runs = static_cast<int64_t>(runs.size());
    detail::emit(*prepared, started);
    RunOutcome oc = detail::execute_run(*prepared, store, run_specs[i], ids[i], std::nullopt);
    oc.name = runs[i].name;
    if (follower && oc.status == "failed") record_dead_leader(options, oc.error);
    if (ends_distributed_experiment(options, oc)) {
      ended_by = fmt::format("data-parallel run {} ended {}", oc.run_id, oc.status);
    }
    outcomes.push_back(oc);
  }
  return outcomes;
}

std::string stored_run_device(const std::string& db_path, int64_t run_id) {
  try {
    if (!fs::exists(db_path)) return {};
    // No integrity check here: resume_run opens the store with one right after.
    store::OpenOptions oo;
    oo.check = store::IntegrityCheck::None;
    store::Store store = store::Store::open(db_path, store::OpenMode::ReadOnly, oo);
    const Json spec = Json::parse(store.get_run(run_id).spec);
    return spec.value("device", ExperimentSpec{}.device);
  } catch (const std::exception&) {
    return {};
  }
}

RunOutcome resume_run(int64_t run_id, const RunnerOptions& o) {
  RunnerOptions options = o;
  if (options.workspace.empty()) options.workspace = default_workspace(options.db_path);
  options.workspace = fs::absolute(options.workspace).lexically_normal().string();
  const auto& g = options.dist;
  // Data-parallel: rank 0 checks the run and hands its spec and checkpoint to the others,
  // which keep their records in a scratch store (and read the checkpoint folder: a shared
  // file system across machines).
  const std::string key = fmt::format("gb/resume/{}", run_id);
  if (g && !g->leader()) {
    Json got = Json::parse(g->store_get(key, g->timeout_s()), nullptr, false);
    if (got.is_discarded() || got.contains("error")) {
      fail("rank 0 could not resume run {}: {}", run_id,
           got.is_discarded() ? "no answer" : got["error"].get<std::string>());
    }
    ScratchStore scratch;
    store::Store store = scratch.open(g->rank());
    store::NewRun nr;
    nr.name = got.at("name").get<std::string>();
    nr.spec = got.at("spec").get<std::string>();
    const int64_t local_id = store.create_run(nr);
    store::CheckpointInfo ckpt;
    ckpt.run_id = local_id;
    ckpt.step = got.at("step").get<int64_t>();
    ckpt.path = got.at("path").get<std::string>();
    ExperimentSpec spec = parse_spec(json::parse(nr.spec, fmt::format("run {} spec", run_id)));
    auto prepared = prepare_in_order(spec, options);
    RunOutcome oc = detail::execute_run(*prepared, store, spec, local_id, ckpt);
    oc.run_id = run_id;
    oc.name = nr.name;
    if (oc.status == "failed") record_dead_leader(options, oc.error);
    return oc;
  }
  store::Store store = store::Store::open(options.db_path);
  store::RunInfo info;
  bool pool_start = false;  // a queued run of `run --jobs`: its first start, not a resume
  try {
    store.mark_interrupted_runs();
    clean_workspace_leftovers(options.workspace);
    info = store.get_run(run_id);
    if (info.status == store::RunStatus::Running) {
      fail("run {} is still running (worker pid {} on {})", run_id, info.worker_pid.value_or(0),
           info.worker_host);
    }
    const bool from_pool = options.pool_parent > 0 && info.worker_pid &&
                           *info.worker_pid == options.pool_parent &&
                           info.worker_host == store::detail::host_name();
    pool_start = from_pool && info.status == store::RunStatus::Queued;
    if (info.status == store::RunStatus::Queued && info.worker_pid && !from_pool) {
      fail(
          "run {} is queued by the worker process {} on {}, which starts it (a worker of this "
          "host that ended would have left it orphaned, and so startable)",
          run_id, *info.worker_pid, info.worker_host);
    }
    if (info.status == store::RunStatus::Finished) fail("run {} already finished", run_id);
  } catch (const std::exception& e) {
    if (g) g->store_set(key, Json{{"error", e.what()}}.dump());
    throw;
  }
  ExperimentSpec spec = parse_spec(json::parse(info.spec, fmt::format("run {} spec", run_id)));
  // The newest checkpoint that is intact and belongs to this run; each one skipped is named.
  const std::string uuid = store.uuid();
  const std::string spec_hash = run_spec_hash(spec.raw);
  std::optional<store::CheckpointInfo> ckpt;
  std::vector<std::string> skipped;
  auto all = store.checkpoints(run_id);
  for (auto it = all.rbegin(); it != all.rend() && !ckpt; ++it) {
    const std::string why = checkpoint_problem(*it, run_id, uuid, spec_hash);
    if (why.empty()) {
      ckpt = *it;
    } else {
      skipped.push_back(
          fmt::format("checkpoint of step {} ({}) is not usable: {}", it->step, it->path, why));
    }
  }
  if (g) {
    // The other ranks start from the checkpoint rank 0 chose (a data-parallel run resumes
    // from a checkpoint only).
    if (!ckpt) {
      const std::string why = fmt::format(
          "run {} has no usable checkpoint to resume from (status {}); start it again instead",
          run_id, store::to_string(info.status));
      g->store_set(key, Json{{"error", why}}.dump());
      fail("{}", why);
    }
    g->store_set(
        key,
        Json{{"name", info.name}, {"spec", info.spec}, {"step", ckpt->step}, {"path", ckpt->path}}
            .dump());
  }
  std::unique_ptr<detail::Prepared> prepared;
  try {
    prepared = prepare_in_order(spec, options);
    // The inputs must be the ones the run started with.
    const Json now =
        input_fingerprints(spec, prepared->base_folder, find_tokenizer(prepared->base_folder));
    const std::string recorded_text = store.run_inputs(run_id);
    const Json recorded = recorded_text.empty() ? Json() : Json::parse(recorded_text);
    const auto changed = changed_inputs(recorded, now);
    if (!changed.empty() && !options.force_resume) {
      std::string list;
      for (const auto& c : changed) list += "\n  " + c;
      fail(
          "run {}: its inputs changed since it started, so a resume would mix two experiments:{}"
          "\nrestore them, start a new run, or resume anyway with --force-resume",
          run_id, list);
    }
    for (const auto& c : changed) {
      store.add_event(run_id, store::EventLevel::Warning,
                      "resumed with --force-resume although an input changed: " + c);
    }
    if (recorded_text.empty()) store.set_run_inputs(run_id, now.dump());
  } catch (const std::exception& e) {
    // A run of `run --jobs` that never began: its own status says why (the pool reads it).
    if (pool_start) {
      const bool cancelled = dynamic_cast<const CancelledError*>(&e) != nullptr;
      store.set_status(run_id, cancelled ? store::RunStatus::Cancelled : store::RunStatus::Failed,
                       cancelled ? std::string("cancelled before it started") : e.what());
    }
    throw;
  }
  for (const auto& s : skipped) {
    log::get("runner")->warn("run {}: {}", run_id, s);
    store.add_event(run_id, store::EventLevel::Warning, s);
  }
  if (pool_start) {
    log::get("runner")->info("run {}: started by the worker pool of process {}", run_id,
                             options.pool_parent);
  } else if (!ckpt) {
    // Never started (orphaned), killed before its first checkpoint, or no valid one left:
    // from the beginning, its partial metrics dropped.
    const std::string why =
        all.empty() ? "it has no checkpoint" : "none of its checkpoints is usable";
    log::get("runner")->warn("run {}: {}; starting it from the beginning", run_id, why);
    store.add_event(run_id, store::EventLevel::Warning,
                    fmt::format("{}: started again from the beginning", why));
    store.truncate_metrics(run_id, -1);
  } else if (!skipped.empty()) {
    const std::string msg =
        fmt::format("resuming from the newest valid checkpoint, step {}", ckpt->step);
    log::get("runner")->warn("run {}: {}", run_id, msg);
    store.add_event(run_id, store::EventLevel::Warning, msg);
  }
  ev::RunStarted started;
  started.run = run_id;
  started.label = spec.plans[0].label();
  if (ckpt) started.resumed_from = ckpt->step;
  detail::emit(*prepared, started);
  RunOutcome oc = detail::execute_run(*prepared, store, spec, run_id, ckpt);
  oc.name = info.name;
  return oc;
}

}  // namespace gb::experiment
