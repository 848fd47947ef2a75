// rocpd_require_members(who) -> 1, or an error telling how to open traces when the connection has
// no member. Every analysis view of sql/views filters on it, so that a view queried before any
// trace is open says so instead of returning no rows (issue 23). Tables keep plain-table semantics
// (no member, no rows). DETERMINISTIC, as rocpd_job_start(): fixed within a statement, which lets
// SQLite test it once before any loop, so it runs even when the view's inputs have no rows;
// DIRECTONLY: it reads the connection's member list.
#include "views/register_views.h"

#include <fmt/format.h>

namespace rocpd::views {

namespace {

void require_members(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    sqlite3* db = sqlite3_context_db_handle(ctx);
    // A member that cannot be read reports its own error, unprefixed (as any query over it would).
    Stmt stmt = prepare(db, "SELECT 1 FROM temp.rocpd_members LIMIT 1");
    if (step(stmt.get())) return sqlite3_result_int(ctx, 1);
    const auto* who = sqlite3_value_text(argv[0]);
    throw Error(fmt::format(
        "{}: no trace is open on this connection: open traces first with SELECT rocpd_open('path') (a file, a "
        "directory or a glob such as 'out/*/*.db') or ATTACH 'rank0.rpd' AS rank0",
        who ? reinterpret_cast<const char*>(who) : "rocpd_require_members"));
  });
}

}  // namespace

void register_rocpd_require_members(sqlite3* db) {
  const int rc = sqlite3_create_function(db, "rocpd_require_members", 1, kFileFunction | SQLITE_DETERMINISTIC,
                                         nullptr, require_members, nullptr, nullptr);
  if (rc != SQLITE_OK)
    throw Error(fmt::format("rocpd_ext: registering rocpd_require_members: {}", sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::views
