// Relative time: rocpd_job_start() is the job's first timestamp (the smallest first_ns of
// rocpd_members: the earliest op or API call of any member), rocpd_rel(ts) is ts - rocpd_job_start(),
// ns since the job began. Both read the member list of the connection (files), so they are
// DIRECTONLY. They are also registered DETERMINISTIC, which SQLite defines as "the same result for
// the same inputs within one statement": true here (members are not opened mid-statement by these
// queries), and it lets SQLite evaluate `ts - rocpd_job_start()` once per statement instead of once
// per row (reading the member list costs tens of microseconds). DIRECTONLY keeps them out of the
// schema (indexes, generated columns, CHECK), where DETERMINISTIC would promise more than that.
#include <fmt/format.h>

#include <limits>

#include "analysis/ops_window.h"
#include "analysis/sql_args.h"
#include "intervals/register.h"

namespace rocpd::intervals {

using namespace analysis;
namespace {

void job_start(sqlite3_context* ctx, int /*argc*/, sqlite3_value** /*argv*/) {
  guard(ctx, [&] {
    auto range = job_range(sqlite3_context_db_handle(ctx));
    if (!range) return sqlite3_result_null(ctx);
    sqlite3_result_int64(ctx, range->start);
  });
}

void rel(sqlite3_context* ctx, int /*argc*/, sqlite3_value** argv) {
  guard(ctx, [&] {
    const auto ts = int64_arg(argv[0], "rocpd_rel", "ts");
    if (!ts) return sqlite3_result_null(ctx);
    auto range = job_range(sqlite3_context_db_handle(ctx));
    if (!range) return sqlite3_result_null(ctx);  // no member: no origin
    const __int128 out = static_cast<__int128>(*ts) - range->start;
    if (out > std::numeric_limits<int64_t>::max() || out < std::numeric_limits<int64_t>::min())
      throw Error(fmt::format("rocpd_rel: {} - {} (the job's start) does not fit an integer", *ts, range->start));
    sqlite3_result_int64(ctx, static_cast<int64_t>(out));
  });
}

}  // namespace

void register_job_time(sqlite3* db) {
  struct Function {
    const char* name;
    int args;
    void (*fn)(sqlite3_context*, int, sqlite3_value**);
  };
  static constexpr Function kFunctions[] = {{"rocpd_job_start", 0, job_start}, {"rocpd_rel", 1, rel}};
  for (const Function& f : kFunctions) {
    int rc = sqlite3_create_function(db, f.name, f.args, kFileFunction | SQLITE_DETERMINISTIC, nullptr, f.fn, nullptr,
                                     nullptr);
    if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", f.name, sqlite3_errmsg(db)), rc);
  }
}

}  // namespace rocpd::intervals
