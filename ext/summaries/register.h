// Registration of each SQL name of the summary tables (docs/summaries.md), over the connection's
// member registry.
#pragma once
#include "common/sqlite_util.h"

namespace rocpd::summaries {

void register_rocpd_op_groups(sqlite3* db);   // rocpd_op_groups.cpp
void register_rocpd_api_groups(sqlite3* db);  // rocpd_api_groups.cpp

}  // namespace rocpd::summaries
