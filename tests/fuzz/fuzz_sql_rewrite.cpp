// Fuzz target: bytes as the text of a query given to rocpd_sql_rewrite (docs/pushdown.md), on a
// connection with two small rpd members open (NULL gpus and names, untimed ops, an end before its
// start, a time stored as text, which sends rocpd_op_groups to its SQL fallback; API calls with a
// NULL pid and tid, roctx markers, a real start for rocpd_api_groups' fallback). Besides crashes,
// hangs and leaks, the check: whenever the rewrite is pushed, the query as written and its rewrite
// both fail or both succeed, with the same column names and the same rows (as multisets; reals to
// 1e-9 relative, as stddev may differ in the last bits; only the row count under a LIMIT, where
// SQL leaves the choice among ties open).
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "fuzz_connection.h"
#include "fuzz_files.h"

namespace {
using rocpd::fuzz::Blob;
using rocpd::fuzz::Connection;
using rocpd::fuzz::fuzz_check;
using rocpd::fuzz::Value;

constexpr std::size_t kMaxSql = 4096;

void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
  if (rc != SQLITE_OK) std::fprintf(stderr, "%s: %s\n", sql, err ? err : "?");
  sqlite3_free(err);
  fuzz_check(rc == SQLITE_OK, "setting up a member failed");
}

// A minimal rpd v3 member (the layout tests/federation/tiny_traces.py writes) holding `ops`.
std::string make_member(const char* name, const char* ops) {
  const std::string path = rocpd::fuzz::write_input_file(name, nullptr, 0);
  sqlite3* db = nullptr;
  fuzz_check(sqlite3_open(path.c_str(), &db) == SQLITE_OK, "cannot create a member");
  exec(db,
       "CREATE TABLE rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT, value TEXT);"
       "CREATE TABLE rocpd_string(id INTEGER PRIMARY KEY, string TEXT);"
       "CREATE TABLE rocpd_ustring(id INTEGER PRIMARY KEY, string TEXT);"
       "CREATE TABLE rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, start INTEGER, \"end\" INTEGER,"
       " apiName_id INTEGER, args_id INTEGER, category_id INTEGER, domain_id INTEGER);"
       "CREATE TABLE rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER, queueId INTEGER, sequenceId INTEGER,"
       " start INTEGER, \"end\" INTEGER, description_id INTEGER, opType_id INTEGER);"
       "CREATE TABLE rocpd_api_ops(id INTEGER PRIMARY KEY, api_id INTEGER, op_id INTEGER);"
       "INSERT INTO rocpd_metadata(tag, value) VALUES ('schema_version', '3');"
       "INSERT INTO rocpd_string VALUES (1, ''), (2, 'KernelExecution'), (3, 'CopyHostToDevice'),"
       " (4, 'FillBuffer'), (5, 'kernel_a'), (6, 'Kernel_B'), (7, 'gemm_f16'), (8, NULL), (9, 'hipLaunchKernel'),"
       " (10, 'hipMemcpy'), (11, 'UserMarker');"
       "INSERT INTO rocpd_ustring VALUES (1, ''), (2, 'step 1'), (3, 'step 2');");
  exec(db, ops);
  sqlite3_close(db);
  return path;
}

struct Result {
  bool ok = false;
  std::vector<std::string> names;
  std::vector<std::vector<Value>> rows;
};

Result run(sqlite3* db, const std::string& sql) {
  Result r;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK || !stmt) {
    sqlite3_finalize(stmt);
    return r;
  }
  for (int c = 0; c < sqlite3_column_count(stmt); ++c) r.names.emplace_back(sqlite3_column_name(stmt, c));
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW && r.rows.size() < 100000) {
    std::vector<Value> row;
    for (int c = 0; c < sqlite3_column_count(stmt); ++c) row.push_back(rocpd::fuzz::column_value(stmt, c));
    r.rows.push_back(std::move(row));
  }
  sqlite3_finalize(stmt);
  r.ok = rc == SQLITE_DONE;
  return r;
}

// The integer or the bytes of a value that is not real, for comparing (Blob has no operators).
std::pair<std::int64_t, std::string_view> scalar(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return {*i, {}};
  if (const auto* t = std::get_if<std::string>(&v)) return {0, *t};
  if (const auto* b = std::get_if<Blob>(&v)) return {0, b->bytes};
  return {0, {}};
}

bool same_value(const Value& a, const Value& b) {
  if (a.index() != b.index()) return false;
  if (const auto* x = std::get_if<double>(&a)) {
    const double y = std::get<double>(b);
    if (std::isnan(*x) || std::isnan(y)) return std::isnan(*x) && std::isnan(y);
    return *x == y || std::fabs(*x - y) <= 1e-9 * std::max(std::fabs(*x), std::fabs(y));
  }
  return scalar(a) == scalar(b);
}

// A total order on rows that treats close reals as equal only when they are equal: sorting both
// sides puts rows differing by a last bit next to each other in the same place.
bool row_less(const std::vector<Value>& a, const std::vector<Value>& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].index() != b[i].index()) return a[i].index() < b[i].index();
    if (std::holds_alternative<double>(a[i])) {
      const double x = std::get<double>(a[i]), y = std::get<double>(b[i]);
      if (same_value(a[i], b[i])) continue;
      return x < y;
    }
    if (scalar(a[i]) != scalar(b[i])) return scalar(a[i]) < scalar(b[i]);
  }
  return a.size() < b.size();
}

std::string first_text(Connection& con, const char* sql, const std::string& arg) {
  const std::vector<Value> row = con.first_row(sql, {arg});
  if (row.empty()) return {};
  const auto* t = std::get_if<std::string>(&row[0]);
  return t ? *t : std::string();
}

Connection& connection() {
  static Connection* con = [] {
    const std::string a = make_member(
        "rank0.rpd",
        "INSERT INTO rocpd_op(gpuId, start, \"end\", description_id, opType_id) VALUES"
        " (0, 100, 250, 5, 2), (0, 300, 420, 5, 2), (1, 150, 900, 6, 2), (1, 1000, 1003, 7, 2),"
        " (NULL, 50, 75, 1, 3), (0, 500, 480, 5, 2), (2, NULL, 700, 7, 2), (2, 800, NULL, 8, 4),"
        " (1, 2000, 2600, 8, 3), (0, 3000, 3010, 7, 2);"
        "INSERT INTO rocpd_api(pid, tid, start, \"end\", apiName_id, args_id) VALUES"
        " (1, 1, 90, 95, 9, 1), (1, 2, 280, 300, 9, 1), (1, 1, 400, 460, 10, 1), (1, 2, 50, NULL, 10, 1),"
        " (1, 3, 10, 900, 11, 2), (NULL, 3, 5, 9, 9, 1), (1, 3, 950, 990, 11, 3);");
    const std::string b = make_member(
        "rank1.rpd",
        "INSERT INTO rocpd_op(gpuId, start, \"end\", description_id, opType_id) VALUES"
        " (0, 10, 20, 5, 2), (0, 30, 90, 7, 2), (3, 40, 41, 6, 3), (NULL, NULL, NULL, 8, NULL),"
        " (1, '120', 500, 5, 2), (1, 600, 601, 6, 4);"
        "INSERT INTO rocpd_api(pid, tid, start, \"end\", apiName_id, args_id) VALUES"
        " (7, 7, 5, 8, 9, 1), (7, 8, 12.5, 30, 10, 1), (7, NULL, 40, 44, 11, 2);");
    auto* c = new Connection();
    const std::string dir = a.substr(0, a.rfind('/'));
    fuzz_check(!c->first_row("SELECT rocpd_open(?1)", {dir + "/rank*.rpd"}).empty(), "rocpd_open failed");
    sqlite3_limit(c->get(), SQLITE_LIMIT_LENGTH, 1 << 20);
    return c;
  }();
  return *con;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > kMaxSql) return 0;
  Connection& con = connection();
  const std::string sql(reinterpret_cast<const char*>(data), size);
  if (first_text(con, "SELECT rocpd_sql_pushdown(?1)", sql).rfind("pushed: ", 0) != 0) return 0;
  const std::string rewrite = first_text(con, "SELECT rocpd_sql_rewrite(?1)", sql);
  fuzz_check(!rewrite.empty() && rewrite != sql, "pushed, but rocpd_sql_rewrite returned the query");
  // Runaway expressions (printf widths, replace) stop at the length limit on both sides.
  Result written = run(con.get(), sql), pushed = run(con.get(), rewrite);
  fuzz_check(written.ok == pushed.ok, "the query as written and its rewrite differ in failing");
  if (!written.ok) return 0;
  fuzz_check(written.names == pushed.names, "the rewrite's column names differ");
  fuzz_check(written.rows.size() == pushed.rows.size(), "the rewrite returns another number of rows");
  std::string upper(sql);
  for (char& ch : upper) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  if (upper.find("LIMIT") != std::string::npos) return 0;
  if (upper.find("GROUP_CONCAT") != std::string::npos) {
    // group_concat's order is open (the rewrite lists durations ascending): texts compared as the
    // multisets of their bytes.
    for (auto* rows : {&written.rows, &pushed.rows})
      for (auto& row : *rows)
        for (Value& v : row)
          if (auto* t = std::get_if<std::string>(&v)) std::sort(t->begin(), t->end());
  }
  std::sort(written.rows.begin(), written.rows.end(), row_less);
  std::sort(pushed.rows.begin(), pushed.rows.end(), row_less);
  for (std::size_t r = 0; r < written.rows.size(); ++r) {
    fuzz_check(written.rows[r].size() == pushed.rows[r].size(), "rows of different widths");
    for (std::size_t c = 0; c < written.rows[r].size(); ++c)
      fuzz_check(same_value(written.rows[r][c], pushed.rows[r][c]), "the rewrite answers otherwise");
  }
  return 0;
}
