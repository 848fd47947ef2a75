// Registers the SQL names of the stats capability: median, percentile, stddev (aggregates and
// window functions), histogram and histogram_log2 (aggregates returning JSON buckets).
#include "common/sqlite_util.h"

namespace rocpd::stats {
void register_percentile(sqlite3* db);
void register_stddev(sqlite3* db);
void register_histogram(sqlite3* db);
}  // namespace rocpd::stats

int rocpd_register_stats(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    rocpd::stats::register_percentile(db);
    rocpd::stats::register_stddev(db);
    rocpd::stats::register_histogram(db);
    return SQLITE_OK;
  });
}
