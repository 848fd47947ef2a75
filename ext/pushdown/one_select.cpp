#include "pushdown/one_select.h"

#include <fmt/format.h>

namespace rocpd::pushdown {

Stmt prepare_one_select(sqlite3* db, const std::string& sql, const Caller& caller) {
  const char* tail = nullptr;
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.c_str(), static_cast<int>(sql.size()), &raw, &tail);
  Stmt stmt(raw);
  if (rc != SQLITE_OK) throw Error(fmt::format("{}: {}", caller.prefix, sqlite3_errmsg(db)), rc);
  if (!stmt) throw Error(fmt::format("{}: the argument holds no SQL statement: {}", caller.prefix, caller.usage));
  // Only whitespace, comments and empty statements may follow: preparing them yields no statement
  // (SQLite skips empty statements within one prepare).
  sqlite3_stmt* rest_raw = nullptr;
  rc = sqlite3_prepare_v2(db, tail, -1, &rest_raw, nullptr);
  Stmt rest(rest_raw);
  if (rc != SQLITE_OK || rest)
    throw Error(fmt::format("{}: the argument holds more than one SQL statement ({} reads one SELECT): more "
                            "follows after: {}",
                            caller.prefix, caller.reader,
                            std::string_view(sql).substr(0, static_cast<size_t>(tail - sql.c_str()))));
  if (!sqlite3_stmt_readonly(stmt.get()))
    throw Error(fmt::format("{}: the statement changes the database; {} reads only: {}", caller.prefix, caller.reader,
                            sql));
  if (sqlite3_column_count(stmt.get()) == 0)
    throw Error(fmt::format("{}: the statement returns no columns: {}", caller.prefix, sql));
  if (sqlite3_bind_parameter_count(stmt.get()) > 0)
    throw Error(fmt::format("{}: the statement has parameters, which {} cannot bind: {}", caller.prefix,
                            caller.reader, sql));
  return stmt;
}

}  // namespace rocpd::pushdown
