// Boilerplate shared by the extension's virtual tables: cursor allocation and release, vtab
// release, in the SQLite callback signatures; the connect step and the module of a read-only
// eponymous table that remembers its connection.
#pragma once
#include <memory>
#include <new>

#include "common/sqlite_util.h"

namespace rocpd {

template <class Cursor>
int vtab_open(sqlite3_vtab*, sqlite3_vtab_cursor** out) {
  *out = new (std::nothrow) Cursor();
  return *out ? SQLITE_OK : SQLITE_NOMEM;
}

template <class Cursor>
int vtab_close(sqlite3_vtab_cursor* cursor) {
  delete static_cast<Cursor*>(cursor);
  return SQLITE_OK;
}

template <class Vtab>
int vtab_disconnect(sqlite3_vtab* vtab) {
  delete static_cast<Vtab*>(vtab);
  return SQLITE_OK;
}

// A table's vtab when all it keeps is the connection it reads through.
struct ConnVtab : sqlite3_vtab {
  sqlite3* conn;
};

// xConnect of a table that reads member files: declares `schema` and refuses to run from a view
// or trigger stored in a (possibly hostile) database (SQLITE_VTAB_DIRECTONLY).
inline int connect_direct_only(sqlite3* db, const char* schema, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    int rc = sqlite3_declare_vtab(db, schema);
    if (rc != SQLITE_OK) throw Error(sqlite3_errmsg(db), rc);
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    auto table = std::make_unique<ConnVtab>();
    *static_cast<sqlite3_vtab*>(table.get()) = {};
    table->conn = db;
    *out = table.release();
    return SQLITE_OK;
  });
}

// The module of an eponymous-only, read-only table over ConnVtab (no xCreate, no xUpdate).
template <class Cursor>
sqlite3_module read_only_module(decltype(sqlite3_module::xConnect) connect, decltype(sqlite3_module::xBestIndex) best_index,
                                decltype(sqlite3_module::xFilter) filter, decltype(sqlite3_module::xNext) next,
                                decltype(sqlite3_module::xEof) eof, decltype(sqlite3_module::xColumn) column,
                                decltype(sqlite3_module::xRowid) rowid) {
  sqlite3_module m{};
  m.xConnect = connect;
  m.xBestIndex = best_index;
  m.xDisconnect = vtab_disconnect<ConnVtab>;
  m.xOpen = vtab_open<Cursor>;
  m.xClose = vtab_close<Cursor>;
  m.xFilter = filter;
  m.xNext = next;
  m.xEof = eof;
  m.xColumn = column;
  m.xRowid = rowid;
  return m;
}

}  // namespace rocpd
