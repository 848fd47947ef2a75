// Minimal RAII access to SQLite for writing traces (the generator is a standalone program; the
// extension's helpers in ext/common go through the loadable-extension API table instead).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

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
  void step();

  Db& db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace rocpd_gen
