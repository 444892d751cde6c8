#include "store/schema.h"

#include <string>

#include "store/store.h"
#include "util/error.h"
#include "util/log.h"

namespace gb::store::detail {
namespace {

// Version 1: the initial schema. Times are REAL Unix seconds.
constexpr const char* kV1 = R"sql(
CREATE TABLE models (
  id      INTEGER PRIMARY KEY,
  key     TEXT NOT NULL UNIQUE,
  family  TEXT NOT NULL DEFAULT '',
  config  TEXT NOT NULL DEFAULT '{}',
  params  INTEGER NOT NULL DEFAULT 0,
  created REAL NOT NULL
);
CREATE TABLE datasets (
  id      INTEGER PRIMARY KEY,
  name    TEXT NOT NULL,
  path    TEXT NOT NULL DEFAULT '',
  kind    TEXT NOT NULL DEFAULT '',
  hash    TEXT NOT NULL DEFAULT '',
  tokens  INTEGER NOT NULL DEFAULT 0,
  created REAL NOT NULL,
  UNIQUE (name, path, hash)
);
CREATE TABLE runs (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,
  status      TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running',
              'finished', 'failed', 'cancelled', 'interrupted', 'diverged')),
  spec        TEXT NOT NULL DEFAULT '{}',
  variant     TEXT NOT NULL DEFAULT '',
  model_id    INTEGER REFERENCES models(id) ON DELETE SET NULL,
  created     REAL NOT NULL,
  started     REAL,
  finished    REAL,
  device      TEXT NOT NULL DEFAULT '',
  seed        INTEGER,
  notes       TEXT NOT NULL DEFAULT '',
  worker_pid  INTEGER,
  worker_host TEXT,
  error       TEXT
);
CREATE INDEX runs_by_status ON runs(status);
CREATE INDEX runs_by_created ON runs(created);
CREATE INDEX runs_by_model ON runs(model_id);
CREATE TABLE run_tags (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  tag    TEXT NOT NULL,
  PRIMARY KEY (run_id, tag)
) WITHOUT ROWID;
CREATE INDEX run_tags_by_tag ON run_tags(tag, run_id);
CREATE TABLE metrics (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step   INTEGER NOT NULL,
  key    TEXT NOT NULL,
  value  REAL,
  PRIMARY KEY (run_id, key, step)
) WITHOUT ROWID;
CREATE TABLE task_matrix (
  run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  after_task INTEGER NOT NULL,
  eval_task  INTEGER NOT NULL,
  value      REAL,
  PRIMARY KEY (run_id, after_task, eval_task)
) WITHOUT ROWID;
CREATE TABLE checkpoints (
  id      INTEGER PRIMARY KEY,
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step    INTEGER NOT NULL,
  path    TEXT NOT NULL,
  bytes   INTEGER NOT NULL DEFAULT 0,
  created REAL NOT NULL,
  UNIQUE (run_id, step)
);
CREATE TABLE events (
  id      INTEGER PRIMARY KEY,
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  time    REAL NOT NULL,
  level   TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX events_by_run ON events(run_id, id);
CREATE TABLE probes (
  id         INTEGER PRIMARY KEY,
  model_id   INTEGER NOT NULL REFERENCES models(id) ON DELETE CASCADE,
  run_id     INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  dataset_id INTEGER REFERENCES datasets(id) ON DELETE SET NULL,
  method     TEXT NOT NULL,
  probe_set  TEXT NOT NULL DEFAULT '',
  params     TEXT NOT NULL DEFAULT '{}',
  units      TEXT NOT NULL DEFAULT '[]',
  created    REAL NOT NULL,
  duration   REAL NOT NULL DEFAULT 0
);
CREATE INDEX probes_by_model ON probes(model_id, created);
CREATE INDEX probes_by_run ON probes(run_id);
CREATE INDEX probes_by_dataset ON probes(dataset_id);
CREATE TABLE importance (
  probe_id INTEGER NOT NULL REFERENCES probes(id) ON DELETE CASCADE,
  layer    INTEGER NOT NULL,
  unit     TEXT NOT NULL DEFAULT '',
  value    REAL,
  PRIMARY KEY (probe_id, layer, unit)
) WITHOUT ROWID;
)sql";

// Version 2: run groups, pid-reuse-safe worker identity, and the latest value of every
// metric key per run, kept current by a trigger so the compare table never scans metrics.
constexpr const char* kV2 = R"sql(
ALTER TABLE runs ADD COLUMN experiment TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN worker_start TEXT;
CREATE INDEX runs_by_experiment ON runs(experiment);
CREATE TABLE metric_latest (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key    TEXT NOT NULL,
  step   INTEGER NOT NULL,
  value  REAL,
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
CREATE TRIGGER metrics_keep_latest AFTER INSERT ON metrics
BEGIN
  INSERT INTO metric_latest (run_id, key, step, value)
  VALUES (NEW.run_id, NEW.key, NEW.step, NEW.value)
  ON CONFLICT (run_id, key) DO UPDATE SET step = excluded.step, value = excluded.value
  WHERE excluded.step >= metric_latest.step;
END;
INSERT INTO metric_latest (run_id, key, step, value)
  SELECT run_id, key, MAX(step), value FROM metrics GROUP BY run_id, key;
)sql";

// Version 3: fair comparisons. The hash of the spec a run group came from, every run's
// resolved hyper-parameters flattened (one row per run and key: JSON text, and the number
// when numeric, so views can group, filter and sort by them), and the status "stopped" (a
// forgetting guard ended the run). The status CHECK gains a value by editing the stored
// table text (writable_schema): every existing row satisfies the wider constraint, the
// on-disk format does not change, and migrate() bumps schema_version so that every
// connection re-reads the schema.
constexpr const char* kV3 = R"sql(
ALTER TABLE runs ADD COLUMN spec_hash TEXT NOT NULL DEFAULT '';
CREATE TABLE run_params (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key    TEXT NOT NULL,
  value  TEXT NOT NULL,
  num    REAL,
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
CREATE INDEX run_params_by_key ON run_params(key, num);
PRAGMA writable_schema = ON;
UPDATE sqlite_master SET sql = replace(sql, '''diverged''))', '''diverged'', ''stopped''))')
  WHERE type = 'table' AND name = 'runs';
PRAGMA writable_schema = OFF;
)sql";

// Version 4 (issue 20, no silent data loss; appended as its own step): the store's identity
// (a random UUID, so that two stores sharing one workspace write different checkpoint
// folders), a checksum of every checkpoint recorded when it is written (resume verifies it
// and falls back to the newest valid one), the fingerprints of a run's inputs (base weights,
// tokenizer, data sources: resume refuses a changed input), and a heartbeat (the time of the
// last committed metrics) that gives a killed worker's run its end time.
constexpr const char* kV4 = R"sql(
CREATE TABLE store_meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO store_meta (key, value) VALUES ('uuid', lower(hex(randomblob(16))));
ALTER TABLE checkpoints ADD COLUMN checksum TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN inputs TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN heartbeat REAL;
)sql";

}  // namespace

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> list = {
      {1, "initial schema", kV1},
      {2, "run groups, worker identity, metric_latest", kV2},
      {3, "spec hashes, run parameters, status stopped", kV3},
      {4, "store identity, checkpoint checksums, run inputs, heartbeat", kV4},
  };
  return list;
}

void migrate(Connection& db, int target) {
  const auto& list = migrations();
  if (static_cast<int>(list.size()) != kSchemaVersion || target > kSchemaVersion) {
    fail("run store '{}': cannot migrate to schema version {} (this build knows {} of {})",
         db.path(), target, list.size(), kSchemaVersion);
  }
  for (const Migration& m : list) {
    if (m.version > target) break;
    Transaction tx(db, "schema upgrade");
    int64_t current = db.scalar_int("PRAGMA user_version", "reading the schema version");
    if (current >= m.version) continue;  // done meanwhile (or before)
    if (current != m.version - 1) {
      fail("run store '{}': schema version {} cannot be upgraded by step {} ({})", db.path(),
           current, m.version, m.description);
    }
    log::get("store")->log(current == 0 ? spdlog::level::debug : spdlog::level::info,
                           "run store '{}': upgrading schema {} -> {} ({})", db.path(), current,
                           m.version, m.description);
    db.exec(m.sql, "schema upgrade");
    if (std::string(m.sql).find("writable_schema") != std::string::npos) {
      // An edited schema text: make every connection (this one too) re-read it.
      const int64_t cookie = db.scalar_int("PRAGMA schema_version", "schema upgrade");
      db.exec("PRAGMA schema_version = " + std::to_string(cookie + 1), "schema upgrade");
    }
    if (m.version == 1) {
      db.exec("PRAGMA application_id = " + std::to_string(kApplicationId), "schema upgrade");
    }
    {
      Query check(db, "PRAGMA foreign_key_check", "schema upgrade (foreign key check)");
      if (check.step()) {
        fail(
            "run store '{}': schema upgrade to version {} left a foreign key violation in "
            "table '{}'; the store was not changed",
            db.path(), m.version, check.text(0));
      }
    }
    db.exec("PRAGMA user_version = " + std::to_string(m.version), "schema upgrade");
    tx.commit();
  }
}

}  // namespace gb::store::detail
