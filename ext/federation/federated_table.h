// The eponymous virtual tables rocpd_ops and rocpd_apis: one scan over every member, each
// member read through its own SQL query with the user's constraints pushed into it.
//
// A hand-written sqlite3_module (federation core, not an analysis template): every constraint is
// pushed into each member's own SQL query, members are read by prefetching threads or looked up
// by key, and rows stream as SQLite asks for them.
//
// xBestIndex plan encoding (visible in EXPLAIN QUERY PLAN as "INDEX <idxNum>:<idxStr>"):
//   idxNum  bit i set  <=>  a constraint on canonical column i is pushed down;
//   idxStr  "used=<hex column mask>;<column><op>,<column><op>,..." (a space before LIKE/GLOB), op one of
//           = > >= < <= <> LIKE GLOB, in argv order. A `db =` constraint selects members and is
//           consumed (omitted); all others are also re-checked by SQLite, so a value that cannot
//           be pushed (e.g. text compared with a time) is simply not pushed.
#pragma once
#include <memory>

#include "common/sqlite_util.h"
#include "canonical/canonical_tables.h"
#include "members/registry.h"

namespace rocpd::federation {

int register_federated_table(sqlite3* db, const std::shared_ptr<members::Registry>& registry, const canonical::CanonicalTable& table);

}  // namespace rocpd::federation
