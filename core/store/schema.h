#pragma once
// Internal to core/store: the schema as a list of forward migrations. Migration N takes a
// database from user_version N-1 to N; a new store runs them all in order. Never edit a
// migration that has shipped: add a new one and bump kSchemaVersion (store.h).

#include <cstdint>
#include <vector>

#include "store/sqlite_db.h"

namespace gb::store::detail {

// PRAGMA application_id of a GrowBench run store ("GBRS").
inline constexpr int32_t kApplicationId = 0x47425253;

struct Migration {
  int version;              // user_version after this step
  const char* description;  // for the log
  const char* sql;          // DDL and data moves, run inside one transaction
};

const std::vector<Migration>& migrations();

// Applies the migrations from the current user_version up to `target`, each in its own
// BEGIN IMMEDIATE transaction that re-reads the version (another process may have migrated
// meanwhile), checks foreign keys and sets user_version.
void migrate(Connection& db, int target);

}  // namespace gb::store::detail
