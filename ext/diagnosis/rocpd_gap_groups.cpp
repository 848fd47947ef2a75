// rocpd_gap_groups: eponymous-only virtual table, per member and gpu, the idle gaps rocpd_gaps
// lists (the gaps between the merged busy intervals of the gpu's ops): how many, their median,
// 99th percentile (as percentile(x, 50) and percentile(x, 99)) and largest, and the same for the
// gaps of 1 ms or more (long_gaps, long_med_ns). Each member's busy intervals are merged straight
// from the member on every core (the summary engine, analysis/op_groups.h), so that
// rocpd_anomalies can tell which members can hold an idle-gap outlier before it reads their gaps
// (docs/anomalies.md): the gaps themselves are never handed to SQL here.
// A member the engine cannot read exactly (a start, end or gpu that is not an integer) gives one
// row with gpu NULL, no gaps and inexact = 1: rocpd_anomalies reads that member's rocpd_gaps rows.
// sync_gaps, sync_ns: the gaps a synchronize call of the member was blocked in when they began and
// returned within (a call whose name is LIKE '%Synchronize%', start < end: it started before the
// gap's start and ended at or after it and no later than the gap's end; each gap counted once),
// what rocpd_findings' sync_idle rule adds up (docs/anomalies.md).
// Pushdown: db = (analysis/member_rows_table.h).
#include <algorithm>
#include <cctype>
#include <string_view>
#include <optional>
#include <vector>

#include "analysis/member_rows_table.h"
#include "analysis/op_groups.h"
#include "common/interval_math.h"
#include "diagnosis/register.h"
#include "members/interrupt.h"
#include "members/member_columns.h"
#include "stats/percentile_select.h"
#include "stats/stats_args.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_gap_groups";
// A gap this long or longer is worth reading (nsys-ai's threshold; docs/anomalies.md).
constexpr int64_t kLongGapNs = 1000000;

enum Column { kDb, kGpu, kGaps, kMed, kP99, kMax, kLongGaps, kLongMed, kSyncGaps, kSyncNs, kInexact };

struct Group {
  std::optional<int64_t> gpu;
  int64_t gaps = 0, max = 0, long_gaps = 0, sync_gaps = 0, sync_ns = 0, inexact = 0;
  std::optional<stats::Number> med, p99, long_med;
};

struct Call {
  int64_t start, end;
};

// SQLite's LIKE '%Synchronize%': ASCII letters in any case, other bytes as they are.
bool names_synchronize(std::string_view name) {
  static constexpr std::string_view kWord = "synchronize";
  if (name.size() < kWord.size()) return false;
  for (size_t i = 0; i + kWord.size() <= name.size(); ++i) {
    size_t j = 0;
    while (j < kWord.size() && static_cast<char>(std::tolower(static_cast<unsigned char>(name[i + j]))) == kWord[j]) ++j;
    if (j == kWord.size()) return true;
  }
  return false;
}

// The member's synchronize calls; NeedsSql when a value is not what SQL would compare as read here.
std::vector<Call> sync_calls(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
  using namespace canonical;
  members::MemberColumns apis(m, conn, TableKind::Apis, {kApisName, kApisStart, kApisEnd});
  std::vector<Call> out;
  uint64_t read = 0;
  while (apis.next()) {
    if ((++read & 0xffff) == 0 && watch.stopped()) members::InterruptWatch::raise();
    const StoredValue name = apis[0];
    if (name.type == SQLITE_NULL) continue;
    if (name.type != SQLITE_TEXT) throw NeedsSql("an API call's name is not text");
    if (!names_synchronize(std::string_view(static_cast<const char*>(name.bytes), static_cast<size_t>(name.length))))
      continue;
    const StoredValue start = apis[1], end = apis[2];
    if (start.type == SQLITE_NULL || end.type == SQLITE_NULL) continue;
    if (start.type != SQLITE_INTEGER || end.type != SQLITE_INTEGER) throw NeedsSql("a call's time is not an integer");
    if (start.i < end.i) out.push_back({start.i, end.i});
  }
  return out;
}

// Marks each gap a call was blocked in when it began: the last gap starting at or before the
// call's end, if the call started before it and ended within it.
void add_sync(Group& g, const std::vector<Interval>& gap_list, const std::vector<Call>& calls) {
  std::vector<bool> hit(gap_list.size());
  for (const Call& c : calls) {
    auto it = std::upper_bound(gap_list.begin(), gap_list.end(), c.end,
                               [](int64_t t, const Interval& gap) { return t < gap.start; });
    if (it == gap_list.begin()) continue;
    const size_t i = static_cast<size_t>(it - gap_list.begin()) - 1;
    if (c.start < gap_list[i].start && c.end <= gap_list[i].end) hit[i] = true;
  }
  for (size_t i = 0; i < gap_list.size(); ++i)
    if (hit[i]) {
      ++g.sync_gaps;
      g.sync_ns += gap_list[i].end - gap_list[i].start;
    }
}

struct MemberRows {
  std::vector<Group> groups;
  size_t size() const { return groups.size(); }
};

Group figures(std::optional<int64_t> gpu, const std::vector<Interval>& busy, const std::vector<Call>& calls) {
  Group g;
  g.gpu = gpu;
  std::vector<int64_t> all, longs;
  const std::vector<Interval> gap_list = gaps(busy);
  add_sync(g, gap_list, calls);
  for (const Interval& gap : gap_list) {
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

MemberRows member_rows(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
  GroupSpec spec;
  spec.by_db = spec.by_gpu = true;
  spec.want_busy = spec.busy_lists = true;
  MemberRows out;
  try {
    JobGroups groups = scan_member(m, 0, conn, spec, nullptr);
    const std::vector<Call> calls = groups.empty() ? std::vector<Call>{} : sync_calls(m, conn, watch);
    for (auto& [key, f] : groups) {
      Group g = figures(key.gpu, f.busy, calls);
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
