#include "members/duration_parts.h"

namespace rocpd::members {

StoredValue DurationParts::by_sqlite(sqlite3_value* end, sqlite3_value* start, Affinity a) {
  // Bound values keep their type and bytes: the expression sees what it sees on the columns.
  if (!fallback_) fallback_ = prepare(db_, "SELECT max(?1 - ?2, 0)");
  sqlite3_stmt* st = fallback_.get();
  sqlite3_reset(st);
  sqlite3_bind_value(st, 1, end);
  sqlite3_bind_value(st, 2, start);
  const int rc = sqlite3_step(st);
  if (rc != SQLITE_ROW) throw Error(sqlite3_errmsg(db_), rc);
  return stored_value(st, 0, a);
}

}  // namespace rocpd::members
