// Registration of the diagnosis capability's SQL names (docs/diagnosis.md).
#pragma once
#include "common/sqlite_util.h"

namespace rocpd::diagnosis {
void register_kernel_stacks(sqlite3* db);
void register_idle_breakdown(sqlite3* db);
void register_runs(sqlite3* db);
void register_launch_stats(sqlite3* db);
void register_op_launches(sqlite3* db);
void register_launch_delay_groups(sqlite3* db);
void register_gap_groups(sqlite3* db);
void register_gpu_screen(sqlite3* db);
void register_queue_steps(sqlite3* db);
void register_comm_classes(sqlite3* db);
void register_sequence_groups(sqlite3* db);
void register_op_counters(sqlite3* db);
void register_launch_groups(sqlite3* db);
void register_time_breakdown(sqlite3* db);
}  // namespace rocpd::diagnosis
