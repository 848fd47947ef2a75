// rocpd_sql_pushdown(sql): whether rocpd_sql_rewrite pushes `sql` down to the per-member engine and
// why not (docs/pushdown.md): 'pushed: rocpd_op_groups(...)' (or rocpd_api_groups(...)) or
// 'not pushed: <reason>'.
#include "pushdown/group_rewrite.h"
#include "pushdown/register.h"

namespace rocpd::pushdown {

namespace {

void rocpd_sql_pushdown_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    const Rewrite r = rewrite_argument(ctx, argv[0], "rocpd_sql_pushdown");
    const std::string verdict = r.pushed ? "pushed: " + r.engine : "not pushed: " + r.reason;
    sqlite3_result_text(ctx, verdict.data(), static_cast<int>(verdict.size()), SQLITE_TRANSIENT);
  });
}

}  // namespace

void register_sql_pushdown(sqlite3* db) {
  if (sqlite3_create_function_v2(db, "rocpd_sql_pushdown", 1, kFileFunction, nullptr, rocpd_sql_pushdown_fn, nullptr,
                                 nullptr, nullptr) != SQLITE_OK)
    throw Error("cannot register rocpd_sql_pushdown");
}

}  // namespace rocpd::pushdown
