// What rocpd_busy_intervals, rocpd_gaps and rocpd_utilization read: the ops of temp.rocpd_ops on
// the same connection, one member (db) at a time, with the caller's constraints on db and gpu and
// the clipping window (the hidden arguments lo, hi) passed into the rocpd_ops query, which pushes
// them into each member.
//
// These tables answer like plain tables holding their rows: constraints on start and end are
// filters SQLite applies, never clips (clipping is what the hidden arguments are for). They do not
// prune the ops read either: a row's rowid is its position within its gpu, which must not depend
// on the constraints of the scan (SQLite's OR plans de-duplicate by rowid).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/sqlite_util.h"
#include "common/interval_math.h"
#include "analysis/busy_lists.h"
#include "analysis/query_members.h"

namespace rocpd::analysis {

// Constraint codes, one per xFilter argument, carried in idxStr (see plan_constraints).
//   D db =      G gpu =
//   W bucket_ns =   L lo =   H hi =   N buckets =   K kind =   (hidden arguments)
// idxNum is a bitmask of what is present.
enum PlanBits : int {
  kPlanDb = 1,
  kPlanGpu = 2,
  kPlanBucketNs = 16,
  kPlanLo = 32,
  kPlanHi = 64,
  kPlanBuckets = 128,
  kPlanKind = 256,
};

// Column numbers of a table, -1 for columns it does not have.
struct WindowColumns {
  int db = -1, gpu = -1;
  int bucket_ns = -1, lo = -1, hi = -1, buckets = -1, kind = -1;  // hidden arguments
};

// xBestIndex for the three tables. Returns SQLITE_CONSTRAINT for plans that leave a hidden
// argument unusable (SQLite then tries another plan, as in ext/misc/series.c). Only `db =` under
// BINARY collation is used to select members; everything but the arguments is re-checked.
int plan_constraints(sqlite3_index_info* info, const WindowColumns& cols);

// The selection an xFilter call decoded.
struct OpsWindow {
  std::optional<std::string> db;
  std::optional<int64_t> gpu;
  // The clipping window [lo, hi): busy time outside it is cut off (the arguments lo, hi).
  int64_t lo = kNoLo, hi = kNoHi;
  bool nothing = false;  // contradictory or NULL constraints: no row can match
  // Hidden arguments; a NULL argument leaves the value unset.
  std::optional<int64_t> bucket_ns, arg_lo, arg_hi, buckets;
  // The kind argument (rocpd_busy_intervals, rocpd_gaps) as given, and its comma-separated items:
  // only ops whose kind or name equals an item count (docs/intervals.md).
  std::optional<std::string> kind;
  std::vector<std::string> kind_items;
};

OpsWindow decode_constraints(const char* table, const char* idx_str, int argc, sqlite3_value** argv);

// First and last timestamp of the whole job (all members), for aligning buckets.
std::optional<Interval> job_range(sqlite3* conn);
// Per member with events, the span of its clock cluster: the union of the spans (first_ns ..
// last_ns) of the members that overlap it directly or through others.
std::map<std::string, Interval> clock_clusters(sqlite3* conn);

// A gpu value as rocpd_ops returns it: normally an integer or NULL, but a hostile file's text,
// real or blob is a group of its own, as `GROUP BY gpu` makes it. Ordered as SQLite orders values
// (NULL, numbers, text, blobs).
struct GpuKey {
  int type = SQLITE_NULL;
  int64_t i = 0;
  double d = 0;
  std::string bytes;
  bool is_null() const { return type == SQLITE_NULL; }
  friend bool operator<(const GpuKey& a, const GpuKey& b);
  friend bool operator==(const GpuKey& a, const GpuKey& b) { return !(a < b) && !(b < a); }
  void result(sqlite3_context* ctx) const;
};

// The busy intervals of each gpu of member `db`: ops read through temp.rocpd_ops (with the
// window's pruning bounds), clipped to [lo, hi), merged. Gpus whose ops add no busy time come
// with an empty list. Sorted by gpu (a NULL gpu first).
struct GpuBusy {
  GpuKey gpu;
  std::vector<Interval> busy;
};
// An op whose start or end is not an integer (text or a real in a hostile file) is an error
// naming `table` and the member, as interval_union's own: no value is guessed.
std::vector<GpuBusy> load_busy(sqlite3* conn, const std::string& db, const OpsWindow& window, const char* table);

// load_busy for many members in turn: the members a scan will visit (start()) are read a batch at
// a time on every core by the summary engine (analysis/busy_lists.h), so memory holds one batch's
// busy lists; load() hands a member's out, or reads it through SQL with load_busy (same rows) once
// the engine could not answer exactly (hostile values).
class BusyReader {
 public:
  void start(const std::vector<MemberRef>& dbs);
  std::vector<GpuBusy> load(sqlite3* conn, const std::string& db, const OpsWindow& window, const char* table);

 private:
  std::vector<std::string> order_;
  std::map<std::string, std::vector<GpuBusyList>> batch_;
  bool use_sql_ = false;
};

// Rowids of the computed tables: the member's ordinal (16 bits), a 16-bit slot for the gpu (its
// id for 0..32766, NULL 32767, a hash of any other value), then the row's index within that gpu.
// Throws when an index does not fit or two gpus of a member share a slot.
class RowNumbering {
 public:
  int64_t rowid(int64_t ordinal, const GpuKey& gpu, uint64_t index, const char* table);

 private:
  std::vector<std::pair<uint32_t, GpuKey>> slots_;  // slot -> gpu seen in this scan
  int64_t slots_member_ = -1;
};

}  // namespace rocpd::analysis
