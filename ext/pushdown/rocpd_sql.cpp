// rocpd_sql: a TEMP table whose rows are the result of one SELECT, answered through the GROUP BY
// rewrite (docs/pushdown.md):
//   CREATE VIRTUAL TABLE temp.k USING rocpd_sql('SELECT name, count(*) FROM rocpd_ops GROUP BY name');
//   SELECT * FROM k;
// Columns are the statement's result columns (named as SQLite names a view's, declared with their
// declared types). Each scan rewrites the SQL anew (rewrite_group_query), so a table created before
// rocpd_open pushes once members are open, and steps the answer lazily on the same connection.
// SQLite applies every constraint itself; rowids are the rows' positions in the scan.
//
// A hand-written sqlite3_module, not an analysis template (analysis/member_rows_table.h,
// job_table.h): it is part of the SQL machinery, not an analysis. Its tables are made by CREATE
// VIRTUAL TABLE (xCreate, xDestroy, xRename, re-connected when SQLite reloads the schema) and its
// columns are whatever the user's statement returns, declared per table at xCreate; its rows come
// from one statement on the host connection, not from the members. The templates declare one fixed
// schema per SQL name and compute rows from the members.
#include "pushdown/register.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/vtab_util.h"
#include "pushdown/group_rewrite.h"
#include "pushdown/one_select.h"

namespace rocpd::pushdown {

namespace {

constexpr const char* kUsage =
    "CREATE VIRTUAL TABLE temp.<name> USING rocpd_sql('SELECT ...') (one SQL string literal, quotes doubled)";

// The declarations made by xCreate on this connection, by table name. SQLite connects a TEMP table
// again when it reloads the schema (ALTER TABLE elsewhere): if the statement no longer prepares
// then (a table it reads was dropped), the table keeps the columns it was created with, so that
// DROP TABLE and every other statement still work and only a scan reports the statement's error.
struct Declarations {
  struct Made {
    std::string sql, declaration;
    int columns;
  };
  std::map<std::string, Made> by_table;
};

struct Table : sqlite3_vtab {
  sqlite3* conn = nullptr;
  Declarations* declarations = nullptr;
  std::string name;   // as created
  std::string label;  // temp.<name>, for messages
  std::string sql;    // the user's statement, dequoted
  int columns = 0;
};

struct Cursor : sqlite3_vtab_cursor {
  Stmt stmt;
  sqlite3_int64 position = 0;  // rowid: 1..n in the scan's order
  bool eof = true;
  Table& table() const { return *static_cast<Table*>(pVtab); }
};

// The rocpd_sql tables stepping their statement on this thread, outermost first. A table whose SQL
// reads itself (through another rocpd_sql table, a view, ...) would be scanned from inside its own
// sqlite3_step until the stack overflows: a table already stepping is refused. Chains without a
// cycle are bounded too, each level being a statement stepped inside the one above.
constexpr size_t kMaxNestedScans = 32;
thread_local std::vector<const Table*> stepping;

class SteppingGuard {
 public:
  explicit SteppingGuard(const Table& t) {
    if (std::find(stepping.begin(), stepping.end(), &t) != stepping.end())
      throw Error(fmt::format("rocpd_sql: {} reads itself (its SQL reaches {} again through other tables or views): "
                              "refused, it would never end: {}",
                              t.label, t.label, chain(t)));
    if (stepping.size() >= kMaxNestedScans)
      throw Error(fmt::format("rocpd_sql: rocpd_sql tables nested deeper than {}: {}: refused (each is read from "
                              "inside the one above; the bound keeps the thread's stack)",
                              kMaxNestedScans, chain(t)));
    stepping.push_back(&t);
  }
  ~SteppingGuard() { stepping.pop_back(); }
  SteppingGuard(const SteppingGuard&) = delete;
  SteppingGuard& operator=(const SteppingGuard&) = delete;

 private:
  static std::string chain(const Table& t) {
    std::string out;
    for (const Table* s : stepping) out += s->label + " -> ";
    return out + t.label;
  }
};

// The argument as written (SQLite passes its tokens' text): one single-quoted literal, '' for '.
std::string dequote_argument(std::string_view arg) {
  while (!arg.empty() && std::isspace(static_cast<unsigned char>(arg.front()))) arg.remove_prefix(1);
  while (!arg.empty() && std::isspace(static_cast<unsigned char>(arg.back()))) arg.remove_suffix(1);
  const auto refuse = [] {
    return Error(fmt::format("rocpd_sql: the argument must be one SQL string literal in single quotes: {}", kUsage));
  };
  if (arg.size() < 2 || arg.front() != '\'' || arg.back() != '\'') throw refuse();
  std::string out;
  for (size_t i = 1; i + 1 < arg.size(); ++i) {
    if (arg[i] == '\'') {
      if (i + 2 >= arg.size() || arg[i + 1] != '\'') throw refuse();  // a lone quote ends the literal early
      ++i;
    }
    out += arg[i];
  }
  return out;
}

// Result column names made unique as SQLite does for a view's columns (sqlite3ColumnsFromExprList):
// a repeated name (ASCII case ignored) loses a ":<digits>" suffix and gets ":1", ":2", ... SQLite
// draws random numbers after the fourth try; this keeps counting.
std::vector<std::string> unique_names(sqlite3_stmt* stmt) {
  const auto taken = [](const std::vector<std::string>& names, const std::string& name) {
    return std::any_of(names.begin(), names.end(),
                       [&](const std::string& n) { return sqlite3_stricmp(n.c_str(), name.c_str()) == 0; });
  };
  std::vector<std::string> names;
  for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
    const char* raw = sqlite3_column_name(stmt, i);
    if (!raw) throw std::bad_alloc();
    std::string name = raw;
    for (unsigned n = 1; taken(names, name); ++n) {
      size_t keep = name.size();
      if (keep > 0) {
        size_t j = keep - 1;
        while (j > 0 && std::isdigit(static_cast<unsigned char>(name[j]))) --j;
        if (name[j] == ':') keep = j;
      }
      name = fmt::format("{}:{}", std::string_view(name).substr(0, keep), n);
    }
    names.push_back(std::move(name));
  }
  return names;
}

// The table's declaration: the statement's columns with their declared types. A type is written as
// a quoted identifier, which SQLite dequotes (the text may come from a member's schema, never pasted).
std::string declaration(sqlite3_stmt* stmt) {
  const std::vector<std::string> names = unique_names(stmt);
  std::string decl = "CREATE TABLE x(";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) decl += ", ";
    decl += quote_id(names[i]);
    if (const char* type = sqlite3_column_decltype(stmt, static_cast<int>(i))) decl += " " + quote_id(type);
  }
  return decl + ")";
}

// Prepares the user's statement to learn its columns, refusing what a table cannot be.
Stmt prepare_checked(sqlite3* db, const std::string& sql) {
  return prepare_one_select(db, sql, {"rocpd_sql", "a rocpd_sql table", kUsage});
}

// Connects temp.<argv[2]>; argv = module, schema, table name, the argument. `creating`: from
// CREATE VIRTUAL TABLE (the statement must prepare), else a reconnection.
int connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out, char** err,
            bool creating) {
  return guard(err, [&] {
    // A rocpd_sql table stored in a database file would run that file's SQL whenever it is read.
    if (sqlite3_stricmp(argv[1], "temp") != 0)
      throw Error(fmt::format("rocpd_sql: {}.{}: a rocpd_sql table lives in the temp schema only: {}", argv[1],
                              argv[2], kUsage));
    if (argc != 4)
      throw Error(fmt::format("rocpd_sql: takes exactly one argument, got {}: {}", argc - 3, kUsage));
    auto table = std::make_unique<Table>();
    *static_cast<sqlite3_vtab*>(table.get()) = {};
    table->conn = db;
    table->declarations = static_cast<Declarations*>(aux);
    table->name = argv[2];
    table->label = fmt::format("temp.{}", argv[2]);
    table->sql = dequote_argument(argv[3]);
    std::string decl;
    bool fallback = false;
    try {
      Stmt stmt = prepare_checked(db, table->sql);
      table->columns = sqlite3_column_count(stmt.get());
      decl = declaration(stmt.get());
    } catch (const Error&) {
      const auto known = table->declarations->by_table.find(table->name);
      if (creating || known == table->declarations->by_table.end() || known->second.sql != table->sql) throw;
      decl = known->second.declaration;
      table->columns = known->second.columns;
      fallback = true;
    }
    if (int rc = sqlite3_declare_vtab(db, decl.c_str()); rc != SQLITE_OK)
      throw Error(fmt::format("rocpd_sql: declaring the columns: {}", sqlite3_errmsg(db)), rc);
    if (!fallback) table->declarations->by_table[table->name] = {table->sql, decl, table->columns};
    // It runs SQL on the connection: never from a schema's views or triggers.
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    *out = table.release();
    return SQLITE_OK;
  });
}

int best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  // No constraint or order is used: SQLite applies them all to the rows as they come.
  info->estimatedCost = 1e9;
  info->estimatedRows = 1000000;
  return SQLITE_OK;
}

void advance(Cursor& c) {
  const Table& t = c.table();
  bool row = false;
  {
    SteppingGuard guard(t);
    const int rc = sqlite3_step(c.stmt.get());
    if (rc == SQLITE_ROW) {
      row = true;
    } else if (rc != SQLITE_DONE) {
      if (rc == SQLITE_INTERRUPT) throw Error("interrupted", SQLITE_INTERRUPT);
      std::string msg = sqlite3_errmsg(t.conn);
      // An inner rocpd_sql table's error already says where it arose.
      if (msg.rfind("rocpd_sql: ", 0) != 0) msg = fmt::format("rocpd_sql: {}: {}", t.label, msg);
      throw Error(msg, rc);
    }
  }
  c.eof = !row;
  if (row) ++c.position;
}

int filter(sqlite3_vtab_cursor* cur, int, const char*, int, sqlite3_value**) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    Table& t = c->table();
    c->stmt.reset();
    c->eof = true;
    c->position = 0;
    const Rewrite rewrite = rewrite_group_query(t.conn, t.sql);
    c->stmt = prepare(t.conn, rewrite.sql, fmt::format("rocpd_sql: {}", t.label));
    // The tables it reads changed since CREATE VIRTUAL TABLE (SELECT * over an altered table).
    if (const int n = sqlite3_column_count(c->stmt.get()); n != t.columns)
      throw Error(fmt::format("rocpd_sql: {}: the statement now returns {} columns, the table has {}: drop and "
                              "create the table again",
                              t.label, n, t.columns));
    advance(*c);
    return SQLITE_OK;
  });
}

int next(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    advance(*c);
    return SQLITE_OK;
  });
}

int eof(sqlite3_vtab_cursor* cur) { return static_cast<Cursor*>(cur)->eof; }

int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  sqlite3_result_value(ctx, sqlite3_column_value(static_cast<Cursor*>(cur)->stmt.get(), col));
  return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  *out = static_cast<Cursor*>(cur)->position;
  return SQLITE_OK;
}

// Not the same function as xConnect, so that the module has no eponymous table: the table exists
// only as created, in temp.
int create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out, char** err) {
  return connect(db, aux, argc, argv, out, err, true);
}

int reconnect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out, char** err) {
  return connect(db, aux, argc, argv, out, err, false);
}

int destroy(sqlite3_vtab* vtab) {
  auto* t = static_cast<Table*>(vtab);
  t->declarations->by_table.erase(t->name);
  delete t;
  return SQLITE_OK;
}

// ALTER TABLE temp.k RENAME TO ...: the declaration made at CREATE follows the table.
int rename(sqlite3_vtab* vtab, const char* new_name) {
  return guard(vtab, [&] {
    auto* t = static_cast<Table*>(vtab);
    auto& made = t->declarations->by_table;
    if (auto known = made.find(t->name); known != made.end()) {
      auto entry = known->second;
      made.erase(known);
      made[new_name] = std::move(entry);
    }
    t->name = new_name;
    t->label = fmt::format("temp.{}", new_name);
    return SQLITE_OK;
  });
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.xCreate = create;
  m.xConnect = reconnect;
  m.xBestIndex = best_index;
  m.xDisconnect = vtab_disconnect<Table>;
  m.xDestroy = destroy;
  m.xOpen = vtab_open<Cursor>;
  m.xClose = vtab_close<Cursor>;
  m.xFilter = filter;
  m.xNext = next;
  m.xEof = eof;
  m.xColumn = column;
  m.xRowid = rowid;
  m.xRename = rename;
  return m;
}

const sqlite3_module kModule = make_module();

}  // namespace

void register_rocpd_sql(sqlite3* db) {
  if (int rc = sqlite3_create_module_v2(db, "rocpd_sql", &kModule, new Declarations,
                                        [](void* p) { delete static_cast<Declarations*>(p); });
      rc != SQLITE_OK)
    throw Error(fmt::format("rocpd_ext: registering rocpd_sql: {}", sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::pushdown
