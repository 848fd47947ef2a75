// Boilerplate shared by the extension's virtual tables: cursor allocation and release, vtab
// release, in the SQLite callback signatures.
#pragma once
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

}  // namespace rocpd
