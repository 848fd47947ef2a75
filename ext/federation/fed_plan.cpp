#include "federation/fed_plan.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace rocpd::federation {

namespace {

int column_by_name(const canonical::CanonicalTable& t, std::string_view name) {
  for (size_t i = 0; i < t.columns.size(); ++i)
    if (name == t.columns[i].name) return static_cast<int>(i);
  return -1;
}

// The built-in collations we can ask a member to apply; false for any other.
bool known_collation(const char* name, members::Collation& out) {
  if (!name || sqlite3_stricmp(name, "BINARY") == 0) out = members::Collation::Binary;
  else if (sqlite3_stricmp(name, "NOCASE") == 0) out = members::Collation::NoCase;
  else if (sqlite3_stricmp(name, "RTRIM") == 0) out = members::Collation::RTrim;
  else return false;
  return true;
}

// Columns whose equality is (almost always) a key lookup in the members: their primary key, or
// a lookup the cursor's index answers after a few repeats.
bool key_column(const canonical::CanonicalTable& t, int col) {
  const std::string_view name = t.columns[static_cast<size_t>(col)].name;
  return name == "correlation_id" || name == "op_id" || name == "api_id";
}

// "group=<column>[ desc],...;" when SQLite plans a GROUP BY or DISTINCT whose terms are all plain
// columns (their default collation: SQLite hands over no other) that the scan can deliver grouped
// (grouped_rows.h), else "". Not for a key lookup (a handful of rows: SQLite sorts them cheaply)
// nor for the derived column (computed per row on demand).
std::string grouping(const canonical::CanonicalTable& t, sqlite3_index_info* info) {
  if (info->nOrderBy <= 0) return {};
  // ROCPD_GROUPED_SCANS=0 plans no grouped scan: the ungrouped plan bench/bench_grouped.py compares with.
  if (const char* off = std::getenv("ROCPD_GROUPED_SCANS"); off && std::strcmp(off, "0") == 0) return {};
  const int distinct = sqlite3_vtab_distinct(info);
  if (distinct < 1 || distinct > 3) return {};
  std::string out = "group=";
  for (int i = 0; i < info->nOrderBy; ++i) {
    const int col = info->aOrderBy[i].iColumn;
    if (col < 0 || col >= static_cast<int>(t.columns.size()) || col == t.derived_col) return {};
    if (i > 0) out += ',';
    out += t.columns[static_cast<size_t>(col)].name;
    if (info->aOrderBy[i].desc) out += " desc";
  }
  return out + ';';
}

}  // namespace

void plan_best_index(const canonical::CanonicalTable& t, sqlite3_index_info* info, const PlanEstimates& est) {
  std::string cons;
  int argv = 0;
  double members = est.members;
  double rows = est.members * est.rows_per_member;
  bool key_lookup = false;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || c.iColumn < 0 || c.iColumn == t.derived_col) continue;
    const char* op = members::constraint_sql_op(c.op);
    if (!op) continue;
    const auto& column = t.columns[static_cast<size_t>(c.iColumn)];
    members::Collation coll = members::Collation::Binary;
    // Text comparisons under a collation the members cannot apply stay with SQLite alone.
    if (column.text && !known_collation(sqlite3_vtab_collation(info, i), coll)) continue;
    // `col IN (...)` on a column the members hold no index for stays with SQLite: value by value,
    // each value would be a scan of every member, and the rows would come in the list's order
    // instead of the rowid order a plain table gives them in.
    if (c.iColumn != t.db_col && c.op == SQLITE_INDEX_CONSTRAINT_EQ && !key_column(t, c.iColumn) &&
        sqlite3_vtab_in(info, i, -1))
      continue;
    info->aConstraintUsage[i].argvIndex = ++argv;
    const bool db_eq = c.iColumn == t.db_col && c.op == SQLITE_INDEX_CONSTRAINT_EQ;
    info->aConstraintUsage[i].omit = db_eq && coll == members::Collation::Binary ? 1 : 0;
    // `db IN (...)`: every value at once, so that one scan reads the members it names in parallel
    // (value by value, each filter would read one member on one thread).
    const bool in_list = db_eq && coll == members::Collation::Binary && sqlite3_vtab_in(info, i, -1);
    if (in_list) sqlite3_vtab_in(info, i, 1);
    info->idxNum |= 1 << c.iColumn;
    if (!cons.empty()) cons += ',';
    cons += column.name;
    if (std::isalpha(static_cast<unsigned char>(op[0]))) cons += ' ';  // "name LIKE"
    cons += op;
    if (coll == members::Collation::NoCase) cons += "/n";
    if (coll == members::Collation::RTrim) cons += "/r";
    if (in_list) cons += "/i";
    if (db_eq) {
      if (members > 1) {
        rows /= members;
        members = 1;
      }
    } else if (c.op == SQLITE_INDEX_CONSTRAINT_EQ && !column.text && key_column(t, c.iColumn)) {
      key_lookup = true;
    } else if (c.iColumn == t.start_col || c.iColumn == t.end_col) {
      rows /= 4;
    } else if (c.op == SQLITE_INDEX_CONSTRAINT_EQ) {
      rows /= 10;
    } else {
      rows /= 1.5;
    }
  }
  uint64_t used = info->colUsed;
  // The derived column (demangled) is computed from its source column.
  if (t.derived_col >= 0 && (used & (uint64_t{1} << t.derived_col))) used |= uint64_t{1} << t.derived_from;
  const std::string group = key_lookup ? std::string() : grouping(t, info);
  if (!group.empty()) info->orderByConsumed = 1;
  info->idxStr = sqlite3_mprintf("used=%llx;%s%s", static_cast<unsigned long long>(used), group.c_str(), cons.c_str());
  if (!info->idxStr) throw std::bad_alloc();
  info->needToFreeIdxStr = 1;
  if (key_lookup) {
    // One member statement step (or one hash probe) per member: the inner side of a join.
    info->estimatedRows = static_cast<sqlite3_int64>(members < 1 ? 1 : members);
    info->estimatedCost = 10.0 * members;
  } else {
    info->estimatedRows = static_cast<sqlite3_int64>(rows < 1 ? 1 : rows);
    info->estimatedCost = rows + 1000.0 * members;
  }
}

Plan parse_plan(const canonical::CanonicalTable& t, const char* idx_str) {
  Plan plan;
  std::string_view s = idx_str ? idx_str : "";
  if (s.substr(0, 5) != "used=") throw Error("rocpd: malformed plan string");
  const size_t semi = s.find(';');
  plan.used = std::stoull(std::string(s.substr(5, semi - 5)), nullptr, 16);
  if (semi == std::string_view::npos) return plan;
  std::string_view rest = s.substr(semi + 1);
  if (rest.substr(0, 6) == "group=") {
    const size_t end = rest.find(';');
    if (end == std::string_view::npos) throw Error("rocpd: malformed plan string");
    std::string_view terms = rest.substr(6, end - 6);
    rest = rest.substr(end + 1);
    while (!terms.empty()) {
      const size_t comma = terms.find(',');
      std::string_view item = terms.substr(0, comma);
      GroupTerm term;
      if (item.size() > 5 && item.substr(item.size() - 5) == " desc") {
        term.desc = true;
        item.remove_suffix(5);
      }
      term.column = column_by_name(t, item);
      if (term.column < 0) throw Error("rocpd: malformed plan string");
      plan.group.push_back(term);
      if (comma == std::string_view::npos) break;
      terms = terms.substr(comma + 1);
    }
  }
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    members::Collation coll = members::Collation::Binary;
    bool in_list = false;
    if (item.size() > 2 && item[item.size() - 2] == '/') {
      if (item.back() == 'i') in_list = true;
      else coll = item.back() == 'n' ? members::Collation::NoCase : members::Collation::RTrim;
      item.remove_suffix(2);
    }
    size_t n = 0;
    // Column names are lower case; the operator starts at the first other character.
    while (n < item.size() && (std::islower(static_cast<unsigned char>(item[n])) || item[n] == '_')) ++n;
    const int col = column_by_name(t, item.substr(0, n));
    std::string_view op_text = item.substr(n);
    if (!op_text.empty() && op_text[0] == ' ') op_text.remove_prefix(1);
    const unsigned char op = members::constraint_op_from_sql(op_text);
    if (col < 0 || op == 0) throw Error("rocpd: malformed plan string");
    plan.constraints.push_back({col, op, coll, in_list});
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return plan;
}

}  // namespace rocpd::federation
