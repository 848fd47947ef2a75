// Column affinity (https://www.sqlite.org/datatype3.html): a virtual table must return each
// value as a plain table with the same declared column types would hold it, since SQLite compares
// a plain table's stored values, not the values as they were inserted. Members of hostile or
// loosely typed traces may hand us 2.0 for an INTEGER column or 5 for a TEXT one.
#pragma once
#include <string_view>

#include "common/sqlite_util.h"

namespace rocpd {

enum class Affinity { Integer, Text, Real, Numeric, Blob };

// SQLite's rules for the affinity of a declared type ("BIGINT" -> Integer, "VARCHAR(8)" -> Text,
// "" -> Blob, ...).
Affinity affinity_of(std::string_view declared_type);
// The keyword that declares exactly that affinity ("INTEGER", "TEXT", "REAL", "NUMERIC", "").
const char* affinity_keyword(Affinity a);
// Whether comparisons on a column of affinity `a` are numeric (Integer, Real, Numeric).
inline bool numeric_affinity(Affinity a) {
  return a == Affinity::Integer || a == Affinity::Real || a == Affinity::Numeric;
}
// Whether a column of affinity `a` stores an integer as it is (Text makes it text, Real a real).
inline bool keeps_integer(Affinity a) { return a != Affinity::Text && a != Affinity::Real; }

// One value as a column of some affinity stores it. Text and blob bytes point into the statement's
// current row; valid until the statement steps.
struct StoredValue {
  int type = SQLITE_NULL;
  sqlite3_int64 i = 0;
  double d = 0;
  const void* bytes = nullptr;
  int length = 0;
};

// Result column `col` of `stmt`'s current row as a column of affinity `a` stores it.
void stored_value_to(sqlite3_stmt* stmt, int col, Affinity a, StoredValue& out);
inline StoredValue stored_value(sqlite3_stmt* stmt, int col, Affinity a) {
  StoredValue v;
  stored_value_to(stmt, col, a, v);
  return v;
}
// Gives `v` to `ctx` as the result (text and blobs copied).
void result_stored(sqlite3_context* ctx, const StoredValue& v);

}  // namespace rocpd
