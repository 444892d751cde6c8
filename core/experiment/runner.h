#pragma once
// The experiment runner: takes a spec, prepares the base model (a folder, or a built-in
// preset built once) and the data, then for every plan runs one run: probe (when the plan's
// layer policy, ADEPT's unit-wise learning rates or EWC need it), grow, train on the new
// domain (or a task sequence), and evaluate at step 0, every interval and at the end.
// Everything goes to the SQLite run store; progress goes to a callback as typed events
// (util/events.h; growbench-cli run prints them as JSON, one per line). Cancellation stops cleanly
// (status cancelled, a checkpoint written); a run can be resumed from its last checkpoint with the
// same result as an uninterrupted run.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiment/spec.h"
#include "util/events.h"
#include "util/progress.h"

namespace gb::dist {
class Group;
}

namespace gb::experiment {

// Fault injection for the data-parallel tests: at `step` (kPrepare: while preparing the
// experiment), rank `rank` dies (kill: SIGKILL), hangs (hang: SIGSTOP) or fails (fail: an
// exception).
struct DistFault {
  static constexpr int64_t kPrepare = -1;
  int64_t rank = -1;  // -1: off
  int64_t step = 0;
  std::string kind = "kill";
};

struct RunnerOptions {
  std::string db_path;
  // Checkpoints go to <workspace>/runs/<run id>/; default: "<db path without .db>.runs".
  std::string workspace;
  // Presets and tokenised corpora; default data::default_cache_dir().
  std::string cache_dir;
  // Progress (util/events.h); `growbench-cli run` prints events::to_json of each.
  std::function<void(const events::Event&)> on_event;
  CancelToken cancel;
  std::vector<std::string> tags;  // added to every run
  // Fault injection for tests: make the training loss NaN at this step (-1: off).
  int64_t inject_nan_at = -1;
  // Data-parallel (dist/group.h; null: one process). Rank 0 alone writes the store and the
  // checkpoints; the other ranks keep their records in a scratch store that is deleted.
  std::shared_ptr<dist::Group> dist;
  int64_t bucket_bytes = 25 << 20;  // gradient all-reduce buckets
  DistFault dist_fault;
  // resume_run: continue even when the run's inputs (base weights, tokenizer, data files)
  // changed since it started (each change is recorded as a warning event).
  bool force_resume = false;
  // run_experiment: create the runs (queued, claimed by this process) and prepare their
  // inputs (presets, tokenised corpora), then return without starting any: their outcomes
  // say "queued". `growbench-cli run --jobs N` then runs them in worker processes.
  bool create_only = false;
  // resume_run: this worker was started by the process `pool_parent` (a pid on this host),
  // which created the run and holds its claim; a queued run claimed by it may start here.
  int64_t pool_parent = 0;
};

struct RunOutcome {
  int64_t run_id = 0;
  std::string name;
  std::string label;   // the plan's label
  std::string status;  // finished, failed, cancelled, diverged
  std::string error;
  nlohmann::json final_metrics = nlohmann::json::object();  // key → value at the last step
  nlohmann::json growth = nlohmann::json::object();         // GrowthResult::to_json()
  double seconds = 0;
};

// Runs every plan of the spec (one run each, sharing data and seeds).
std::vector<RunOutcome> run_experiment(const ExperimentSpec& spec, const RunnerOptions& options);

// Continues an interrupted, cancelled or failed run from its newest valid checkpoint (one
// whose size and checksum match the store's record and that belongs to this store, run and
// spec; each skipped one is named in a warning event), or starts it from the beginning when
// it has none (a queued run whose worker died, a run killed before its first checkpoint).
// Refuses when the run's inputs changed since it started (experiment/integrity.h), naming
// each change, unless options.force_resume.
RunOutcome resume_run(int64_t run_id, const RunnerOptions& options);

// The device the spec of a stored run names ("cpu", "cuda", "cuda:1"; the spec's default
// when it names none), read without changing the store: rank 0 of a data-parallel resume
// gives it to the other ranks, and it picks the backend (--resume takes no SPEC.json). Empty
// when the store or the run cannot be read.
std::string stored_run_device(const std::string& db_path, int64_t run_id);

// Default workspace folder of a store path.
std::string default_workspace(const std::string& db_path);

}  // namespace gb::experiment
