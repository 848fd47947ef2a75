// Minimal RAII access to SQLite for writing traces (the generator is a standalone program; the
// extension's helpers in ext/common go through the loadable-extension API table instead).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rocpd_gen {

class Db {
 public:
  // Creates a new database file; fails if it exists (the generator never overwrites).
  explicit Db(const std::filesystem::path& path);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void exec(std::string_view sql);
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(std::string_view what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Stmt {
 public:
  Stmt(Db& db, std::string_view sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // Binds the arguments to ?1, ?2, ... in order, steps once and resets.
  template <typename... Args>
  void run(const Args&... args) {
    int index = 1;
    (bind(index++, args), ...);
    step();
  }

 private:
  void bind(int index, int64_t value);
  void bind(int index, int value) { bind(index, static_cast<int64_t>(value)); }
  void bind(int index, uint32_t value) { bind(index, static_cast<int64_t>(value)); }
  void bind(int index, uint16_t value) { bind(index, static_cast<int64_t>(value)); }
  void bind(int index, uint64_t value) { bind(index, static_cast<int64_t>(value)); }
  void bind(int index, double value);
  void bind(int index, std::string_view value);
  void bind(int index, const std::string& value) { bind(index, std::string_view(value)); }
  void bind(int index, const char* value) { bind(index, std::string_view(value)); }
  void bind(int index, std::nullptr_t);
  void bind(int index, const std::optional<int64_t>& value) {
    if (value) bind(index, *value);
    else bind(index, nullptr);
  }
  void step();

  Db& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace rocpd_gen

namespace rocpd_gen {

// Inserts rows through one multi-row INSERT per `batch_rows` rows: far fewer statement
// executions than row-by-row inserts. Rows are buffered (text copied), so values need not
// outlive add(). finish() writes the remainder; a BatchInsert destroyed without finish() (an
// exception is unwinding) drops its pending rows, which is fine because the file is discarded.
class BatchInsert {
 public:
  // single_row_sql: "INSERT INTO t (a, b) VALUES (?, ?)" (exactly one VALUES tuple at the end).
  BatchInsert(Db& db, std::string_view single_row_sql, int batch_rows = 64);
  ~BatchInsert();
  BatchInsert(const BatchInsert&) = delete;
  BatchInsert& operator=(const BatchInsert&) = delete;

  template <typename... Args>
  void add(const Args&... args) {
    (push(args), ...);
    if (++pending_rows_ == batch_rows_) flush_batch();
  }
  void finish();

 private:
  struct Value {
    enum Kind : uint8_t { Int, Real, Text, Null } kind;
    int64_t i = 0;
    double d = 0;
    std::string s;
  };
  void push(int64_t v) { values_.push_back({Value::Int, v, 0, {}}); }
  void push(int v) { push(static_cast<int64_t>(v)); }
  void push(uint32_t v) { push(static_cast<int64_t>(v)); }
  void push(uint16_t v) { push(static_cast<int64_t>(v)); }
  void push(uint64_t v) { push(static_cast<int64_t>(v)); }
  void push(double v) { values_.push_back({Value::Real, 0, v, {}}); }
  void push(std::string_view v) { values_.push_back({Value::Text, 0, 0, std::string(v)}); }
  void push(const std::string& v) { push(std::string_view(v)); }
  void push(const char* v) { push(std::string_view(v)); }
  void push(std::nullptr_t) { values_.push_back({Value::Null, 0, 0, {}}); }
  void bind_rows(sqlite3_stmt* stmt, size_t first_value, size_t count);
  void flush_batch();

  Db& db_;
  int batch_rows_;
  int params_per_row_ = 0;
  int pending_rows_ = 0;
  sqlite3_stmt* batch_ = nullptr;
  sqlite3_stmt* single_ = nullptr;
  std::vector<Value> values_;
};

}  // namespace rocpd_gen
