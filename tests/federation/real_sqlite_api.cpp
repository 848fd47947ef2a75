// Built without the extension's macros (SQLITE_CORE): these calls go to the linked library.
#define SQLITE_CORE 1
#include "real_sqlite_api.h"

#include <sqlite3.h>
#include <sqlite3ext.h>

#include <stdexcept>

namespace {
const sqlite3_api_routines* captured = nullptr;
int capture(sqlite3*, char**, const sqlite3_api_routines* api) {
  captured = api;
  return SQLITE_OK;
}
}  // namespace

// SQLite hands its API table to auto extensions when a connection opens.
const sqlite3_api_routines* real_sqlite_api() {
  if (captured) return captured;
  sqlite3_auto_extension(reinterpret_cast<void (*)()>(&capture));
  sqlite3* db = nullptr;
  sqlite3_open(":memory:", &db);
  sqlite3_close(db);
  sqlite3_cancel_auto_extension(reinterpret_cast<void (*)()>(&capture));
  if (!captured) throw std::runtime_error("SQLite handed no API table to the auto extension");
  return captured;
}
