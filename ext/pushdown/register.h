// Registration of the pushdown capability's SQL names (docs/pushdown.md). Each throws Error when
// SQLite refuses the registration.
#pragma once
#include "common/sqlite_util.h"

namespace rocpd::pushdown {
void register_sql_rewrite(sqlite3* db);
void register_sql_pushdown(sqlite3* db);
void register_rocpd_sql(sqlite3* db);
void register_rocpd_query(sqlite3* db);
}  // namespace rocpd::pushdown
