// Registers the federation capability: rocpd_open, rocpd_close, rocpd_members, rocpd_ops,
// rocpd_apis and rocpd_union, all sharing one member registry per connection.
#include "common/sqlite_util.h"
#include "federation/federated_table.h"
#include "federation/rocpd_members.h"
#include "federation/rocpd_open.h"
#include "federation/rocpd_union.h"

int rocpd_register_federation(sqlite3* db, char** err) {
  using namespace rocpd::federation;
  return rocpd::guard(err, [&] {
    auto registry = std::make_shared<Registry>(db);
    int rc = register_rocpd_open(db, registry);
    if (rc == SQLITE_OK) rc = register_rocpd_members(db, registry);
    if (rc == SQLITE_OK) rc = register_federated_table(db, registry, ops_table());
    if (rc == SQLITE_OK) rc = register_federated_table(db, registry, apis_table());
    if (rc == SQLITE_OK) rc = register_rocpd_union(db, registry);
    // The extension's views and internal SQL read temp.rocpd_ops etc.: an attached database with
    // its own table named rocpd_ops would otherwise take the name's place (SQLite looks up real
    // tables before eponymous ones), and nothing outside this connection can add a TEMP table.
    if (rc == SQLITE_OK)
      rocpd::exec(db,
                  "CREATE VIRTUAL TABLE IF NOT EXISTS temp.rocpd_ops USING rocpd_ops;"
                  "CREATE VIRTUAL TABLE IF NOT EXISTS temp.rocpd_apis USING rocpd_apis;"
                  "CREATE VIRTUAL TABLE IF NOT EXISTS temp.rocpd_members USING rocpd_members;",
                  "rocpd_ext: creating temp.rocpd_ops, temp.rocpd_apis, temp.rocpd_members");
    return rc;
  });
}
