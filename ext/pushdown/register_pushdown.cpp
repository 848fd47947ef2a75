// Registers the SQL names of the pushdown capability (docs/pushdown.md): a user's own GROUP BY over
// rocpd_ops or rocpd_apis answered by the per-member engine (rocpd_op_groups, rocpd_api_groups)
// when its shape allows: rocpd_sql_rewrite, rocpd_sql_pushdown, the rocpd_sql table and
// rocpd_query, its answer as one text table for the sqlite3 shell.
#include "pushdown/register.h"

int rocpd_register_pushdown(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    rocpd::pushdown::register_sql_rewrite(db);
    rocpd::pushdown::register_sql_pushdown(db);
    rocpd::pushdown::register_rocpd_sql(db);
    rocpd::pushdown::register_rocpd_query(db);
    return SQLITE_OK;
  });
}
