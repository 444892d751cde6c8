#pragma once
// Internal to core/store: the state behind a Store handle, shared with MetricsWriter.

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "store/sqlite_db.h"

namespace gb::store::detail {

struct StoreState {
  std::unique_ptr<Connection> db;
  bool read_only = false;
  int version = 0;
  std::string root;  // absolute folder of the store file (the workspace root)
  // Throws gb::Error naming the file and `what` when the store is read-only.
  void require_writable(const char* what) const;
};

// Unix time now, in seconds.
double now_s();

// Inserts `rows` rows with cached multi-row INSERT statements (chunks of 128, 64, ..., 1
// rows); `prefix` is "INSERT ... (cols) VALUES " and bind_row binds `columns` values of row i.
// Call inside a transaction.
void multi_insert(Connection& db, const std::string& prefix, int columns, size_t rows,
                  const std::function<void(Query&, size_t)>& bind_row, const char* what);

}  // namespace gb::store::detail
