// One member source's query of a canonical table, prepared and bound on a member connection:
// what the inline reader, the prefetch threads and the lookup index all run.
#pragma once
#include <span>
#include <string>
#include <vector>

#include "canonical/canonical_tables.h"
#include "members/member_sql.h"

namespace rocpd::members {

struct OpenMemberQuery {
  MemberQuery query;
  Stmt stmt;
  std::vector<Affinity> affinity;  // per result column, as the canonical column stores it
  std::vector<size_t> bound;       // which of the `pushed` constraints are bound, as ?1..?n
  // With `duration_by_parts`: the duration's result column, which holds `end - start` for the
  // reader to finish (members/duration_parts.h). -1: SQL computes any duration.
  int duration_difference = -1;

  // Binds `pushed` values again (same plan, new values), then the rowid range if ranged.
  void rebind(std::span<const PushedConstraint> pushed, int64_t lo = 0, int64_t hi = 0);
};

// Builds, prepares and binds the query of `source` of member `m` selecting `used` columns with
// the `pushed` constraints that may be compared inside this member (none for a loosely typed
// member; none on the source's unpushable columns), restricted to the rowid range [lo, hi]
// when `ranged`. `db` is the member's connection. Errors name the table and the member.
// `duration_by_parts`: a duration the canonical SQL computes (canonical::duration_sql) is selected
// as its `end - start` (OpenMemberQuery::duration_difference).
OpenMemberQuery open_member_query(const canonical::CanonicalTable& t, const canonical::Member& m, const canonical::Profile* profile, sqlite3* db,
                                  int source, uint64_t used, std::span<const PushedConstraint> pushed, bool ranged,
                                  int64_t lo = 0, int64_t hi = 0, bool duration_by_parts = false);

std::string member_label(const canonical::Member& m);

}  // namespace rocpd::members
