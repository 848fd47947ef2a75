// rocpd_zstd_cache_limit([bytes]) and rocpd_zstd_cache_stats(): the process-wide memory budget of
// decoded frames (rocpd::zstd::FrameCache), read and set from SQL.
#include <fmt/format.h>

#include "common/sqlite_util.h"
#include "compression/frame_cache.h"
#include "compression/zstd_vfs.h"

namespace rocpd::compression {
namespace {

// rocpd_zstd_cache_limit([bytes]): the budget in effect; with an argument, sets it first (evicting
// down to it at once).
void rocpd_zstd_cache_limit_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  guard(ctx, [&] {
    if (argc == 1) {
      if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER || sqlite3_value_int64(argv[0]) <= 0)
        throw Error("rocpd_zstd_cache_limit: the limit must be a positive integer (bytes)");
      set_cache_limit(static_cast<std::uint64_t>(sqlite3_value_int64(argv[0])));
    }
    sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(cache_limit()));
  });
}

// rocpd_zstd_cache_stats(): JSON counters of the budget (see docs/compression.md).
void rocpd_zstd_cache_stats_fn(sqlite3_context* ctx, int, sqlite3_value**) {
  guard(ctx, [&] {
    const zstd::CacheStats s = zstd::FrameCache::global()->stats();
    const std::string json = fmt::format(
        R"({{"limit":{},"cached_bytes":{},"cached_frames":{},"peak_cached_bytes":{},"live_bytes":{},)"
        R"("peak_live_bytes":{},"hits":{},"misses":{},"evictions":{},"oversized":{}}})",
        s.limit, s.cached_bytes, s.cached_frames, s.peak_cached_bytes, s.live_bytes, s.peak_live_bytes, s.hits,
        s.misses, s.evictions, s.oversized);
    sqlite3_result_text(ctx, json.c_str(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
  });
}

}  // namespace

int register_rocpd_zstd_cache(sqlite3* db) {
  int rc = SQLITE_OK;
  for (int n : {0, 1}) {
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function_v2(db, "rocpd_zstd_cache_limit", n, kFileFunction, nullptr,
                                      rocpd_zstd_cache_limit_fn, nullptr, nullptr, nullptr);
  }
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function_v2(db, "rocpd_zstd_cache_stats", 0, kFileFunction, nullptr,
                                    rocpd_zstd_cache_stats_fn, nullptr, nullptr, nullptr);
  return rc;
}

}  // namespace rocpd::compression
