// The views capability: the analysis views of sql/views and the SQL names they need.
#pragma once
#include "common/sqlite_util.h"

namespace rocpd::views {
void register_rocpd_require_members(sqlite3* db);  // rocpd_require_members.cpp
}  // namespace rocpd::views
