// Registers the federation capability: rocpd_open, rocpd_close, rocpd_members, the canonical
// tables (rocpd_ops, rocpd_apis, rocpd_kernels, rocpd_copies, rocpd_memory, rocpd_counters,
// rocpd_hip_events), rocpd_union, the clock functions, rocpd_progress and rocpd_cache_clear, all sharing one member
// registry per connection.
#include "common/sqlite_util.h"
#include "common/temp_clash.h"
#include "federation/federated_table.h"
#include "federation/rocpd_cache_clear.h"
#include "federation/rocpd_members.h"
#include "federation/rocpd_open.h"
#include "federation/rocpd_clock.h"
#include "federation/rocpd_progress.h"
#include "federation/rocpd_skipped.h"
#include "federation/rocpd_union.h"

#include <fmt/format.h>

int rocpd_register_federation(sqlite3* db, char** err) {
  using namespace rocpd::federation;
  return rocpd::guard(err, [&] {
    // Before registering anything: a refused load leaves the connection as it was.
    // (The views and internal SQL read temp.rocpd_ops etc.: a user's TEMP table of that name, made
    // before loading, would take their place.)
    rocpd::refuse_temp_clash(db, "rocpd_members", "the table rocpd_members");
    for (const rocpd::canonical::CanonicalTable* table : rocpd::canonical::canonical_tables())
      rocpd::refuse_temp_clash(db, table->name, fmt::format("the table {}", table->name));
    rocpd::refuse_temp_clash(db, "rocpd_op_groups", "the table rocpd_op_groups");
    rocpd::refuse_temp_clash(db, "rocpd_api_groups", "the table rocpd_api_groups");
    // One registry per connection, also when an earlier load failed part way.
    auto registry = rocpd::members::Registry::of(db);
    if (!registry) {
      registry = std::make_shared<rocpd::members::Registry>(db);
      rocpd::members::Registry::remember(registry);
    }
    int rc = register_rocpd_open(db, registry);
    if (rc == SQLITE_OK) rc = register_rocpd_members(db, registry);
    if (rc == SQLITE_OK) rc = register_rocpd_skipped(db, registry);
    for (const rocpd::canonical::CanonicalTable* table : rocpd::canonical::canonical_tables())
      if (rc == SQLITE_OK) rc = register_federated_table(db, registry, *table);
    if (rc == SQLITE_OK) rc = register_rocpd_union(db, registry);
    if (rc == SQLITE_OK) rc = register_rocpd_clock(db, registry);
    if (rc == SQLITE_OK) rc = register_rocpd_progress(db, registry);
    if (rc == SQLITE_OK) rc = register_rocpd_cache_clear(db);
    // The extension's views and internal SQL read temp.rocpd_ops etc.: an attached database with
    // its own table named rocpd_ops would otherwise take the name's place (SQLite looks up real
    // tables before eponymous ones), and nothing outside this connection can add a TEMP table.
    if (rc == SQLITE_OK) {
      std::string sql = "CREATE VIRTUAL TABLE IF NOT EXISTS temp.rocpd_members USING rocpd_members;";
      for (const rocpd::canonical::CanonicalTable* table : rocpd::canonical::canonical_tables())
        sql += fmt::format("CREATE VIRTUAL TABLE IF NOT EXISTS temp.{0} USING {0};", table->name);
      rocpd::exec(db, sql.c_str(), "rocpd_ext: creating the extension's temp tables");
    }
    return rc;
  });
}
