#include "members/page_cache_boost.h"

#include <string>

namespace rocpd::members {
namespace {

std::optional<int64_t> cache_size(sqlite3* db) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, "PRAGMA main.cache_size", -1, &raw, nullptr) != SQLITE_OK) return std::nullopt;
  const Stmt stmt(raw);
  if (sqlite3_step(stmt.get()) != SQLITE_ROW) return std::nullopt;
  return sqlite3_column_int64(stmt.get(), 0);
}

bool set_cache_size(sqlite3* db, int64_t value) {
  const std::string sql = "PRAGMA main.cache_size = " + std::to_string(value);
  return sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK;
}

}  // namespace

// A failure only costs speed: the computation reads the same rows with the cache it has.
PageCacheBoost::PageCacheBoost(const canonical::Member& m, sqlite3* db, int64_t kib) {
  if (m.attached || !db) return;
  const auto previous = cache_size(db);
  // A cache the connection already has at least as large (negative: KiB; positive: pages) stays.
  if (!previous || (*previous < 0 && -*previous >= kib)) return;
  if (!set_cache_size(db, -kib)) return;
  db_ = db;
  previous_ = previous;
}

PageCacheBoost::~PageCacheBoost() {
  if (!db_) return;
  set_cache_size(db_, *previous_);
  sqlite3_db_release_memory(db_);
}

}  // namespace rocpd::members
