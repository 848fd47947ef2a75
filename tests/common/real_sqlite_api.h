// The API table a loaded extension receives, from the SQLite library the test links: unit tests
// of code that reaches SQLite through `sqlite3_api` (common/sqlite_util.h) point it here, and the
// fuzz targets register the extension with it on connections of their own. Null if SQLite
// handed none.
#pragma once
struct sqlite3_api_routines;
const sqlite3_api_routines* real_sqlite_api();
