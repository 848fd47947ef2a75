// Registers the SQL names of the diagnosis capability: rocpd_kernel_stacks and
// rocpd_idle_breakdown, rocpd_launch_stats, rocpd_op_launches, rocpd_launch_delay_groups, rocpd_gap_groups and rocpd_gpu_screen (under rocpd_anomalies and rocpd_findings),
// rocpd_queue_steps, rocpd_comm_classes (the tables under the views rocpd_queue_depth and
// rocpd_comm_overlap), rocpd_sequence_groups
// (under rocpd_kernel_sequences), rocpd_op_counters (under rocpd_kernel_counters), rocpd_launch_groups
// (under rocpd_launch_latency), rocpd_time_breakdown, and the run labels
// rocpd_open(pattern, run), rocpd_set_run(db, run)
// (docs/diagnosis.md). Its plain-SQL views are sql/views/6x_*.sql.
#include <fmt/format.h>

#include "common/natural_order.h"
#include "common/sqlite_util.h"
#include "common/temp_clash.h"
#include "diagnosis/register.h"

int rocpd_register_diagnosis(sqlite3* db, char** err) {
  return rocpd::guard(err, [&] {
    // rocpd_launch_stats reads temp.rocpd_op_launches (the eponymous table, never a user's object).
    rocpd::refuse_temp_clash(db, "rocpd_op_launches", "the table rocpd_op_launches");
    // The views and internal SQL read these as temp.<name>; a user's TEMP object of one of these
    // names would also hide ours from the user: refused at load, as the views' names are.
    for (const char* table : {"rocpd_kernel_stacks", "rocpd_idle_breakdown", "rocpd_launch_stats", "rocpd_queue_steps",
                              "rocpd_comm_classes", "rocpd_sequence_groups", "rocpd_op_counters", "rocpd_launch_groups", "rocpd_launch_delay_groups",
                              "rocpd_gap_groups", "rocpd_gpu_screen",
                              "rocpd_time_breakdown"})
      rocpd::refuse_temp_clash(db, table, fmt::format("the table {}", table));
    rocpd::register_natural_collation(db);  // rocpd_sequence_groups' db column is declared with it
    rocpd::diagnosis::register_kernel_stacks(db);
    rocpd::diagnosis::register_idle_breakdown(db);
    rocpd::diagnosis::register_runs(db);
    rocpd::diagnosis::register_launch_stats(db);
    rocpd::diagnosis::register_op_launches(db);
    rocpd::diagnosis::register_launch_delay_groups(db);
    rocpd::diagnosis::register_gap_groups(db);
    rocpd::diagnosis::register_gpu_screen(db);
    rocpd::diagnosis::register_queue_steps(db);
    rocpd::diagnosis::register_comm_classes(db);
    rocpd::diagnosis::register_sequence_groups(db);
    rocpd::diagnosis::register_op_counters(db);
    rocpd::diagnosis::register_launch_groups(db);
    rocpd::diagnosis::register_time_breakdown(db);
    return SQLITE_OK;
  });
}
