// rocpd_gap_groups: eponymous-only virtual table, per member and gpu, the idle gaps rocpd_gaps
// lists (the gaps between the merged busy intervals of the gpu's ops): how many, their median,
// 99th percentile (as percentile(x, 50) and percentile(x, 99)) and largest, and the same for the
// gaps of 1 ms or more (long_gaps, long_med_ns). Each member's busy intervals are merged straight
// from the member on every core (the summary engine, analysis/op_groups.h), so that
// rocpd_anomalies can tell which members can hold an idle-gap outlier before it reads their gaps
// (docs/anomalies.md): the gaps themselves are never handed to SQL here.
// A member the engine cannot read exactly (a start, end or gpu that is not an integer) gives one
// row with gpu NULL, no gaps and inexact = 1: rocpd_anomalies reads that member's rocpd_gaps rows.
// Pushdown: db = (analysis/member_rows_table.h).
#include <algorithm>
#include <optional>
#include <vector>

#include "analysis/member_rows_table.h"
#include "analysis/op_groups.h"
#include "common/interval_math.h"
#include "diagnosis/register.h"
#include "stats/percentile_select.h"
#include "stats/stats_args.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_gap_groups";
// A gap this long or longer is worth reading (nsys-ai's threshold; docs/anomalies.md).
constexpr int64_t kLongGapNs = 1000000;

enum Column { kDb, kGpu, kGaps, kMed, kP99, kMax, kLongGaps, kLongMed, kInexact };

struct Group {
  std::optional<int64_t> gpu;
  int64_t gaps = 0, max = 0, long_gaps = 0, inexact = 0;
  std::optional<stats::Number> med, p99, long_med;
};

struct MemberRows {
  std::vector<Group> groups;
  size_t size() const { return groups.size(); }
};

Group figures(std::optional<int64_t> gpu, const std::vector<Interval>& busy) {
  Group g;
  g.gpu = gpu;
  std::vector<int64_t> all, longs;
  for (const Interval& gap : gaps(busy)) {
    const int64_t length = gap.end - gap.start;
    all.push_back(length);
    if (length >= kLongGapNs) longs.push_back(length);
  }
  g.gaps = static_cast<int64_t>(all.size());
  g.long_gaps = static_cast<int64_t>(longs.size());
  if (!all.empty()) {
    g.max = *std::max_element(all.begin(), all.end());
    g.med = stats::percentile_select(all, 50.0);
    g.p99 = stats::percentile_select(all, 99.0);
  }
  if (!longs.empty()) g.long_med = stats::percentile_select(longs, 50.0);
  return g;
}

MemberRows member_rows(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch&) {
  GroupSpec spec;
  spec.by_db = spec.by_gpu = true;
  spec.want_busy = spec.busy_lists = true;
  MemberRows out;
  try {
    for (auto& [key, f] : scan_member(m, 0, conn, spec, nullptr)) {
      Group g = figures(key.gpu, f.busy);
      if (g.gaps > 0) out.groups.push_back(std::move(g));
    }
  } catch (const NeedsSql&) {
    Group whole;  // the member's rows come from rocpd_gaps instead
    whole.inexact = 1;
    out.groups.assign(1, whole);
  }
  return out;
}

void result(sqlite3_context* ctx, const std::optional<stats::Number>& n) {
  if (n) stats::result_number(ctx, *n);
  else sqlite3_result_null(ctx);
}

struct Def {
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, gpu INTEGER, gaps INTEGER, med_ns NUMERIC, p99_ns NUMERIC, max_ns INTEGER, "
      "long_gaps INTEGER, long_med_ns NUMERIC, inexact INTEGER)";
  using Rows = MemberRows;
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
      case kMed: result(ctx, g.med); break;
      case kP99: result(ctx, g.p99); break;
      case kMax:
        if (g.gaps > 0) sqlite3_result_int64(ctx, g.max);
        else sqlite3_result_null(ctx);
        break;
      case kLongGaps: sqlite3_result_int64(ctx, g.long_gaps); break;
      case kLongMed: result(ctx, g.long_med); break;
      case kInexact: sqlite3_result_int64(ctx, g.inexact); break;
    }
  }
  static int64_t rowid(const Rows&, size_t row, const MemberRef& m) { return member_row_id(m, row, kTable); }
};

}  // namespace

void register_gap_groups(sqlite3* db) { MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
