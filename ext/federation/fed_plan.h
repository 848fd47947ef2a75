// Query plans of rocpd_ops / rocpd_apis: what xBestIndex offers SQLite and xFilter reads back.
//
// idxNum: bit i set <=> a constraint on canonical column i is handed to xFilter.
// idxStr: "used=<hex column mask>;[group=<column>[ desc],...;]<column><op>[/<collation>],..." in argv order, op one of
//         = > >= < <= <> LIKE GLOB (a space before LIKE/GLOB), collation n (NOCASE) or r (RTRIM)
//         when not BINARY; "db=/i": a `db IN (...)` whose values xFilter reads all at once. Visible in EXPLAIN QUERY PLAN as "INDEX <idxNum>:<idxStr>".
// group=: SQLite asked for a GROUP BY or DISTINCT on those columns (sqlite3_vtab_distinct()) and the
//         scan delivers its rows grouped, the groups in that ORDER BY's order (grouped_rows.h);
//         the plan then says orderByConsumed.
//
// Which constraints are omitted (not re-checked by SQLite): only `db = x` under BINARY collation,
// which selects members and is applied exactly. Every other constraint is also compared inside
// the members' queries when that comparison keeps every row SQLite's would (same collation,
// numbers against numeric columns, text against text ones; never LIKE/GLOB when the connection
// overrides those functions), and SQLite re-checks it on the rows returned.
#pragma once
#include <string>
#include <vector>

#include "canonical/canonical_tables.h"
#include "federation/grouped_rows.h"
#include "members/member_sql.h"

namespace rocpd::federation {

struct PlannedConstraint {
  int column;
  unsigned char op;  // SQLITE_INDEX_CONSTRAINT_*
  members::Collation collation = members::Collation::Binary;
  bool in_list = false;  // `db IN (...)` handed over whole (sqlite3_vtab_in): argv holds the list
};

struct Plan {
  uint64_t used = 0;                          // canonical columns the statement reads
  std::vector<PlannedConstraint> constraints;  // in argv order
  std::vector<GroupTerm> group;                // rows delivered grouped by these (empty: scan order)
};

// What the cost model knows about the members without reading them.
struct PlanEstimates {
  double members = 1;
  double rows_per_member = 100000;
};

// xBestIndex: fills `info` (argv indexes, omit flags, idxNum/idxStr, costs).
void plan_best_index(const canonical::CanonicalTable& t, sqlite3_index_info* info, const PlanEstimates& est);
Plan parse_plan(const canonical::CanonicalTable& t, const char* idx_str);

}  // namespace rocpd::federation
