// Built without the extension's macros (SQLITE_CORE): these calls go to the linked library.
#define SQLITE_CORE 1
#include "real_sqlite_api.h"

#include <sqlite3.h>
#include <sqlite3ext.h>

namespace {
const sqlite3_api_routines* captured = nullptr;
int capture(sqlite3*, char**, const sqlite3_api_routines* api) {
  captured = api;
  return SQLITE_OK;
}
}  // namespace

// SQLite hands an extension its API table only through its loaders: an auto extension that runs
// once on a throwaway connection captures it.
const sqlite3_api_routines* real_sqlite_api() {
  static const sqlite3_api_routines* table = [] {
    using Entry = void (*)();
    sqlite3_auto_extension(reinterpret_cast<Entry>(&capture));
    sqlite3* db = nullptr;
    sqlite3_open(":memory:", &db);
    sqlite3_close(db);
    sqlite3_cancel_auto_extension(reinterpret_cast<Entry>(&capture));
    return captured;
  }();
  return table;
}
