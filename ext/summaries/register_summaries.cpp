// Registers the summary engine's SQL names: rocpd_op_groups and rocpd_api_groups (their temp
// instances, so that an attached table of that name never takes their place in the views, are
// made by register_federation.cpp).
#include "summaries/register_summaries.h"

namespace rocpd::summaries {

int register_summaries(sqlite3* db, const std::shared_ptr<federation::Registry>& registry) {
  int rc = register_rocpd_op_groups(db, registry);
  return rc == SQLITE_OK ? register_rocpd_api_groups(db, registry) : rc;
}

}  // namespace rocpd::summaries
