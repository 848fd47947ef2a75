// Registers the SQL names of the critical path capability (docs/critical_path.md): rocpd_critical_path
// (the longest path of each training step across members) and rocpd_what_if (the step times
// recomputed with some ops taking longer or shorter). Its view is
// sql/views/72_rocpd_critical_path_summary.sql.
#include "critical_path/register.h"

int rocpd_register_critical_path(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    rocpd::critical_path::register_critical_path(db);
    rocpd::critical_path::register_what_if(db);
    return SQLITE_OK;
  });
}
