// rocpd_gap_groups: eponymous-only virtual table, per member and gpu, the idle gaps rocpd_gaps
// lists (the gaps between the merged busy intervals of the gpu's ops): how many, their median,
// 99th percentile (as percentile(x, 50) and percentile(x, 99)) and largest, and the same for the
// gaps of 1 ms or more (long_gaps, long_med_ns). Each member's busy intervals are merged straight
// from the member on every core (the summary engine, analysis/op_groups.h): the gaps themselves
// are never handed to SQL here (diagnosis/gap_figures.h).
// A member the engine cannot read exactly (a start, end or gpu that is not an integer) gives one
// row with gpu NULL, no gaps and inexact = 1: rocpd_findings reads that member's rocpd_gaps rows.
// sync_gaps, sync_ns: the gaps a synchronize call of the member was blocked in when they began and
// returned within (a call whose name is LIKE '%Synchronize%', start < end: it started before the
// gap's start and ended at or after it and no later than the gap's end; each gap counted once),
// what rocpd_findings' sync_idle rule adds up (docs/anomalies.md).
// Pushdown: db = (analysis/member_rows_table.h).
#include <optional>
#include <vector>

#include "analysis/member_rows_table.h"
#include "diagnosis/gap_figures.h"
#include "diagnosis/register.h"
#include "stats/stats_args.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_gap_groups";

enum Column { kDb, kGpu, kGaps, kMed, kP99, kMax, kLongGaps, kLongMed, kSyncGaps, kSyncNs, kInexact };

struct Group : GapFigures {
  std::optional<int64_t> gpu;
  int64_t inexact = 0;
};

struct MemberRows {
  std::vector<Group> groups;
  size_t size() const { return groups.size(); }
};

MemberRows member_rows(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
  MemberRows out;
  try {
    JobGroups groups = busy_by_gpu(m, conn);
    const std::vector<SyncCall> calls = groups.empty() ? std::vector<SyncCall>{} : sync_calls(m, conn, watch);
    for (auto& [key, f] : groups) {
      Group g;
      static_cast<GapFigures&>(g) = gap_figures(f.busy, calls);
      g.gpu = key.gpu;
      if (g.gaps > 0) out.groups.push_back(std::move(g));
    }
  } catch (const NeedsSql&) {
    Group whole;  // the member's rows come from rocpd_gaps instead
    whole.inexact = 1;
    out.groups.assign(1, whole);
  }
  return out;
}

struct Def {
  static constexpr const char* kTableName = kTable;
  // The percentiles are declared without a type: they hold exactly what percentile() gives (a real
  // when interpolated, however whole), as rocpd_op_groups' med_ns; NUMERIC would make a plain
  // table's copy store a whole real as an integer.
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, gpu INTEGER, gaps INTEGER, med_ns, p99_ns, max_ns INTEGER, "
      "long_gaps INTEGER, long_med_ns, sync_gaps INTEGER, sync_ns INTEGER, inexact INTEGER)";
  using Rows = MemberRows;
  // A member's rows are one per gpu: large batches, few barriers (as rocpd_gpu_screen).
  static constexpr size_t kBatchPerCore = 32;
  static Rows compute(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
    return member_rows(m, conn, watch);
  }
  static void column(const Rows& rows, size_t row, const MemberRef&, sqlite3_context* ctx, int col) {
    const Group& g = rows.groups[row];
    switch (col) {
      case kGpu:
        if (g.gpu) sqlite3_result_int64(ctx, *g.gpu);
        else sqlite3_result_null(ctx);
        break;
      case kGaps: sqlite3_result_int64(ctx, g.gaps); break;
      case kMed: stats::result_number(ctx, g.med); break;
      case kP99: stats::result_number(ctx, g.p99); break;
      case kMax:
        if (g.gaps > 0) sqlite3_result_int64(ctx, g.max);
        else sqlite3_result_null(ctx);
        break;
      case kLongGaps: sqlite3_result_int64(ctx, g.long_gaps); break;
      case kLongMed: stats::result_number(ctx, g.long_med); break;
      case kSyncGaps: sqlite3_result_int64(ctx, g.sync_gaps); break;
      case kSyncNs: sqlite3_result_int64(ctx, g.sync_ns); break;
      case kInexact: sqlite3_result_int64(ctx, g.inexact); break;
    }
  }
  static int64_t rowid(const Rows&, size_t row, const MemberRef& m) { return member_row_id(m, row, kTable); }
};

}  // namespace

void register_gap_groups(sqlite3* db) { MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
