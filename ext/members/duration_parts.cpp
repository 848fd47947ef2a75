#include "members/duration_parts.h"

namespace rocpd::members {

StoredValue DurationParts::by_sqlite(sqlite3_value* difference, Affinity a) {
  // A bound value keeps its type and bytes: max() sees what it sees in the member query.
  if (!fallback_) fallback_ = prepare(db_, "SELECT max(?1, 0)");
  sqlite3_stmt* st = fallback_.get();
  sqlite3_reset(st);
  sqlite3_bind_value(st, 1, difference);
  const int rc = sqlite3_step(st);
  if (rc != SQLITE_ROW) throw Error(sqlite3_errmsg(db_), rc);
  return stored_value(st, 0, a);
}

}  // namespace rocpd::members
