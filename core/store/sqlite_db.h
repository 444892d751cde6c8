#pragma once
// Internal to core/store: thin RAII wrappers over the SQLite C API. A Connection owns the
// sqlite3 handle and a cache of prepared statements; a Query is one use of a cached statement
// (bind, step, read columns) and resets it when it goes out of scope, so that no statement
// keeps a read snapshot open; a Transaction is BEGIN IMMEDIATE (or a SAVEPOINT when nested)
// that rolls back unless committed. Every error becomes a gb::Error naming the database
// file and the operation. Not included by public headers.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include <sqlite3.h>

#include "util/error.h"

namespace gb::store::detail {

// A gb::Error that keeps the SQLite result code, for callers that react to it.
class SqliteError : public Error {
 public:
  SqliteError(const std::string& message, int code) : Error(message), m_code(code) {}
  int code() const { return m_code; }  // extended result code

 private:
  int m_code;
};

class Connection;

// One prepared statement, finalised on destruction.
class Statement {
 public:
  Statement(Connection& db, const std::string& sql, const char* what);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  sqlite3_stmt* get() const { return m_stmt; }
  bool in_use = false;

 private:
  sqlite3_stmt* m_stmt = nullptr;
};

class Connection {
 public:
  // Opens `path` with sqlite3_open_v2 `flags`; sets the busy timeout and extended codes.
  Connection(std::string path, int flags, int busy_timeout_ms);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  sqlite3* get() const { return m_db; }
  const std::string& path() const { return m_path; }
  int busy_timeout_ms() const { return m_busy_timeout_ms; }
  bool in_transaction() const { return sqlite3_get_autocommit(m_db) == 0; }

  // Runs one or more statements that return no rows needed by the caller.
  void exec(const std::string& sql, const char* what);
  // First column of the first row as text ("" when there is no row), e.g. for PRAGMAs.
  std::string scalar_text(const std::string& sql, const char* what);
  int64_t scalar_int(const std::string& sql, const char* what);
  // The cached statement for `sql`, prepared on first use.
  Statement& cached(const std::string& sql, const char* what);
  // Throws SqliteError: "run store '<path>': <what> failed: <sqlite message>[; hint]".
  [[noreturn]] void raise(int rc, const char* what) const;

 private:
  std::string m_path;
  sqlite3* m_db = nullptr;
  int m_busy_timeout_ms = 0;
  std::unordered_map<std::string, std::unique_ptr<Statement>> m_cache;
};

// One execution of a (cached) statement. Parameters are bound in order with bind().
class Query {
 public:
  Query(Connection& db, const std::string& sql, const char* what);
  ~Query();
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  Query& bind(int64_t v);
  Query& bind(int v) { return bind(static_cast<int64_t>(v)); }
  Query& bind(double v);            // NaN is stored as NULL by SQLite
  Query& bind(std::string_view v);  // copied by SQLite
  Query& bind(const std::string& v) { return bind(std::string_view(v)); }
  Query& bind(const char* v) { return bind(std::string_view(v)); }
  Query& bind(std::nullptr_t);
  Query& bind(const std::optional<int64_t>& v);
  Query& bind(const std::optional<double>& v);
  template <typename... Args>
  Query& bind_all(const Args&... args) {
    (bind(args), ...);
    return *this;
  }

  // Steps once: true when a row is available, false when done.
  bool step();
  // Steps to completion (statements that return no rows).
  void run();
  // Rows changed by the last completed INSERT/UPDATE/DELETE of this connection.
  int64_t changes() const;

  bool is_null(int col) const;
  int64_t int64(int col) const;
  double real(int col) const;  // NULL reads as quiet NaN
  std::string text(int col) const;
  std::optional<int64_t> opt_int64(int col) const;
  std::optional<double> opt_real(int col) const;

 private:
  Connection& m_db;
  Statement* m_stmt = nullptr;
  std::unique_ptr<Statement> m_owned;  // when the cached statement is already in use
  const char* m_what;
  int m_next = 1;
};

// BEGIN IMMEDIATE (takes the write lock up front, waiting up to the busy timeout, so a
// deferred read->write upgrade can never fail with SQLITE_BUSY), or SAVEPOINT when the
// connection is already inside a transaction. Rolls back on destruction unless committed.
class Transaction {
 public:
  Transaction(Connection& db, const char* what);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Connection& m_db;
  const char* m_what;
  bool m_savepoint = false;
  bool m_done = false;
};

// A read transaction (BEGIN DEFERRED): all SELECTs inside see one snapshot, so multi-query
// reads never mix data from before and after another connection's commit. No-op when the
// connection is already in a transaction.
class ReadSnapshot {
 public:
  ReadSnapshot(Connection& db, const char* what);
  ~ReadSnapshot();
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;

 private:
  Connection& m_db;
  bool m_active = false;
};

}  // namespace gb::store::detail
