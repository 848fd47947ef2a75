#include "common/affinity.h"

#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>

namespace rocpd {

namespace {

bool contains(std::string_view upper, std::string_view what) { return upper.find(what) != std::string_view::npos; }

// SQLite's REAL -> INTEGER rule for INTEGER and NUMERIC affinity (sqlite3VdbeIntegerAffinity):
// a whole number strictly inside the int64 range becomes that integer.
bool real_as_integer(double r, sqlite3_int64& out) {
  if (!std::isfinite(r) || r != std::trunc(r)) return false;
  if (!(r > -9223372036854775808.0 && r < 9223372036854775808.0)) return false;
  const auto i = static_cast<sqlite3_int64>(r);
  if (i == INT64_MIN || i == INT64_MAX) return false;
  out = i;
  return true;
}

void set_real(StoredValue& v, double d, Affinity a) {
  if (a != Affinity::Real && real_as_integer(d, v.i)) {
    v.type = SQLITE_INTEGER;
  } else {
    v.type = SQLITE_FLOAT;
    v.d = d;
  }
}

void set_bytes(StoredValue& v, int type, const void* p, int n) {
  v.type = type;
  v.bytes = p;
  v.length = n;
}

}  // namespace

Affinity affinity_of(std::string_view declared) {
  std::string up(declared);
  for (auto& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (contains(up, "INT")) return Affinity::Integer;
  if (contains(up, "CHAR") || contains(up, "CLOB") || contains(up, "TEXT")) return Affinity::Text;
  if (up.empty() || contains(up, "BLOB")) return Affinity::Blob;
  if (contains(up, "REAL") || contains(up, "FLOA") || contains(up, "DOUB")) return Affinity::Real;
  return Affinity::Numeric;
}

const char* affinity_keyword(Affinity a) {
  switch (a) {
    case Affinity::Integer: return "INTEGER";
    case Affinity::Text: return "TEXT";
    case Affinity::Real: return "REAL";
    case Affinity::Numeric: return "NUMERIC";
    case Affinity::Blob: return "";
  }
  return "";
}

void stored_value_to(sqlite3_stmt* stmt, int col, Affinity a, StoredValue& v) {
  // One sqlite3_column_value, then the sqlite3_value_* readers: each sqlite3_column_* call would
  // enter the connection's mutex and check for allocation failures again (the readers of member
  // rows call this for every column of millions of rows). The value is used on the statement's
  // own thread before the next step, as the column readers would use it.
  sqlite3_value* val = sqlite3_column_value(stmt, col);
  v = StoredValue{};
  switch (sqlite3_value_type(val)) {
    case SQLITE_NULL: return;
    case SQLITE_INTEGER:
      if (a == Affinity::Text) {
        // SQLite's own integer -> text conversion, as storing into a TEXT column does.
        const auto* t = sqlite3_value_text(val);
        set_bytes(v, SQLITE_TEXT, t, sqlite3_value_bytes(val));
      } else if (a == Affinity::Real) {
        v.type = SQLITE_FLOAT;
        v.d = static_cast<double>(sqlite3_value_int64(val));
      } else {
        v.type = SQLITE_INTEGER;
        v.i = sqlite3_value_int64(val);
      }
      return;
    case SQLITE_FLOAT:
      if (a == Affinity::Text) {
        const auto* t = sqlite3_value_text(val);
        set_bytes(v, SQLITE_TEXT, t, sqlite3_value_bytes(val));
      } else if (a == Affinity::Blob) {
        v.type = SQLITE_FLOAT;
        v.d = sqlite3_value_double(val);
      } else {
        set_real(v, sqlite3_value_double(val), a);
      }
      return;
    case SQLITE_TEXT:
      if (numeric_affinity(a)) {
        // Text that reads as a number is stored as that number. SQLite applies the conversion
        // itself, so its exact rules hold: on the column's own value (a copy from
        // sqlite3_value_dup has no connection, which newer SQLite's conversion needs), whose
        // connection is the member's (one thread at a time) or the host's (held by this thread).
        const int t = sqlite3_value_numeric_type(val);
        if (t == SQLITE_INTEGER) {
          if (a == Affinity::Real) {
            v.type = SQLITE_FLOAT;
            v.d = static_cast<double>(sqlite3_value_int64(val));
          } else {
            v.type = SQLITE_INTEGER;
            v.i = sqlite3_value_int64(val);
          }
          return;
        }
        if (t == SQLITE_FLOAT) {
          set_real(v, sqlite3_value_double(val), a);
          return;
        }
      }
      {
        const auto* t = sqlite3_value_text(val);
        set_bytes(v, SQLITE_TEXT, t, sqlite3_value_bytes(val));
      }
      return;
    default: {
      const void* b = sqlite3_value_blob(val);
      set_bytes(v, SQLITE_BLOB, b, sqlite3_value_bytes(val));
      return;
    }
  }
}

void result_stored(sqlite3_context* ctx, const StoredValue& v) {
  switch (v.type) {
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, v.i); break;
    case SQLITE_FLOAT: sqlite3_result_double(ctx, v.d); break;
    case SQLITE_TEXT:
      sqlite3_result_text(ctx, static_cast<const char*>(v.bytes), v.length, SQLITE_TRANSIENT);
      break;
    case SQLITE_BLOB:
      // A zero-length blob has a null pointer: sqlite3_result_blob would make it NULL.
      if (v.length == 0) sqlite3_result_zeroblob(ctx, 0);
      else sqlite3_result_blob(ctx, v.bytes, v.length, SQLITE_TRANSIENT);
      break;
    default: sqlite3_result_null(ctx); break;
  }
}

}  // namespace rocpd
