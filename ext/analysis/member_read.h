// Reading a member's rows for an analysis table: query plans (db, gpu and the hidden arguments),
// column readers with exact error texts, and the launch calls of a member read in one pass.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/affinity.h"
#include "common/big_alloc.h"
#include "common/corr_slots.h"
#include "common/sqlite_util.h"
#include "canonical/member.h"
#include "analysis/cell_store.h"
#include "members/member_columns.h"
#include "members/registry.h"
#include "analysis/ops_window.h"
#include "analysis/query_members.h"

namespace rocpd::analysis {


// Constraint codes in idxStr, one per xFilter argument: D db =, G gpu =, and the hidden
// arguments T (threshold_ns), L (lo), H (hi), P (pattern: a LIKE pattern of step names).
struct PlanColumns {
  int db = -1, gpu = -1, threshold = -1, lo = -1, hi = -1, pattern = -1;
};
int plan(sqlite3_index_info* info, const PlanColumns& cols, double full_cost);

struct Selection {
  std::optional<std::string> db;
  std::optional<int64_t> gpu;
  std::optional<int64_t> threshold, lo, hi;  // hidden arguments (NULL leaves them unset)
  std::optional<std::string> pattern;        // text only; another value than NULL is an error
  bool nothing = false;                      // contradictory or NULL constraints
};
Selection decode(const char* table, const char* idx_str, int argc, sqlite3_value** argv);

// Any SQL value of a result column, kept as rocpd_ops returned it (integers without allocation).
GpuKey value_key(sqlite3_stmt* s, int col);
// An integer time (or nullopt for NULL); anything else is an error naming the table and member.
std::optional<int64_t> time_column(sqlite3_stmt* s, int col, const char* table, const std::string& db, const char* what);

// The same two for a value read by MemberColumns.
GpuKey value_key(const StoredValue& v);
// A key's value as MemberColumns hands values out (bytes point into the key).
StoredValue stored_of(const GpuKey& k);
// Any other value than an integer or NULL: a real that is a whole number, else the error.
std::optional<int64_t> time_value_other(const StoredValue& v, const char* table, const std::string& db, const char* what);
// Inline: called for every time of every row read (millions per statement), almost always an integer.
inline std::optional<int64_t> time_value(const StoredValue& v, const char* table, const std::string& db,
                                         const char* what) {
  if (v.type == SQLITE_INTEGER) return v.i;
  if (v.type == SQLITE_NULL) return std::nullopt;
  return time_value_other(v, table, db, what);
}
// SQLite's `column = n`, `column > n` and `column < n` for an integer n and a stored value
// (NULL: false; text and blobs sort after every number).
bool equals_int(const StoredValue& v, int64_t n);
bool greater_than(const StoredValue& v, int64_t n);
bool less_than(const StoredValue& v, int64_t n);

// The correlation id of the current row, or nullopt (NULL or not an integer: no launch).
std::optional<int64_t> corr_column(sqlite3_stmt* s, int col);

// 64 bytes: a member holds one per op with a correlation id (the thread's values are kept as cells
// of the reader's CellStore, text only in hostile files).
struct LaunchCall {
  int64_t start = 0, end = 0;
  int64_t api_id = 0;
  Cell pid, tid;
  bool found = false;
};
// The launch rule every diagnosis table shares: of the calls with an op's correlation id, the one
// with the earliest start, then the smallest api_id (a hostile file may repeat an id).
inline bool better_launch(bool found, int64_t best_start, int64_t best_api_id, int64_t start, int64_t api_id) {
  return !found || start < best_start || (start == best_start && api_id < best_api_id);
}
// An api_id as that rule compares it (an integer; a real truncated; anything else 0).
inline int64_t launch_order(const StoredValue& id) {
  return id.type == SQLITE_INTEGER ? id.i : id.type == SQLITE_FLOAT ? static_cast<int64_t>(id.d) : 0;
}

// The scan both launch readers share (read_member_launches, launch_calls.h): for each call of
// `rows` (columns 0-3: correlation id, start, end, api id) that is the best launch so far of a
// wanted correlation id, `keep(call, start)` takes the call's other values, then its slot of
// `out` records it. Calls with a NULL start are no launches; a start that is not an integer is an
// error naming `table` and member `db`. With `watch`, a stopped watch ends the scan.
template <typename Calls, typename Keep>
void scan_best_launches(members::MemberColumns& rows, const CorrSlots& wanted, Calls& out,
                        const char* table, const std::string& db, const Keep& keep,
                        const members::InterruptWatch* watch = nullptr) {
  uint64_t read = 0;
  while (rows.next()) {
    if (watch && (++read & 0xffff) == 0 && watch->stopped()) members::InterruptWatch::raise();
    const StoredValue corr = rows[0];
    if (corr.type != SQLITE_INTEGER) continue;
    const int64_t slot = wanted.find(corr.i);
    if (slot < 0) continue;
    const auto start = time_value(rows[1], table, db, "start");
    if (!start) continue;
    const int64_t api_id = launch_order(rows[3]);
    auto& c = out[static_cast<size_t>(slot)];
    if (!better_launch(c.found, c.start, c.api_id, *start, api_id)) continue;
    keep(c, *start);
    c.found = true;
    c.start = *start;
    c.api_id = api_id;
  }
}

// A member's launch calls by the slot of their correlation id in `wanted`, read by MemberColumns:
// of the calls with an op's correlation id, the one with the earliest start (then the smallest
// api_id) is its launch; calls whose start is NULL are no launches. With `with_thread`, the
// launch's pid and tid are kept (in `cells`).
struct MemberLaunches {
  BigVector<LaunchCall> calls;
  CellStore cells;
};
MemberLaunches read_member_launches(const canonical::Member& m, sqlite3* db, const CorrSlots& wanted,
                                    bool with_thread, const char* table, const canonical::Profile* profile = nullptr);

}  // namespace rocpd::analysis
