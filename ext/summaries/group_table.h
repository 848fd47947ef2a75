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
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "members/registry.h"
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
  std::vector<KeyColumn> keys;  // keys[0] is db
  bool of_kind = false;         // the hidden of_kind argument (ops)
  bool busy = false;            // busy_ns (ops)
};

int register_group_table(sqlite3* db, const std::shared_ptr<members::Registry>& registry,
                         const GroupTableDef& def);

}  // namespace rocpd::summaries
