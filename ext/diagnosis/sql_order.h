// SQLite's order of stored values (ORDER BY, GROUP BY on a column with BINARY collation), for
// tables that sort rows the way the SQL they replace did: NULL first, then numbers by value
// (integers and reals compared exactly), then text by bytes, then blobs by bytes.
#pragma once
#include <cstring>

#include "common/affinity.h"

namespace rocpd::diagnosis {

inline int sql_class(int type) {
  switch (type) {
    case SQLITE_NULL: return 0;
    case SQLITE_INTEGER:
    case SQLITE_FLOAT: return 1;
    case SQLITE_TEXT: return 2;
    default: return 3;
  }
}

// < 0, 0, > 0 as `a` sorts before, with, after `b`.
inline int sql_compare(const StoredValue& a, const StoredValue& b) {
  const int ca = sql_class(a.type), cb = sql_class(b.type);
  if (ca != cb) return ca < cb ? -1 : 1;
  if (ca == 0) return 0;
  if (ca == 1) {
    // As SQLite's sqlite3IntFloatCompare: an 80-bit long double holds every int64 exactly.
    const long double x = a.type == SQLITE_INTEGER ? static_cast<long double>(a.i) : static_cast<long double>(a.d);
    const long double y = b.type == SQLITE_INTEGER ? static_cast<long double>(b.i) : static_cast<long double>(b.d);
    if (a.type == SQLITE_INTEGER && b.type == SQLITE_INTEGER) return a.i < b.i ? -1 : a.i > b.i;
    return x < y ? -1 : x > y;
  }
  const int shorter = a.length < b.length ? a.length : b.length;
  if (shorter > 0)
    if (const int n = std::memcmp(a.bytes, b.bytes, static_cast<size_t>(shorter))) return n < 0 ? -1 : 1;
  return a.length < b.length ? -1 : a.length > b.length;
}

}  // namespace rocpd::diagnosis
