// DurationParts (members/duration_parts.h) against SQLite itself: for every pair of stored values
// (integers at the edges of 64 bits, reals, numeric and other texts, blobs, NULL) in a plain table's
// "end" and start columns, the duration it makes of "end" - start is the one the canonical
// expression max("end" - start, 0) gives on that table, as the duration column stores it.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "members/duration_parts.h"
#include "real_sqlite_api.h"

const sqlite3_api_routines* sqlite3_api = nullptr;

namespace rocpd::members {
namespace {

std::string describe(const StoredValue& v) {
  switch (v.type) {
    case SQLITE_INTEGER: return "integer " + std::to_string(v.i);
    case SQLITE_FLOAT: return "real " + std::to_string(v.d);
    case SQLITE_TEXT:
    case SQLITE_BLOB:
      return (v.type == SQLITE_TEXT ? "text '" : "blob '") +
             std::string(static_cast<const char*>(v.bytes), static_cast<size_t>(v.length)) + "'";
    default: return "null";
  }
}

bool same(const StoredValue& a, const StoredValue& b) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case SQLITE_INTEGER: return a.i == b.i;
    case SQLITE_FLOAT: return std::memcmp(&a.d, &b.d, sizeof a.d) == 0;
    case SQLITE_TEXT:
    case SQLITE_BLOB: return a.length == b.length && std::memcmp(a.bytes, b.bytes, static_cast<size_t>(a.length)) == 0;
    default: return true;
  }
}

TEST(DurationParts, AgreesWithTheCanonicalExpressionOnEveryKindOfValue) {
  sqlite3_api = real_sqlite_api();
  ASSERT_NE(sqlite3_api, nullptr);
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &raw), SQLITE_OK);
  Db db(raw);
  // Untyped columns keep every value as given; an rpd member's INTEGER columns hold the same
  // kinds of values in hostile traces (text and reals that do not convert stay as they are).
  const std::vector<std::string> values = {
      "NULL", "0", "1", "-1", "5", "1000000007", "9223372036854775807", "-9223372036854775808",
      "9223372036854775806", "-9223372036854775807", "4611686018427387904", "-4611686018427387905",
      "2.5", "-2.5", "1e300", "-1e300", "9.3e18", "'12'", "'12.5'", "'abc'", "''", "' 7 '", "'9223372036854775807'",
      "x'00'", "x'3132'"};
  ASSERT_EQ(sqlite3_exec(db.get(), "CREATE TABLE o(start, \"end\")", nullptr, nullptr, nullptr), SQLITE_OK);
  for (const auto& e : values)
    for (const auto& s : values)
      ASSERT_EQ(sqlite3_exec(db.get(), ("INSERT INTO o VALUES (" + s + ", " + e + ")").c_str(), nullptr, nullptr, nullptr),
                SQLITE_OK);
  Stmt stmt = prepare(db.get(), "SELECT \"end\", start, max(o.\"end\" - o.start, 0), o.\"end\" - o.start FROM o");
  int rows = 0, fast = 0;
  for (const Affinity a : {Affinity::Integer, Affinity::Numeric, Affinity::Real, Affinity::Blob, Affinity::Text}) {
    DurationParts parts(db.get());
    while (sqlite3_step(stmt.get()) == SQLITE_ROW) {
      const StoredValue want = stored_value(stmt.get(), 2, a);
      const std::string want_text = describe(want);
      const StoredValue got = parts.of(sqlite3_column_value(stmt.get(), 3), a);
      EXPECT_TRUE(same(got, want)) << "end " << reinterpret_cast<const char*>(sqlite3_column_text(stmt.get(), 0))
                                   << ", start " << reinterpret_cast<const char*>(sqlite3_column_text(stmt.get(), 1))
                                   << ", affinity " << static_cast<int>(a) << ": got " << describe(got) << ", want "
                                   << want_text;
      fast += sqlite3_column_type(stmt.get(), 3) == SQLITE_INTEGER;
      ++rows;
    }
    sqlite3_reset(stmt.get());
  }
  EXPECT_EQ(rows, static_cast<int>(5 * values.size() * values.size()));
  EXPECT_GT(fast, 0);
}

}  // namespace
}  // namespace rocpd::members
