// The statement given as text to rocpd_sql and rocpd_query (docs/pushdown.md): exactly one
// read-only statement with result columns and no parameters, refused otherwise with a message
// naming the caller.
#pragma once
#include <string>
#include <string_view>

#include "common/sqlite_util.h"

namespace rocpd::pushdown {

struct Caller {
  std::string_view prefix;  // "rocpd_sql": every message starts "<prefix>: "
  std::string_view reader;  // who reads the rows: "a rocpd_sql table"
  std::string_view usage;   // how to call it, appended to the messages about the argument's form
};

// Prepares `sql` on `db` and checks it; throws Error (SQLite's message prefixed when it does not
// prepare).
Stmt prepare_one_select(sqlite3* db, const std::string& sql, const Caller& caller);

}  // namespace rocpd::pushdown
