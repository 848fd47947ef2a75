// Registers the SQL names of the import capability: rocpd_import (docs/formats.md).
#include "common/sqlite_util.h"

namespace rocpd::importer {
int register_rocpd_import(sqlite3* db);  // rocpd_import.cpp
}

int rocpd_register_import(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] { return rocpd::importer::register_rocpd_import(db); });
}
