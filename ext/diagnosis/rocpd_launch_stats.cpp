// rocpd_launch_stats([runtime_cutoff_ns [, launch_delay_cutoff_ns]]): one row per op of rocpd_ops
// with a known launch, with HTA's kernel launch statistics (get_cuda_kernel_launch_stats): the
// launch call's duration, the op's, the launch delay, and the three outlier flags at settable
// cutoffs (docs/diagnosis.md); ops launched by a graph launch told apart (graph_launch, never
// flagged as short or slow launches: they share the graph launch call's duration), and the launch
// delay split into queueing behind the earlier ops of the op's lane and the rest. Plain SQL over
// rocpd_op_launches (diagnosis/sql_table.h).
#include <fmt/format.h>

#include <cstdint>

#include "diagnosis/register.h"
#include "diagnosis/sql_table.h"

namespace rocpd::diagnosis {
namespace {

// The join of each op with its launch call is rocpd_op_launches (computed per member on every
// core, the launch rule shared with rocpd_kernel_stacks and rocpd_idle_breakdown); the arithmetic
// and flags stay SQL, so NULLs and overflow behave as SQLite's.
// A graph launch: the call is hipGraphLaunch / cudaGraphLaunch (any suffix such as _spt), or the
// op carries the graph exec it ran in (rocprofv3 3.0.2+).
// queue_delay_ns: from the end of the launch call until the op's lane was free (lane_free), at
// most until the op's start, never negative; other_delay_ns: the rest of launch_delay_ns.
std::string query(bool by_db) {
  return fmt::format(
      "SELECT db, op_id, gpu, kind, api_name, cpu_ns, gpu_ns, launch_delay_ns, queue_delay_ns,"
      "       CASE WHEN graph_launch THEN 0 ELSE cpu_ns <= ?1 AND gpu_ns < cpu_ns END AS short_op,"
      "       CASE WHEN graph_launch THEN 0 ELSE cpu_ns > ?1 END AS runtime_outlier,"
      "       launch_delay_ns > ?2 AS delay_outlier, graph_launch, launch_delay_ns - queue_delay_ns AS other_delay_ns,"
      "       pid, tid, correlation_id, queue, stream, name, launch_start, launch_end, start, \"end\", rowid_ "
      "FROM (SELECT *, CASE WHEN start IS NULL OR launch_end IS NULL THEN NULL"
      "                     WHEN lane_free IS NULL THEN 0"
      "                     ELSE max(0, min(start, lane_free) - launch_end) END AS queue_delay_ns"
      "      FROM (SELECT db, pid, tid, op_id, correlation_id, gpu, queue, stream, kind, name, api_name, launch_start,"
      "                   launch_end, start, \"end\", launch_end - launch_start AS cpu_ns, \"end\" - start AS gpu_ns,"
      "                   start - launch_end AS launch_delay_ns, lane_free,"
      "                   (api_name GLOB 'hipGraphLaunch*' OR api_name GLOB 'cudaGraphLaunch*'"
      "                    OR graph_id IS NOT NULL) AS graph_launch, rowid AS rowid_"
      "            FROM temp.rocpd_op_launches{0}))",
      by_db ? " WHERE db = ?3" : "");
}

// SELECT * shows what fits a 160-column terminal (docs/views.md): the op, its launching API, the
// durations (with the queueing part of the delay) and the flags; the rest of the delay, the op's
// and the call's other columns are hidden, there by name.
const SqlTableDef kDef{
    .name = "rocpd_launch_stats",
    .columns = "db TEXT, op_id INTEGER, gpu INTEGER, kind TEXT, api_name TEXT, cpu_ns INTEGER, gpu_ns INTEGER, "
               "launch_delay_ns INTEGER, queue_delay_ns INTEGER, short_op INTEGER, runtime_outlier INTEGER, "
               "delay_outlier INTEGER, graph_launch INTEGER",
    .db_column = 0,
    .args = {{"runtime_cutoff_ns", 50'000, 0}, {"launch_delay_cutoff_ns", 100'000, INT64_MIN}},
    .hidden = "other_delay_ns INTEGER, pid INTEGER, tid INTEGER, correlation_id INTEGER, queue INTEGER, "
              "stream INTEGER, name TEXT, "
              "launch_start INTEGER, launch_end INTEGER, start INTEGER, \"end\" INTEGER",
    .query = query,
};

}  // namespace

void register_launch_stats(sqlite3* db) { register_sql_table(db, kDef); }

}  // namespace rocpd::diagnosis
