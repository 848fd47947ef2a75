#pragma once
#include <memory>

#include "members/registry.h"

namespace rocpd::federation {
int register_rocpd_members(sqlite3* db, const std::shared_ptr<members::Registry>& registry);
}
