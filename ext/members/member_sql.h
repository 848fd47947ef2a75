// The member queries of the canonical tables: the sources a member's format adapter declares
// (ext/formats) turned into one SQL query per source, selecting the columns a statement uses and
// filtering by the constraints that may be compared inside the member.
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "canonical/canonical_tables.h"
#include "canonical/member.h"
#include "canonical/source_sql.h"

namespace rocpd::members {

// `profile` may be null (see FormatAdapter::needs_profile). With `db` (the member's connection), an
// adapter may resolve string ids to literals first (rpd op kinds), several times cheaper than a
// per-row string lookup.
std::vector<canonical::SourceSql> sources_for(canonical::TableKind kind, const canonical::Member& m, const canonical::Profile* profile, sqlite3* db = nullptr);
// Fills m.shapes and m.source_bits from the member's format (call once its info is set).
void shape_sources(canonical::Member& m);
inline const std::vector<canonical::SourceShape>& shapes_of(canonical::TableKind kind, const canonical::Member& m) {
  return m.shapes[static_cast<size_t>(kind)];
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
// Columns in `time_columns` (bit i) are shifted by `clock_offset` ns, in the selection and in the
// constraints alike. With `share_equal`, columns whose expressions are the same text (rpd's op id,
// link key and rowid are all `o.id`) share one result column, computed once per row: for readers
// that apply each column's affinity themselves (the result columns' affinities may then differ).
MemberQuery build_member_query(const canonical::SourceSql& src, uint64_t used, std::span<const PushedConstraint> constraints,
                               bool rowid_range, uint64_t time_columns = 0, int64_t clock_offset = 0,
                               bool share_equal = false);
// The source's own predicate that replaces constraint `con` (an equality on its predicate column
// with one of its texts, binary collation), or null. Every row the member query returns then holds
// that text in the column.
const std::string* source_predicate(const canonical::SourceSql& src, const PushedConstraint& con);
// The time columns of `table` as a bitmask.
uint64_t time_columns(const canonical::CanonicalTable& table);
void bind_constraints(sqlite3_stmt* stmt, std::span<const PushedConstraint> constraints);

const char* constraint_sql_op(unsigned char op);  // nullptr when the op cannot be pushed
unsigned char constraint_op_from_sql(std::string_view sql);  // inverse of the above; 0 if unknown

// Whether a member query of `table` selects or filters on rocpd_ops.kind, or filters on
// rocpd_apis.domain (then the rpd strings that decide them are worth resolving to id lists first:
// the opType ids of each kind, the string ids that make a call a marker).
bool wants_string_id_lists(canonical::TableKind table, uint64_t used, std::span<const PushedConstraint> pushed);

}  // namespace rocpd::members
