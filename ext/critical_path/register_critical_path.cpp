// Registers the SQL names of the critical path capability (docs/critical_path.md): rocpd_critical_path
// (the longest path of each training step across members) and rocpd_what_if (the step times
// recomputed with some ops taking longer or shorter). Its view is
// sql/views/72_rocpd_critical_path_summary.sql.
#include <fmt/format.h>

#include "common/like_pattern.h"
#include "critical_path/sql_names.h"

namespace rocpd::critical_path {

bool step_pattern_arg(sqlite3_value* v, const char* table, std::string& pattern) {
  auto given = like_pattern_arg(v, table, "step_pattern", kDefaultStepPattern);
  if (!given) return false;
  pattern = std::move(*given);
  return true;
}

}  // namespace rocpd::critical_path

int rocpd_register_critical_path(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    rocpd::critical_path::register_critical_path(db);
    rocpd::critical_path::register_what_if(db);
    return SQLITE_OK;
  });
}
