#pragma once
// The SQLite run store: the one place that owns GrowBench's SQL. The experiment worker
// (`growbench-cli run`) writes; the GUI and the CLI read, from other processes, at the same
// time.
//
// Durability and concurrency:
// - WAL journal: readers never block the writer and the writer never blocks readers; every
//   reader sees whole committed transactions only (multi-query reads run in one snapshot).
// - synchronous=NORMAL: in WAL mode a commit is atomic and durable against a killed process
//   (SIGKILL, crash) because the WAL is in the OS page cache once write() returns; only a
//   power loss or kernel crash can lose the last commits (never corrupt the database). FULL
//   would fsync every commit for no gain against process death.
// - busy_timeout (default 5 s) and BEGIN IMMEDIATE for every write transaction, so two
//   writers (worker, GUI editing tags) wait for each other instead of failing with BUSY.
// - Foreign keys ON with ON DELETE CASCADE: deleting a run deletes its rows everywhere.
// - Schema versioned with PRAGMA user_version; older stores are migrated forward on a
//   read-write open (one transaction per version step); newer ones are refused.
//
// A Store object (one connection) is used by one thread at a time; open one per thread.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/types.h"

namespace gb::store {

namespace detail {
struct StoreState;
}

// The schema version this code writes (PRAGMA user_version). History:
//   1  models, datasets, runs, run_tags, metrics, task_matrix, checkpoints, events,
//      probes, importance
//   2  runs.experiment and runs.worker_start; metric_latest (the latest value of every key
//      of every run, kept by a trigger on metrics) backfilled from metrics
//   3  runs.spec_hash, run_params, status stopped
//   4  store_meta (the store's uuid), checkpoints.checksum, runs.inputs, runs.heartbeat
inline constexpr int kSchemaVersion = 4;

enum class OpenMode {
  ReadWrite,  // creates the file if missing, migrates an older schema
  ReadOnly,   // viewers: never writes, refuses a missing file or an older schema
};

enum class IntegrityCheck { None, Quick, Full };

struct OpenOptions {
  int busy_timeout_ms = 5000;
  // PRAGMA quick_check (or integrity_check) on open of an existing store; None skips it.
  // Quick reads every page: about 0.1 s of CPU per million metric rows, so open the first
  // connection with it and extra (per-thread, polling) connections with None.
  IntegrityCheck check = IntegrityCheck::Quick;
};

class MetricsWriter;

class Store {
 public:
  // Opens or creates a store; throws gb::Error naming the file when it is not an SQLite
  // database, not a GrowBench store, damaged, or of a newer schema version.
  static Store open(const std::string& path, OpenMode mode = OpenMode::ReadWrite,
                    const OpenOptions& options = {});
  ~Store();
  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const;
  bool read_only() const;
  int schema_version() const;
  // Changes whenever another connection commits (PRAGMA data_version): cheap GUI polling.
  int64_t data_version();
  // PRAGMA integrity_check: {"ok"} when healthy, else the problems SQLite reports.
  std::vector<std::string> integrity_check();
  // The store's identity: a random UUID (32 hex digits) made when the store was created (or
  // upgraded to schema 4). Checkpoint folders carry it, so two stores that share one
  // workspace never write the same folder.
  std::string uuid();
  // The workspace root: the absolute folder of the store file (resolved when it was opened).
  // Checkpoint paths inside it are stored relative to it and resolved against it, so a store
  // moved together with its checkpoints (or opened from another working directory) finds
  // them; CheckpointInfo::path is always the resolved path.
  const std::string& root() const;

  // ---- runs -------------------------------------------------------------------------
  // Creates a run (status queued unless given) and returns its id.
  int64_t create_run(const NewRun& run);
  // Sets the status and adds an event. running records this process as the worker (pid,
  // host) and the first start time, and is refused while another live process on this host
  // owns the run; terminal statuses record the finish time and `error`.
  void set_status(int64_t run_id, RunStatus status, const std::string& error = {});
  void rename_run(int64_t run_id, const std::string& name);
  void set_notes(int64_t run_id, const std::string& notes);
  // Replaces the run's tags (duplicates and empty tags are dropped).
  void set_tags(int64_t run_id, const std::vector<std::string>& tags);
  void add_tag(int64_t run_id, const std::string& tag);
  void remove_tag(int64_t run_id, const std::string& tag);
  // Every tag used by some run, sorted.
  std::vector<std::string> all_tags();
  // Deletes runs and (cascade) all their rows; refuses runs that are still running.
  // Returns the checkpoint paths they had, so the caller can remove the files.
  std::vector<std::string> delete_runs(const std::vector<int64_t>& run_ids);
  // Marks runs `running` whose worker process on this host no longer exists (or whose pid
  // now belongs to another process) as interrupted. Returns their ids. Runs on other
  // hosts are left alone. Call on worker and GUI start.
  // The run's end time is its heartbeat (the last committed metrics; see MetricsWriter),
  // not the moment of detection. Queued runs whose worker (claim_queued_runs) no longer
  // exists are orphaned: marked interrupted with a message saying they never started, so
  // that `run --resume ID` (or the GUI's Resume) starts them from the beginning.
  std::vector<int64_t> mark_interrupted_runs();
  // Records this process as the worker that will start these queued runs.
  void claim_queued_runs(const std::vector<int64_t>& run_ids);
  // The fingerprints of a run's inputs (a JSON object as text; "" when none were recorded).
  void set_run_inputs(int64_t run_id, const std::string& inputs);
  std::string run_inputs(int64_t run_id);

  std::vector<RunInfo> list_runs(const RunFilter& filter = {});
  // The run with its spec; std::nullopt when there is no such run.
  std::optional<RunInfo> find_run(int64_t run_id);
  // As find_run, but throws gb::Error when there is no such run.
  RunInfo get_run(int64_t run_id);
  // The run's flattened hyper-parameters (NewRun::params), by key.
  std::map<std::string, nlohmann::json> run_params(int64_t run_id);
  // Adds or replaces parameters of an existing run (a resumed run's new world size).
  void set_run_params(int64_t run_id, const std::map<std::string, nlohmann::json>& params);
  // The flattened hyper-parameters of several runs in one query (views of a whole group).
  std::map<int64_t, std::map<std::string, nlohmann::json>> runs_params(
      const std::vector<int64_t>& run_ids);

  // ---- metrics ------------------------------------------------------------------------
  // A buffered writer on this store's connection (see MetricsWriter).
  MetricsWriter metrics_writer();
  // Rows of a run ordered by key, then step.
  std::vector<MetricRow> metric_rows(int64_t run_id, const MetricQuery& query = {});
  // Series per key of a run (steps ascending); incremental with query.after_step.
  std::map<std::string, Series> metric_series(int64_t run_id, const MetricQuery& query = {});
  // The metric keys a run has, sorted.
  std::vector<std::string> metric_keys(int64_t run_id);
  // Latest (highest-step) value of each key of each run, ordered by run and key; empty
  // run_ids / keys mean all. Reads the metric_latest table: O(runs x keys), not O(rows).
  std::vector<LatestMetric> latest_metrics(const std::vector<int64_t>& run_ids = {},
                                           const std::vector<std::string>& keys = {});
  // Earliest (lowest-step) value of each of `keys` of each run, ordered by run and key: one
  // indexed look-up per (run, key), never a scan of the series.
  std::vector<LatestMetric> first_metrics(const std::vector<int64_t>& run_ids,
                                          const std::vector<std::string>& keys);
  // Deletes a run's metrics with step > after_step (resuming from a checkpoint).
  void truncate_metrics(int64_t run_id, int64_t after_step);

  // ---- events, checkpoints, task matrix ----------------------------------------------
  int64_t add_event(int64_t run_id, EventLevel level, const std::string& message);
  // Events with id > after_id, oldest first; limit -1 means all.
  std::vector<EventInfo> events(int64_t run_id, int64_t after_id = 0, int64_t limit = -1);
  // Records (or replaces, same step) a checkpoint of a run with its size and checksum (empty:
  // none recorded). A path inside root() is stored relative to it.
  void add_checkpoint(int64_t run_id, int64_t step, const std::string& path, int64_t bytes,
                      const std::string& checksum = {});
  std::vector<CheckpointInfo> checkpoints(int64_t run_id);
  std::optional<CheckpointInfo> latest_checkpoint(int64_t run_id);
  // R[after_task][eval_task] of a task sequence (replaces an existing cell).
  void set_task_value(int64_t run_id, int after_task, int eval_task, double value);
  TaskMatrix task_matrix(int64_t run_id);

  // ---- models, datasets, probes ----------------------------------------------------------
  // Inserts or updates the model with this key; returns its id.
  int64_t upsert_model(const ModelInfo& model);
  std::optional<ModelInfo> find_model(const std::string& key);
  std::vector<ModelInfo> list_models();
  // Inserts or updates the dataset with this (name, path, hash); returns its id.
  int64_t upsert_dataset(const DatasetInfo& dataset);
  std::vector<DatasetInfo> list_datasets();
  // Records a probe and its importance values in one transaction; returns the probe id.
  int64_t add_probe(const NewProbe& probe, const ImportanceMatrix& importance);
  // Probes of a model (all probes when model_id is empty), newest first.
  std::vector<ProbeInfo> list_probes(std::optional<int64_t> model_id = std::nullopt);
  // One probe; std::nullopt when there is no such probe.
  std::optional<ProbeInfo> find_probe(int64_t probe_id);
  ImportanceMatrix importance(int64_t probe_id);
  void delete_probe(int64_t probe_id);

 private:
  friend class MetricsWriter;
  friend class WriteTransaction;
  explicit Store(std::shared_ptr<detail::StoreState> state);
  std::shared_ptr<detail::StoreState> m_state;
};

// Groups several Store writes into one atomic transaction (BEGIN IMMEDIATE); rolls back on
// destruction unless commit() was called. Store methods called inside nest as savepoints.
class WriteTransaction {
 public:
  explicit WriteTransaction(Store& store);
  ~WriteTransaction();
  WriteTransaction(const WriteTransaction&) = delete;
  WriteTransaction& operator=(const WriteTransaction&) = delete;
  void commit();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

struct MetricsWriterOptions {
  size_t max_rows = 256;                      // flush when this many rows are buffered
  std::chrono::milliseconds max_delay{2000};  // or when the oldest row is this old
};

// Buffers metric rows and writes each buffer in ONE transaction with multi-row INSERTs, so
// a killed worker loses at most the unflushed rows and readers see whole batches. Rewriting
// (run, step, key) replaces the value. The age limit is checked by add() and poll(); the
// writer starts no thread. Shares the Store's connection (and its one-thread rule); keeps
// it alive.
class MetricsWriter {
 public:
  MetricsWriter(Store& store, MetricsWriterOptions options = {});
  // Flushes what is left; a failure is logged (never thrown from a destructor).
  ~MetricsWriter();
  MetricsWriter(MetricsWriter&&) noexcept;
  MetricsWriter& operator=(MetricsWriter&&) noexcept;
  MetricsWriter(const MetricsWriter&) = delete;
  MetricsWriter& operator=(const MetricsWriter&) = delete;

  // Buffers one value; flushes when the buffer is full or its oldest row is too old.
  void add(int64_t run_id, int64_t step, std::string_view key, double value);
  // Writes the buffer in one transaction; on failure the rows stay buffered and it throws.
  void flush();
  // Flushes if the oldest buffered row is older than max_delay; true when it flushed.
  bool poll();
  size_t pending() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

// Creates (or migrates) a store at exactly schema `version` <= kSchemaVersion, for
// migration tests and tools that need an old-format file.
void create_store_at_version(const std::string& path, int version);

}  // namespace gb::store
