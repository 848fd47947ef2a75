// Registers the SQL names of the names capability.
#include "common/sqlite_util.h"

int rocpd_register_names(sqlite3* /*db*/, char** /*err*/) { return SQLITE_OK; }
