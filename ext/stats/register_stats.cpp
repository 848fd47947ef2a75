// Registers the SQL names of the stats capability: median, percentile, stddev (aggregates and
// window functions), histogram and histogram_log2 (aggregates returning JSON buckets), and the
// mergeable states rocpd_stats_state, rocpd_stats_merge, rocpd_stats_get (docs/states.md), and
// rocpd_values_percentile (the pushdown's percentile over a group's sorted durations).
#include "common/sqlite_util.h"

namespace rocpd::stats {
void register_percentile(sqlite3* db);
void register_stddev(sqlite3* db);
void register_histogram(sqlite3* db);
void register_stats_states(sqlite3* db);
void register_values_percentile(sqlite3* db);
}  // namespace rocpd::stats

int rocpd_register_stats(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    rocpd::stats::register_percentile(db);
    rocpd::stats::register_stddev(db);
    rocpd::stats::register_histogram(db);
    rocpd::stats::register_stats_states(db);
    rocpd::stats::register_values_percentile(db);
    return SQLITE_OK;
  });
}
