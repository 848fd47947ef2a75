// What a format adapter hands the federation core for one source table of a member (rpd:
// rocpd_op; rocprofv3: kernel dispatches and memory copies, ...): an SQL expression per canonical
// column and the joins each expression needs, so a member query joins only what the user's
// columns and constraints use (members/member_sql.h builds it).
//
// Rows never vanish: every lookup (names, agents, events, API links) is a LEFT JOIN on a key the
// probe checked to be unique, so a dangling or NULL id gives NULL in that column, never a lost or
// duplicated row. Only the joins of `where` may decide which rows belong to the source.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/sqlite_util.h"

namespace rocpd::canonical {

struct SourceSql {
  std::string from;                  // "<schema>.<table> AS x"
  std::string base_table;            // "<schema>.<table>": its rowids number the source's rows
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
  // Expressions over the base table alone (no joins) whose values together determine the name
  // column (rocpd_ops' or rocpd_apis' name): rows with equal integer parts have equal names. The
  // summary engine (ext/summaries) and members/member_columns.h read these instead of the name's
  // text and resolve each distinct key once. Empty: the name is read as text.
  std::vector<std::string> name_key;
  // A column that a join computes can also be read from its link table directly (rpd: an op's
  // correlation id, the smallest api_id linked to it in rocpd_api_ops, is a grouped join per
  // member). `link_sql` selects (key, value) pairs; a row's value is the smallest integer value
  // linked to its `link_key` (an expression over the base table alone), NULL when none is.
  // Readers that take this path (ext/diagnosis/member_columns.h) fall back to `expr` when a key or
  // value is not an integer. -1: no such column.
  int link_column = -1;
  std::string link_sql, link_key;
};

// Helps an adapter declare a source: joins by name, expressions with the joins they use.
class SourceBuilder {
 public:
  SourceBuilder(std::string table, const std::string& alias, size_t columns);
  uint32_t mask(std::initializer_list<const char*> names) const;
  void join(const char* name, std::string clause, std::initializer_list<const char*> deps = {});
  void join(const char* name, std::string clause, uint32_t deps);
  void col(int c, std::string expr, std::initializer_list<const char*> joins = {});
  void col(int c, std::string expr, uint32_t joins);
  SourceSql& src() { return src_; }
  SourceSql take() { return std::move(src_); }

 private:
  SourceSql src_;
  std::vector<std::string> join_names_;
};

// SQL of the rules every adapter shares (docs/federation.md):
// a duration is end - start, 0 for a reversed op, NULL when a bound is NULL.
std::string duration_sql(const char* alias);
// The `end - start` inside a duration that duration_sql wrote, else nullopt: readers that apply
// the max(..., 0) themselves (members/duration_parts.h) select the difference instead.
std::optional<std::string> duration_difference(const std::string& expr);

}  // namespace rocpd::canonical
