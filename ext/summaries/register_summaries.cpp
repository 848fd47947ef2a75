// Registers the summary tables rocpd_op_groups and rocpd_api_groups, and their temp instances
// (so that an attached table of that name never takes their place in the views). Registered right
// after the federation, whose member registry they read; the federation refuses a user's TEMP
// table of these names before it registers anything.
#include "common/sqlite_util.h"
#include "members/registry.h"
#include "summaries/register.h"

int rocpd_register_summaries(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    if (!rocpd::members::Registry::of(db))
      throw rocpd::Error("rocpd_ext: the summary tables need the federation's member registry");
    rocpd::summaries::register_rocpd_op_groups(db);
    rocpd::summaries::register_rocpd_api_groups(db);
    rocpd::exec(db,
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.rocpd_op_groups USING rocpd_op_groups;"
                "CREATE VIRTUAL TABLE IF NOT EXISTS temp.rocpd_api_groups USING rocpd_api_groups;",
                "rocpd_ext: creating the extension's temp tables");
    return SQLITE_OK;
  });
}
