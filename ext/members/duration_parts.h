// A duration computed from `end - start` exactly as the canonical SQL's max(end - start, 0)
// computes it (canonical::duration_sql), so that a reader can select the difference and skip
// SQL's max() on every row: a full scan's prefetch threads spent a fifth of their time in that
// function call.
#pragma once
#include "common/affinity.h"

namespace rocpd::members {

class DurationParts {
 public:
  // `db`: the connection `difference` comes from; one that is not an integer (a real, NULL) is
  // given to SQLite's own max() there.
  explicit DurationParts(sqlite3* db) : db_(db) {}
  // The duration of `difference` (end - start as SQL computed it) as a column of affinity `a`
  // stores it (text and blob bytes valid until the next call).
  StoredValue of(sqlite3_value* difference, Affinity a) {
    if (sqlite3_value_type(difference) == SQLITE_INTEGER && keeps_integer(a)) {
      const sqlite3_int64 d = sqlite3_value_int64(difference);
      StoredValue v;
      v.type = SQLITE_INTEGER;
      v.i = d > 0 ? d : 0;
      return v;
    }
    return by_sqlite(difference, a);
  }

 private:
  StoredValue by_sqlite(sqlite3_value* difference, Affinity a);

  sqlite3* db_;
  Stmt fallback_;
};

}  // namespace rocpd::members
