// Registration of each SQL name of the summary tables (docs/summaries.md), over the connection's
// member registry.
#pragma once
#include <memory>

#include "members/registry.h"

namespace rocpd::summaries {

int register_rocpd_op_groups(sqlite3* db, const std::shared_ptr<members::Registry>& registry);   // rocpd_op_groups.cpp
int register_rocpd_api_groups(sqlite3* db, const std::shared_ptr<members::Registry>& registry);  // rocpd_api_groups.cpp

}  // namespace rocpd::summaries
