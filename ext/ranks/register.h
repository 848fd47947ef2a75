// Registration of the ranks capability's SQL names (docs/ranks.md).
#pragma once
#include "common/sqlite_util.h"

namespace rocpd::ranks {
void register_collectives(sqlite3* db);
void register_steps(sqlite3* db);
void register_step_pattern(sqlite3* db);
}  // namespace rocpd::ranks
