// Registers the summary engine's SQL names: rocpd_op_groups (and its temp instance, so that an
// attached table of that name never takes its place in the views).
#include "summaries/register_summaries.h"

namespace rocpd::summaries {

int register_summaries(sqlite3* db, const std::shared_ptr<federation::Registry>& registry) {
  return register_rocpd_op_groups(db, registry);
}

}  // namespace rocpd::summaries
