#include "store/sqlite_db.h"

#include <cmath>
#include <limits>

#include "util/error.h"
#include "util/log.h"

namespace gb::store::detail {
namespace {

std::string hint_for(int rc, int busy_timeout_ms) {
  if (rc == SQLITE_CONSTRAINT_FOREIGNKEY) {
    return "; it refers to a run, model, dataset or probe that does not exist (deleted?)";
  }
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return fmt::format(
          "; another process held the database lock for more than {} ms (a stuck worker or a "
          "long export?); try again",
          busy_timeout_ms);
    case SQLITE_NOTADB:
      return "; the file is not an SQLite database, so it cannot be a GrowBench run store "
             "(wrong path?)";
    case SQLITE_CORRUPT:
      return "; the database file is damaged: move it aside and restore a backup (or let "
             "GrowBench create a new store)";
    case SQLITE_READONLY:
      return "; the store is open read-only, or the file or its folder is not writable";
    case SQLITE_FULL:
      return "; the disk is full";
    case SQLITE_CANTOPEN:
      return "; check that the folder exists and that the file and folder are accessible";
    case SQLITE_IOERR:
      return "; an I/O error occurred (disk full, removed or a network file system?)";
    default:
      return "";
  }
}

}  // namespace

Statement::Statement(Connection& db, const std::string& sql, const char* what) {
  int rc = sqlite3_prepare_v3(db.get(), sql.c_str(), static_cast<int>(sql.size() + 1),
                              SQLITE_PREPARE_PERSISTENT, &m_stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(m_stmt);
    m_stmt = nullptr;
    db.raise(rc, what);
  }
}

Statement::~Statement() {
  sqlite3_finalize(m_stmt);
}

Connection::Connection(std::string path, int flags, int busy_timeout_ms)
    : m_path(std::move(path)), m_busy_timeout_ms(busy_timeout_ms) {
  int rc = sqlite3_open_v2(m_path.c_str(), &m_db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    sqlite3_close_v2(m_db);
    m_db = nullptr;
    fail("run store '{}': open failed: {}{}", m_path, message, hint_for(rc, busy_timeout_ms));
  }
  sqlite3_extended_result_codes(m_db, 1);
  sqlite3_busy_timeout(m_db, busy_timeout_ms);
}

Connection::~Connection() {
  m_cache.clear();  // finalise statements before closing
  if (m_db) {
    if (in_transaction()) sqlite3_exec(m_db, "ROLLBACK", nullptr, nullptr, nullptr);
    int rc = sqlite3_close_v2(m_db);
    if (rc != SQLITE_OK) {
      log::get("store")->warn("closing run store '{}': {}", m_path, sqlite3_errstr(rc));
    }
  }
}

void Connection::raise(int rc, const char* what) const {
  std::string message = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
  if (message.empty() || message == "not an error") message = sqlite3_errstr(rc);
  throw SqliteError(fmt::format("run store '{}': {} failed: {}{}", m_path, what, message,
                                hint_for(rc, m_busy_timeout_ms)),
                    rc);
}

void Connection::exec(const std::string& sql, const char* what) {
  char* err = nullptr;
  int rc = sqlite3_exec(m_db, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string message = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    throw SqliteError(fmt::format("run store '{}': {} failed: {}{}", m_path, what, message,
                                  hint_for(rc, m_busy_timeout_ms)),
                      rc);
  }
}

std::string Connection::scalar_text(const std::string& sql, const char* what) {
  Query q(*this, sql, what);
  return q.step() ? q.text(0) : std::string();
}

int64_t Connection::scalar_int(const std::string& sql, const char* what) {
  Query q(*this, sql, what);
  return q.step() ? q.int64(0) : 0;
}

Statement& Connection::cached(const std::string& sql, const char* what) {
  auto it = m_cache.find(sql);
  if (it != m_cache.end()) return *it->second;
  auto stmt = std::make_unique<Statement>(*this, sql, what);
  Statement& ref = *stmt;
  m_cache.emplace(sql, std::move(stmt));
  return ref;
}

Query::Query(Connection& db, const std::string& sql, const char* what) : m_db(db), m_what(what) {
  Statement& s = db.cached(sql, what);
  if (s.in_use) {
    m_owned = std::make_unique<Statement>(db, sql, what);
    m_stmt = m_owned.get();
  } else {
    m_stmt = &s;
  }
  m_stmt->in_use = true;
}

Query::~Query() {
  sqlite3_reset(m_stmt->get());
  sqlite3_clear_bindings(m_stmt->get());
  m_stmt->in_use = false;
}

Query& Query::bind(int64_t v) {
  int rc = sqlite3_bind_int64(m_stmt->get(), m_next++, v);
  if (rc != SQLITE_OK) m_db.raise(rc, m_what);
  return *this;
}

Query& Query::bind(double v) {
  int rc = sqlite3_bind_double(m_stmt->get(), m_next++, v);
  if (rc != SQLITE_OK) m_db.raise(rc, m_what);
  return *this;
}

Query& Query::bind(std::string_view v) {
  // SQLITE_TRANSIENT: SQLite copies the text, so temporaries are safe to bind.
  int rc = sqlite3_bind_text64(m_stmt->get(), m_next++, v.data(), v.size(), SQLITE_TRANSIENT,
                               SQLITE_UTF8);
  if (rc != SQLITE_OK) m_db.raise(rc, m_what);
  return *this;
}

Query& Query::bind(std::nullptr_t) {
  int rc = sqlite3_bind_null(m_stmt->get(), m_next++);
  if (rc != SQLITE_OK) m_db.raise(rc, m_what);
  return *this;
}

Query& Query::bind(const std::optional<int64_t>& v) {
  return v ? bind(*v) : bind(nullptr);
}

Query& Query::bind(const std::optional<double>& v) {
  return v ? bind(*v) : bind(nullptr);
}

bool Query::step() {
  int rc = sqlite3_step(m_stmt->get());
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  m_db.raise(rc, m_what);
}

void Query::run() {
  while (step()) {
  }
}

int64_t Query::changes() const {
  return sqlite3_changes64(m_db.get());
}

bool Query::is_null(int col) const {
  return sqlite3_column_type(m_stmt->get(), col) == SQLITE_NULL;
}

int64_t Query::int64(int col) const {
  return sqlite3_column_int64(m_stmt->get(), col);
}

double Query::real(int col) const {
  if (is_null(col)) return std::numeric_limits<double>::quiet_NaN();
  return sqlite3_column_double(m_stmt->get(), col);
}

std::string Query::text(int col) const {
  const unsigned char* p = sqlite3_column_text(m_stmt->get(), col);
  if (!p) return std::string();
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<size_t>(sqlite3_column_bytes(m_stmt->get(), col)));
}

std::optional<int64_t> Query::opt_int64(int col) const {
  if (is_null(col)) return std::nullopt;
  return int64(col);
}

std::optional<double> Query::opt_real(int col) const {
  if (is_null(col)) return std::nullopt;
  return sqlite3_column_double(m_stmt->get(), col);
}

Transaction::Transaction(Connection& db, const char* what) : m_db(db), m_what(what) {
  m_savepoint = db.in_transaction();
  db.exec(m_savepoint ? "SAVEPOINT gb_tx" : "BEGIN IMMEDIATE", what);
}

Transaction::~Transaction() {
  if (m_done) return;
  // Roll back; errors here cannot be reported (we may be unwinding), only logged.
  const char* sql = m_savepoint ? "ROLLBACK TO gb_tx; RELEASE gb_tx" : "ROLLBACK";
  char* err = nullptr;
  if (sqlite3_exec(m_db.get(), sql, nullptr, nullptr, &err) != SQLITE_OK) {
    log::get("store")->warn("run store '{}': rolling back '{}' failed: {}", m_db.path(), m_what,
                            err ? err : "?");
  }
  sqlite3_free(err);
}

void Transaction::commit() {
  m_db.exec(m_savepoint ? "RELEASE gb_tx" : "COMMIT", m_what);
  m_done = true;
}

ReadSnapshot::ReadSnapshot(Connection& db, const char* what) : m_db(db) {
  if (db.in_transaction()) return;
  db.exec("BEGIN DEFERRED", what);
  m_active = true;
}

ReadSnapshot::~ReadSnapshot() {
  if (m_active) sqlite3_exec(m_db.get(), "COMMIT", nullptr, nullptr, nullptr);
}

}  // namespace gb::store::detail
