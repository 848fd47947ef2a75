// rocpd_sql_rewrite(sql): the SQL that answers `sql` (docs/pushdown.md): the GROUP BY rewrite over
// rocpd_op_groups (rocpd_api_groups) when the query is one the per-member engine answers exactly,
// else `sql` itself.
// Not deterministic (it depends on the schema and on ROCPD_PUSHDOWN) and direct-only: it prepares
// the query, which a view or trigger of an untrusted database has no business making it do.
#include "pushdown/group_rewrite.h"
#include "pushdown/register.h"

namespace rocpd::pushdown {

namespace {

void rocpd_sql_rewrite_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    const Rewrite r = rewrite_argument(ctx, argv[0], "rocpd_sql_rewrite");
    sqlite3_result_text(ctx, r.sql.data(), static_cast<int>(r.sql.size()), SQLITE_TRANSIENT);
  });
}

}  // namespace

void register_sql_rewrite(sqlite3* db) {
  if (sqlite3_create_function_v2(db, "rocpd_sql_rewrite", 1, kFileFunction, nullptr, rocpd_sql_rewrite_fn, nullptr,
                                 nullptr, nullptr) != SQLITE_OK)
    throw Error("cannot register rocpd_sql_rewrite");
}

}  // namespace rocpd::pushdown
