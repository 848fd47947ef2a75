// Registers the SQL names of the ranks capability, the questions asked across members
// (docs/ranks.md): rocpd_collectives (collectives matched across members) and rocpd_steps
// (training steps per member) and rocpd_step_pattern (the steps' default pattern). Its views are sql/views/70_rocpd_stragglers.sql and
// 71_rocpd_step_summary.sql; rocpd_align('collectives') lives with the clocks
// (ext/federation/rocpd_clock.cpp) and reads rocpd_collectives.
#include "common/sqlite_util.h"
#include "ranks/register.h"

int rocpd_register_ranks(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    rocpd::ranks::register_collectives(db);
    rocpd::ranks::register_steps(db);
    rocpd::ranks::register_step_pattern(db);
    return SQLITE_OK;
  });
}
