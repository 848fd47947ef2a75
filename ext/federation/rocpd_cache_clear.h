// rocpd_cache_clear(): empties the conversion cache (members/conversion_cache.h).
#pragma once
#include "common/sqlite_util.h"

namespace rocpd::federation {

int register_rocpd_cache_clear(sqlite3* db);

}  // namespace rocpd::federation
