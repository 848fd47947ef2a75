// rocpd_launch_stats([runtime_cutoff_ns [, launch_delay_cutoff_ns]]): one row per op of rocpd_ops
// with a known launch, with HTA's kernel launch statistics (get_cuda_kernel_launch_stats): the
// launch call's duration, the op's, the launch delay, and the three outlier flags at settable
// cutoffs (docs/diagnosis.md). Plain SQL over rocpd_ops and rocpd_apis (diagnosis/sql_table.h).
#include <fmt/format.h>

#include <cstdint>

#include "diagnosis/sql_names.h"
#include "diagnosis/sql_table.h"

namespace rocpd::diagnosis {
namespace {

// The launch of an op is the call of its member with its correlation id, the earliest (then the
// smallest api_id) when a hostile file repeats one; calls without a start are no launches. The
// same rule as rocpd_kernel_stacks and rocpd_idle_breakdown.
std::string query(bool by_db) {
  const char* apis_db = by_db ? " AND db = ?3" : "";
  const char* ops_db = by_db ? " WHERE o.db = ?3" : "";
  return fmt::format(
      "WITH calls AS ("
      "  SELECT db, correlation_id, pid, tid, name, start, \"end\" FROM ("
      "    SELECT db, correlation_id, pid, tid, name, start, \"end\","
      "           row_number() OVER (PARTITION BY db, correlation_id ORDER BY start, api_id) AS n"
      "    FROM temp.rocpd_apis WHERE correlation_id IS NOT NULL AND start IS NOT NULL{0})"
      "  WHERE n = 1) "
      "SELECT db, pid, tid, op_id, correlation_id, gpu, queue, stream, kind, name, api_name, launch_start, launch_end,"
      "       start, \"end\", cpu_ns, gpu_ns, launch_delay_ns,"
      "       cpu_ns <= ?1 AND gpu_ns < cpu_ns AS short_op,"
      "       cpu_ns > ?1 AS runtime_outlier,"
      "       launch_delay_ns > ?2 AS delay_outlier, rowid_ "
      "FROM (SELECT o.db, c.pid, c.tid, o.op_id, o.correlation_id, o.gpu, o.queue, o.stream, o.kind, o.name,"
      "             c.name AS api_name, c.start AS launch_start, c.\"end\" AS launch_end, o.start, o.\"end\","
      "             c.\"end\" - c.start AS cpu_ns, o.\"end\" - o.start AS gpu_ns, o.start - c.\"end\" AS launch_delay_ns,"
      "             o.rowid AS rowid_"
      "      FROM temp.rocpd_ops AS o CROSS JOIN calls AS c ON c.db = o.db AND c.correlation_id = o.correlation_id{1})",
      apis_db, ops_db);
}

const SqlTableDef kDef{
    .name = "rocpd_launch_stats",
    .columns = "db TEXT, pid INTEGER, tid INTEGER, op_id INTEGER, correlation_id INTEGER, gpu INTEGER, queue INTEGER, "
               "stream INTEGER, kind TEXT, name TEXT, api_name TEXT, launch_start INTEGER, launch_end INTEGER, "
               "start INTEGER, \"end\" INTEGER, cpu_ns INTEGER, gpu_ns INTEGER, launch_delay_ns INTEGER, "
               "short_op INTEGER, runtime_outlier INTEGER, delay_outlier INTEGER",
    .db_column = 0,
    .args = {{"runtime_cutoff_ns", 50'000, 0}, {"launch_delay_cutoff_ns", 100'000, INT64_MIN}},
    .query = query,
};

}  // namespace

void register_launch_stats(sqlite3* db) { register_sql_table(db, kDef); }

}  // namespace rocpd::diagnosis
