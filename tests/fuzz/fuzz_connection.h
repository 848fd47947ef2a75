// SQLite plumbing shared by the fuzz targets that go through SQL: an in-memory connection with
// the extension registered exactly as `.load` registers it, and statements run to completion with
// every column of every row read. Errors are results, not failures: a target fails by crashing,
// by a sanitizer report, or by an invariant it checks itself (fuzz_check).
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fuzz_check.h"

namespace rocpd::fuzz {

struct Blob {
  std::string bytes;
};
// A bound SQL value: NULL, INTEGER, REAL, TEXT (bytes as given, not validated) or BLOB.
using Value = std::variant<std::monostate, std::int64_t, double, std::string, Blob>;

// The value of column `i` of the current row of `stmt`.
Value column_value(sqlite3_stmt* stmt, int i);

class Connection {
 public:
  Connection();  // ":memory:" with the extension registered; aborts if that fails
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  sqlite3* get() const { return db_; }
  // Runs `sql` with `args` bound to ?1..?n through every row; returns SQLite's final result code.
  int run(std::string_view sql, const std::vector<Value>& args = {});
  // Runs `sql` and returns its first row (empty on error or no row).
  std::vector<Value> first_row(std::string_view sql, const std::vector<Value>& args = {});

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace rocpd::fuzz
