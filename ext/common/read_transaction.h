// A read transaction on a private connection, ended when it goes out of scope: without it,
// every statement takes and drops the file's lock and re-reads its header (a cursor's many
// lookups, a probe's many small queries).
#pragma once
#include <sqlite3.h>

#include <utility>

namespace rocpd {

class ReadTransaction {
 public:
  ReadTransaction() = default;
  // Without a transaction (BEGIN failed, e.g. one is already open) the statements run as before.
  explicit ReadTransaction(sqlite3* db) : db_(db) {
    if (sqlite3_exec(db_, "BEGIN", nullptr, nullptr, nullptr) != SQLITE_OK) db_ = nullptr;
  }
  ReadTransaction(ReadTransaction&& o) noexcept : db_(std::exchange(o.db_, nullptr)) {}
  ReadTransaction& operator=(ReadTransaction&& o) noexcept {
    std::swap(db_, o.db_);
    return *this;
  }
  ~ReadTransaction() {
    if (db_ && !sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
  }

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace rocpd
