#include "db.h"

#include <algorithm>
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
  exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-8192;");
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

namespace rocpd_gen {

BatchInsert::BatchInsert(Db& db, std::string_view single_row_sql, int batch_rows) : db_(db), batch_rows_(batch_rows) {
  const size_t values_at = single_row_sql.rfind("VALUES");
  if (values_at == std::string_view::npos) throw std::invalid_argument(fmt::format("no VALUES in [{}]", single_row_sql));
  const std::string_view tuple = single_row_sql.substr(values_at + 6);
  params_per_row_ = static_cast<int>(std::count(tuple.begin(), tuple.end(), '?'));
  std::string batch_sql(single_row_sql);
  for (int i = 1; i < batch_rows_; ++i) batch_sql.append(",").append(tuple);
  if (sqlite3_prepare_v2(db.handle(), single_row_sql.data(), static_cast<int>(single_row_sql.size()), &single_, nullptr) != SQLITE_OK)
    db.fail(fmt::format("preparing [{}]", single_row_sql));
  if (sqlite3_prepare_v2(db.handle(), batch_sql.c_str(), static_cast<int>(batch_sql.size()), &batch_, nullptr) != SQLITE_OK) {
    sqlite3_finalize(single_);
    db.fail(fmt::format("preparing the {}-row form of [{}]", batch_rows_, single_row_sql));
  }
  values_.reserve(static_cast<size_t>(params_per_row_) * batch_rows_);
}

BatchInsert::~BatchInsert() {
  sqlite3_finalize(batch_);
  sqlite3_finalize(single_);
}

void BatchInsert::bind_rows(sqlite3_stmt* stmt, size_t first_value, size_t count) {
  for (size_t k = 0; k < count; ++k) {
    const Value& v = values_[first_value + k];
    const int index = static_cast<int>(k) + 1;
    int rc = SQLITE_OK;
    switch (v.kind) {
      case Value::Int: rc = sqlite3_bind_int64(stmt, index, v.i); break;
      case Value::Real: rc = sqlite3_bind_double(stmt, index, v.d); break;
      case Value::Text: rc = sqlite3_bind_text(stmt, index, v.s.data(), static_cast<int>(v.s.size()), SQLITE_STATIC); break;
      case Value::Null: rc = sqlite3_bind_null(stmt, index); break;
    }
    if (rc != SQLITE_OK) db_.fail("bind");
  }
  const int rc = sqlite3_step(stmt);
  sqlite3_reset(stmt);
  if (rc != SQLITE_DONE) db_.fail(fmt::format("inserting with [{:.120}]", sqlite3_sql(stmt)));
}

void BatchInsert::flush_batch() {
  if (values_.size() != static_cast<size_t>(params_per_row_) * batch_rows_)
    throw std::logic_error(fmt::format("row with the wrong number of values for [{}]", sqlite3_sql(single_)));
  bind_rows(batch_, 0, values_.size());
  values_.clear();
  pending_rows_ = 0;
}

void BatchInsert::finish() {
  if (values_.size() != static_cast<size_t>(params_per_row_) * pending_rows_)
    throw std::logic_error(fmt::format("row with the wrong number of values for [{}]", sqlite3_sql(single_)));
  for (int row = 0; row < pending_rows_; ++row)
    bind_rows(single_, static_cast<size_t>(row) * params_per_row_, static_cast<size_t>(params_per_row_));
  values_.clear();
  pending_rows_ = 0;
}

}  // namespace rocpd_gen
