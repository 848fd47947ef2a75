// A virtual table whose rows are those of one SQL query over the connection's own tables, with
// integer arguments (hidden columns, also table-valued-function arguments) bound into the query:
// a view that takes parameters. Used by diagnosis tables whose definition is plain SQL but whose
// thresholds users set per query (rocpd_launch_stats).
//
// The query selects the visible columns in declaration order, then the `hidden` ones (declared HIDDEN
// after the arguments, so that SELECT * leaves them out while the arguments stay the first hidden
// columns a table-valued call binds), then the rowid (unique and stable:
// e.g. the rocpd_ops rowid of the row's op). It binds ?1..?N to the arguments (defaults when not
// given) and, in its db-filtered form, ?(N+1) to the member name of a `db =` constraint (BINARY),
// which SQLite re-checks. Every other constraint is left to SQLite, so the table answers exactly
// like a plain table holding the query's rows.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "common/sqlite_util.h"

namespace rocpd::diagnosis {

struct SqlTableArg {
  const char* name;       // hidden column name, e.g. "runtime_cutoff_ns"
  int64_t default_value;  // used when the argument is absent or NULL
  int64_t min_value;      // smaller values are an error naming the table and argument
};

struct SqlTableDef {
  const char* name;                  // the SQL name (eponymous-only)
  std::string columns;               // visible columns, e.g. "db TEXT, op_id INTEGER"
  int db_column = -1;                // index of the visible db column (pushdown), or -1
  std::vector<SqlTableArg> args;     // hidden columns after the visible ones, in argument order
  std::string hidden = {};           // further hidden columns, after the arguments, e.g. "pid INTEGER"
  std::string (*query)(bool by_db);  // the SQL text, with or without the db filter
};

// Registers `def` (which must outlive the connection: a static) as an eponymous-only module.
void register_sql_table(sqlite3* db, const SqlTableDef& def);

}  // namespace rocpd::diagnosis
