// Aggregate pushdown for a user's own GROUP BY (docs/pushdown.md): a query over rocpd_ops that
// groups by any of db, gpu, kind, name (or over rocpd_apis grouping by any of db, pid, tid, domain,
// name) and aggregates the duration with aggregates the per-member engine computes (count, sum,
// total, avg, min, max, median, stddev) is rewritten into SQL over rocpd_op_groups (rocpd_api_groups),
// which computes partial groups per member on every core and merges them; SQLite then sees one
// small row per group. Anything else is left as written.
#pragma once
#include <string>
#include <string_view>

#include "common/sqlite_util.h"

namespace rocpd::pushdown {

struct Rewrite {
  bool pushed = false;
  std::string sql;     // what answers the query: the rewrite, or the query unchanged
  std::string reason;  // why not pushed (empty when pushed)
  std::string engine;  // when pushed: the engine call, e.g. rocpd_op_groups('name', 'kernel')
};

// Rewrites `sql` when its shape is one the engine answers exactly (docs/pushdown.md lists them).
// `db` is the connection the query will run on: the query is prepared there (not run) so the
// rewrite carries SQLite's own result column names and never changes a query SQLite refuses.
Rewrite rewrite_group_query(sqlite3* db, std::string_view sql);

// An SQL function's argument `sql` as text (valid while the argument is); throws Error naming
// `function` and what it got when it is not text.
std::string_view sql_argument(sqlite3_value* sql, const char* function);

// The rewrite of an SQL function's argument `sql` on the function's connection; throws Error naming
// `function` when the argument is not text.
Rewrite rewrite_argument(sqlite3_context* ctx, sqlite3_value* sql, const char* function);

}  // namespace rocpd::pushdown
