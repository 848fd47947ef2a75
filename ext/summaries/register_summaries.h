// The summary engine's SQL names (docs/summaries.md): registered by the federation capability,
// whose member registry they read.
#pragma once
#include <memory>

#include "members/registry.h"

namespace rocpd::summaries {

int register_rocpd_op_groups(sqlite3* db, const std::shared_ptr<federation::Registry>& registry);
int register_rocpd_api_groups(sqlite3* db, const std::shared_ptr<federation::Registry>& registry);

// Every name of the engine: rocpd_op_groups, rocpd_api_groups.
int register_summaries(sqlite3* db, const std::shared_ptr<federation::Registry>& registry);

}  // namespace rocpd::summaries
