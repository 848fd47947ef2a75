// Fuzz target: bytes as arguments of every pure SQL function of the extension, through a real
// in-memory SQLite connection with the extension registered.
//
// Input: one byte picks the function (and its arity), then rows of arguments follow until the
// bytes run out (at most kMaxRows). Each argument is a tagged value: NULL, small or full int64,
// int64 edge values, raw doubles (NaN bits included: SQLite binds them as NULL), double edge
// values (+-inf as 1e999 gives, 1e-300, subnormals, -0.0), text and blobs of any bytes, numeric
// text, and long repeated text (names up to 100 kB). Scalar functions run once per row; aggregates
// run over the rows as a whole, per group, and as window functions over sliding, growing and
// shrinking frames (xInverse). Checks, besides crashes, hangs and leaks: median/percentile of an
// all-INTEGER group lies between the group's minimum and maximum.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "fuzz_connection.h"
#include "fuzz_input.h"

namespace {
using rocpd::fuzz::Blob;
using rocpd::fuzz::ByteReader;
using rocpd::fuzz::Connection;
using rocpd::fuzz::fuzz_check;
using rocpd::fuzz::Value;

struct Function {
  const char* name;
  int args;
  bool aggregate;
};
constexpr Function kFunctions[] = {
    {"demangle", 1, false},      {"kernel_short_name", 1, false}, {"time_bucket", 2, false},
    {"time_bucket", 3, false},   {"median", 1, true},             {"percentile", 2, true},
    {"stddev", 1, true},         {"histogram", 2, true},          {"histogram", 3, true},
    {"histogram_log2", 1, true}, {"interval_union", 2, true},     {"interval_union", 4, true},
    {"rocpd_values_percentile", 2, false},
};
constexpr std::size_t kMaxRows = 64;

Value read_value(ByteReader& in) {
  constexpr std::int64_t kInts[] = {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max(),
                                    0, -1, 1, 100, 101, (std::int64_t{1} << 53) + 1, -(std::int64_t{1} << 62),
                                    1'700'000'000'000'000'000};
  constexpr double kReals[] = {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                               1e-300, 5e-324, -0.0, 0.5, 50.0, 99.99999999999999, 100.0, 1e308, -1e308,
                               9223372036854775808.0, 1.7e18, 2.5};
  switch (in.byte() % 12) {
    case 0:
      return std::monostate{};
    case 1:
      return static_cast<std::int64_t>(static_cast<std::int8_t>(in.byte()));
    case 2:
      return static_cast<std::int64_t>(in.u64());
    case 3:
      return kInts[in.byte() % std::size(kInts)];
    case 4:
      return in.f64();
    case 5:
      return kReals[in.byte() % std::size(kReals)];
    case 6:
      return in.bytes();
    case 7:
      return Blob{in.bytes()};
    case 8: {
      static const char* const kNumericText[] = {"12", " 14 ", "1e999", "-1e999", "0x10", "1.5", "nan", "",
                                                 "9223372036854775808", "-9223372036854775809", "50", "1e-300"};
      return std::string(kNumericText[in.byte() % std::size(kNumericText)]);
    }
    case 9: {
      // A long name: a short pattern repeated, with a prefix such as "_Z1f" (deep nesting).
      std::string prefix = in.bytes(8);
      const std::string pattern = in.bytes(4);
      const std::size_t repeat = (std::size_t{in.byte()} << 8 | in.byte()) % 100'000;
      std::string out = prefix;
      if (!pattern.empty()) {
        while (out.size() < prefix.size() + repeat) out += pattern;
      }
      return out + in.bytes(8);
    }
    case 10:
      return static_cast<double>(static_cast<std::int64_t>(in.u64()));
    default:
      return static_cast<std::int64_t>(in.byte()) * 1000;
  }
}

std::string call(const Function& f, const char* cols[]) {
  std::string sql = std::string(f.name) + "(";
  for (int i = 0; i < f.args; ++i) sql += std::string(i ? ", " : "") + cols[i];
  return sql + ")";
}

// Between min and max as numbers (long double holds every int64 exactly).
void check_quantile_bounds(Connection& db, const std::string& expr) {
  auto row = db.first_row("SELECT " + expr +
                          ", min(a), max(a), count(a), sum(typeof(a) = 'integer') FROM t");
  if (row.size() != 5) return;
  const auto* count = std::get_if<std::int64_t>(&row[3]);
  const auto* ints = std::get_if<std::int64_t>(&row[4]);
  if (!count || !ints || *count == 0 || *ints != *count) return;  // not an all-INTEGER group
  const auto* lo = std::get_if<std::int64_t>(&row[1]);
  const auto* hi = std::get_if<std::int64_t>(&row[2]);
  if (!lo || !hi) return;
  long double v;
  if (const auto* i = std::get_if<std::int64_t>(&row[0])) {
    v = static_cast<long double>(*i);
  } else if (const auto* d = std::get_if<double>(&row[0])) {
    v = *d;
    // A REAL rounds to the nearest double: allow one ulp at the ends.
    const long double slack = std::ldexp(1.0L, std::ilogb(std::fabs(*d) + 1) - 52);
    fuzz_check(v >= static_cast<long double>(*lo) - slack && v <= static_cast<long double>(*hi) + slack,
               "median/percentile of integers outside [min, max]");
    return;
  } else {
    return;  // an error (p out of range, text): nothing to check
  }
  fuzz_check(v >= static_cast<long double>(*lo) && v <= static_cast<long double>(*hi),
             "median/percentile of integers outside [min, max]");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ByteReader in(data, size);
  const Function& f = kFunctions[in.byte() % std::size(kFunctions)];
  std::vector<std::vector<Value>> rows;
  while (!in.empty() && rows.size() < kMaxRows) {
    std::vector<Value> row;
    for (int i = 0; i < f.args; ++i) row.push_back(read_value(in));
    rows.push_back(std::move(row));
  }
  // One connection for the process: registering the extension (its TEMP views) costs more than a
  // run. The functions are pure, so only the table of the previous run is left over, and dropped.
  static Connection db;
  db.run("DROP TABLE IF EXISTS t");
  static const char* kCols[] = {"a", "b", "c", "d"};
  if (!f.aggregate) {
    static const char* kParams[] = {"?1", "?2", "?3", "?4"};
    const std::string sql = "SELECT " + call(f, kParams);
    for (const auto& row : rows) db.run(sql, row);
    return 0;
  }
  // No declared types: the values keep the types they were bound with.
  db.run("CREATE TABLE t(i INTEGER PRIMARY KEY, a, b, c, d)");
  for (const auto& row : rows) {
    std::vector<Value> padded = row;
    padded.resize(4);
    db.run("INSERT INTO t(a, b, c, d) VALUES (?1, ?2, ?3, ?4)", padded);
  }
  const std::string expr = call(f, kCols);
  db.run("SELECT " + expr + " FROM t");
  db.run("SELECT i % 3, " + expr + " FROM t GROUP BY i % 3");
  db.run("SELECT " + expr + " OVER (ORDER BY i ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM t");
  db.run("SELECT " + expr + " OVER (ORDER BY i) FROM t");
  db.run("SELECT " + expr + " OVER (ORDER BY i ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM t");
  db.run("SELECT " + expr + " OVER (PARTITION BY i % 2 ORDER BY a GROUPS BETWEEN 2 PRECEDING AND 1 PRECEDING) FROM t");
  if (std::string_view(f.name) == "median" || std::string_view(f.name) == "percentile") {
    check_quantile_bounds(db, expr);
  }
  return 0;
}
