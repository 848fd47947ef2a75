// Registers the SQL names of the stats capability.
#include "common/sqlite_util.h"

int rocpd_register_stats(sqlite3* /*db*/, char** /*err*/) { return SQLITE_OK; }
