#include "store/store.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "store/process.h"
#include "store/schema.h"
#include "store/sqlite_db.h"
#include "store/store_internal.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::store {

// ---- enums ------------------------------------------------------------------------------

namespace {
constexpr const char* kStatusNames[] = {"queued",    "running",     "finished", "failed",
                                        "cancelled", "interrupted", "diverged", "stopped"};
constexpr const char* kLevelNames[] = {"debug", "info", "warning", "error"};
}  // namespace

const char* to_string(RunStatus status) {
  return kStatusNames[static_cast<int>(status)];
}

RunStatus parse_run_status(std::string_view name) {
  for (int i = 0; i < 8; ++i) {
    if (name == kStatusNames[i]) return static_cast<RunStatus>(i);
  }
  fail(
      "unknown run status '{}' (expected one of queued, running, finished, failed, "
      "cancelled, interrupted, diverged, stopped)",
      name);
}

bool is_terminal(RunStatus status) {
  return status != RunStatus::Queued && status != RunStatus::Running;
}

const std::vector<RunStatus>& all_run_statuses() {
  static const std::vector<RunStatus> all = {
      RunStatus::Queued,    RunStatus::Running,     RunStatus::Finished, RunStatus::Failed,
      RunStatus::Cancelled, RunStatus::Interrupted, RunStatus::Diverged, RunStatus::Stopped};
  return all;
}

const char* to_string(EventLevel level) {
  return kLevelNames[static_cast<int>(level)];
}

namespace {

EventLevel parse_level(const std::string& name) {
  for (int i = 0; i < 4; ++i) {
    if (name == kLevelNames[i]) return static_cast<EventLevel>(i);
  }
  return EventLevel::Info;
}

}  // namespace

// ---- internals ------------------------------------------------------------------------

namespace detail {

double now_s() {
  using namespace std::chrono;
  return duration_cast<duration<double>>(system_clock::now().time_since_epoch()).count();
}

void StoreState::require_writable(const char* what) const {
  if (read_only) {
    fail("run store '{}': {} needs a read-write store, but it was opened read-only", db->path(),
         what);
  }
}

}  // namespace detail

using detail::Connection;
using detail::now_s;
using detail::Query;
using detail::ReadSnapshot;
using detail::Transaction;

namespace {

// "?, ?, ?" with n placeholders.
std::string placeholders(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += i ? ", ?" : "?";
  return s;
}

bool file_is_empty_or_missing(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return true;
  return st.st_size == 0;
}

// The runs columns read into RunInfo, in the order read_run() expects; spec comes last.
constexpr const char* kRunColumns =
    "r.id, r.name, r.status, r.variant, r.experiment, r.model_id, r.created, r.started, "
    "r.finished, r.device, r.seed, r.notes, r.worker_pid, r.worker_host, r.error, r.spec_hash";

RunInfo read_run(const Query& q, bool with_spec) {
  RunInfo r;
  r.id = q.int64(0);
  r.name = q.text(1);
  r.status = parse_run_status(q.text(2));
  r.variant = q.text(3);
  r.experiment = q.text(4);
  r.model_id = q.opt_int64(5);
  r.created = q.real(6);
  r.started = q.opt_real(7);
  r.finished = q.opt_real(8);
  r.device = q.text(9);
  r.seed = q.opt_int64(10);
  r.notes = q.text(11);
  r.worker_pid = q.opt_int64(12);
  r.worker_host = q.text(13);
  r.error = q.text(14);
  r.spec_hash = q.text(15);
  if (with_spec) r.spec = q.text(16);
  return r;
}

constexpr const char* kModelSelect = "SELECT id, key, family, config, params, created FROM models";

ModelInfo read_model(const Query& q) {
  ModelInfo m;
  m.id = q.int64(0);
  m.key = q.text(1);
  m.family = q.text(2);
  m.config = q.text(3);
  m.params = q.int64(4);
  m.created = q.real(5);
  return m;
}

constexpr const char* kProbeSelect =
    "SELECT id, model_id, method, probe_set, dataset_id, run_id, params, units, created, "
    "duration FROM probes";

std::vector<std::string> parse_units(const std::string& text, const std::string& path) {
  std::vector<std::string> units;
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array()) {
    log::get("store")->warn("run store '{}': probes.units is not a JSON array: {}", path, text);
    return units;
  }
  for (const auto& u : j) units.push_back(u.is_string() ? u.get<std::string>() : u.dump());
  return units;
}

ProbeInfo read_probe(const Query& q, const std::string& path) {
  ProbeInfo p;
  p.id = q.int64(0);
  p.model_id = q.int64(1);
  p.method = q.text(2);
  p.probe_set = q.text(3);
  p.dataset_id = q.opt_int64(4);
  p.run_id = q.opt_int64(5);
  p.params = q.text(6);
  p.units = parse_units(q.text(7), path);
  p.created = q.real(8);
  p.duration_s = q.real(9);
  return p;
}

constexpr const char* kCheckpointSelect =
    "SELECT id, run_id, step, path, bytes, created, checksum FROM checkpoints";

// A stored checkpoint path resolved against the workspace root (relative paths: schema 4;
// absolute ones, written before, stay as they are).
std::string resolve_path(const std::string& root, const std::string& stored) {
  const std::filesystem::path p(stored);
  if (p.is_absolute() || root.empty()) return stored;
  return (std::filesystem::path(root) / p).lexically_normal().string();
}

CheckpointInfo read_checkpoint(const Query& q, const std::string& root) {
  CheckpointInfo c;
  c.id = q.int64(0);
  c.run_id = q.int64(1);
  c.step = q.int64(2);
  c.path = resolve_path(root, q.text(3));
  c.bytes = q.int64(4);
  c.created = q.real(5);
  c.checksum = q.text(6);
  return c;
}

std::string validated_json(const std::string& text, const char* what, const std::string& path) {
  if (text.empty()) return "{}";
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) {
    fail("run store '{}': {} is not valid JSON: {}", path, what,
         text.size() > 80 ? text.substr(0, 80) + "..." : text);
  }
  return text;
}

void check_one_row(const Query& q, const Connection& db, const char* what, int64_t run_id) {
  if (q.changes() == 0) fail("run store '{}': {}: there is no run {}", db.path(), what, run_id);
}

std::vector<std::string> clean_tags(const std::vector<std::string>& tags) {
  std::set<std::string> s;
  for (const auto& t : tags) {
    if (!t.empty()) s.insert(t);
  }
  return {s.begin(), s.end()};
}

}  // namespace

// Inserts `rows` rows with multi-row INSERT statements of 128, 64, ..., 1 rows (at most
// eight distinct cached statements). `prefix` ends with "VALUES ".
void detail::multi_insert(Connection& db, const std::string& prefix, int columns, size_t rows,
                          const std::function<void(Query&, size_t)>& bind_row, const char* what) {
  std::string tuple = "(" + placeholders(static_cast<size_t>(columns)) + ")";
  size_t done = 0;
  for (size_t chunk = 128; chunk >= 1; chunk /= 2) {
    while (rows - done >= chunk) {
      std::string sql = prefix;
      sql.reserve(prefix.size() + chunk * (tuple.size() + 2));
      for (size_t i = 0; i < chunk; ++i) {
        if (i) sql += ", ";
        sql += tuple;
      }
      Query q(db, sql, what);
      for (size_t i = 0; i < chunk; ++i) bind_row(q, done + i);
      q.run();
      done += chunk;
    }
  }
}

// ---- open -------------------------------------------------------------------------------

namespace {

std::shared_ptr<detail::StoreState> open_state(const std::string& path, OpenMode mode,
                                               const OpenOptions& options, int target) {
  const bool ro = mode == OpenMode::ReadOnly;
  if (ro && file_is_empty_or_missing(path)) {
    fail(
        "run store '{}': the file does not exist or is empty (opening read-only never "
        "creates a store)",
        path);
  }
  int flags = ro ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  auto state = std::make_shared<detail::StoreState>();
  state->db = std::make_unique<Connection>(path, flags, options.busy_timeout_ms);
  state->read_only = ro;
  {
    std::error_code ec;
    const std::filesystem::path abs = std::filesystem::absolute(path, ec);
    if (!ec) state->root = abs.parent_path().lexically_normal().string();
  }
  Connection& db = *state->db;

  // The first read of the header is where a file that is not a database shows up.
  int64_t tables = 0;
  try {
    tables = db.scalar_int("SELECT count(*) FROM sqlite_master", "reading the schema");
  } catch (const detail::SqliteError& e) {
    const int code = e.code() & 0xff;
    if (code != SQLITE_NOTADB && code != SQLITE_CORRUPT) throw;
    fail(
        "run store '{}' cannot be opened: it is not an SQLite database, or it is damaged or "
        "encrypted ({})",
        path, e.what());
  }
  const int64_t app_id = db.scalar_int("PRAGMA application_id", "reading the application id");
  const int64_t version = db.scalar_int("PRAGMA user_version", "reading the schema version");
  if (app_id != 0 && app_id != detail::kApplicationId) {
    fail(
        "run store '{}' is an SQLite database of another application (application_id "
        "{:#x}), not a GrowBench run store",
        path, app_id);
  }
  if (version == 0 && tables > 0) {
    std::string names;
    Query q(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name LIMIT 5",
            "reading the schema");
    while (q.step()) names += (names.empty() ? "" : ", ") + q.text(0);
    fail(
        "run store '{}' is an SQLite database but not a GrowBench run store (it has tables "
        "{} and no schema version); choose another file",
        path, names);
  }
  if (version > kSchemaVersion) {
    fail(
        "run store '{}' has schema version {}, newer than this GrowBench understands ({}); "
        "it was written by a newer GrowBench: upgrade GrowBench to open it",
        path, version, kSchemaVersion);
  }
  const bool fresh = version == 0 && tables == 0;
  if (fresh && !ro) log::get("store")->info("creating run store '{}'", path);

  if (!fresh && options.check != IntegrityCheck::None) {
    const char* pragma =
        options.check == IntegrityCheck::Full ? "PRAGMA integrity_check" : "PRAGMA quick_check";
    std::vector<std::string> problems;
    try {
      Query q(db, pragma, "checking the database");
      while (q.step() && problems.size() < 5) problems.push_back(q.text(0));
    } catch (const detail::SqliteError& e) {
      const int code = e.code() & 0xff;
      if (code != SQLITE_CORRUPT && code != SQLITE_NOTADB) throw;  // e.g. busy: not damage
      problems = {e.what()};
    }
    if (problems.size() != 1 || problems[0] != "ok") {
      std::string list;
      for (const auto& p : problems) list += (list.empty() ? "" : "; ") + p;
      fail("run store '{}' is damaged ({} failed: {}); move it aside and restore a backup", path,
           pragma, list);
    }
  }

  if (ro) {
    db.exec("PRAGMA query_only = ON", "setting up the connection");
    if (version < kSchemaVersion) {
      fail(
          "run store '{}' has the older schema version {} (this GrowBench uses {}); open it "
          "read-write once (GUI or growbench-cli) to upgrade it",
          path, version, kSchemaVersion);
    }
  } else {
    std::string journal = db.scalar_text("PRAGMA journal_mode = WAL", "enabling WAL");
    if (journal != "wal") {
      fail(
          "run store '{}': could not switch to WAL journal mode (got '{}'); is it on a "
          "network file system?",
          path, journal);
    }
    db.exec(
        "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; "
        "PRAGMA journal_size_limit = 67108864",
        "setting up the connection");
    if (version < target) detail::migrate(db, target);
  }
  state->version = static_cast<int>(db.scalar_int("PRAGMA user_version", "reading version"));
  log::get("store")->debug("opened run store '{}' ({}, schema {})", path,
                           ro ? "read-only" : "read-write", state->version);
  return state;
}

}  // namespace

Store::Store(std::shared_ptr<detail::StoreState> state) : m_state(std::move(state)) {}
Store::~Store() = default;
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;

Store Store::open(const std::string& path, OpenMode mode, const OpenOptions& options) {
  return Store(open_state(path, mode, options, kSchemaVersion));
}

void create_store_at_version(const std::string& path, int version) {
  if (version < 1 || version > kSchemaVersion) {
    fail("create_store_at_version: version {} is outside 1..{}", version, kSchemaVersion);
  }
  open_state(path, OpenMode::ReadWrite, {}, version);
}

const std::string& Store::path() const {
  return m_state->db->path();
}
bool Store::read_only() const {
  return m_state->read_only;
}
int Store::schema_version() const {
  return m_state->version;
}

int64_t Store::data_version() {
  return m_state->db->scalar_int("PRAGMA data_version", "reading the data version");
}

const std::string& Store::root() const {
  return m_state->root;
}

std::string Store::uuid() {
  Query q(*m_state->db, "SELECT value FROM store_meta WHERE key = 'uuid'", "reading the uuid");
  if (!q.step()) fail("run store '{}' has no uuid (store_meta)", path());
  return q.text(0);
}

std::vector<std::string> Store::integrity_check() {
  std::vector<std::string> out;
  Query q(*m_state->db, "PRAGMA integrity_check", "integrity check");
  while (q.step()) out.push_back(q.text(0));
  return out;
}

// ---- runs ---------------------------------------------------------------------------------

int64_t Store::create_run(const NewRun& run) {
  const char* what = "creating a run";
  m_state->require_writable(what);
  Connection& db = *m_state->db;
  if (run.name.empty()) fail("run store '{}': {}: the run needs a name", db.path(), what);
  std::string spec = validated_json(run.spec, "the run spec", db.path());
  Transaction tx(db, what);
  {
    Query q(db,
            "INSERT INTO runs (name, status, spec, variant, experiment, model_id, created, "
            "device, seed, notes, spec_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            what);
    q.bind_all(run.name, to_string(RunStatus::Queued), spec, run.variant, run.experiment,
               run.model_id, now_s(), run.device, run.seed, run.notes, run.spec_hash);
    q.run();
  }
  int64_t id = sqlite3_last_insert_rowid(db.get());
  for (const auto& [key, value] : run.params) {
    Query q(db, "INSERT INTO run_params (run_id, key, value, num) VALUES (?, ?, ?, ?)", what);
    std::optional<double> num;
    if (value.is_number()) num = value.get<double>();
    if (value.is_boolean()) num = value.get<bool>() ? 1.0 : 0.0;
    q.bind_all(id, key, value.dump(), num).run();
  }
  for (const auto& tag : clean_tags(run.tags)) {
    Query q(db, "INSERT INTO run_tags (run_id, tag) VALUES (?, ?)", what);
    q.bind_all(id, tag).run();
  }
  // Any other initial status goes through set_status: times, worker and event as usual.
  if (run.status != RunStatus::Queued) set_status(id, run.status);
  tx.commit();
  return id;
}

void Store::set_status(int64_t run_id, RunStatus status, const std::string& error) {
  const char* what = "setting a run's status";
  m_state->require_writable(what);
  Connection& db = *m_state->db;
  Transaction tx(db, what);
  const double now = now_s();
  if (status == RunStatus::Running) {
    detail::ProcessIdentity me = detail::this_process();
    {
      // Two workers on one run would interleave their metrics: refuse a live owner.
      Query q(db, "SELECT status, worker_pid, worker_host, worker_start FROM runs WHERE id = ?",
              what);
      q.bind(run_id);
      if (q.step() && q.text(0) == to_string(RunStatus::Running) && !q.is_null(1) &&
          q.text(2) == me.host && q.int64(1) != me.pid &&
          detail::process_alive(q.int64(1), q.text(3))) {
        fail(
            "run store '{}': run {} is already running in process {} on {}; cancel that "
            "worker first",
            db.path(), run_id, q.int64(1), me.host);
      }
    }
    Query q(db,
            "UPDATE runs SET status = ?, started = COALESCE(started, ?), finished = NULL, "
            "error = NULL, worker_pid = ?, worker_host = ?, worker_start = ?, heartbeat = ? "
            "WHERE id = ?",
            what);
    q.bind_all(to_string(status), now, me.pid, me.host, me.start, now, run_id).run();
    check_one_row(q, db, what, run_id);
  } else if (status == RunStatus::Queued) {
    Query q(db,
            "UPDATE runs SET status = ?, finished = NULL, error = NULL, worker_pid = NULL, "
            "worker_host = NULL, worker_start = NULL WHERE id = ?",
            what);
    q.bind_all(to_string(status), run_id).run();
    check_one_row(q, db, what, run_id);
  } else {
    Query q(db, "UPDATE runs SET status = ?, finished = ?, error = ? WHERE id = ?", what);
    q.bind(to_string(status)).bind(now);
    if (error.empty()) {
      q.bind(nullptr);
    } else {
      q.bind(error);
    }
    q.bind(run_id).run();
    check_one_row(q, db, what, run_id);
  }
  EventLevel level = EventLevel::Info;
  if (status == RunStatus::Failed || status == RunStatus::Diverged) level = EventLevel::Error;
  if (status == RunStatus::Interrupted) level = EventLevel::Warning;
  add_event(run_id, level,
            error.empty() ? fmt::format("status: {}", to_string(status))
                          : fmt::format("status: {}: {}", to_string(status), error));
  tx.commit();
}

void Store::rename_run(int64_t run_id, const std::string& name) {
  const char* what = "renaming a run";
  m_state->require_writable(what);
  if (name.empty()) fail("run store '{}': {}: the name is empty", path(), what);
  Query q(*m_state->db, "UPDATE runs SET name = ? WHERE id = ?", what);
  q.bind_all(name, run_id).run();
  check_one_row(q, *m_state->db, what, run_id);
}

void Store::set_notes(int64_t run_id, const std::string& notes) {
  const char* what = "setting a run's notes";
  m_state->require_writable(what);
  Query q(*m_state->db, "UPDATE runs SET notes = ? WHERE id = ?", what);
  q.bind_all(notes, run_id).run();
  check_one_row(q, *m_state->db, what, run_id);
}

void Store::set_tags(int64_t run_id, const std::vector<std::string>& tags) {
  const char* what = "setting a run's tags";
  m_state->require_writable(what);
  Connection& db = *m_state->db;
  Transaction tx(db, what);
  {
    // Touch the run first so a missing run is an error, not a foreign key failure.
    Query q(db, "UPDATE runs SET id = id WHERE id = ?", what);
    q.bind(run_id).run();
    check_one_row(q, db, what, run_id);
  }
  Query(db, "DELETE FROM run_tags WHERE run_id = ?", what).bind(run_id).run();
  for (const auto& tag : clean_tags(tags)) {
    Query q(db, "INSERT INTO run_tags (run_id, tag) VALUES (?, ?)", what);
    q.bind_all(run_id, tag).run();
  }
  tx.commit();
}

void Store::add_tag(int64_t run_id, const std::string& tag) {
  const char* what = "adding a tag";
  m_state->require_writable(what);
  if (tag.empty()) fail("run store '{}': {}: the tag is empty", path(), what);
  Connection& db = *m_state->db;
  if (!find_run(run_id)) fail("run store '{}': {}: there is no run {}", path(), what, run_id);
  Query(db, "INSERT OR IGNORE INTO run_tags (run_id, tag) VALUES (?, ?)", what)
      .bind_all(run_id, tag)
      .run();
}

void Store::remove_tag(int64_t run_id, const std::string& tag) {
  const char* what = "removing a tag";
  m_state->require_writable(what);
  Query(*m_state->db, "DELETE FROM run_tags WHERE run_id = ? AND tag = ?", what)
      .bind_all(run_id, tag)
      .run();
}

std::vector<std::string> Store::all_tags() {
  std::vector<std::string> out;
  Query q(*m_state->db, "SELECT DISTINCT tag FROM run_tags ORDER BY tag", "listing tags");
  while (q.step()) out.push_back(q.text(0));
  return out;
}

std::vector<std::string> Store::delete_runs(const std::vector<int64_t>& run_ids) {
  const char* what = "deleting runs";
  m_state->require_writable(what);
  Connection& db = *m_state->db;
  std::vector<std::string> paths;
  if (run_ids.empty()) return paths;
  Transaction tx(db, what);
  for (int64_t id : run_ids) {
    Query q(db, "SELECT status FROM runs WHERE id = ?", what);
    q.bind(id);
    if (q.step() && q.text(0) == to_string(RunStatus::Running)) {
      fail(
          "run store '{}': run {} is still running; cancel it (or let it be marked "
          "interrupted) before deleting it",
          db.path(), id);
    }
  }
  for (int64_t id : run_ids) {
    {
      Query q(db, "SELECT path FROM checkpoints WHERE run_id = ? ORDER BY step", what);
      q.bind(id);
      while (q.step()) paths.push_back(resolve_path(m_state->root, q.text(0)));
    }
    Query(db, "DELETE FROM runs WHERE id = ?", what).bind(id).run();
  }
  tx.commit();
  log::get("store")->info("run store '{}': deleted {} run(s)", db.path(), run_ids.size());
  return paths;
}

std::vector<int64_t> Store::mark_interrupted_runs() {
  const char* what = "marking interrupted runs";
  m_state->require_writable(what);
  Connection& db = *m_state->db;
  const std::string host = detail::host_name();
  std::vector<int64_t> marked;
  Transaction tx(db, what);
  struct Candidate {
    int64_t id, pid;
    std::string start;
    bool queued;
  };
  std::vector<Candidate> candidates;
  {
    Query q(db,
            "SELECT id, worker_pid, worker_start, status FROM runs WHERE status IN ('running', "
            "'queued') AND worker_host = ? AND worker_pid IS NOT NULL",
            what);
    q.bind(host);
    while (q.step()) {
      candidates.push_back({q.int64(0), q.int64(1), q.text(2), q.text(3) == "queued"});
    }
  }
  for (const Candidate& c : candidates) {
    if (detail::process_alive(c.pid, c.start)) continue;
    if (c.queued) {
      // Orphaned: queued by a worker that ended before starting it. Nothing would ever
      // start it; interrupted runs are offered for a (re)start by the CLI and the GUI.
      set_status(c.id, RunStatus::Interrupted,
                 fmt::format("orphaned: queued by the worker process {} on {}, which ended "
                             "before starting it; `growbench-cli run --resume {}` starts it "
                             "from the beginning",
                             c.pid, host, c.id));
      Query(db, "UPDATE runs SET finished = NULL WHERE id = ?", what).bind(c.id).run();
    } else {
      set_status(
          c.id, RunStatus::Interrupted,
          fmt::format("the worker process {} on {} ended without finishing the run", c.pid, host));
      // It ended at its last sign of life (the last committed metrics or checkpoint), not
      // now: a run killed after 20 s must not show the minutes until someone noticed.
      Query(db, "UPDATE runs SET finished = COALESCE(heartbeat, started, finished) WHERE id = ?",
            what)
          .bind(c.id)
          .run();
    }
    marked.push_back(c.id);
  }
  tx.commit();
  if (!marked.empty()) {
    log::get("store")->warn("run store '{}': marked {} run(s) interrupted", db.path(),
                            marked.size());
  }
  return marked;
}

void Store::claim_queued_runs(const std::vector<int64_t>& run_ids) {
  const char* what = "claiming queued runs";
  m_state->require_writable(what);
  Connection& db = *m_state->db;
  detail::ProcessIdentity me = detail::this_process();
  Transaction tx(db, what);
  for (int64_t id : run_ids) {
    Query(db,
          "UPDATE runs SET worker_pid = ?, worker_host = ?, worker_start = ? "
          "WHERE id = ? AND status = 'queued'",
          what)
        .bind_all(me.pid, me.host, me.start, id)
        .run();
  }
  tx.commit();
}

void Store::set_run_inputs(int64_t run_id, const std::string& inputs) {
  const char* what = "recording a run's inputs";
  m_state->require_writable(what);
  Connection& db = *m_state->db;
  Query q(db, "UPDATE runs SET inputs = ? WHERE id = ?", what);
  q.bind_all(validated_json(inputs, "the run's inputs", db.path()), run_id).run();
  check_one_row(q, db, what, run_id);
}

std::string Store::run_inputs(int64_t run_id) {
  Query q(*m_state->db, "SELECT inputs FROM runs WHERE id = ?", "reading a run's inputs");
  q.bind(run_id);
  if (!q.step()) fail("run store '{}': there is no run {}", path(), run_id);
  return q.text(0);
}

std::vector<RunInfo> Store::list_runs(const RunFilter& filter) {
  const char* what = "listing runs";
  Connection& db = *m_state->db;
  const char* spec = filter.include_spec ? ", r.spec" : "";
  std::string sql = std::string("SELECT ") + kRunColumns + spec + " FROM runs r WHERE 1";
  if (!filter.statuses.empty()) {
    sql += " AND r.status IN (" + placeholders(filter.statuses.size()) + ")";
  }
  if (!filter.tag.empty()) {
    sql += " AND EXISTS (SELECT 1 FROM run_tags t WHERE t.run_id = r.id AND t.tag = ?)";
  }
  std::string like;
  if (!filter.name_contains.empty()) {
    sql += " AND r.name LIKE ? ESCAPE '\\'";
    like = "%";
    for (char c : filter.name_contains) {
      if (c == '%' || c == '_' || c == '\\') like += '\\';
      like += c;
    }
    like += "%";
  }
  if (!filter.experiment.empty()) sql += " AND r.experiment = ?";
  if (filter.model_id) sql += " AND r.model_id = ?";
  sql += " ORDER BY r.id LIMIT ? OFFSET ?";

  ReadSnapshot snapshot(db, what);
  std::vector<RunInfo> runs;
  {
    Query q(db, sql, what);
    for (RunStatus s : filter.statuses) q.bind(to_string(s));
    if (!filter.tag.empty()) q.bind(filter.tag);
    if (!like.empty()) q.bind(like);
    if (!filter.experiment.empty()) q.bind(filter.experiment);
    if (filter.model_id) q.bind(*filter.model_id);
    q.bind(filter.limit).bind(filter.offset);
    while (q.step()) runs.push_back(read_run(q, filter.include_spec));
  }
  if (runs.empty()) return runs;
  std::unordered_map<int64_t, size_t> index;
  for (size_t i = 0; i < runs.size(); ++i) index.emplace(runs[i].id, i);
  Query q(db, "SELECT run_id, tag FROM run_tags ORDER BY run_id, tag", what);
  while (q.step()) {
    auto it = index.find(q.int64(0));
    if (it != index.end()) runs[it->second].tags.push_back(q.text(1));
  }
  return runs;
}

std::optional<RunInfo> Store::find_run(int64_t run_id) {
  const char* what = "reading a run";
  Connection& db = *m_state->db;
  ReadSnapshot snapshot(db, what);
  std::optional<RunInfo> run;
  {
    const std::string sql =
        std::string("SELECT ") + kRunColumns + ", r.spec FROM runs r WHERE r.id = ?";
    Query q(db, sql, what);
    q.bind(run_id);
    if (!q.step()) return std::nullopt;
    run = read_run(q, true);
  }
  Query q(db, "SELECT tag FROM run_tags WHERE run_id = ? ORDER BY tag", what);
  q.bind(run_id);
  while (q.step()) run->tags.push_back(q.text(0));
  return run;
}

std::map<std::string, nlohmann::json> Store::run_params(int64_t run_id) {
  const char* what = "reading a run's parameters";
  Connection& db = *m_state->db;
  std::map<std::string, nlohmann::json> out;
  Query q(db, "SELECT key, value FROM run_params WHERE run_id = ? ORDER BY key", what);
  q.bind(run_id);
  while (q.step()) out[q.text(0)] = nlohmann::json::parse(q.text(1), nullptr, false);
  return out;
}

void Store::set_run_params(int64_t run_id, const std::map<std::string, nlohmann::json>& params) {
  const char* what = "setting a run's parameters";
  m_state->require_writable(what);
  Connection& db = *m_state->db;
  Transaction tx(db, what);
  for (const auto& [key, value] : params) {
    Query q(db, "INSERT OR REPLACE INTO run_params (run_id, key, value, num) VALUES (?, ?, ?, ?)",
            what);
    std::optional<double> num;
    if (value.is_number()) num = value.get<double>();
    if (value.is_boolean()) num = value.get<bool>() ? 1.0 : 0.0;
    q.bind_all(run_id, key, value.dump(), num).run();
  }
  tx.commit();
}

std::map<int64_t, std::map<std::string, nlohmann::json>> Store::runs_params(
    const std::vector<int64_t>& run_ids) {
  const char* what = "reading runs' parameters";
  Connection& db = *m_state->db;
  std::map<int64_t, std::map<std::string, nlohmann::json>> out;
  if (run_ids.empty()) return out;
  const bool bind_ids = run_ids.size() <= 500;
  std::string sql = "SELECT run_id, key, value FROM run_params";
  if (bind_ids) sql += " WHERE run_id IN (" + placeholders(run_ids.size()) + ")";
  std::unordered_set<int64_t> id_set(run_ids.begin(), run_ids.end());
  Query q(db, sql, what);
  if (bind_ids) {
    for (int64_t id : run_ids) q.bind(id);
  }
  while (q.step()) {
    const int64_t id = q.int64(0);
    if (!bind_ids && !id_set.count(id)) continue;
    out[id][q.text(1)] = nlohmann::json::parse(q.text(2), nullptr, false);
  }
  return out;
}

RunInfo Store::get_run(int64_t run_id) {
  std::optional<RunInfo> run = find_run(run_id);
  if (!run) fail("run store '{}': there is no run {}", path(), run_id);
  return *run;
}

// ---- metrics --------------------------------------------------------------------------------

MetricsWriter Store::metrics_writer() {
  return MetricsWriter(*this);
}

std::vector<std::string> Store::metric_keys(int64_t run_id) {
  std::vector<std::string> keys;
  Query q(*m_state->db, "SELECT key FROM metric_latest WHERE run_id = ? ORDER BY key",
          "listing metric keys");
  q.bind(run_id);
  while (q.step()) keys.push_back(q.text(0));
  return keys;
}

std::vector<MetricRow> Store::metric_rows(int64_t run_id, const MetricQuery& query) {
  const char* what = "reading metrics";
  Connection& db = *m_state->db;
  ReadSnapshot snapshot(db, what);
  std::vector<std::string> keys = query.keys.empty() ? metric_keys(run_id) : query.keys;
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  const int64_t after = query.after_step.value_or(std::numeric_limits<int64_t>::min());
  std::vector<MetricRow> rows;
  for (const std::string& key : keys) {
    Query q(db,
            "SELECT step, value FROM metrics WHERE run_id = ? AND key = ? AND step > ? "
            "ORDER BY step",
            what);
    q.bind_all(run_id, key, after);
    while (q.step()) rows.push_back({run_id, q.int64(0), key, q.real(1)});
  }
  return rows;
}

std::map<std::string, Series> Store::metric_series(int64_t run_id, const MetricQuery& query) {
  const char* what = "reading metrics";
  Connection& db = *m_state->db;
  ReadSnapshot snapshot(db, what);
  std::vector<std::string> keys = query.keys.empty() ? metric_keys(run_id) : query.keys;
  const int64_t after = query.after_step.value_or(std::numeric_limits<int64_t>::min());
  std::map<std::string, Series> out;
  for (const std::string& key : keys) {
    Series& s = out[key];
    Query q(db,
            "SELECT step, value FROM metrics WHERE run_id = ? AND key = ? AND step > ? "
            "ORDER BY step",
            what);
    q.bind_all(run_id, key, after);
    while (q.step()) {
      s.steps.push_back(q.int64(0));
      s.values.push_back(q.real(1));
    }
  }
  return out;
}

std::vector<LatestMetric> Store::latest_metrics(const std::vector<int64_t>& run_ids,
                                                const std::vector<std::string>& keys) {
  const char* what = "reading the latest metrics";
  Connection& db = *m_state->db;
  // Long id lists are filtered here rather than bound (SQLite's parameter limit).
  const bool bind_ids = !run_ids.empty() && run_ids.size() <= 500;
  const bool bind_keys = !keys.empty() && keys.size() <= 500;
  std::string sql = "SELECT run_id, key, step, value FROM metric_latest WHERE 1";
  if (bind_ids) sql += " AND run_id IN (" + placeholders(run_ids.size()) + ")";
  if (bind_keys) sql += " AND key IN (" + placeholders(keys.size()) + ")";
  sql += " ORDER BY run_id, key";
  std::unordered_set<int64_t> id_set(run_ids.begin(), run_ids.end());
  std::unordered_set<std::string> key_set(keys.begin(), keys.end());
  std::vector<LatestMetric> out;
  Query q(db, sql, what);
  if (bind_ids) {
    for (int64_t id : run_ids) q.bind(id);
  }
  if (bind_keys) {
    for (const auto& k : keys) q.bind(k);
  }
  while (q.step()) {
    LatestMetric m{q.int64(0), q.text(1), q.int64(2), q.real(3)};
    if (!run_ids.empty() && !bind_ids && !id_set.count(m.run_id)) continue;
    if (!keys.empty() && !bind_keys && !key_set.count(m.key)) continue;
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<LatestMetric> Store::first_metrics(const std::vector<int64_t>& run_ids,
                                               const std::vector<std::string>& keys) {
  const char* what = "reading the first metrics";
  Connection& db = *m_state->db;
  ReadSnapshot snapshot(db, what);
  std::vector<int64_t> ids = run_ids;
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<std::string> ks = keys;
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  std::vector<LatestMetric> out;
  for (int64_t id : ids) {
    for (const auto& k : ks) {
      Query q(db,
              "SELECT step, value FROM metrics WHERE run_id = ? AND key = ? ORDER BY step "
              "LIMIT 1",
              what);
      q.bind_all(id, k);
      if (q.step()) out.push_back({id, k, q.int64(0), q.real(1)});
    }
  }
  return out;
}

void Store::truncate_metrics(int64_t run_id, int64_t after_step) {
  const char* what = "truncating metrics";
  m_state->require_writable(what);
  Connection& db = *m_state->db;
  Transaction tx(db, what);
  Query(db, "DELETE FROM metrics WHERE run_id = ? AND step > ?", what)
      .bind_all(run_id, after_step)
      .run();
  Query(db, "DELETE FROM metric_latest WHERE run_id = ?", what).bind(run_id).run();
  Query(db,
        "INSERT INTO metric_latest (run_id, key, step, value) SELECT run_id, key, MAX(step), "
        "value FROM metrics WHERE run_id = ? GROUP BY key",
        what)
      .bind(run_id)
      .run();
  tx.commit();
}

// ---- events, checkpoints, task matrix ---------------------------------------------------

int64_t Store::add_event(int64_t run_id, EventLevel level, const std::string& message) {
  const char* what = "adding an event";
  m_state->require_writable(what);
  Connection& db = *m_state->db;
  Query q(db, "INSERT INTO events (run_id, time, level, message) VALUES (?, ?, ?, ?)", what);
  q.bind_all(run_id, now_s(), to_string(level), message).run();
  return sqlite3_last_insert_rowid(db.get());
}

std::vector<EventInfo> Store::events(int64_t run_id, int64_t after_id, int64_t limit) {
  std::vector<EventInfo> out;
  Query q(*m_state->db,
          "SELECT id, run_id, time, level, message FROM events WHERE run_id = ? AND id > ? "
          "ORDER BY id LIMIT ?",
          "reading events");
  q.bind_all(run_id, after_id, limit);
  while (q.step()) {
    out.push_back({q.int64(0), q.int64(1), q.real(2), parse_level(q.text(3)), q.text(4)});
  }
  return out;
}

void Store::add_checkpoint(int64_t run_id, int64_t step, const std::string& path, int64_t bytes,
                           const std::string& checksum) {
  const char* what = "recording a checkpoint";
  m_state->require_writable(what);
  // Inside the workspace root: stored relative to it (the store and its checkpoints can move
  // together); elsewhere: absolute.
  namespace fs = std::filesystem;
  std::string stored = path;
  if (!m_state->root.empty()) {
    const fs::path abs = fs::absolute(path).lexically_normal();
    const fs::path rel = abs.lexically_relative(m_state->root);
    const bool inside = !rel.empty() && *rel.begin() != "..";
    stored = inside ? rel.string() : abs.string();
  }
  Connection& db = *m_state->db;
  Transaction tx(db, what);
  Query(db,
        "INSERT INTO checkpoints (run_id, step, path, bytes, created, checksum) "
        "VALUES (?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (run_id, step) DO UPDATE SET path = excluded.path, bytes = "
        "excluded.bytes, created = excluded.created, checksum = excluded.checksum",
        what)
      .bind_all(run_id, step, stored, bytes, now_s(), checksum)
      .run();
  Query(db, "UPDATE runs SET heartbeat = ? WHERE id = ?", what).bind_all(now_s(), run_id).run();
  tx.commit();
}

std::vector<CheckpointInfo> Store::checkpoints(int64_t run_id) {
  std::vector<CheckpointInfo> out;
  Query q(*m_state->db, std::string(kCheckpointSelect) + " WHERE run_id = ? ORDER BY step",
          "listing checkpoints");
  q.bind(run_id);
  while (q.step()) out.push_back(read_checkpoint(q, m_state->root));
  return out;
}

std::optional<CheckpointInfo> Store::latest_checkpoint(int64_t run_id) {
  Query q(*m_state->db,
          std::string(kCheckpointSelect) + " WHERE run_id = ? ORDER BY step DESC LIMIT 1",
          "reading the latest checkpoint");
  q.bind(run_id);
  if (!q.step()) return std::nullopt;
  return read_checkpoint(q, m_state->root);
}

void Store::set_task_value(int64_t run_id, int after_task, int eval_task, double value) {
  const char* what = "recording a task-matrix cell";
  m_state->require_writable(what);
  if (after_task < 0 || eval_task < 0) {
    fail("run store '{}': {}: task indices must be >= 0 (got {}, {})", path(), what, after_task,
         eval_task);
  }
  Query(*m_state->db,
        "INSERT OR REPLACE INTO task_matrix (run_id, after_task, eval_task, value) "
        "VALUES (?, ?, ?, ?)",
        what)
      .bind_all(run_id, after_task, eval_task, value)
      .run();
}

TaskMatrix Store::task_matrix(int64_t run_id) {
  TaskMatrix m;
  int rows = 0, cols = 0;
  {
    Query q(*m_state->db,
            "SELECT after_task, eval_task, value FROM task_matrix WHERE run_id = ? "
            "ORDER BY after_task, eval_task",
            "reading the task matrix");
    q.bind(run_id);
    while (q.step()) {
      TaskCell c{static_cast<int>(q.int64(0)), static_cast<int>(q.int64(1)), q.real(2)};
      if (c.after_task < 0 || c.eval_task < 0) continue;  // never written by the store
      rows = std::max(rows, c.after_task + 1);
      cols = std::max(cols, c.eval_task + 1);
      m.cells.push_back(c);
    }
  }
  m.values.assign(
      static_cast<size_t>(rows),
      std::vector<double>(static_cast<size_t>(cols), std::numeric_limits<double>::quiet_NaN()));
  for (const TaskCell& c : m.cells) m.values[c.after_task][c.eval_task] = c.value;
  return m;
}

// ---- models, datasets, probes ---------------------------------------------------------

int64_t Store::upsert_model(const ModelInfo& model) {
  const char* what = "recording a model";
  m_state->require_writable(what);
  Connection& db = *m_state->db;
  if (model.key.empty()) fail("run store '{}': {}: the model key is empty", db.path(), what);
  std::string config = validated_json(model.config, "the model config", db.path());
  Transaction tx(db, what);
  Query(db,
        "INSERT INTO models (key, family, config, params, created) VALUES (?, ?, ?, ?, ?) "
        "ON CONFLICT (key) DO UPDATE SET family = excluded.family, config = excluded.config, "
        "params = excluded.params",
        what)
      .bind_all(model.key, model.family, config, model.params, now_s())
      .run();
  Query q(db, "SELECT id FROM models WHERE key = ?", what);
  q.bind(model.key);
  if (!q.step()) fail("run store '{}': {}: the model vanished", db.path(), what);
  int64_t id = q.int64(0);
  tx.commit();
  return id;
}

std::optional<ModelInfo> Store::find_model(const std::string& key) {
  Query q(*m_state->db, std::string(kModelSelect) + " WHERE key = ?", "reading a model");
  q.bind(key);
  if (!q.step()) return std::nullopt;
  return read_model(q);
}

std::vector<ModelInfo> Store::list_models() {
  std::vector<ModelInfo> out;
  Query q(*m_state->db, std::string(kModelSelect) + " ORDER BY id", "listing models");
  while (q.step()) out.push_back(read_model(q));
  return out;
}

int64_t Store::upsert_dataset(const DatasetInfo& d) {
  const char* what = "recording a dataset";
  m_state->require_writable(what);
  Connection& db = *m_state->db;
  if (d.name.empty()) fail("run store '{}': {}: the dataset name is empty", db.path(), what);
  Transaction tx(db, what);
  Query(db,
        "INSERT INTO datasets (name, path, kind, hash, tokens, created) VALUES (?, ?, ?, ?, ?, "
        "?) ON CONFLICT (name, path, hash) DO UPDATE SET kind = excluded.kind, tokens = "
        "excluded.tokens",
        what)
      .bind_all(d.name, d.path, d.kind, d.hash, d.tokens, now_s())
      .run();
  Query q(db, "SELECT id FROM datasets WHERE name = ? AND path = ? AND hash = ?", what);
  q.bind_all(d.name, d.path, d.hash);
  if (!q.step()) fail("run store '{}': {}: the dataset vanished", db.path(), what);
  int64_t id = q.int64(0);
  tx.commit();
  return id;
}

std::vector<DatasetInfo> Store::list_datasets() {
  std::vector<DatasetInfo> out;
  Query q(*m_state->db,
          "SELECT id, name, path, kind, hash, tokens, created FROM datasets ORDER BY id",
          "listing datasets");
  while (q.step()) {
    out.push_back({q.int64(0), q.text(1), q.text(2), q.text(3), q.text(4), q.int64(5), q.real(6)});
  }
  return out;
}

int64_t Store::add_probe(const NewProbe& probe, const ImportanceMatrix& m) {
  const char* what = "recording a probe";
  m_state->require_writable(what);
  Connection& db = *m_state->db;
  if (probe.method.empty()) fail("run store '{}': {}: the method is empty", db.path(), what);
  std::set<std::string> unique_units;
  for (const auto& u : m.units) {
    if (u.empty() || !unique_units.insert(u).second) {
      fail("run store '{}': {}: unit names must be non-empty and unique (got '{}')", db.path(),
           what, u);
    }
  }
  for (size_t l = 0; l < m.unit_values.size(); ++l) {
    if (m.unit_values[l].size() != m.units.size()) {
      fail("run store '{}': {}: layer {} has {} unit values, expected {} (one per unit name)",
           db.path(), what, l, m.unit_values[l].size(), m.units.size());
    }
  }
  std::string params = validated_json(probe.params, "the probe parameters", db.path());
  Transaction tx(db, what);
  {
    Query q(db,
            "INSERT INTO probes (model_id, run_id, dataset_id, method, probe_set, params, "
            "units, created, duration) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            what);
    q.bind_all(probe.model_id, probe.run_id, probe.dataset_id, probe.method, probe.probe_set,
               params, nlohmann::json(m.units).dump(), now_s(), probe.duration_s);
    q.run();
  }
  const int64_t id = sqlite3_last_insert_rowid(db.get());
  struct Cell {
    int64_t layer;
    const std::string* unit;
    double value;
  };
  static const std::string kLayerLevel;  // unit '' = a layer-level value
  std::vector<Cell> cells;
  for (size_t l = 0; l < m.layer_values.size(); ++l) {
    cells.push_back({static_cast<int64_t>(l), &kLayerLevel, m.layer_values[l]});
  }
  for (size_t l = 0; l < m.unit_values.size(); ++l) {
    for (size_t u = 0; u < m.units.size(); ++u) {
      cells.push_back({static_cast<int64_t>(l), &m.units[u], m.unit_values[l][u]});
    }
  }
  detail::multi_insert(
      db, "INSERT INTO importance (probe_id, layer, unit, value) VALUES ", 4, cells.size(),
      [&](Query& q, size_t i) { q.bind_all(id, cells[i].layer, *cells[i].unit, cells[i].value); },
      what);
  tx.commit();
  return id;
}

std::vector<ProbeInfo> Store::list_probes(std::optional<int64_t> model_id) {
  std::vector<ProbeInfo> out;
  std::string sql = std::string(kProbeSelect) + (model_id ? " WHERE model_id = ?" : "") +
                    " ORDER BY created DESC, id DESC";
  Query q(*m_state->db, sql, "listing probes");
  if (model_id) q.bind(*model_id);
  while (q.step()) out.push_back(read_probe(q, path()));
  return out;
}

std::optional<ProbeInfo> Store::find_probe(int64_t probe_id) {
  Query q(*m_state->db, std::string(kProbeSelect) + " WHERE id = ?", "reading a probe");
  q.bind(probe_id);
  if (!q.step()) return std::nullopt;
  return read_probe(q, path());
}

ImportanceMatrix Store::importance(int64_t probe_id) {
  const char* what = "reading importance values";
  Connection& db = *m_state->db;
  ReadSnapshot snapshot(db, what);
  ImportanceMatrix m;
  {
    Query q(db, std::string(kProbeSelect) + " WHERE id = ?", what);
    q.bind(probe_id);
    if (!q.step()) fail("run store '{}': there is no probe {}", db.path(), probe_id);
    m.units = read_probe(q, db.path()).units;
  }
  std::unordered_map<std::string, size_t> column;
  for (size_t i = 0; i < m.units.size(); ++i) column.emplace(m.units[i], i);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Query q(db, "SELECT layer, unit, value FROM importance WHERE probe_id = ? ORDER BY layer", what);
  q.bind(probe_id);
  while (q.step()) {
    const auto layer = static_cast<size_t>(std::max<int64_t>(0, q.int64(0)));
    std::string unit = q.text(1);
    double value = q.real(2);
    if (unit.empty()) {
      if (m.layer_values.size() <= layer) m.layer_values.resize(layer + 1, nan);
      m.layer_values[layer] = value;
      continue;
    }
    auto it = column.find(unit);
    if (it == column.end()) {  // a unit missing from probes.units: append a column
      it = column.emplace(unit, m.units.size()).first;
      m.units.push_back(unit);
      for (auto& row : m.unit_values) row.resize(m.units.size(), nan);
    }
    if (m.unit_values.size() <= layer) {
      m.unit_values.resize(layer + 1, std::vector<double>(m.units.size(), nan));
    }
    m.unit_values[layer][it->second] = value;
  }
  return m;
}

void Store::delete_probe(int64_t probe_id) {
  const char* what = "deleting a probe";
  m_state->require_writable(what);
  Query(*m_state->db, "DELETE FROM probes WHERE id = ?", what).bind(probe_id).run();
}

// ---- transactions ---------------------------------------------------------------------------

struct WriteTransaction::Impl {
  std::shared_ptr<detail::StoreState> state;  // keeps the connection alive
  Transaction tx;
  Impl(std::shared_ptr<detail::StoreState> s)
      : state(std::move(s)), tx(*state->db, "a write transaction") {}
};

WriteTransaction::WriteTransaction(Store& store) {
  store.m_state->require_writable("a write transaction");
  m_impl = std::make_unique<Impl>(store.m_state);
}

WriteTransaction::~WriteTransaction() = default;

void WriteTransaction::commit() {
  m_impl->tx.commit();
}

}  // namespace gb::store
