// Maps each trace format onto the canonical tables: for every source table of a member (rpd:
// rocpd_op; rocpd: kernel dispatches and memory copies), an SQL expression per canonical column
// and the joins that expression needs, so a member query joins only what the user's columns and
// constraints use.
//
// Rows never vanish: every lookup (names, agents, events, API links) is a LEFT JOIN on a key the
// probe checked to be unique, so a dangling or NULL id gives NULL in that column, never a lost or
// duplicated row.
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "federation/canonical_tables.h"
#include "federation/member.h"

namespace rocpd::federation {

struct SourceSql {
  std::string from;                  // "<schema>.<table> AS x"
  std::vector<std::string> joins;    // join clauses in dependency order
  std::vector<uint32_t> join_deps;   // for each join, the bitmask of joins it needs itself
  std::vector<std::string> expr;     // per canonical column; "" = computed outside SQL (db, derived)
  std::vector<uint32_t> expr_joins;  // per canonical column, the joins its expression needs
  std::string rowid;                 // rowid of the base table: block ranges and the rows' rowids
  std::string where;                 // rows of the base table that belong to this source ("" = all)
  uint32_t where_joins = 0;          // the joins `where` needs
  // `column = '<value>'` rewritten as a cheaper predicate (rpd: kind as a list of opType ids).
  int predicate_column = -1;
  std::map<std::string, std::string> predicates;
  // Canonical columns (bit i) whose equality is a primary-key lookup in this source.
  uint64_t indexed = 0;
  // Canonical columns whose expression may yield values of another type than the column's
  // (json_extract): comparing them inside the member could disagree with SQLite's comparison of
  // the returned value, so constraints on them are never pushed.
  uint64_t unpushable = 0;
};

// `profile` may be null; rpd ops then resolve pid through the op -> API link. With `db` (the
// member's connection), rpd op kinds are resolved to literal opType id lists first, which makes
// `kind` and its constraints several times cheaper than a per-row string lookup.
std::vector<SourceSql> op_sources(const Member& m, const Profile* profile, sqlite3* db = nullptr);
std::vector<SourceSql> api_sources(const Member& m);
std::vector<SourceSql> sources_for(TableKind kind, const Member& m, const Profile* profile, sqlite3* db = nullptr);
// Fills m.op_shapes / m.api_shapes from the member's format (call once its info is set).
void shape_sources(Member& m);
inline const std::vector<SourceShape>& shapes_of(TableKind kind, const Member& m) {
  return kind == TableKind::Ops ? m.op_shapes : m.api_shapes;
}

// How a text comparison collates, as SQLite's built-in collations (others are never pushed).
enum class Collation : unsigned char { Binary, NoCase, RTrim };

struct PushedConstraint {
  int column;
  unsigned char op;  // SQLITE_INDEX_CONSTRAINT_*
  Collation collation = Collation::Binary;
  sqlite3_value* value = nullptr;  // bound as the constraint's parameter; owned by the caller
};

struct MemberQuery {
  std::string sql;
  std::vector<int> select_index;  // per canonical column: result column, or -1 if not selected
  int rowid_index = 0;            // result column of the base table's rowid (always selected)
  int rowid_param = 0;            // first of two parameters bounding the rowid (0: none)
};

// Builds the member query selecting `used` columns (bit i = canonical column i) and the rowid,
// filtered by `constraints` (bound as ?1..?n in order, see bind_constraints) and, if
// `rowid_range`, by rowid BETWEEN two params. Equality constraints on the source's predicate
// column use the source's predicates; a constraint so rewritten leaves its parameter unused.
MemberQuery build_member_query(const SourceSql& src, uint64_t used, std::span<const PushedConstraint> constraints,
                               bool rowid_range);
void bind_constraints(sqlite3_stmt* stmt, std::span<const PushedConstraint> constraints);

const char* constraint_sql_op(unsigned char op);  // nullptr when the op cannot be pushed
unsigned char constraint_op_from_sql(std::string_view sql);  // inverse of the above; 0 if unknown

// Whether a member query of `table` selects or filters on rocpd_ops.kind (then rpd kinds are
// worth resolving to opType id lists, see op_sources).
bool uses_kind(TableKind table, uint64_t used, std::span<const PushedConstraint> pushed);

}  // namespace rocpd::federation
