// Benchmark of the quantile aggregates (median/percentile): selection (std::nth_element, O(n))
// against a full sort, measured in the same run on the same data.
//  1. the algorithm alone on N int64 values (median and p95);
//  2. through SQLite with the extension loaded: median(x) over N rows against the plain-SQL way
//     (ORDER BY ... LIMIT/OFFSET, i.e. SQLite's sorter), and per-group medians (1000 groups)
//     against row_number() OVER (PARTITION BY g ORDER BY x).
// Usage: bench_stats [N] [path/to/librocpd_ext]   (default N = 10,000,000)
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "stats/percentile_select.h"

namespace {

double seconds(const std::function<void()>& body) {
  auto t0 = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Kernel-duration-like data: log-normal nanoseconds with many repeated values.
std::vector<std::int64_t> make_values(std::size_t n) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(9.0, 1.5);
  std::vector<std::int64_t> v(n);
  for (auto& x : v) x = static_cast<std::int64_t>(dist(rng));
  return v;
}

double sorted_percentile(std::vector<std::int64_t>& v, double p) {
  std::sort(v.begin(), v.end());
  const double h = static_cast<double>(v.size() - 1) * (p / 100.0);
  const auto k = static_cast<std::size_t>(h);
  if (k + 1 >= v.size()) return static_cast<double>(v.back());
  return static_cast<double>(v[k]) + (h - static_cast<double>(k)) * static_cast<double>(v[k + 1] - v[k]);
}

double as_double(rocpd::stats::Number n) {
  return std::visit([](auto x) { return static_cast<double>(x); }, n);
}

struct Row {
  std::string what;
  double baseline_s, ours_s;
  bool same;
};

void print(const std::vector<Row>& rows) {
  std::printf("%-58s %12s %12s %9s %s\n", "case", "baseline ms", "ours ms", "speedup", "results");
  for (const auto& r : rows) {
    std::printf("%-58s %12.1f %12.1f %8.2fx %s\n", r.what.c_str(), r.baseline_s * 1e3, r.ours_s * 1e3,
                r.baseline_s / r.ours_s, r.same ? "equal" : "DIFFER");
  }
}

void check(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE) {
    std::fprintf(stderr, "%s: %s\n", what, sqlite3_errmsg(db));
    std::exit(1);
  }
}

// Runs `sql` and returns the text of every row's columns joined (for comparing answers).
std::string query(sqlite3* db, const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  check(sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr), db, sql);
  std::string out;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6f|", sqlite3_column_double(stmt, i));
      out += buf;
    }
  }
  check(rc, db, sql);
  sqlite3_finalize(stmt);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  const char* ext = argc > 2 ? argv[2] : ROCPD_EXT_PATH;
  std::printf("data: %zu int64 values (log-normal ns durations, seed 42)\n", n);
  const auto values = make_values(n);
  std::vector<Row> rows;

  for (double p : {50.0, 95.0}) {
    auto a = values, b = values;
    double want = 0, got = 0;
    const double base = seconds([&] { want = sorted_percentile(a, p); });
    const double ours = seconds([&] { got = as_double(rocpd::stats::percentile_select(b, p)); });
    rows.push_back({"algorithm: p" + std::to_string(static_cast<int>(p)) + ", std::sort vs nth_element", base, ours,
                    std::fabs(want - got) <= 1e-9 * std::fabs(want)});
  }

  sqlite3* db = nullptr;
  check(sqlite3_open(":memory:", &db), db, "open");
  sqlite3_enable_load_extension(db, 1);
  char* err = nullptr;
  if (sqlite3_load_extension(db, ext, nullptr, &err) != SQLITE_OK) {
    std::fprintf(stderr, "loading %s: %s\n", ext, err ? err : "?");
    return 1;
  }
  const double load_s = seconds([&] {
    query(db, "CREATE TABLE t(g INTEGER, x INTEGER)");
    sqlite3_stmt* ins = nullptr;
    query(db, "BEGIN");
    check(sqlite3_prepare_v2(db, "INSERT INTO t VALUES (?, ?)", -1, &ins, nullptr), db, "insert");
    for (std::size_t i = 0; i < n; ++i) {
      sqlite3_bind_int64(ins, 1, static_cast<sqlite3_int64>(i % 1000));
      sqlite3_bind_int64(ins, 2, values[i]);
      sqlite3_step(ins);
      sqlite3_reset(ins);
    }
    sqlite3_finalize(ins);
    query(db, "COMMIT");
  });
  std::printf("SQLite table t(g, x): %zu rows, 1000 groups (filled in %.1f s)\n", n, load_s);

  {
    const std::string offset = std::to_string((n - 1) / 2);
    const std::string limit = n % 2 ? "1" : "2";
    const std::string baseline_sql = "SELECT avg(x) FROM (SELECT x FROM t ORDER BY x LIMIT " + limit + " OFFSET " + offset + ")";
    std::string want, got;
    const double base = seconds([&] { want = query(db, baseline_sql.c_str()); });
    const double ours = seconds([&] { got = query(db, "SELECT median(x) FROM t"); });
    rows.push_back({"SQL: median(x) vs ORDER BY x LIMIT/OFFSET", base, ours, want == got});
  }
  {
    const char* baseline_sql =
        "SELECT g, avg(x) FROM (SELECT g, x, row_number() OVER (PARTITION BY g ORDER BY x) AS rn, "
        "count(*) OVER (PARTITION BY g) AS c FROM t) WHERE rn IN ((c + 1) / 2, (c + 2) / 2) GROUP BY g ORDER BY g";
    std::string want, got;
    const double base = seconds([&] { want = query(db, baseline_sql); });
    const double ours = seconds([&] { got = query(db, "SELECT g, median(x) FROM t GROUP BY g ORDER BY g"); });
    rows.push_back({"SQL: 1000 groups, median(x) vs row_number() OVER", base, ours, want == got});
  }
  {
    // stddev: Welford in one pass against the two-pass plain-SQL formula.
    std::string want, got;
    const double base = seconds([&] {
      want = query(db, "SELECT round(sqrt(sum((x - m) * (x - m)) / (count(*) - 1)), 3) FROM t, (SELECT avg(x) AS m FROM t)");
    });
    const double ours = seconds([&] { got = query(db, "SELECT round(stddev(x), 3) FROM t"); });
    rows.push_back({"SQL: stddev(x) vs two-pass avg/sum SQL", base, ours, want == got});
  }
  sqlite3_close(db);
  print(rows);
  return 0;
}
