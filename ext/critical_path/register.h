// Registration of the critical path capability's SQL names (docs/critical_path.md).
#pragma once
#include "common/sqlite_util.h"

namespace rocpd::critical_path {

void register_critical_path(sqlite3* db);  // rocpd_critical_path.cpp
void register_what_if(sqlite3* db);        // rocpd_what_if.cpp

}  // namespace rocpd::critical_path
