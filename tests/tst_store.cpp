// Tests of the SQLite run store (core/store): schema and contract columns, migrations,
// refusal of foreign or damaged files, buffered metrics, concurrent readers, SIGKILL safety,
// crash recovery, cascade deletes, latest-value queries, probes and CSV export; and the
// worker pool of `run --jobs` (util/worker_pool.h).
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/csv.h"
#include "store/store.h"
#include "util/error.h"
#include "util/worker_pool.h"

namespace fs = std::filesystem;
using gb::store::EventLevel;
using gb::store::LatestMetric;
using gb::store::MetricsWriter;
using gb::store::MetricsWriterOptions;
using gb::store::NewRun;
using gb::store::OpenMode;
using gb::store::RunFilter;
using gb::store::RunStatus;
using gb::store::Store;

namespace {

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

// The message of the gb::Error thrown by f, or "" when nothing is thrown.
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const gb::Error& e) {
    return std::string(e.what()).empty() ? "(empty message)" : e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A raw SQLite connection: the test checks the contract with plain SQL, builds fixtures and
// plays "another tool".
class RawDb {
 public:
  explicit RawDb(const std::string& path) : m_path(path) {
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    if (sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr) != SQLITE_OK) {
      throw std::runtime_error("cannot open " + path);
    }
    sqlite3_busy_timeout(m_db, 5000);
  }
  ~RawDb() { sqlite3_close_v2(m_db); }
  RawDb(const RawDb&) = delete;
  RawDb& operator=(const RawDb&) = delete;

  sqlite3* get() { return m_db; }

  void exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string message = err ? err : "?";
      sqlite3_free(err);
      throw std::runtime_error("raw SQL failed: " + message + " in: " + sql);
    }
  }

  std::vector<std::vector<std::string>> rows(const std::string& sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
      throw std::runtime_error(std::string("raw SQL failed: ") + sqlite3_errmsg(m_db) +
                               " in: " + sql);
    }
    std::vector<std::vector<std::string>> out;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      std::vector<std::string> row;
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
        const unsigned char* t = sqlite3_column_text(stmt, i);
        row.push_back(t ? reinterpret_cast<const char*>(t) : "NULL");
      }
      out.push_back(row);
    }
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE)
      throw std::runtime_error(std::string("raw step: ") + sqlite3_errmsg(m_db));
    return out;
  }

  std::vector<std::string> column(const std::string& sql) {
    std::vector<std::string> out;
    for (auto& r : rows(sql)) out.push_back(r.at(0));
    return out;
  }

  std::string text(const std::string& sql) {
    auto r = rows(sql);
    return r.empty() ? "" : r[0].at(0);
  }

  int64_t integer(const std::string& sql) { return std::stoll(text(sql)); }

 private:
  std::string m_path;
  sqlite3* m_db = nullptr;
};

// The schema of a database as text: every table with its columns (name, type, not null,
// default, pk), every index with its columns, every trigger name. Used to check that a
// migrated store has exactly the schema of a new one.
std::string schema_signature(const std::string& path) {
  RawDb db(path);
  std::string out;
  for (const auto& t : db.column("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                 "name NOT LIKE 'sqlite_%' ORDER BY name")) {
    out += "table " + t + ":";
    for (const auto& c : db.rows("SELECT name, type, \"notnull\", dflt_value, pk FROM "
                                 "pragma_table_info('" +
                                 t + "') ORDER BY name")) {
      out += " " + c[0] + "/" + c[1] + "/" + c[2] + "/" + c[3] + "/" + c[4];
    }
    for (const auto& fk : db.rows("SELECT \"table\", \"from\", on_delete FROM "
                                  "pragma_foreign_key_list('" +
                                  t + "') ORDER BY \"from\"")) {
      out += " fk:" + fk[1] + "->" + fk[0] + "/" + fk[2];
    }
    out += "\n";
  }
  for (const auto& i : db.rows("SELECT name, tbl_name FROM sqlite_master WHERE type = "
                               "'index' ORDER BY name")) {
    out += "index " + i[0] + " on " + i[1] + ":";
    for (const auto& c : db.column("SELECT name FROM pragma_index_info('" + i[0] + "')")) {
      out += " " + c;
    }
    out += "\n";
  }
  for (const auto& t : db.column("SELECT name FROM sqlite_master WHERE type = 'trigger' "
                                 "ORDER BY name")) {
    out += "trigger " + t + "\n";
  }
  return out;
}

// The version 1 schema exactly as GrowBench 0.1 wrote it: a frozen fixture, independent of
// the migration list in core/store, so an edited historical migration cannot go unnoticed.
constexpr const char* kV1Fixture = R"sql(
CREATE TABLE models (id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE,
  family TEXT NOT NULL DEFAULT '', config TEXT NOT NULL DEFAULT '{}',
  params INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL);
CREATE TABLE datasets (id INTEGER PRIMARY KEY, name TEXT NOT NULL,
  path TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT '', hash TEXT NOT NULL DEFAULT '',
  tokens INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL, UNIQUE (name, path, hash));
CREATE TABLE runs (id INTEGER PRIMARY KEY, name TEXT NOT NULL,
  status TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running',
  'finished', 'failed', 'cancelled', 'interrupted', 'diverged')),
  spec TEXT NOT NULL DEFAULT '{}', variant TEXT NOT NULL DEFAULT '',
  model_id INTEGER REFERENCES models(id) ON DELETE SET NULL, created REAL NOT NULL,
  started REAL, finished REAL, device TEXT NOT NULL DEFAULT '', seed INTEGER,
  notes TEXT NOT NULL DEFAULT '', worker_pid INTEGER, worker_host TEXT, error TEXT);
CREATE INDEX runs_by_status ON runs(status);
CREATE INDEX runs_by_created ON runs(created);
CREATE INDEX runs_by_model ON runs(model_id);
CREATE TABLE run_tags (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  tag TEXT NOT NULL, PRIMARY KEY (run_id, tag)) WITHOUT ROWID;
CREATE INDEX run_tags_by_tag ON run_tags(tag, run_id);
CREATE TABLE metrics (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL, key TEXT NOT NULL, value REAL,
  PRIMARY KEY (run_id, key, step)) WITHOUT ROWID;
CREATE TABLE task_matrix (run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  after_task INTEGER NOT NULL, eval_task INTEGER NOT NULL, value REAL,
  PRIMARY KEY (run_id, after_task, eval_task)) WITHOUT ROWID;
CREATE TABLE checkpoints (id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, step INTEGER NOT NULL,
  path TEXT NOT NULL, bytes INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL,
  UNIQUE (run_id, step));
CREATE TABLE events (id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, time REAL NOT NULL,
  level TEXT NOT NULL, message TEXT NOT NULL);
CREATE INDEX events_by_run ON events(run_id, id);
CREATE TABLE probes (id INTEGER PRIMARY KEY,
  model_id INTEGER NOT NULL REFERENCES models(id) ON DELETE CASCADE,
  run_id INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  dataset_id INTEGER REFERENCES datasets(id) ON DELETE SET NULL, method TEXT NOT NULL,
  probe_set TEXT NOT NULL DEFAULT '', params TEXT NOT NULL DEFAULT '{}',
  units TEXT NOT NULL DEFAULT '[]', created REAL NOT NULL, duration REAL NOT NULL DEFAULT 0);
CREATE INDEX probes_by_model ON probes(model_id, created);
CREATE INDEX probes_by_run ON probes(run_id);
CREATE INDEX probes_by_dataset ON probes(dataset_id);
CREATE TABLE importance (probe_id INTEGER NOT NULL REFERENCES probes(id) ON DELETE CASCADE,
  layer INTEGER NOT NULL, unit TEXT NOT NULL DEFAULT '', value REAL,
  PRIMARY KEY (probe_id, layer, unit)) WITHOUT ROWID;
PRAGMA application_id = 1195528787;
PRAGMA user_version = 1;
)sql";

NewRun named(const std::string& name) {
  NewRun r;
  r.name = name;
  return r;
}

std::string key_name(int k) {
  return "k" + std::to_string(k);
}

// Child process body: claims `run`, tells the parent through `ready_fd`, then writes
// `batches` batches (forever when < 0): each batch is `keys` metric rows at step b (flushed
// by count, one transaction) followed by an event "batch b". Never returns.
[[noreturn]] void writer_child(const std::string& path, int64_t run, int ready_fd, int64_t batches,
                               int keys, int sleep_us) {
  int code = 0;
  try {
    Store store = Store::open(path);
    store.set_status(run, RunStatus::Running);
    MetricsWriterOptions options;
    options.max_rows = static_cast<size_t>(keys);
    options.max_delay = std::chrono::hours(1);
    MetricsWriter writer(store, options);
    if (ready_fd >= 0) {
      char c = 1;
      if (write(ready_fd, &c, 1) != 1) _exit(4);
      close(ready_fd);
    }
    for (int64_t b = 0; batches < 0 || b < batches; ++b) {
      for (int k = 0; k < keys; ++k) {
        writer.add(run, b, key_name(k), static_cast<double>(b * keys + k));
      }
      if (writer.pending() != 0) _exit(5);  // must have flushed by count
      store.add_event(run, EventLevel::Info, "batch " + std::to_string(b));
      if (sleep_us > 0) usleep(static_cast<useconds_t>(sleep_us));
    }
    store.set_status(run, RunStatus::Finished);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "writer child: %s\n", e.what());
    code = 3;
  }
  _exit(code);
}

// Checks that the metrics of `run` are whole batches 0..B-1 of `keys` rows with the values
// writer_child writes, that its events are "batch 0".."batch E-1" with E in {B-1, B}, and that
// metric_latest agrees. Returns B, or -1 with `problem` set.
int64_t check_run_batches(Store& store, int64_t run, int keys, std::string* problem) {
  auto series = store.metric_series(run);
  int64_t batches = -1;
  for (int k = 0; k < keys; ++k) {
    const auto& s = series[key_name(k)];
    if (batches < 0) batches = static_cast<int64_t>(s.steps.size());
    if (static_cast<int64_t>(s.steps.size()) != batches) {
      *problem = "run " + std::to_string(run) + ": key " + key_name(k) + " has " +
                 std::to_string(s.steps.size()) + " steps, key k0 has " + std::to_string(batches) +
                 " (partial batch)";
      return -1;
    }
    for (int64_t b = 0; b < batches; ++b) {
      if (s.steps[b] != b || s.values[b] != static_cast<double>(b * keys + k)) {
        *problem = "run " + std::to_string(run) + ": key " + key_name(k) + " row " +
                   std::to_string(b) + " is step " + std::to_string(s.steps[b]) + " value " +
                   std::to_string(s.values[b]);
        return -1;
      }
    }
  }
  if (series.size() != static_cast<size_t>(batches > 0 ? keys : 0)) {
    *problem = "run " + std::to_string(run) + " has " + std::to_string(series.size()) + " keys";
    return -1;
  }
  int64_t batch_events = 0;
  for (const auto& e : store.events(run)) {
    if (e.message.rfind("batch ", 0) != 0) continue;
    if (e.message != "batch " + std::to_string(batch_events)) {
      *problem = "run " + std::to_string(run) + ": unexpected event '" + e.message + "'";
      return -1;
    }
    ++batch_events;
  }
  if (batch_events != batches && batch_events != batches - 1) {
    *problem = "run " + std::to_string(run) + ": " + std::to_string(batch_events) +
               " batch events for " + std::to_string(batches) + " batches";
    return -1;
  }
  auto latest = store.latest_metrics({run});
  if (latest.size() != static_cast<size_t>(batches > 0 ? keys : 0)) {
    *problem = "run " + std::to_string(run) + ": metric_latest has " +
               std::to_string(latest.size()) + " keys";
    return -1;
  }
  for (const auto& m : latest) {
    if (m.step != batches - 1) {
      *problem = "run " + std::to_string(run) + ": latest step of " + m.key + " is " +
                 std::to_string(m.step) + ", expected " + std::to_string(batches - 1);
      return -1;
    }
  }
  return batches;
}

// A small RFC 4180 parser for checking the CSV writer.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false, in_quotes = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        field += c;
      }
    } else if (c == '"' && field.empty() && !quoted) {
      in_quotes = quoted = true;
    } else if (c == ',') {
      row.push_back(field);
      field.clear();
      quoted = false;
    } else if (c == '\n') {
      row.push_back(field);
      rows.push_back(row);
      row.clear();
      field.clear();
      quoted = false;
    } else {
      field += c;
    }
  }
  if (!field.empty() || !row.empty()) {
    row.push_back(field);
    rows.push_back(row);
  }
  return rows;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

class TestStore : public QObject {
  Q_OBJECT

 private:
  QTemporaryDir* m_dir = nullptr;
  std::string db_path(const char* name = "runs.db") const {
    return (m_dir->path() + "/" + name).toStdString();
  }
  int64_t count(const std::string& sql) { return RawDb(db_path()).integer(sql); }

 private slots:
  void init() {
    QDir().mkpath(GB_TEST_TMP);
    m_dir = new QTemporaryDir(QString(GB_TEST_TMP) + "/store-XXXXXX");
    QVERIFY(m_dir->isValid());
  }
  void cleanup() {
    delete m_dir;
    m_dir = nullptr;
  }

  // ---- schema ------------------------------------------------------------------------

  void newStoreHasSchemaVersionWalAndContractColumns() {
    {
      Store store = Store::open(db_path());
      QCOMPARE(store.schema_version(), gb::store::kSchemaVersion);
      NewRun r;
      r.name = "contract";
      r.spec = R"({"steps": 10})";
      int64_t id = store.create_run(r);
      store.set_status(id, RunStatus::Running);
      MetricsWriter w(store);
      w.add(id, 3, gb::store::keys::kOrigPpl, 12.5);
      w.flush();
    }
    RawDb raw(db_path());
    QCOMPARE(raw.integer("PRAGMA user_version"), int64_t(gb::store::kSchemaVersion));
    QCOMPARE(qs(raw.text("PRAGMA journal_mode")), QString("wal"));
    // The minimum contract, in plain SQL as other tools use it.
    auto runs = raw.rows("SELECT id, name, status, spec FROM runs");
    QCOMPARE(runs.size(), size_t(1));
    QCOMPARE(qs(runs[0][1]), QString("contract"));
    QCOMPARE(qs(runs[0][2]), QString("running"));
    QCOMPARE(qs(runs[0][3]), QString(R"({"steps": 10})"));
    auto metrics = raw.rows("SELECT run_id, step, key, value FROM metrics");
    QCOMPARE(metrics.size(), size_t(1));
    QCOMPARE(qs(metrics[0][0]), qs(runs[0][0]));
    QCOMPARE(qs(metrics[0][1]), QString("3"));
    QCOMPARE(qs(metrics[0][2]), QString("eval/orig/ppl"));
    QCOMPARE(qs(metrics[0][3]), QString("12.5"));
    auto tables = raw.column("SELECT name FROM sqlite_master WHERE type = 'table'");
    for (const char* t : {"models", "datasets", "probes", "importance", "runs", "run_tags",
                          "metrics", "metric_latest", "task_matrix", "checkpoints", "events"}) {
      QVERIFY2(std::find(tables.begin(), tables.end(), t) != tables.end(), t);
    }
    // metrics is keyed (clustered) by (run_id, key, step); runs indexed by status, created.
    auto pk = raw.column(
        "SELECT name FROM pragma_index_info((SELECT name FROM "
        "pragma_index_list('metrics') WHERE origin = 'pk'))");
    QCOMPARE(pk, (std::vector<std::string>{"run_id", "key", "step"}));
    auto indexes = raw.column("SELECT name FROM pragma_index_list('runs')");
    QVERIFY(std::find(indexes.begin(), indexes.end(), "runs_by_status") != indexes.end());
    QVERIFY(std::find(indexes.begin(), indexes.end(), "runs_by_created") != indexes.end());
    auto plan = raw.rows(
        "EXPLAIN QUERY PLAN SELECT step, value FROM metrics WHERE run_id = 1 "
        "AND key = 'a' AND step > 5 ORDER BY step");
    QVERIFY2(contains(plan.at(0).back(), "PRIMARY KEY"), plan.at(0).back().c_str());
    // Status is constrained to the contract names.
    QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                             raw.exec("UPDATE runs SET status = 'done' WHERE id = 1"));
  }

  void statusTransitionSetsTimesAndError_data() {
    QTest::addColumn<QString>("status");
    QTest::addColumn<QString>("error");
    QTest::addColumn<bool>("finished");
    QTest::addRow("queued") << "queued"
                            << "" << false;
    QTest::addRow("running") << "running"
                             << "" << false;
    QTest::addRow("finished") << "finished"
                              << "" << true;
    QTest::addRow("failed") << "failed"
                            << "CUDA out of memory" << true;
    QTest::addRow("cancelled") << "cancelled"
                               << "" << true;
    QTest::addRow("interrupted") << "interrupted"
                                 << "worker gone" << true;
    QTest::addRow("diverged") << "diverged"
                              << "loss is NaN at step 7 (train/loss)" << true;
  }
  void statusTransitionSetsTimesAndError() {
    QFETCH(QString, status);
    QFETCH(QString, error);
    QFETCH(bool, finished);
    RunStatus s = gb::store::parse_run_status(status.toStdString());
    QCOMPARE(QString(gb::store::to_string(s)), status);
    Store store = Store::open(db_path());
    int64_t id = store.create_run(named("r"));
    QVERIFY(!store.get_run(id).started);
    store.set_status(id, RunStatus::Running);
    auto running = store.get_run(id);
    QVERIFY(running.started.has_value());
    QCOMPARE(running.worker_pid.value_or(-1), int64_t(getpid()));
    store.set_status(id, s, error.toStdString());
    auto r = store.get_run(id);
    QCOMPARE(r.status, s);
    QCOMPARE(r.finished.has_value(), finished);
    QCOMPARE(qs(r.error), error);
    if (s != RunStatus::Queued) QCOMPARE(*r.started, *running.started);
    QCOMPARE(qs(RawDb(db_path()).text("SELECT status FROM runs")), status);
    auto events = store.events(id);
    QVERIFY(!events.empty());
    QVERIFY(contains(events.back().message, status.toStdString()));
    QVERIFY(contains(error_of([&] { store.set_status(999, s); }), "no run 999"));
    QVERIFY(contains(error_of([&] { gb::store::parse_run_status("done"); }), "done"));
  }

  void createRunRoundTripsFieldsAndValidatesSpec() {
    Store store = Store::open(db_path());
    gb::store::ModelInfo model;
    model.key = "preset:tiny";
    int64_t model_id = store.upsert_model(model);
    NewRun r;
    r.name = "grow g-freeze, k=2";
    r.spec = R"({"plan": {"variant": "grow", "k": 2}})";
    r.variant = "grow/g-freeze";
    r.experiment = "exp-1";
    r.model_id = model_id;
    r.device = "cpu";
    r.seed = 1234;
    r.tags = {"b", "a", "b", ""};
    r.notes = "first try";
    int64_t id = store.create_run(r);
    auto got = store.get_run(id);
    QCOMPARE(qs(got.name), qs(r.name));
    QCOMPARE(qs(got.spec), qs(r.spec));
    QCOMPARE(qs(got.variant), qs(r.variant));
    QCOMPARE(qs(got.experiment), qs(r.experiment));
    QCOMPARE(got.model_id.value_or(-1), model_id);
    QCOMPARE(qs(got.device), QString("cpu"));
    QCOMPARE(got.seed.value_or(-1), int64_t(1234));
    QCOMPARE(got.tags, (std::vector<std::string>{"a", "b"}));
    QCOMPARE(qs(got.notes), QString("first try"));
    QCOMPARE(got.status, RunStatus::Queued);
    QVERIFY(std::abs(got.created - double(std::time(nullptr))) < 60);
    QVERIFY(!store.find_run(id + 1));
    QVERIFY(contains(error_of([&] { store.get_run(id + 1); }), "no run"));
    NewRun started = named("started");
    started.status = RunStatus::Running;
    auto s = store.get_run(store.create_run(started));
    QCOMPARE(s.status, RunStatus::Running);
    QVERIFY(s.started.has_value());
    QCOMPARE(s.worker_pid.value_or(-1), int64_t(getpid()));
    NewRun bad;
    bad.name = "bad";
    bad.spec = "{\"steps\": ";
    QVERIFY(contains(error_of([&] { store.create_run(bad); }), "not valid JSON"));
    QVERIFY(contains(error_of([&] { store.create_run(named("")); }), "needs a name"));
  }

  // ---- migrations and refusals -----------------------------------------------------------

  void migratesVersion1StoreKeepingData() {
    const std::string path = db_path();
    {
      RawDb raw(path);
      raw.exec(kV1Fixture);
      raw.exec(R"sql(
        INSERT INTO models (id, key, created) VALUES (1, 'preset:tiny', 1.0);
        INSERT INTO runs (id, name, status, spec, variant, model_id, created, started,
                          finished, seed, notes)
          VALUES (1, 'old run', 'finished', '{"a": 1}', 'lora', 1, 100.0, 101.0, 200.0, 7,
                  'kept');
        INSERT INTO runs (id, name, status, created) VALUES (2, 'second', 'failed', 300.0);
        INSERT INTO run_tags VALUES (1, 'baseline');
        INSERT INTO metrics VALUES (1, 0, 'train/loss', 5.0), (1, 20, 'train/loss', 2.0),
                                   (1, 10, 'train/loss', 3.0), (1, 20, 'eval/orig/ppl', 30.0),
                                   (2, 5, 'train/loss', 9.0);
        INSERT INTO events (run_id, time, level, message) VALUES (1, 150.0, 'info', 'hi');
        INSERT INTO checkpoints (run_id, step, path, bytes, created)
          VALUES (1, 20, '/ck/20.safetensors', 99, 200.0);
        INSERT INTO task_matrix VALUES (1, 0, 0, 0.5);
        INSERT INTO probes (id, model_id, method, units, created) VALUES (1, 1, 'taylor',
          '["q", "k"]', 50.0);
        INSERT INTO importance VALUES (1, 0, '', 0.25), (1, 0, 'q', 1.0), (1, 0, 'k', 2.0);
      )sql");
    }
    Store store = Store::open(path);
    QCOMPARE(store.schema_version(), gb::store::kSchemaVersion);
    QCOMPARE(RawDb(path).integer("PRAGMA user_version"), int64_t(gb::store::kSchemaVersion));
    auto run = store.get_run(1);
    QCOMPARE(qs(run.name), QString("old run"));
    QCOMPARE(run.status, RunStatus::Finished);
    QCOMPARE(qs(run.spec), QString(R"({"a": 1})"));
    QCOMPARE(qs(run.notes), QString("kept"));
    QCOMPARE(qs(run.experiment), QString(""));  // added by version 2
    QCOMPARE(run.tags, std::vector<std::string>{"baseline"});
    QCOMPARE(run.seed.value_or(-1), int64_t(7));
    QCOMPARE(store.metric_rows(1).size(), size_t(4));
    // The latest values were backfilled by the migration.
    auto latest = store.latest_metrics();
    QCOMPARE(latest.size(), size_t(3));
    QCOMPARE(qs(latest[0].key), QString("eval/orig/ppl"));
    QCOMPARE(latest[1].step, int64_t(20));
    QCOMPARE(latest[1].value, 2.0);
    QCOMPARE(latest[2].run_id, int64_t(2));
    QCOMPARE(latest[2].value, 9.0);
    QCOMPARE(store.events(1).size(), size_t(1));
    QCOMPARE(store.latest_checkpoint(1)->bytes, int64_t(99));
    QCOMPARE(store.task_matrix(1).values.at(0).at(0), 0.5);
    auto imp = store.importance(1);
    QCOMPARE(imp.units, (std::vector<std::string>{"q", "k"}));
    QCOMPARE(imp.unit_values.at(0).at(1), 2.0);
    QCOMPARE(imp.layer_values.at(0), 0.25);
    // And it keeps working as a current store.
    MetricsWriter w(store);
    w.add(1, 30, "train/loss", 1.5);
    w.flush();
    QCOMPARE(store.latest_metrics({1}, {"train/loss"}).at(0).value, 1.5);
    // The migrated schema is exactly the schema of a new store.
    Store fresh = Store::open(db_path("fresh.db"));
    QCOMPARE(qs(schema_signature(path)), qs(schema_signature(db_path("fresh.db"))));
  }

  void migratesFromEveryOlderVersion_data() {
    QTest::addColumn<int>("version");
    for (int v = 1; v < gb::store::kSchemaVersion; ++v) QTest::addRow("v%d", v) << v;
  }
  void migratesFromEveryOlderVersion() {
    QFETCH(int, version);
    gb::store::create_store_at_version(db_path(), version);
    QCOMPARE(RawDb(db_path()).integer("PRAGMA user_version"), int64_t(version));
    // A read-only viewer does not upgrade and says how to.
    std::string e = error_of([&] { Store::open(db_path(), OpenMode::ReadOnly); });
    QVERIFY2(contains(e, "older schema version") && contains(e, db_path()), e.c_str());
    Store store = Store::open(db_path());
    QCOMPARE(store.schema_version(), gb::store::kSchemaVersion);
    Store fresh = Store::open(db_path("fresh.db"));
    QCOMPARE(qs(schema_signature(db_path())), qs(schema_signature(db_path("fresh.db"))));
  }

  void refusesStoreOfNewerSchemaVersion_data() {
    QTest::addColumn<bool>("read_only");
    QTest::addRow("read-write") << false;
    QTest::addRow("read-only") << true;
  }
  void refusesStoreOfNewerSchemaVersion() {
    QFETCH(bool, read_only);
    { Store::open(db_path()).create_run(named("x")); }
    const int newer = gb::store::kSchemaVersion + 1;
    RawDb(db_path()).exec("PRAGMA user_version = " + std::to_string(newer));
    std::string e = error_of(
        [&] { Store::open(db_path(), read_only ? OpenMode::ReadOnly : OpenMode::ReadWrite); });
    QVERIFY2(contains(e, "newer") && contains(e, db_path()) && contains(e, std::to_string(newer)),
             e.c_str());
    QCOMPARE(RawDb(db_path()).integer("PRAGMA user_version"), int64_t(newer));
  }

  void refusesFilesThatAreNotRunStores_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected");
    QTest::addRow("text file") << "text"
                               << "not an SQLite database";
    QTest::addRow("random bytes") << "random"
                                  << "not an SQLite database";
    QTest::addRow("sqlite header then garbage") << "header"
                                                << "not an SQLite database";
    QTest::addRow("another application's database") << "foreign"
                                                    << "not a GrowBench";
    QTest::addRow("another application id") << "appid"
                                            << "another application";
    QTest::addRow("damaged store") << "corrupt"
                                   << "damaged";
  }
  void refusesFilesThatAreNotRunStores() {
    QFETCH(QString, kind);
    QFETCH(QString, expected);
    const std::string path = db_path();
    std::mt19937 rng(42);
    if (kind == "text") {
      std::string text;
      for (int i = 0; i < 300; ++i) text += "this is a text file, not a database\n";
      write_bytes(path, text);
    } else if (kind == "random") {
      std::string bytes(16384, '\0');
      for (auto& c : bytes) c = static_cast<char>(rng());
      write_bytes(path, bytes);
    } else if (kind == "header") {
      std::string bytes("SQLite format 3", 16);
      bytes.resize(8192, '\x5a');
      write_bytes(path, bytes);
    } else if (kind == "foreign") {
      RawDb(path).exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)");
    } else if (kind == "appid") {
      RawDb(path).exec("PRAGMA application_id = 1234; CREATE TABLE t (x)");
    } else if (kind == "corrupt") {
      {
        Store store = Store::open(path);
        int64_t run = store.create_run(named("r"));
        MetricsWriter w(store);
        for (int i = 0; i < 20000; ++i) w.add(run, i, key_name(i % 7), i);
      }
      // Overwrite pages in the middle of the (checkpointed) file.
      std::string bytes = read_bytes(path);
      QVERIFY(bytes.size() > 40 * 4096);
      for (size_t off = 10 * 4096; off < bytes.size() - 4096; off += 3 * 4096) {
        for (size_t i = 0; i < 4096; ++i) bytes[off + i] = static_cast<char>(rng());
      }
      write_bytes(path, bytes);
    }
    const std::string before = read_bytes(path);
    for (OpenMode mode : {OpenMode::ReadWrite, OpenMode::ReadOnly}) {
      std::string e = error_of([&] { Store::open(path, mode); });
      QVERIFY2(contains(e, expected.toStdString()) && contains(e, path), e.c_str());
    }
    QVERIFY2(read_bytes(path) == before, "refusing a file must not change it");
  }

  void readOnlyStoreReadsButRefusesWrites() {
    const std::string missing = db_path("missing.db");
    std::string e = error_of([&] { Store::open(missing, OpenMode::ReadOnly); });
    QVERIFY2(contains(e, "does not exist") && contains(e, missing), e.c_str());
    QVERIFY(!QFile::exists(QString::fromStdString(missing)));
    int64_t id;
    {
      Store rw = Store::open(db_path());
      id = rw.create_run(named("r"));
    }
    Store ro = Store::open(db_path(), OpenMode::ReadOnly);
    QVERIFY(ro.read_only());
    QCOMPARE(qs(ro.get_run(id).name), QString("r"));
    for (auto f : std::vector<std::function<void()>>{
             [&] { ro.create_run(named("x")); }, [&] { ro.set_notes(id, "n"); },
             [&] { ro.mark_interrupted_runs(); }, [&] { MetricsWriter w(ro); }}) {
      e = error_of(f);
      QVERIFY2(contains(e, "read-only") && contains(e, db_path()), e.c_str());
    }
  }

  void writerWaitsForAnotherWritersLock_data() {
    QTest::addColumn<int>("timeout_ms");
    QTest::addColumn<int>("hold_ms");
    QTest::addColumn<bool>("succeeds");
    QTest::addRow("lock released within the timeout") << 5000 << 300 << true;
    QTest::addRow("lock held past the timeout") << 100 << 1500 << false;
  }
  void writerWaitsForAnotherWritersLock() {
    QFETCH(int, timeout_ms);
    QFETCH(int, hold_ms);
    QFETCH(bool, succeeds);
    int64_t id = Store::open(db_path()).create_run(named("r"));
    gb::store::OpenOptions options;
    options.busy_timeout_ms = timeout_ms;
    Store store = Store::open(db_path(), OpenMode::ReadWrite, options);
    std::atomic<bool> locked{false};
    std::thread holder([&] {
      RawDb raw(db_path());
      raw.exec("BEGIN IMMEDIATE");
      locked = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));
      raw.exec("COMMIT");
    });
    while (!locked) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::string e = error_of([&] { store.set_notes(id, "waited"); });
    holder.join();
    if (succeeds) {
      QVERIFY2(e.empty(), e.c_str());  // it waited for the lock instead of failing
      QCOMPARE(qs(store.get_run(id).notes), QString("waited"));
    } else {
      QVERIFY2(contains(e, "lock") && contains(e, db_path()), e.c_str());
    }
  }

  // ---- metrics ---------------------------------------------------------------------------

  void metricsWriterFlushesByCount_data() {
    QTest::addColumn<int>("max_rows");
    QTest::addColumn<int>("adds");
    QTest::addColumn<int>("visible");
    QTest::addRow("below the limit") << 10 << 9 << 0;
    QTest::addRow("at the limit") << 10 << 10 << 10;
    QTest::addRow("two and a half buffers") << 10 << 25 << 20;
    QTest::addRow("unbuffered") << 1 << 3 << 3;
    QTest::addRow("default size, one short") << 256 << 255 << 0;
    QTest::addRow("default size") << 256 << 256 << 256;
  }
  void metricsWriterFlushesByCount() {
    QFETCH(int, max_rows);
    QFETCH(int, adds);
    QFETCH(int, visible);
    Store store = Store::open(db_path());
    int64_t run = store.create_run(named("r"));
    MetricsWriterOptions options;
    options.max_rows = static_cast<size_t>(max_rows);
    options.max_delay = std::chrono::hours(1);
    MetricsWriter w(store, options);
    for (int i = 0; i < adds; ++i) w.add(run, i, "train/loss", i);
    QCOMPARE(count("SELECT count(*) FROM metrics"), int64_t(visible));
    QCOMPARE(w.pending(), size_t(adds - visible));
    w.flush();
    QCOMPARE(count("SELECT count(*) FROM metrics"), int64_t(adds));
    QCOMPARE(w.pending(), size_t(0));
  }

  void metricsWriterFlushesByAge() {
    Store store = Store::open(db_path());
    int64_t run = store.create_run(named("r"));
    MetricsWriterOptions options;
    options.max_rows = 1000;
    options.max_delay = std::chrono::milliseconds(500);
    MetricsWriter w(store, options);
    w.add(run, 0, "a", 1);
    w.add(run, 1, "a", 2);
    QVERIFY(!w.poll());
    QCOMPARE(count("SELECT count(*) FROM metrics"), int64_t(0));
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    QVERIFY(w.poll());
    QCOMPARE(count("SELECT count(*) FROM metrics"), int64_t(2));
    w.add(run, 2, "a", 3);
    QCOMPARE(count("SELECT count(*) FROM metrics"), int64_t(2));
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    w.add(run, 3, "a", 4);  // the oldest buffered row is now too old: add() flushes
    QCOMPARE(count("SELECT count(*) FROM metrics"), int64_t(4));
  }

  void metricsWriterKeepsEveryRowAndLastValueWins() {
    std::map<std::tuple<int64_t, int64_t, std::string>, double> expected;
    std::vector<int64_t> runs;
    {
      Store store = Store::open(db_path());
      for (int i = 0; i < 3; ++i) runs.push_back(store.create_run(named("r")));
      MetricsWriterOptions options;
      options.max_rows = 97;
      MetricsWriter w(store, options);
      std::mt19937 rng(7);
      for (int i = 0; i < 10007; ++i) {
        int64_t run = runs[rng() % 3];
        int64_t step = rng() % 2000;  // repeats: later writes must replace earlier ones
        std::string key = key_name(static_cast<int>(rng() % 5));
        double value = std::uniform_real_distribution<double>(-1, 1)(rng);
        w.add(run, step, key, value);
        expected[{run, step, key}] = value;
      }
      QVERIFY(w.pending() > 0);
    }  // the destructor flushes the rest
    Store store = Store::open(db_path());
    size_t total = 0;
    for (int64_t run : runs) {
      auto rows = store.metric_rows(run);
      total += rows.size();
      for (size_t i = 0; i < rows.size(); ++i) {
        auto it = expected.find({run, rows[i].step, rows[i].key});
        QVERIFY(it != expected.end());
        QCOMPARE(rows[i].value, it->second);
        if (i > 0) {
          QVERIFY(std::make_pair(rows[i - 1].key, rows[i - 1].step) <
                  std::make_pair(rows[i].key, rows[i].step));
        }
      }
    }
    QCOMPARE(total, expected.size());
  }

  void metricValuesRoundTripExactly_data() {
    QTest::addColumn<double>("value");
    QTest::addRow("nan") << std::numeric_limits<double>::quiet_NaN();
    QTest::addRow("inf") << std::numeric_limits<double>::infinity();
    QTest::addRow("-inf") << -std::numeric_limits<double>::infinity();
    QTest::addRow("-0") << -0.0;
    QTest::addRow("tiny") << 4.9e-324;
    QTest::addRow("huge") << 1.7976931348623157e308;
    QTest::addRow("third") << 1.0 / 3.0;
  }
  void metricValuesRoundTripExactly() {
    QFETCH(double, value);
    Store store = Store::open(db_path());
    int64_t run = store.create_run(named("r"));
    {
      MetricsWriter w(store);
      w.add(run, 1, "x", value);
    }
    double back = store.metric_rows(run).at(0).value;
    double latest = store.latest_metrics().at(0).value;
    if (std::isnan(value)) {
      QVERIFY(std::isnan(back) && std::isnan(latest));
    } else {
      QVERIFY(back == value && latest == value);
    }
  }

  void incrementalReadsReturnOnlyNewerSteps() {
    Store store = Store::open(db_path());
    int64_t run = store.create_run(named("r"));
    int64_t other = store.create_run(named("o"));
    {
      MetricsWriter w(store);
      for (int s = 0; s < 10; ++s) {
        w.add(run, s, "a", s);
        w.add(run, s, "b", -s);
        w.add(other, s, "a", 100 + s);
      }
    }
    gb::store::MetricQuery q;
    q.after_step = 6;
    auto series = store.metric_series(run, q);
    QCOMPARE(series.size(), size_t(2));
    QCOMPARE(series["a"].steps, (std::vector<int64_t>{7, 8, 9}));
    QCOMPARE(series["b"].values, (std::vector<double>{-7, -8, -9}));
    q.keys = {"b"};
    auto rows = store.metric_rows(run, q);
    QCOMPARE(rows.size(), size_t(3));
    QCOMPARE(qs(rows[0].key), QString("b"));
    QCOMPARE(store.metric_keys(run), (std::vector<std::string>{"a", "b"}));
    q.after_step = 9;
    QVERIFY(store.metric_rows(run, q).empty());
  }

  void latestMetricsMatchBruteForce() {
    Store store = Store::open(db_path());
    std::vector<int64_t> runs;
    for (int i = 0; i < 20; ++i) runs.push_back(store.create_run(named("r")));
    std::map<std::pair<int64_t, std::string>, std::map<int64_t, double>> all;
    std::mt19937 rng(11);
    {
      MetricsWriterOptions options;
      options.max_rows = 50;  // many flushes, steps arrive out of order across them
      MetricsWriter w(store, options);
      for (int i = 0; i < 5000; ++i) {
        int64_t run = runs[rng() % runs.size()];
        std::string key = key_name(static_cast<int>(rng() % 6));
        int64_t step = rng() % 1000;
        double v = rng() % 100000;
        w.add(run, step, key, v);
        all[{run, key}][step] = v;
      }
    }
    auto brute = [&](const std::set<int64_t>& ids, const std::set<std::string>& keys) {
      std::vector<std::tuple<int64_t, std::string, int64_t, double>> out;
      for (const auto& [rk, steps] : all) {
        if ((!ids.empty() && !ids.count(rk.first)) || (!keys.empty() && !keys.count(rk.second)))
          continue;
        out.emplace_back(rk.first, rk.second, steps.rbegin()->first, steps.rbegin()->second);
      }
      return out;
    };
    auto as_tuples = [](const std::vector<LatestMetric>& v) {
      std::vector<std::tuple<int64_t, std::string, int64_t, double>> out;
      for (const auto& m : v) out.emplace_back(m.run_id, m.key, m.step, m.value);
      return out;
    };
    QVERIFY(as_tuples(store.latest_metrics()) == brute({}, {}));
    QVERIFY(as_tuples(store.latest_metrics({runs[3], runs[5]}, {"k1", "k4"})) ==
            brute({runs[3], runs[5]}, {"k1", "k4"}));
    // A long id list (filtered in C++, not bound), including ids that do not exist.
    std::vector<int64_t> many;
    for (int64_t i = 0; i < 600; ++i) many.push_back(i * 2);
    QVERIFY(as_tuples(store.latest_metrics(many)) ==
            brute(std::set<int64_t>(many.begin(), many.end()), {}));
    // Truncating (resume from a checkpoint) recomputes the latest values.
    store.truncate_metrics(runs[0], 400);
    for (auto& [rk, steps] : all) {
      if (rk.first == runs[0]) steps.erase(steps.upper_bound(400), steps.end());
    }
    for (auto it = all.begin(); it != all.end();) {
      it = it->second.empty() ? all.erase(it) : std::next(it);
    }
    QVERIFY(as_tuples(store.latest_metrics()) == brute({}, {}));
    QVERIFY(store.metric_series(runs[0])["k0"].steps.back() <= 400);
  }

  // first_metrics (the lowest step of each key) and runs_params (every run's parameters in
  // one query) against the same data read one run at a time.
  void firstMetricsAndRunParamsMatchPerRunReads() {
    Store store = Store::open(db_path());
    std::vector<int64_t> runs;
    for (int i = 0; i < 8; ++i) {
      NewRun r = named("r");
      r.params = {{"seed", i}, {"train.lr", 1e-4 * (i + 1)}, {"plan", i % 2 ? "a" : "b"}};
      runs.push_back(store.create_run(r));
    }
    std::mt19937 rng(5);
    {
      MetricsWriter w(store);
      for (int i = 0; i < 2000; ++i) {
        w.add(runs[rng() % runs.size()], 1 + rng() % 500, key_name(static_cast<int>(rng() % 4)),
              rng() % 1000);
      }
    }
    const std::vector<std::string> keys = {"k0", "k2", "k3", "missing"};
    const auto first = store.first_metrics(runs, keys);
    size_t n = 0;
    for (int64_t run : runs) {
      for (const auto& [key, series] : store.metric_series(run)) {
        if (key != "k0" && key != "k2" && key != "k3") continue;
        QVERIFY(n < first.size());
        QCOMPARE(first[n].run_id, run);
        QCOMPARE(first[n].key, key);
        QCOMPARE(first[n].step, series.steps.front());
        QCOMPARE(first[n].value, series.values.front());
        ++n;
      }
    }
    QCOMPARE(first.size(), n);
    QVERIFY(store.first_metrics({}, keys).empty());
    const auto params = store.runs_params({runs[1], runs[6], 999});
    QCOMPARE(params.size(), size_t(2));
    QVERIFY(params.at(runs[1]) == store.run_params(runs[1]));
    QVERIFY(params.at(runs[6]) == store.run_params(runs[6]));
    QCOMPARE(params.at(runs[6]).at("train.lr").get<double>(), 7e-4);
    QVERIFY(store.runs_params({}).empty());
  }

  void failedFlushKeepsRowsAndNamesTheStore() {
    Store store = Store::open(db_path());
    int64_t run = store.create_run(named("r"));
    MetricsWriterOptions options;
    options.max_rows = 100;
    MetricsWriter w(store, options);
    w.add(run, 1, "a", 1);
    w.add(run + 1, 1, "a", 1);  // no such run
    std::string e = error_of([&] { w.flush(); });
    QVERIFY2(contains(e, db_path()) && contains(e, "writing metrics"), e.c_str());
    QCOMPARE(w.pending(), size_t(2));
    QCOMPARE(count("SELECT count(*) FROM metrics"), int64_t(0));  // all or nothing
  }

  // ---- concurrency and crash safety ------------------------------------------------------

  void concurrentReaderNeverSeesPartialBatchesOrBusy() {
    const int keys = 6;
    const int64_t batches = 600;
    int64_t run;
    {
      Store store = Store::open(db_path());
      run = store.create_run(named("live"));
    }  // no open connection may cross the fork
    pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) writer_child(db_path(), run, -1, batches, keys, 500);

    Store reader = Store::open(db_path(), OpenMode::ReadOnly);
    Store editor = Store::open(db_path());  // the GUI edits notes meanwhile
    std::set<size_t> sizes_seen;
    int polls = 0, status = 0;
    std::string failure;
    for (;;) {
      const bool done = waitpid(child, &status, WNOHANG) == child;
      try {
        auto rows = reader.metric_rows(run);
        sizes_seen.insert(rows.size());
        if (rows.size() % keys != 0) failure = "partial batch: " + std::to_string(rows.size());
        auto latest = reader.latest_metrics({run});
        for (const auto& m : latest) {
          if (m.step != latest.front().step) failure = "latest values from different batches";
        }
        editor.set_notes(run, "poll " + std::to_string(polls));
        reader.list_runs();
      } catch (const std::exception& e) {
        failure = e.what();
      }
      ++polls;
      if (!failure.empty() || done) break;
    }
    if (!failure.empty()) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      QFAIL(failure.c_str());
    }
    QVERIFY2(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the writer failed (see stderr)");
    QVERIFY2(sizes_seen.size() >= 5, "the reader should have seen the table grow");
    QCOMPARE(reader.metric_rows(run).size(), size_t(batches * keys));
    std::string problem;
    QCOMPARE(check_run_batches(reader, run, keys, &problem), batches);
    QCOMPARE(reader.get_run(run).status, RunStatus::Finished);
    qInfo("reader polls: %d, distinct sizes seen: %zu", polls, sizes_seen.size());
  }

  void sigkillAtRandomMomentsLeavesConsistentStore() {
    const int keys = 7;  // 4 + 2 + 1 rows: three INSERT statements per batch
    const int kills = 24;
    std::mt19937 rng(20240501);
    std::vector<int64_t> runs;
    int64_t total_batches = 0;
    int mid_run_kills = 0;
    for (int i = 0; i < kills; ++i) {
      int64_t run;
      {
        Store store = Store::open(db_path());
        NewRun r;
        r.name = "victim " + std::to_string(i);
        run = store.create_run(r);
      }
      runs.push_back(run);
      int fds[2];
      QVERIFY(pipe(fds) == 0);
      pid_t child = fork();
      QVERIFY(child >= 0);
      if (child == 0) {
        close(fds[0]);
        writer_child(db_path(), run, fds[1], -1, keys, 0);
      }
      close(fds[1]);
      char c = 0;
      QVERIFY2(read(fds[0], &c, 1) == 1, "the writer child did not start");
      close(fds[0]);
      const int delay_ms = std::uniform_int_distribution<int>(1, 150)(rng);
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      QCOMPARE(kill(child, SIGKILL), 0);
      int status = 0;
      QCOMPARE(waitpid(child, &status, 0), child);
      QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
               "the writer ended before it was killed");

      Store store = Store::open(db_path());  // runs quick_check
      QCOMPARE(store.integrity_check(), std::vector<std::string>{"ok"});
      for (int64_t r : runs) {
        std::string problem;
        int64_t b = check_run_batches(store, r, keys, &problem);
        QVERIFY2(b >= 0, problem.c_str());
        if (r == run) {
          total_batches += b;
          if (b > 0) ++mid_run_kills;
          qInfo("kill %2d after %3d ms: %lld whole batches committed", i, delay_ms,
                static_cast<long long>(b));
        }
      }
      QCOMPARE(store.get_run(run).status, RunStatus::Running);
      QCOMPARE(store.mark_interrupted_runs(), std::vector<int64_t>{run});
      auto info = store.get_run(run);
      QCOMPARE(info.status, RunStatus::Interrupted);
      QVERIFY2(contains(info.error, std::to_string(child)), info.error.c_str());
      QVERIFY(store.mark_interrupted_runs().empty());
    }
    QVERIFY2(mid_run_kills >= kills / 2, "most kills should land while batches are written");
    QVERIFY(total_batches > 0);
  }

  void markInterruptedRunsLeavesLiveWorkersAlone() {
    // A dead pid: a child that exited and was reaped.
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    waitpid(dead, nullptr, 0);
    // A zombie: exited, not yet reaped (kill(pid, 0) still succeeds).
    pid_t zombie = fork();
    if (zombie == 0) _exit(0);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));

    Store store = Store::open(db_path());
    std::map<std::string, int64_t> id;
    for (const char* name : {"alive", "dead", "zombie", "other host", "reused pid", "queued"}) {
      id[name] = store.create_run(named(name));
      if (std::string(name) != "queued") store.set_status(id[name], RunStatus::Running);
    }
    RawDb raw(db_path());
    raw.exec("UPDATE runs SET worker_pid = " + std::to_string(dead) + " WHERE name = 'dead'");
    raw.exec("UPDATE runs SET worker_pid = " + std::to_string(zombie) + " WHERE name = 'zombie'");
    raw.exec("UPDATE runs SET worker_pid = " + std::to_string(dead) +
             ", worker_host = 'elsewhere.example' WHERE name = 'other host'");
    raw.exec("UPDATE runs SET worker_start = 'another-boot:1' WHERE name = 'reused pid'");
    auto marked = store.mark_interrupted_runs();
    waitpid(zombie, nullptr, 0);
    std::sort(marked.begin(), marked.end());
    std::vector<int64_t> expected = {id["dead"], id["zombie"], id["reused pid"]};
    std::sort(expected.begin(), expected.end());
    QCOMPARE(marked, expected);
    QCOMPARE(store.get_run(id["alive"]).status, RunStatus::Running);
    QCOMPARE(store.get_run(id["other host"]).status, RunStatus::Running);
    QCOMPARE(store.get_run(id["queued"]).status, RunStatus::Queued);
    QCOMPARE(store.get_run(id["dead"]).status, RunStatus::Interrupted);
    QVERIFY(store.get_run(id["dead"]).finished.has_value());
  }

  // Issue 20: a killed worker's run ends at its heartbeat (the last committed metrics), not
  // when the next start notices; queued runs of a dead worker are marked orphaned.
  void deadWorkerRunEndsAtItsHeartbeatAndItsQueuedRunsAreOrphaned() {
    pid_t dead = fork();
    if (dead == 0) _exit(0);
    waitpid(dead, nullptr, 0);
    Store store = Store::open(db_path());
    const int64_t running = store.create_run(named("running"));
    const int64_t queued = store.create_run(named("queued"));
    const int64_t unowned = store.create_run(named("unowned"));
    store.set_status(running, RunStatus::Running);
    store.claim_queued_runs({queued});
    {
      auto w = store.metrics_writer();
      w.add(running, 1, "train/loss", 1.0);
      w.flush();  // the heartbeat
    }
    RawDb raw(db_path());
    QVERIFY(raw.integer("SELECT heartbeat IS NOT NULL FROM runs WHERE name = 'running'") == 1);
    // The worker died long ago (its heartbeat 1000 s before now), and is noticed only now.
    raw.exec("UPDATE runs SET worker_pid = " + std::to_string(dead) +
             ", heartbeat = heartbeat - 1000 WHERE name IN ('running', 'queued')");
    const double heartbeat =
        std::stod(raw.text("SELECT heartbeat FROM runs WHERE name = 'running'"));
    auto marked = store.mark_interrupted_runs();
    std::sort(marked.begin(), marked.end());
    QCOMPARE(marked, (std::vector<int64_t>{running, queued}));
    const auto r = store.get_run(running);
    QCOMPARE(r.status, RunStatus::Interrupted);
    QVERIFY(r.finished.has_value());
    QVERIFY2(std::fabs(*r.finished - heartbeat) < 1e-3,
             qPrintable(QString("finished %1, heartbeat %2")
                            .arg(*r.finished, 0, 'f', 3)
                            .arg(heartbeat, 0, 'f', 3)));
    const auto q = store.get_run(queued);
    QCOMPARE(q.status, RunStatus::Interrupted);
    QVERIFY2(contains(q.error, "orphaned") && contains(q.error, "--resume"), q.error.c_str());
    QVERIFY(!q.finished.has_value());                            // it never ran
    QCOMPARE(store.get_run(unowned).status, RunStatus::Queued);  // no worker: left alone
  }

  // Checkpoint paths inside the store's folder are stored relative to it and resolved on
  // read, so a store moved together with its checkpoints still finds them; other paths are
  // stored absolute. Sizes and checksums round-trip.
  void checkpointPathsAreRelativeToTheStoreFolder() {
    const std::string folder = db_path("ws");
    fs::create_directories(folder);
    const std::string db = folder + "/growbench.db";
    int64_t run = 0;
    {
      Store store = Store::open(db);
      QCOMPARE(store.root(), fs::path(folder).lexically_normal().string());
      run = store.create_run(named("r"));
      store.add_checkpoint(run, 4, folder + "/growbench.runs/x-1/step-4", 10, "abc");
      store.add_checkpoint(run, 8, "/elsewhere/step-8", 20);
      QCOMPARE(store.latest_checkpoint(run)->path, std::string("/elsewhere/step-8"));
      QCOMPARE(store.checkpoints(run).front().checksum, std::string("abc"));
      QCOMPARE(store.checkpoints(run).front().bytes, int64_t(10));
    }
    QCOMPARE(qs(RawDb(db).text("SELECT path FROM checkpoints WHERE step = 4")),
             QString("growbench.runs/x-1/step-4"));
    const std::string moved = db_path("moved");
    fs::rename(folder, moved);
    Store store = Store::open(moved + "/growbench.db");
    QCOMPARE(store.checkpoints(run).front().path, moved + "/growbench.runs/x-1/step-4");
    const auto deleted = store.delete_runs({run});
    QCOMPARE(deleted.front(), moved + "/growbench.runs/x-1/step-4");
  }

  void everyStoreHasItsOwnUuid() {
    Store a = Store::open(db_path("a.db")), b = Store::open(db_path("b.db"));
    QCOMPARE(a.uuid().size(), size_t(32));
    QVERIFY(a.uuid().find_first_not_of("0123456789abcdef") == std::string::npos);
    QVERIFY(a.uuid() != b.uuid());
    QCOMPARE(Store::open(db_path("a.db")).uuid(), a.uuid());  // stable
  }

  void claimingARunOwnedByALiveWorkerIsRefused() {
    int64_t run = Store::open(db_path()).create_run(named("r"));
    int ready[2], release[2];
    QVERIFY(pipe(ready) == 0 && pipe(release) == 0);
    pid_t child = fork();
    QVERIFY(child >= 0);
    if (child == 0) {  // a worker that claims the run and waits to be released
      try {
        Store store = Store::open(db_path());
        store.set_status(run, RunStatus::Running);
      } catch (const std::exception&) {
        _exit(3);
      }
      char c = 1;
      if (write(ready[1], &c, 1) != 1 || read(release[0], &c, 1) != 1) _exit(4);
      _exit(0);
    }
    char c = 0;
    QVERIFY(read(ready[0], &c, 1) == 1);
    Store store = Store::open(db_path());
    std::string e = error_of([&] { store.set_status(run, RunStatus::Running); });
    QVERIFY2(contains(e, "already running") && contains(e, std::to_string(child)), e.c_str());
    QVERIFY(store.mark_interrupted_runs().empty());
    QVERIFY(write(release[1], &c, 1) == 1);
    int status = 0;
    QCOMPARE(waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    for (int fd : {ready[0], ready[1], release[0], release[1]}) close(fd);
    store.set_status(run, RunStatus::Running);  // the owner is gone: resuming is allowed
    QCOMPARE(store.get_run(run).worker_pid.value_or(-1), int64_t(getpid()));
  }

  // ---- deletes, filters, tags ------------------------------------------------------------

  void deletingRunCascadesToAllItsRows() {
    Store store = Store::open(db_path());
    gb::store::ModelInfo model;
    model.key = "preset:tiny";
    int64_t model_id = store.upsert_model(model);
    int64_t a = store.create_run(named("a"));
    int64_t b = store.create_run(named("b"));
    int64_t probe = 0;
    for (int64_t run : {a, b}) {
      store.set_tags(run, {"t1", "t2"});
      {
        MetricsWriter w(store);
        for (int s = 0; s < 50; ++s) w.add(run, s, "loss", s);
      }
      store.add_event(run, EventLevel::Info, "hello");
      store.add_checkpoint(run, 10, "/ck/" + std::to_string(run) + "-10", 1);
      store.add_checkpoint(run, 20, "/ck/" + std::to_string(run) + "-20", 1);
      store.set_task_value(run, 0, 0, 0.9);
      gb::store::NewProbe p;
      p.model_id = model_id;
      p.method = "masking";
      p.run_id = run;
      probe = store.add_probe(p, {{1.0, 2.0}, {}, {}});
    }
    auto paths = store.delete_runs({a});
    QCOMPARE(paths, (std::vector<std::string>{"/ck/" + std::to_string(a) + "-10",
                                              "/ck/" + std::to_string(a) + "-20"}));
    for (const char* table :
         {"run_tags", "metrics", "metric_latest", "events", "checkpoints", "task_matrix"}) {
      QCOMPARE(count(std::string("SELECT count(*) FROM ") + table +
                     " WHERE run_id = " + std::to_string(a)),
               int64_t(0));
      QVERIFY2(count(std::string("SELECT count(*) FROM ") + table +
                     " WHERE run_id = " + std::to_string(b)) > 0,
               table);
    }
    QVERIFY(!store.find_run(a));
    QCOMPARE(store.list_probes(model_id).size(), size_t(2));  // probes outlive their run
    QCOMPARE(count("SELECT count(*) FROM probes WHERE run_id IS NULL"), int64_t(1));
    QCOMPARE(store.importance(probe).layer_values.size(), size_t(2));
    store.set_status(b, RunStatus::Running);
    std::string e = error_of([&] { store.delete_runs({b}); });
    QVERIFY2(contains(e, "still running"), e.c_str());
    QVERIFY(store.find_run(b));
  }

  void listRunsFilters_data() {
    QTest::addColumn<QStringList>("statuses");
    QTest::addColumn<QString>("tag");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("experiment");
    QTest::addColumn<QStringList>("expected");
    QTest::addRow("all") << QStringList{} << ""
                         << ""
                         << "" << QStringList{"alpha lora", "beta grow", "50%_done", "gamma LoRA"};
    QTest::addRow("status") << QStringList{"finished", "failed"} << ""
                            << ""
                            << "" << QStringList{"alpha lora", "50%_done"};
    QTest::addRow("tag") << QStringList{} << "baseline"
                         << ""
                         << "" << QStringList{"alpha lora", "gamma LoRA"};
    QTest::addRow("text, case-insensitive") << QStringList{} << ""
                                            << "LORA"
                                            << "" << QStringList{"alpha lora", "gamma LoRA"};
    QTest::newRow("text % is literal") << QStringList{} << ""
                                       << "%"
                                       << "" << QStringList{"50%_done"};
    QTest::addRow("text _ is literal") << QStringList{} << ""
                                       << "a_"
                                       << "" << QStringList{};
    QTest::addRow("experiment") << QStringList{} << ""
                                << ""
                                << "e2" << QStringList{"beta grow", "50%_done"};
    QTest::addRow("combined") << QStringList{"running"} << "baseline"
                              << "lora"
                              << "" << QStringList{"gamma LoRA"};
  }
  void listRunsFilters() {
    QFETCH(QStringList, statuses);
    QFETCH(QString, tag);
    QFETCH(QString, text);
    QFETCH(QString, experiment);
    QFETCH(QStringList, expected);
    Store store = Store::open(db_path());
    struct R {
      const char* name;
      RunStatus status;
      std::vector<std::string> tags;
      const char* experiment;
    };
    for (const R& r : {R{"alpha lora", RunStatus::Finished, {"baseline"}, "e1"},
                       R{"beta grow", RunStatus::Queued, {"grow"}, "e2"},
                       R{"50%_done", RunStatus::Failed, {}, "e2"},
                       R{"gamma LoRA", RunStatus::Running, {"baseline", "x"}, "e1"}}) {
      NewRun n;
      n.name = r.name;
      n.tags = r.tags;
      n.experiment = r.experiment;
      int64_t id = store.create_run(n);
      if (r.status != RunStatus::Queued) store.set_status(id, r.status);
    }
    RunFilter f;
    for (const auto& s : statuses)
      f.statuses.push_back(gb::store::parse_run_status(s.toStdString()));
    f.tag = tag.toStdString();
    f.name_contains = text.toStdString();
    f.experiment = experiment.toStdString();
    QStringList names;
    for (const auto& r : store.list_runs(f)) {
      names << qs(r.name);
      QVERIFY(r.spec.empty());  // listed without specs by default
    }
    QCOMPARE(names, expected);
    f.include_spec = true;
    f.limit = 1;
    auto limited = store.list_runs(f);
    QCOMPARE(limited.size(), size_t(expected.isEmpty() ? 0 : 1));
    if (!limited.empty()) QCOMPARE(qs(limited[0].spec), QString("{}"));
  }

  void tagsNotesAndNamesAreEditable() {
    Store store = Store::open(db_path());
    int64_t id = store.create_run(named("r"));
    store.set_tags(id, {"z", "a", "a", ""});
    QCOMPARE(store.get_run(id).tags, (std::vector<std::string>{"a", "z"}));
    store.add_tag(id, "m");
    store.add_tag(id, "m");
    store.remove_tag(id, "z");
    QCOMPARE(store.get_run(id).tags, (std::vector<std::string>{"a", "m"}));
    QCOMPARE(store.all_tags(), (std::vector<std::string>{"a", "m"}));
    store.set_notes(id, "line 1\nline 2");
    store.rename_run(id, "renamed");
    auto r = store.get_run(id);
    QCOMPARE(qs(r.notes), QString("line 1\nline 2"));
    QCOMPARE(qs(r.name), QString("renamed"));
    for (auto f : std::vector<std::function<void()>>{
             [&] { store.set_tags(99, {"a"}); }, [&] { store.add_tag(99, "a"); },
             [&] { store.set_notes(99, "n"); }, [&] { store.rename_run(99, "n"); }}) {
      std::string e = error_of(f);
      QVERIFY2(contains(e, "no run 99"), e.c_str());
    }
  }

  void writeTransactionCommitsOrRollsBackEverything() {
    Store store = Store::open(db_path());
    {
      gb::store::WriteTransaction tx(store);
      int64_t id = store.create_run(named("rolled back"));
      store.set_notes(id, "x");
      MetricsWriter w(store);
      w.add(id, 1, "a", 1);
      w.flush();
    }  // no commit
    QVERIFY(store.list_runs().empty());
    QCOMPARE(count("SELECT count(*) FROM metrics"), int64_t(0));
    {
      gb::store::WriteTransaction tx(store);
      store.create_run(named("kept"));
      store.create_run(named("kept too"));
      tx.commit();
    }
    QCOMPARE(store.list_runs().size(), size_t(2));
  }

  // ---- probes, models, task matrix, checkpoints, events ---------------------------------

  void probeImportanceRoundTrips() {
    Store store = Store::open(db_path());
    gb::store::ModelInfo m;
    m.key = "/models/tiny";
    m.family = "llama";
    m.params = 100;
    int64_t mid = store.upsert_model(m);
    m.params = 200;
    QCOMPARE(store.upsert_model(m), mid);
    QCOMPARE(store.find_model("/models/tiny")->params, int64_t(200));
    QCOMPARE(store.list_models().size(), size_t(1));
    gb::store::DatasetInfo d;
    d.name = "fortunes";
    d.path = "/usr/share/games/fortunes";
    d.hash = "abc";
    d.tokens = 1000;
    int64_t did = store.upsert_dataset(d);
    QCOMPARE(store.upsert_dataset(d), did);
    QCOMPARE(store.list_datasets().at(0).tokens, int64_t(1000));

    const double nan = std::numeric_limits<double>::quiet_NaN();
    gb::store::ImportanceMatrix im;
    im.layer_values = {0.5, -1.0, 2.0};
    im.units = {"q", "k", "v", "o", "gate", "up", "down", "input_norm", "post_norm"};
    for (int l = 0; l < 3; ++l) {
      std::vector<double> row;
      for (int u = 0; u < 9; ++u) row.push_back(l * 10 + u + 0.25);
      im.unit_values.push_back(row);
    }
    im.unit_values[1][2] = nan;
    gb::store::NewProbe p;
    p.model_id = mid;
    p.method = "taylor";
    p.probe_set = "fortunes, 4096 tokens";
    p.dataset_id = did;
    p.params = R"({"tokens": 4096})";
    p.duration_s = 1.5;
    int64_t first = store.add_probe(p, im);
    p.method = "masking";
    int64_t second = store.add_probe(p, {{1, 2, 3}, {}, {}});
    auto probes = store.list_probes(mid);
    QCOMPARE(probes.size(), size_t(2));
    QCOMPARE(probes[0].id, second);  // newest first
    QCOMPARE(qs(probes[1].method), QString("taylor"));
    QCOMPARE(probes[1].units, im.units);
    QCOMPARE(probes[1].dataset_id.value_or(-1), did);
    QCOMPARE(probes[1].duration_s, 1.5);
    QCOMPARE(qs(store.find_probe(first)->probe_set), QString("fortunes, 4096 tokens"));
    QVERIFY(!store.find_probe(second + 1));
    auto back = store.importance(first);
    QCOMPARE(back.layer_values, im.layer_values);
    QCOMPARE(back.units, im.units);
    QCOMPARE(back.unit_values.size(), size_t(3));
    for (int l = 0; l < 3; ++l) {
      for (int u = 0; u < 9; ++u) {
        if (l == 1 && u == 2) {
          QVERIFY(std::isnan(back.unit_values[l][u]));
        } else {
          QCOMPARE(back.unit_values[l][u], im.unit_values[l][u]);
        }
      }
    }
    QVERIFY(store.importance(second).unit_values.empty());
    gb::store::ImportanceMatrix bad = im;
    bad.unit_values[2].pop_back();
    QVERIFY(contains(error_of([&] { store.add_probe(p, bad); }), "layer 2 has 8 unit values"));
    bad = im;
    bad.units[1] = "q";
    QVERIFY(contains(error_of([&] { store.add_probe(p, bad); }), "unique"));
    store.delete_probe(first);
    QCOMPARE(count("SELECT count(*) FROM importance WHERE probe_id = " + std::to_string(first)),
             int64_t(0));
  }

  void taskMatrixCheckpointsAndEventsRoundTrip() {
    Store store = Store::open(db_path());
    int64_t run = store.create_run(named("seq"));
    store.set_task_value(run, 0, 0, 0.8);
    store.set_task_value(run, 1, 0, 0.6);
    store.set_task_value(run, 1, 1, 0.9);
    store.set_task_value(run, 1, 1, 0.95);  // replaces
    auto matrix = store.task_matrix(run);
    QCOMPARE(matrix.cells.size(), size_t(3));
    QCOMPARE(matrix.cells[1].after_task, 1);
    QCOMPARE(matrix.cells[1].eval_task, 0);
    QCOMPARE(matrix.cells[1].value, 0.6);
    auto m = matrix.values;
    QCOMPARE(m.size(), size_t(2));
    QCOMPARE(m[0].size(), size_t(2));
    QCOMPARE(m[0][0], 0.8);
    QVERIFY(std::isnan(m[0][1]));
    QCOMPARE(m[1][1], 0.95);
    QVERIFY(store.task_matrix(run + 1).values.empty());

    QVERIFY(!store.latest_checkpoint(run));
    store.add_checkpoint(run, 100, "/ck/100", 10);
    store.add_checkpoint(run, 200, "/ck/200", 20);
    store.add_checkpoint(run, 100, "/ck/100b", 11);
    auto cks = store.checkpoints(run);
    QCOMPARE(cks.size(), size_t(2));
    QCOMPARE(qs(cks[0].path), QString("/ck/100b"));
    QCOMPARE(store.latest_checkpoint(run)->step, int64_t(200));

    std::vector<int64_t> ids;
    for (int i = 0; i < 5; ++i) {
      ids.push_back(store.add_event(run, EventLevel::Warning, "e" + std::to_string(i)));
    }
    auto since = store.events(run, ids[1]);
    QCOMPARE(since.size(), size_t(3));
    QCOMPARE(qs(since[0].message), QString("e2"));
    QCOMPARE(since[0].level, EventLevel::Warning);
    QCOMPARE(store.events(run, ids[1], 2).size(), size_t(2));
    QVERIFY(store.events(run, ids[4]).empty());
  }

  // ---- CSV ---------------------------------------------------------------------------------

  void csvFieldQuoting_data() {
    QTest::addColumn<QString>("in");
    QTest::addColumn<QString>("out");
    QTest::addRow("plain") << "grow/g-freeze"
                           << "grow/g-freeze";
    QTest::addRow("empty") << ""
                           << "";
    QTest::addRow("comma") << "a,b"
                           << "\"a,b\"";
    QTest::addRow("quote") << "say \"hi\""
                           << "\"say \"\"hi\"\"\"";
    QTest::addRow("newline") << "l1\nl2"
                             << "\"l1\nl2\"";
    QTest::addRow("carriage return") << "l1\rl2"
                                     << "\"l1\rl2\"";
    QTest::addRow("leading space") << " x"
                                   << "\" x\"";
    QTest::addRow("trailing space") << "x "
                                    << "\"x \"";
    QTest::addRow("unicode") << "Größe 模型"
                             << "Größe 模型";
  }
  void csvFieldQuoting() {
    QFETCH(QString, in);
    QFETCH(QString, out);
    QCOMPARE(qs(gb::store::csv_field(in.toStdString())), out);
    auto parsed = parse_csv(gb::store::csv_record({in.toStdString(), "next"}));
    QCOMPARE(parsed.size(), size_t(1));
    QCOMPARE(qs(parsed[0].at(0)), in);
    QCOMPARE(qs(parsed[0].at(1)), QString("next"));
  }

  void csvExportsParseBackToTheStoredValues() {
    Store store = Store::open(db_path());
    NewRun n;
    n.name = "tricky, \"quoted\"\nname";
    n.notes = " leading space";
    n.tags = {"a", "b"};
    int64_t a = store.create_run(n);
    int64_t b = store.create_run(named("plain"));
    store.set_status(b, RunStatus::Running);
    store.set_status(b, RunStatus::Finished);
    {
      MetricsWriter w(store);
      w.add(a, 0, "eval/orig/ppl", 10.0);
      w.add(a, 5, "eval/orig/ppl", 12.25);
      w.add(a, 5, "train/loss", std::numeric_limits<double>::quiet_NaN());
      w.add(b, 3, "train/loss", 0.1);
    }
    std::ostringstream runs_csv;
    gb::store::write_runs_csv(store, runs_csv);
    auto rows = parse_csv(runs_csv.str());
    QCOMPARE(rows.size(), size_t(3));
    const auto& header = rows[0];
    auto col = [&](const std::string& name) {
      return std::find(header.begin(), header.end(), name) - header.begin();
    };
    QCOMPARE(header.back(), std::string("train/loss"));
    QCOMPARE(qs(rows[1][col("name")]), qs(n.name));
    QCOMPARE(qs(rows[1][col("notes")]), qs(n.notes));
    QCOMPARE(qs(rows[1][col("tags")]), QString("a;b"));
    QCOMPARE(qs(rows[1][col("eval/orig/ppl")]), QString("12.25"));
    QCOMPARE(qs(rows[1][col("train/loss")]), QString("nan"));
    QCOMPARE(qs(rows[2][col("eval/orig/ppl")]), QString(""));
    QCOMPARE(qs(rows[2][col("status")]), QString("finished"));
    QVERIFY(!rows[2][col("duration_s")].empty());
    QVERIFY(rows[2][col("finished")].size() == 24 && rows[2][col("finished")].back() == 'Z');
    for (const auto& r : rows) QCOMPARE(r.size(), header.size());

    const std::string path = db_path("metrics.csv");
    gb::store::export_metrics_csv(store, path, a);
    auto wide = parse_csv(read_bytes(path));
    QCOMPARE(wide.size(), size_t(3));
    QCOMPARE(wide[0], (std::vector<std::string>{"step", "eval/orig/ppl", "train/loss"}));
    QCOMPARE(wide[1], (std::vector<std::string>{"0", "10", ""}));
    QCOMPARE(wide[2], (std::vector<std::string>{"5", "12.25", "nan"}));
    std::ostringstream long_csv;
    gb::store::write_metrics_csv(store, long_csv, a, {}, gb::store::MetricsCsvLayout::Long);
    auto lng = parse_csv(long_csv.str());
    QCOMPARE(lng.size(), size_t(4));
    QCOMPARE(lng[0], (std::vector<std::string>{"run_id", "step", "key", "value"}));
    QCOMPARE(qs(gb::store::iso_time(0.5)), QString("1970-01-01T00:00:00.500Z"));
  }

  // ---- the worker pool of `run --jobs` (util/worker_pool.h) ---------------------------

  // Five workers, two at a time: each one's lines come back whole although it writes a
  // line in two parts, and its exit status is its own. Workers start with the cancel
  // signals blocked (so a cancel while one starts waits for its handlers instead of
  // killing it): grep shows its mask (a shell would clear it at start).
  void workerPoolGivesWholeLinesStatusesAndBlockedCancelSignals() {
    gb::WorkerPoolOptions o;
    o.jobs = 2;
    o.program = "/bin/sh";
    o.args = [](size_t i) {
      return std::vector<std::string>{
          "-c", fmt::format("echo first{0}; printf 'a{0}-'; sleep 0.2; echo b{0}; exit {0}", i)};
    };
    std::map<size_t, std::vector<std::string>> lines;
    o.on_line = [&](size_t task, const std::string& line) { lines[task].push_back(line); };
    gb::PoolResult r = gb::run_worker_pool(5, o);
    QVERIFY(r.error.empty());
    QCOMPARE(r.exits.size(), size_t(5));
    for (size_t i = 0; i < 5; ++i) {
      QVERIFY(r.exits[i].started);
      QCOMPARE(r.exits[i].exit_code, static_cast<int>(i));
      QCOMPARE(lines[i],
               (std::vector<std::string>{fmt::format("first{}", i), fmt::format("a{0}-b{0}", i)}));
    }
    o.program = "/bin/grep";
    o.cancel_signal = SIGUSR1;
    o.args = [](size_t) { return std::vector<std::string>{"^SigBlk", "/proc/self/status"}; };
    lines.clear();
    r = gb::run_worker_pool(1, o);
    QCOMPARE(r.exits[0].exit_code, 0);
    QCOMPARE(lines[0].size(), size_t(1));
    const std::string blk = lines[0][0];
    const unsigned long long mask =
        std::stoull(blk.substr(blk.find_first_not_of(" \t", 7)), nullptr, 16);
    for (int sig : {SIGINT, SIGTERM, SIGUSR1}) QVERIFY2(mask & (1ull << (sig - 1)), blk.c_str());
    // argv[0] as given (ps shows it), the program run as named.
    o.program = "/bin/cat";
    o.argv0 = "growbench-worker";
    o.args = [](size_t) { return std::vector<std::string>{"/proc/self/cmdline"}; };
    lines.clear();
    r = gb::run_worker_pool(1, o);
    QCOMPARE(lines[0].size(), size_t(1));
    QCOMPARE(lines[0][0], std::string("growbench-worker\0/proc/self/cmdline\0", 36));
    QCOMPARE(gb::describe_exit(3, 0), std::string("exited with status 3"));
    QVERIFY(gb::describe_exit(-1, SIGKILL).rfind("killed by signal 9 (", 0) == 0);
  }

  // A cancel after the first worker started: it is passed on to the running one (and
  // waited for), no other starts; a program that cannot be executed is a worker exiting
  // with 127.
  void workerPoolCancelStartsNoMoreWorkers() {
    gb::WorkerPoolOptions o;
    o.jobs = 1;
    o.program = "/bin/sh";
    o.args = [](size_t) { return std::vector<std::string>{"-c", "sleep 30"}; };
    o.on_start = [&](size_t, int64_t pid) {
      QVERIFY(pid > 0);
      o.cancel.cancel();
    };
    gb::PoolResult r = gb::run_worker_pool(3, o);
    QVERIFY(r.exits[0].started);
    QCOMPARE(r.exits[0].signal, SIGTERM);  // forwarded (the shell unblocked it at start)
    QVERIFY(!r.exits[1].started && !r.exits[2].started);
    gb::WorkerPoolOptions bad;
    bad.jobs = 2;
    bad.program = "/nonexistent/growbench-worker";
    r = gb::run_worker_pool(2, bad);
    QVERIFY(r.error.empty());
    for (const auto& e : r.exits) QCOMPARE(e.exit_code, 127);
  }
};

QTEST_APPLESS_MAIN(TestStore)
#include "tst_store.moc"
