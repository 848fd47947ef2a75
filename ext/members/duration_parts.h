// A duration computed from its end and start values, exactly as the canonical SQL's
// max(end - start, 0) computes it (canonical::duration_sql), so that a reader can select the two
// columns instead of calling SQL's max() on every row: a full scan's prefetch threads spent a
// fifth of their time in that function call.
#pragma once
#include "common/affinity.h"

namespace rocpd::members {

class DurationParts {
 public:
  // `db`: the connection the values come from; one whose values are not two integers are computed
  // by SQLite there (text, reals, NULLs, an overflowing difference).
  explicit DurationParts(sqlite3* db) : db_(db) {}
  // The duration as a column of affinity `a` stores it (text and blob bytes valid until the next call).
  StoredValue of(sqlite3_value* end, sqlite3_value* start, Affinity a) {
    if (sqlite3_value_type(end) == SQLITE_INTEGER && sqlite3_value_type(start) == SQLITE_INTEGER &&
        a != Affinity::Text && a != Affinity::Real) {
      sqlite3_int64 d = 0;
      if (!__builtin_sub_overflow(sqlite3_value_int64(end), sqlite3_value_int64(start), &d)) {
        StoredValue v;
        v.type = SQLITE_INTEGER;
        v.i = d > 0 ? d : 0;
        return v;
      }
    }
    return by_sqlite(end, start, a);
  }

 private:
  StoredValue by_sqlite(sqlite3_value* end, sqlite3_value* start, Affinity a);

  sqlite3* db_;
  Stmt fallback_;
};

}  // namespace rocpd::members
