// time_bucket(ts, width [, origin]): the start of the width-ns bucket holding ts, buckets being
// aligned on origin (default 0): origin + floor((ts - origin) / width) * width. NULL in, NULL out.
#include <fmt/format.h>

#include <limits>

#include "analysis/sql_args.h"
#include "intervals/register.h"

namespace rocpd::intervals {

using namespace analysis;
namespace {

constexpr const char* kName = "time_bucket";

void time_bucket(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    const auto ts = int64_arg(argv[0], kName, "ts");
    const auto width = int64_arg(argv[1], kName, "width");
    const auto origin = argc == 3 ? int64_arg(argv[2], kName, "origin") : std::optional<int64_t>(0);
    if (width && *width <= 0) throw Error(fmt::format("{}: width must be a positive number of ns, got {}", kName, *width));
    if (!ts || !width || !origin) return sqlite3_result_null(ctx);
    // 128-bit arithmetic: ts - origin spans up to 2^64 - 1.
    const __int128 offset = static_cast<__int128>(*ts) - *origin;
    __int128 index = offset / *width;
    if (offset % *width != 0 && offset < 0) --index;  // floor for times before the origin
    const __int128 start = static_cast<__int128>(*origin) + index * *width;
    if (start < std::numeric_limits<int64_t>::min())
      throw Error(fmt::format("{}: the bucket of {} starts before the smallest integer (origin {}, width {})", kName,
                              *ts, *origin, *width));
    sqlite3_result_int64(ctx, static_cast<int64_t>(start));
  });
}

}  // namespace

void register_time_bucket(sqlite3* db) {
  for (int argc : {2, 3}) {
    int rc = sqlite3_create_function(db, kName, argc, kPureFunction, nullptr, time_bucket, nullptr, nullptr);
    if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", kName, sqlite3_errmsg(db)), rc);
  }
}

}  // namespace rocpd::intervals
