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
    return rc;
  });
}
