#pragma once
// Plain value types of the run store API (core/store/store.h). Times are Unix time in
// seconds (fractional, UTC). Metric values are doubles; NaN is stored as SQL NULL and reads
// back as NaN, infinities round-trip.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/metrics.h"

namespace gb::store {

// Run status as stored in runs.status (the lower-case names are the contract).
enum class RunStatus {
  Queued,
  Running,
  Finished,
  Failed,
  Cancelled,
  Interrupted,
  Diverged,
  Stopped  // ended by its forgetting guard (experiment spec "guard")
};

// "queued", "running", "finished", "failed", "cancelled", "interrupted", "diverged",
// "stopped".
const char* to_string(RunStatus status);
// Parses a status name; throws gb::Error naming the value and the valid names.
RunStatus parse_run_status(std::string_view name);
// True for finished, failed, cancelled, interrupted and diverged.
bool is_terminal(RunStatus status);
// Every status, in declaration order (for filters and combo boxes).
const std::vector<RunStatus>& all_run_statuses();

// Well-known metric keys (the metrics.key values other tools rely on): aliases of the
// metric registry (util/metrics.h), which documents every key.
namespace keys {
inline constexpr const char* kTrainLoss = metrics::kTrainLoss;
inline constexpr const char* kOrigLoss = metrics::kEvalOrigLoss;
inline constexpr const char* kOrigPpl = metrics::kEvalOrigPpl;
inline constexpr const char* kNewLoss = metrics::kEvalNewLoss;
inline constexpr const char* kNewPpl = metrics::kEvalNewPpl;
inline constexpr const char* kTokensPerS = metrics::kTokensPerS;
// Accuracy on a named task: metrics::task_key(task, metrics::kAcc).
inline std::string task_acc(std::string_view task) {
  return metrics::task_key(std::string(task), metrics::kAcc);
}
}  // namespace keys

struct NewRun {
  std::string name;
  std::string spec = "{}";  // the experiment spec, JSON text (validated)
  std::string variant;      // growth variant or baseline, e.g. "grow/g-freeze", "lora"
  std::string experiment;   // groups the runs launched together from one spec
  std::optional<int64_t> model_id;
  std::string device;
  std::optional<int64_t> seed;
  std::vector<std::string> tags;
  std::string notes;
  RunStatus status = RunStatus::Queued;
  std::string spec_hash;  // hash of the spec the run's group came from
  // The run's resolved hyper-parameters, flattened ("plan.rank", "train.lr", "seed", ...).
  std::map<std::string, nlohmann::json> params;
};

struct RunInfo {
  int64_t id = 0;
  std::string name;
  RunStatus status = RunStatus::Queued;
  std::string spec;  // empty when listed without specs (RunFilter::include_spec)
  std::string variant;
  std::string experiment;
  std::optional<int64_t> model_id;
  double created = 0;
  std::optional<double> started;   // first time the run went to running
  std::optional<double> finished;  // time it reached its current terminal status
  std::string device;
  std::optional<int64_t> seed;
  std::vector<std::string> tags;  // sorted
  std::string notes;
  std::optional<int64_t> worker_pid;  // the process that set it running
  std::string worker_host;
  std::string error;  // why it failed, diverged or was interrupted; empty otherwise
  std::string spec_hash;
};

struct RunFilter {
  std::vector<RunStatus> statuses;  // any of these; empty = all
  std::string tag;                  // has this tag; empty = any
  std::string name_contains;        // case-insensitive (ASCII) substring of the name
  std::string experiment;           // exact; empty = any
  std::optional<int64_t> model_id;
  bool include_spec = false;
  int64_t limit = -1;  // -1: no limit
  int64_t offset = 0;
};

struct MetricRow {
  int64_t run_id = 0;
  int64_t step = 0;
  std::string key;
  double value = 0;
};

// One metric of one run: steps ascending, values aligned with them.
struct Series {
  std::vector<int64_t> steps;
  std::vector<double> values;
};

struct MetricQuery {
  std::vector<std::string> keys;      // empty = every key of the run
  std::optional<int64_t> after_step;  // only steps > after_step (incremental polling)
};

// The value at the highest step of one key of one run.
struct LatestMetric {
  int64_t run_id = 0;
  std::string key;
  int64_t step = 0;
  double value = 0;
};

struct ModelInfo {
  int64_t id = 0;             // ignored by upsert_model
  std::string key;            // identity: absolute folder path or "preset:<name>"
  std::string family;         // e.g. "llama"
  std::string config = "{}";  // JSON text (config.json or the preset config)
  int64_t params = 0;
  double created = 0;  // set by the store
};

struct DatasetInfo {
  int64_t id = 0;  // ignored by upsert_dataset
  std::string name;
  std::string path;
  std::string kind;  // "text", "jsonl", "fortunes", "mc", "qa", "biography", ...
  std::string hash;  // content hash (hex); identity is (name, path, hash)
  int64_t tokens = 0;
  double created = 0;
};

struct NewProbe {
  int64_t model_id = 0;
  std::string method;     // "masking", "taylor", "taylor-abs", "fisher", "update-magnitude", ...
  std::string probe_set;  // human-readable description of the probe data
  std::optional<int64_t> dataset_id;
  std::optional<int64_t> run_id;  // the run that computed it, if any
  std::string params = "{}";      // JSON text
  double duration_s = 0;
};

struct ProbeInfo {
  int64_t id = 0;
  int64_t model_id = 0;
  std::string method;
  std::string probe_set;
  std::optional<int64_t> dataset_id;
  std::optional<int64_t> run_id;
  std::string params;
  std::vector<std::string> units;  // column names of the unit matrix, in order
  double created = 0;
  double duration_s = 0;
};

// Importance of one probe: one value per layer and, for unit methods, a layers x units
// matrix (unit_values[layer][unit], columns named by `units`). Missing cells are NaN. The
// same shape carries the effective-rank matrix (columns = training stages).
struct ImportanceMatrix {
  std::vector<double> layer_values;              // (L) or empty
  std::vector<std::string> units;                // (U) column names, unique
  std::vector<std::vector<double>> unit_values;  // (L, U) or empty
};

// One cell R[after_task][eval_task] of a task sequence's accuracy matrix.
struct TaskCell {
  int after_task = 0;
  int eval_task = 0;
  double value = 0;
};

// Accuracy matrix of a task sequence: the stored cells (ordered by after_task, eval_task)
// and the same as a dense matrix values[after_task][eval_task], NaN where missing.
struct TaskMatrix {
  std::vector<TaskCell> cells;
  std::vector<std::vector<double>> values;
};

struct CheckpointInfo {
  int64_t id = 0;
  int64_t run_id = 0;
  int64_t step = 0;
  std::string path;  // absolute (resolved against Store::root())
  int64_t bytes = 0;
  double created = 0;
  std::string checksum;  // of the checkpoint's files when written; empty: not recorded
};

enum class EventLevel { Debug, Info, Warning, Error };
const char* to_string(EventLevel level);  // "debug", "info", "warning", "error"

struct EventInfo {
  int64_t id = 0;  // increasing; poll with events(run, last_seen_id)
  int64_t run_id = 0;
  double time = 0;
  EventLevel level = EventLevel::Info;
  std::string message;
};

}  // namespace gb::store
