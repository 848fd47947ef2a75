// What rocpd_busy_intervals, rocpd_gaps and rocpd_utilization read: the ops of rocpd_ops on
// the same connection, one member (db) at a time, with the caller's constraints on db, gpu and
// time pushed into the rocpd_ops query (which pushes them into each member).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/sqlite_util.h"
#include "intervals/interval_math.h"

namespace rocpd::intervals {

// Constraint codes, one per xFilter argument, carried in idxStr (see plan_constraints).
//   D db =      G gpu =
//   a start >   b start >=   c end >   d end >=     (lower bounds of the time window)
//   e start <   f start <=   g end <   h end <=     (upper bounds of the time window)
//   W bucket_ns =   L lo =   H hi =   N buckets =   (hidden arguments of rocpd_utilization)
// idxNum is a bitmask of what is present.
enum PlanBits : int {
  kPlanDb = 1,
  kPlanGpu = 2,
  kPlanLowerTime = 4,
  kPlanUpperTime = 8,
  kPlanBucketNs = 16,
  kPlanLo = 32,
  kPlanHi = 64,
  kPlanBuckets = 128,
};

// Column numbers of a table, -1 for columns it does not have.
struct PlanColumns {
  int db = -1, gpu = -1, start = -1, end = -1;
  int bucket_ns = -1, lo = -1, hi = -1, buckets = -1;  // hidden arguments
};

// xBestIndex for the three tables. Returns SQLITE_CONSTRAINT for plans that leave a hidden
// argument unusable (SQLite then tries another plan, as in ext/misc/series.c).
int plan_constraints(sqlite3_index_info* info, const PlanColumns& cols);

// The selection an xFilter call decoded: which member(s), which gpu, which time window.
// Time constraints become a window [lo, hi): busy time is clipped to it (docs/intervals.md).
struct OpsWindow {
  std::optional<std::string> db;
  std::optional<int64_t> gpu;
  int64_t lo = kNoLo, hi = kNoHi;
  bool nothing = false;  // contradictory or NULL constraints: no row can match
  // Hidden arguments (rocpd_utilization only); a NULL argument leaves the value unset.
  std::optional<int64_t> bucket_ns, arg_lo, arg_hi, buckets;
};

OpsWindow decode_constraints(const char* table, const char* idx_str, int argc, sqlite3_value** argv);

// The members to visit (rocpd_members.db), in db order; only `db` when given.
std::vector<std::string> member_dbs(sqlite3* conn, const std::optional<std::string>& db);

// First and last timestamp of the whole job (all members), for aligning buckets.
std::optional<Interval> job_range(sqlite3* conn);

// The busy intervals of each gpu of member `db` inside the window: ops read through rocpd_ops,
// clipped to [lo, hi), merged. Gpus that have ops in the window but no busy time come with an
// empty list. Sorted by gpu (a NULL gpu first).
struct GpuBusy {
  std::optional<int64_t> gpu;
  std::vector<Interval> busy;
};
std::vector<GpuBusy> load_busy(sqlite3* conn, const std::string& db, const OpsWindow& window);

}  // namespace rocpd::intervals
