#include "analysis/query_members.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/natural_order.h"

namespace rocpd::analysis {

std::vector<MemberRef> query_members(sqlite3* conn, const std::optional<std::string>& db) {
  Stmt stmt = prepare(conn, db ? "SELECT db, rowid FROM temp.rocpd_members WHERE db = ?1 ORDER BY db"
                               : "SELECT db, rowid FROM temp.rocpd_members ORDER BY db",
                      "reading rocpd_members");
  if (db) sqlite3_bind_text(stmt.get(), 1, db->data(), static_cast<int>(db->size()), SQLITE_TRANSIENT);
  std::vector<MemberRef> out;
  while (step(stmt.get(), "reading rocpd_members"))
    out.push_back({std::string(column_text(stmt.get(), 0)), sqlite3_column_int64(stmt.get(), 1)});
  // Members in natural order (rank2 before rank10): the order of every per-member table's rows.
  std::stable_sort(out.begin(), out.end(), [](const MemberRef& a, const MemberRef& b) { return natural_less(a.db, b.db); });
  return out;
}

MemberSet open_members(sqlite3* conn, std::span<const MemberRef> refs, const char* table) {
  MemberSet out;
  if (refs.empty()) return out;
  out.registry = members::Registry::of(conn);
  if (!out.registry) throw Error(fmt::format("{}: no members", table));
  std::vector<std::string> names;
  names.reserve(refs.size());
  for (const auto& ref : refs) names.push_back(ref.db);
  out.members = out.registry->members_named(names, table);
  return out;
}

}  // namespace rocpd::analysis
