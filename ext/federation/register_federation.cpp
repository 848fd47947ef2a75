// Registers the SQL names of the federation capability.
#include "common/sqlite_util.h"

int rocpd_register_federation(sqlite3* /*db*/, char** /*err*/) { return SQLITE_OK; }
