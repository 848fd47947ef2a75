#include "db.h"

#include <stdexcept>

#include <fmt/format.h>

namespace rocpd_gen {

Db::Db(const std::filesystem::path& path) : path_(path.string()) {
  if (std::filesystem::exists(path)) throw std::runtime_error(fmt::format("refusing to overwrite existing file '{}'", path_));
  // NOMUTEX: each connection lives on one worker thread.
  const int rc = sqlite3_open_v2(path_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw std::runtime_error(fmt::format("cannot create '{}': {}", path_, message));
  }
  // Bulk load: no journal, no fsync; a crash leaves a partial file the caller deletes anyway.
  exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-131072;");
}

Db::~Db() { sqlite3_close(db_); }

void Db::fail(std::string_view what) const {
  throw std::runtime_error(fmt::format("writing '{}': {}: {}", path_, what, sqlite3_errmsg(db_)));
}

void Db::exec(std::string_view sql) {
  const std::string text(sql);
  char* error = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    const std::string message = error ? error : "unknown error";
    sqlite3_free(error);
    throw std::runtime_error(fmt::format("writing '{}': {}", path_, message));
  }
}

Stmt::Stmt(Db& db, std::string_view sql) : db_(db) {
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK)
    db.fail(fmt::format("preparing [{}]", sql));
}

Stmt::~Stmt() { sqlite3_finalize(stmt_); }

void Stmt::bind(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_.fail("bind");
}

void Stmt::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_.fail("bind");
}

// SQLITE_STATIC: every bound value outlives the step that immediately follows the binds.
void Stmt::bind(int index, std::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC) != SQLITE_OK)
    db_.fail("bind");
}

void Stmt::bind(int index, std::nullptr_t) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_.fail("bind");
}

void Stmt::step() {
  const int rc = sqlite3_step(stmt_);
  sqlite3_reset(stmt_);
  if (rc != SQLITE_DONE) db_.fail(fmt::format("inserting with [{}]", sqlite3_sql(stmt_)));
}

}  // namespace rocpd_gen
