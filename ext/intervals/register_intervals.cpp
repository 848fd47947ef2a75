// Registers the SQL names of the intervals capability: interval_union, time_bucket,
// rocpd_busy_intervals, rocpd_gaps, rocpd_utilization (docs/intervals.md), and the mergeable
// states interval_union_state, interval_union_merge, interval_union_length (docs/states.md), and
// relative time: rocpd_job_start, rocpd_rel.
#include "common/sqlite_util.h"
#include "intervals/register.h"

int rocpd_register_intervals(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    rocpd::intervals::register_interval_union(db);
    rocpd::intervals::register_time_bucket(db);
    rocpd::intervals::register_busy_interval_tables(db);
    rocpd::intervals::register_utilization(db);
    rocpd::intervals::register_interval_states(db);
    rocpd::intervals::register_job_time(db);
    return SQLITE_OK;
  });
}
