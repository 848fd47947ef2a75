#include "members/member_sql.h"

#include <fmt/format.h>

#include <algorithm>

#include "formats/adapter.h"

namespace rocpd::members {

std::vector<canonical::SourceSql> sources_for(canonical::TableKind kind, const canonical::Member& m, const canonical::Profile* profile, sqlite3* db) {
  return m.info.adapter->sources(kind, m, profile, db);
}

void shape_sources(canonical::Member& m) {
  size_t most = 1;
  for (size_t k = 0; k < canonical::kTableKinds; ++k) {
    auto& shapes = m.shapes[k];
    shapes.clear();
    for (const auto& s : sources_for(static_cast<canonical::TableKind>(k), m, nullptr)) shapes.push_back({s.indexed, s.unpushable});
    most = std::max(most, shapes.size());
  }
  m.source_bits = 0;
  while ((size_t{1} << m.source_bits) < most) ++m.source_bits;
}

uint64_t time_columns(const canonical::CanonicalTable& table) {
  uint64_t mask = 0;
  for (size_t c = 0; c < table.columns.size(); ++c)
    if (table.columns[c].time) mask |= uint64_t{1} << c;
  return mask;
}

const char* constraint_sql_op(unsigned char op) {
  switch (op) {
    case SQLITE_INDEX_CONSTRAINT_EQ: return "=";
    case SQLITE_INDEX_CONSTRAINT_GT: return ">";
    case SQLITE_INDEX_CONSTRAINT_GE: return ">=";
    case SQLITE_INDEX_CONSTRAINT_LT: return "<";
    case SQLITE_INDEX_CONSTRAINT_LE: return "<=";
    case SQLITE_INDEX_CONSTRAINT_NE: return "<>";
    case SQLITE_INDEX_CONSTRAINT_LIKE: return "LIKE";
    case SQLITE_INDEX_CONSTRAINT_GLOB: return "GLOB";
    default: return nullptr;
  }
}

unsigned char constraint_op_from_sql(std::string_view sql) {
  for (unsigned char op : {SQLITE_INDEX_CONSTRAINT_EQ, SQLITE_INDEX_CONSTRAINT_GT, SQLITE_INDEX_CONSTRAINT_GE,
                           SQLITE_INDEX_CONSTRAINT_LT, SQLITE_INDEX_CONSTRAINT_LE, SQLITE_INDEX_CONSTRAINT_NE,
                           SQLITE_INDEX_CONSTRAINT_LIKE, SQLITE_INDEX_CONSTRAINT_GLOB})
    if (sql == constraint_sql_op(op)) return op;
  return 0;
}

bool wants_string_id_lists(canonical::TableKind table, uint64_t used, std::span<const PushedConstraint> pushed) {
  // An op's kind is computed from the lists whenever it is read; an API domain only tests them
  // when filtered on (domain = 'marker').
  if (table == canonical::TableKind::Ops && (used & (uint64_t{1} << canonical::kOpsKind))) return true;
  const int column = table == canonical::TableKind::Ops ? canonical::kOpsKind : table == canonical::TableKind::Apis ? canonical::kApisDomain : -1;
  for (const auto& c : pushed)
    if (c.column == column) return true;
  return false;
}

namespace {
const char* collate_clause(Collation c) {
  switch (c) {
    case Collation::NoCase: return " COLLATE NOCASE";
    case Collation::RTrim: return " COLLATE RTRIM";
    default: return "";
  }
}
}  // namespace

const std::string* source_predicate(const canonical::SourceSql& src, const PushedConstraint& con) {
  if (!con.value || con.column != src.predicate_column || con.op != SQLITE_INDEX_CONSTRAINT_EQ ||
      con.collation != Collation::Binary || sqlite3_value_type(con.value) != SQLITE_TEXT)
    return nullptr;
  const auto it = src.predicates.find(reinterpret_cast<const char*>(sqlite3_value_text(con.value)));
  return it == src.predicates.end() ? nullptr : &it->second;
}

MemberQuery build_member_query(const canonical::SourceSql& src, uint64_t used, std::span<const PushedConstraint> constraints,
                               bool rowid_range, uint64_t time_columns, int64_t clock_offset, bool share_equal) {
  MemberQuery q;
  const size_t ncol = src.expr.size();
  q.select_index.assign(ncol, -1);
  // A time column of a member on another host's clock reads shifted onto the job's clock.
  auto expr = [&](size_t c) -> std::string {
    if (clock_offset == 0 || !(time_columns & (uint64_t{1} << c))) return src.expr[c];
    return fmt::format("({} + {})", src.expr[c], clock_offset);
  };
  uint32_t joins = 0;
  std::string select = src.rowid;
  std::vector<std::string> selected{src.rowid};  // by result column
  for (size_t c = 0; c < ncol; ++c) {
    if (!(used & (uint64_t{1} << c)) || src.expr[c].empty()) continue;
    std::string e = expr(c);
    joins |= src.expr_joins[c];
    if (share_equal) {
      const auto same = std::find(selected.begin(), selected.end(), e);
      if (same != selected.end()) {
        q.select_index[c] = static_cast<int>(same - selected.begin());
        continue;
      }
    }
    select += ", ";
    select += e;
    q.select_index[c] = static_cast<int>(selected.size());
    selected.push_back(std::move(e));
  }
  std::string where = src.where.empty() ? "" : " WHERE (" + src.where + ")";
  joins |= src.where_joins;
  int param = 0;
  for (const auto& con : constraints) {
    ++param;
    if (src.expr[static_cast<size_t>(con.column)].empty()) continue;  // computed outside SQL
    where += where.empty() ? " WHERE " : " AND ";
    if (const std::string* predicate = source_predicate(src, con)) {
      where += "(" + *predicate + ")";
      continue;
    }
    where += fmt::format("{} {} ?{}{}", expr(static_cast<size_t>(con.column)), constraint_sql_op(con.op), param,
                         collate_clause(con.collation));
    joins |= src.expr_joins[static_cast<size_t>(con.column)];
  }
  if (rowid_range) {
    q.rowid_param = param + 1;
    where += where.empty() ? " WHERE " : " AND ";
    where += fmt::format("{} BETWEEN ?{} AND ?{}", src.rowid, param + 1, param + 2);
  }
  // Close the join set under dependencies (a join may need an earlier one).
  for (size_t j = src.joins.size(); j-- > 0;)
    if (joins & (1u << j)) joins |= src.join_deps[j];
  std::string sql = "SELECT " + select + " FROM " + src.from;
  for (size_t j = 0; j < src.joins.size(); ++j)
    if (joins & (1u << j)) sql += " " + src.joins[j];
  q.sql = sql + where;
  return q;
}

void bind_constraints(sqlite3_stmt* stmt, std::span<const PushedConstraint> constraints) {
  int param = 0;
  for (const auto& con : constraints) {
    ++param;
    if (con.value) sqlite3_bind_value(stmt, param, con.value);
  }
}

}  // namespace rocpd::members
