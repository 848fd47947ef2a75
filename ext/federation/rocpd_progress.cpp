// rocpd_progress(on) -> 1 or 0: while on, every scan of the federated tables, rocpd_members'
// profile pass and the rocpd_union summaries write a line about once a second to stderr:
//   rocpd: rocpd_ops: 12/64 member reads started, now rank11, 1234567 rows, 3.0 s
// Off by default (a library must not write to stderr unasked). rocpd_progress() reports the
// setting. DIRECTONLY: a view stored in a database may not change what the connection prints.
#include "federation/rocpd_progress.h"

namespace rocpd::federation {

namespace {

void progress_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    members::Registry& reg = *static_cast<std::shared_ptr<members::Registry>*>(sqlite3_user_data(ctx))->get();
    if (argc == 1) {
      const int type = sqlite3_value_type(argv[0]);
      if (type != SQLITE_INTEGER || (sqlite3_value_int64(argv[0]) != 0 && sqlite3_value_int64(argv[0]) != 1))
        throw Error("rocpd_progress(on): on must be 1 (report) or 0 (quiet)");
      if (sqlite3_value_int64(argv[0]) == 1) {  // a bad ROCPD_PROGRESS_INTERVAL is said now, not at each line
        try {
          members::progress_interval();
        } catch (const Error& e) {
          throw Error(std::string("rocpd_progress(1): ") + e.what());
        }
      }
      reg.progress = sqlite3_value_int64(argv[0]) == 1;
    }
    sqlite3_result_int(ctx, reg.progress ? 1 : 0);
  });
}

}  // namespace

int register_rocpd_progress(sqlite3* db, const std::shared_ptr<members::Registry>& registry) {
  auto destroy = [](void* p) { delete static_cast<std::shared_ptr<members::Registry>*>(p); };
  int rc = SQLITE_OK;
  for (int argc : {0, 1})
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function_v2(db, "rocpd_progress", argc, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                      new std::shared_ptr<members::Registry>(registry), progress_fn, nullptr, nullptr, destroy);
  return rc;
}

}  // namespace rocpd::federation
