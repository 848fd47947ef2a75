// rocpd_launch_delay_groups: eponymous-only virtual table, per member and gpu, the launch delays of
// its kernels as rocpd_op_launches gives them (start - launch_end of the kernels with a launch, a
// start and a launch end): how many, their median, 99th percentile (as percentile(x, 50) and
// percentile(x, 99)) and largest (diagnosis/launch_delay_figures.h: what rocpd_gpu_screen also
// gives rocpd_anomalies). `inexact` counts the kernels whose delay is not the difference of two
// integers (a gpu, start or end of another type, or an overflow): their member's figures are not
// those of the SQL. Pushdown: db = (analysis/member_rows_table.h).
#include <vector>

#include "analysis/member_rows_table.h"
#include "diagnosis/launch_delay_figures.h"
#include "diagnosis/register.h"
#include "stats/stats_args.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_launch_delay_groups";

enum Column { kDb, kGpu, kDelays, kMed, kP99, kMax, kInexact };

struct MemberRows {
  std::vector<DelayFigures> groups;
  size_t size() const { return groups.size(); }
};

struct Def {
  static constexpr const char* kTableName = kTable;
  // The percentiles are declared without a type: they hold exactly what percentile() gives (a real
  // when interpolated, however whole), as rocpd_op_groups' med_ns; NUMERIC would make a plain
  // table's copy store a whole real as an integer.
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, gpu INTEGER, delays INTEGER, med_ns, p99_ns, max_ns INTEGER, "
      "inexact INTEGER)";
  using Rows = MemberRows;
  // A member's rows are one per gpu: large batches, few barriers (as rocpd_gpu_screen).
  static constexpr size_t kBatchPerCore = 32;
  static Rows compute(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
    return {launch_delay_figures(m, conn, watch, kTable)};
  }
  static void column(const Rows& rows, size_t row, const MemberRef&, sqlite3_context* ctx, int col) {
    const DelayFigures& g = rows.groups[row];
    switch (col) {
      case kGpu: g.gpu.result(ctx); break;
      case kDelays: sqlite3_result_int64(ctx, g.delays); break;
      case kMed: stats::result_number(ctx, g.med); break;
      case kP99: stats::result_number(ctx, g.p99); break;
      case kMax:
        if (g.delays > 0) sqlite3_result_int64(ctx, g.max);
        else sqlite3_result_null(ctx);
        break;
      case kInexact: sqlite3_result_int64(ctx, g.inexact); break;
    }
  }
  static int64_t rowid(const Rows&, size_t row, const MemberRef& m) { return member_row_id(m, row, kTable); }
};

}  // namespace

void register_launch_delay_groups(sqlite3* db) { MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
