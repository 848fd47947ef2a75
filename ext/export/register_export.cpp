// Registers the SQL names of the export capability: rocpd_export_trace, rocpd_export_split (docs/export.md).
#include "common/sqlite_util.h"

namespace rocpd::exporter {
void register_export_trace(sqlite3* db);  // export_sql.cpp
void register_export_split(sqlite3* db);  // split_sql.cpp
}

int rocpd_register_export(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    rocpd::exporter::register_export_trace(db);
    rocpd::exporter::register_export_split(db);
    return SQLITE_OK;
  });
}
