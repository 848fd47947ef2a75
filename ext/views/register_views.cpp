// Registers the SQL names of the views capability.
#include "common/sqlite_util.h"

int rocpd_register_views(sqlite3* /*db*/, char** /*err*/) { return SQLITE_OK; }
