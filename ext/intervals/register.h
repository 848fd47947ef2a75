// Registration of each SQL name of the intervals capability (one .cpp per name).
#pragma once
#include "common/sqlite_util.h"

namespace rocpd::intervals {
void register_interval_union(sqlite3* db);          // interval_union.cpp
void register_time_bucket(sqlite3* db);             // time_bucket.cpp
void register_busy_interval_tables(sqlite3* db);    // rocpd_busy_intervals.cpp (and rocpd_gaps)
void register_utilization(sqlite3* db);             // rocpd_utilization.cpp
void register_interval_states(sqlite3* db);         // interval_state_sql.cpp (interval_union_state/merge/length)
void register_job_time(sqlite3* db);                // job_time.cpp (rocpd_job_start, rocpd_rel)
}  // namespace rocpd::intervals
