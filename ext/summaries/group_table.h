// The virtual table shared by rocpd_op_groups and rocpd_api_groups (docs/summaries.md): one row per
// group of a canonical table's rows, the grouping (and for ops the kind) given as hidden
// arguments. Each table is a GroupTableDef (its grouping columns, source table and schema); the
// rows come from the per-member engine (op_groups.h) or, when it cannot answer exactly, from the
// same aggregates in SQL over the temp federated table, streamed.
//
// Columns: the grouping columns (db first), then instances, total_ns, avg_ns, med_ns, min_ns,
// max_ns, stddev_ns, [busy_ns,] first_start, last_end, timed, group_by HIDDEN [, of_kind HIDDEN,
// of_gpu HIDDEN], durations HIDDEN (every duration of the group as a JSON array, for aggregates the
// engine does not compute: the pushdown's percentile, histogram, ...), then n_start, min_start,
// max_start, n_end, min_end, max_end HIDDEN (count, min, max of start and of end), duration_values
// HIDDEN (the engine's durations as a BLOB of ascending 64-bit little-endian integers, for
// rocpd_values_percentile; NULL on the SQL path).
// Plan (idxNum bits): 1 group_by given (required: SQLITE_CONSTRAINT while unusable), 2 of_kind
// given, 4 `db =` (BINARY) given: members other than that one are not read (the constraint is still
// checked by SQLite), 8 med_ns used (durations kept for exact medians), 16 busy_ns used, 32
// durations or duration_values used, 64 of_gpu given (only ops whose gpu is that integer are read; the member applies
// it where it applies rocpd_ops' constraints).
// Rowids: the grouping (and the kind argument's hash) above the member's ordinal and the row's
// position (rows sorted by the grouping columns as GROUP BY sorts them): rows of different
// arguments never collide, and pruning by db never renumbers the other members' rows.
//
// HOW IT WORKS: each table is a JobTable (analysis/job_table.h) whose Def is GroupTable<def>: the
// arguments group_by, of_kind, of_gpu and `db =` planned by the template (idxNum bits 1, 2, 64 and
// 4), the columns read adding bits 8, 16 and 32 (used_bits); GroupScan computes the rows at xFilter
// (the engine) or steps the SQL path's statement as SQLite asks for rows.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "analysis/job_table.h"
#include "analysis/op_groups.h"

namespace rocpd::summaries {

using analysis::GroupKey;
using analysis::GroupSpec;

// A grouping column: its name, the spec's flag, and where a group's key holds it (db: neither).
struct KeyColumn {
  const char* name;
  bool GroupSpec::*flag;
  std::optional<int64_t> GroupKey::*integer = nullptr;
  std::optional<std::string> GroupKey::*text = nullptr;
};

struct GroupTableDef {
  const char* name;  // the SQL name
  canonical::TableKind table;
  const char* source;  // what the SQL path reads: temp.rocpd_ops
  const char* schema;  // CREATE TABLE x(...) in the column order above
  const char* usage;
  std::span<const KeyColumn> keys;  // keys[0] is db
  bool of_kind = false;             // the hidden of_kind argument (ops); of_gpu with it
  bool busy = false;                // busy_ns (ops)
};

// The column numbers of a table's figures, after its grouping columns.
struct GroupColumns {
  int instances, total, avg, median, min, max, stddev, busy, first_start, last_end, timed, group_by, of_kind, of_gpu,
      durations;
  int n_start, min_start, max_start, n_end, min_end, max_end;
  int duration_values;  // no cell of its own: the durations cell as a BLOB
  int count;            // how many columns
  constexpr explicit GroupColumns(const GroupTableDef& d) {
    int c = static_cast<int>(d.keys.size());
    instances = c++, total = c++, avg = c++, median = c++, min = c++, max = c++, stddev = c++;
    busy = d.busy ? c++ : -1;
    first_start = c++, last_end = c++, timed = c++, group_by = c++;
    of_kind = d.of_kind ? c++ : -1;
    of_gpu = d.of_kind ? c++ : -1;
    durations = c++;
    n_start = c++, min_start = c++, max_start = c++, n_end = c++, min_end = c++, max_end = c++;
    duration_values = c++;
    count = c;
  }
};

// One xFilter's rows (group_table.cpp): the engine's, computed at once, or the SQL path's statement.
class GroupScan {
 public:
  GroupScan();
  ~GroupScan();
  // args: group_by, of_kind, of_gpu, `db =` (null when not given); idx_num: JobTable's plan bits.
  void compute(const GroupTableDef& def, sqlite3* conn, std::span<sqlite3_value* const> args, int idx_num);
  void next();
  bool eof() const;
  void column(sqlite3_context* ctx, int col) const;
  int64_t rowid() const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

// idxNum bits for the columns a statement reads: 8 med_ns, 16 busy_ns, 32 durations or duration_values.
int group_used_bits(const GroupTableDef& def, uint64_t col_used);

// JobTable's Def of the group table `D` (a constexpr GroupTableDef).
template <const GroupTableDef& D>
struct GroupTable {
  static constexpr GroupColumns kCols{D};
  static constexpr const char* kTableName = D.name;
  static constexpr const char* kSchema = D.schema;
  static constexpr int kFirstArg = kCols.group_by, kArgCount = D.of_kind ? 3 : 1;
  static constexpr std::array<int, 3> kArgBits{1, 2, 64};  // group_by, of_kind, of_gpu
  static constexpr int kDbColumn = 0, kDbBit = 4;
  static constexpr double kCost = 1e6, kCostByDb = 1e4, kRows = 1000;
  static constexpr bool kCreatable = true;  // the extension's temp instances
  using Scan = GroupScan;

  static int used_bits(uint64_t col_used) { return group_used_bits(D, col_used); }
  static void compute(sqlite3* conn, std::span<sqlite3_value* const> args, int idx_num, Scan& scan) {
    scan.compute(D, conn, args, idx_num);
  }
  static void next(Scan& scan) { scan.next(); }
  static bool eof(const Scan& scan) { return scan.eof(); }
  static void column(const Scan& scan, size_t, sqlite3_context* ctx, int col) { scan.column(ctx, col); }
  static int64_t rowid(const Scan& scan, size_t) { return scan.rowid(); }
};

}  // namespace rocpd::summaries
