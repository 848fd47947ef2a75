// rocpd_gpu_screen: eponymous-only virtual table, per member and gpu, what rocpd_anomalies needs
// from every member, from one visit of the member on every core (docs/anomalies.md):
//   busy_ns, span_ns        rocpd_busy's figures (the union of the gpu's ops; last end minus first
//                           start over the ops with end >= start)
//   gaps ... long_gap_med_ns  rocpd_gap_groups' figures of the gaps between those busy intervals
//   delays ... delay_max_ns   rocpd_launch_delay_groups' figures of its kernels' launch delays
//   kernel_candidates       its kernel groups (one name, 5 or more timed instances) whose longest
//                           instance lies far enough above their median to hold a kernel outlier
//                           (max - median >= 0.998 * 5 * 1.4826 * max(10 % of the median, 1000 ns):
//                           the view's own test, 0.999, with a margin for rounding; the view tests
//                           those members' groups again)
//   busy_inexact            1 on every row of a member whose ops the summary engine cannot read
//                           exactly (a start, end or gpu SQL would treat otherwise)
//   kernel_inexact          1 on every row of such a member, and of one with a kernel whose gpu,
//                           name, start or end kernel_candidates cannot group (kernel_candidates.h):
//                           the view reads those figures of the member through SQL instead
//   delay_inexact           rocpd_launch_delay_groups' inexact
//   pattern (hidden)        with a step pattern, the visit also reads what rocpd_anomalies' later
//                           passes read from the member, its steps' ranges (rocpd_steps(pattern))
//                           and its collectives (rocpd_collectives), and leaves them to those
//                           passes (members::Registry::stash), which then do not visit it again
// One visit instead of one pass per table: at job scale every pass over the members costs their
// leases and reads again. In it, one scan of the ops by gpu (the busy lists), one read of the
// kernels (their launch delays and their groups by name) and one of the launch calls. A member with
// no op gives no row. Pushdown: db =.
#include <algorithm>
#include <map>
#include <cmath>
#include <optional>
#include <variant>
#include <vector>

#include "analysis/member_collectives.h"
#include "analysis/member_rows_table.h"
#include "analysis/step_ranges.h"
#include "common/interval_math.h"
#include "diagnosis/gap_figures.h"
#include "diagnosis/kernel_candidates.h"
#include "diagnosis/launch_delay_figures.h"
#include "diagnosis/register.h"
#include "stats/stats_args.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_gpu_screen";

enum Column {
  kDb, kGpu, kBusy, kSpan, kGaps, kGapMed, kGapP99, kGapMax, kLongGaps, kLongGapMed, kDelays, kDelayMed, kDelayP99,
  kDelayMax, kKernelCandidates, kBusyInexact, kDelayInexact, kKernelInexact, kPattern
};

struct Row {
  GpuKey gpu;
  std::optional<int64_t> busy, span;
  GapFigures gaps;
  DelayFigures delays;
  int64_t kernel_candidates = 0, busy_inexact = 0, kernel_inexact = 0;
};

struct MemberRows {
  std::vector<Row> rows;
  size_t size() const { return rows.size(); }
};

GpuKey integer_key(const std::optional<int64_t>& gpu) {
  GpuKey k;
  if (gpu) {
    k.type = SQLITE_INTEGER;
    k.i = *gpu;
  }
  return k;
}

// The busy figures from one scan of the member's ops by gpu (the summary engine's busy lists, as
// rocpd_busy reads them: merged) and the gap figures of those lists.
void add_busy_figures(const canonical::Member& m, sqlite3* conn, std::map<GpuKey, Row>& by_gpu) {
  GroupSpec spec;
  spec.by_db = spec.by_gpu = true;
  spec.want_busy = spec.busy_lists = true;
  for (auto& [key, f] : scan_member(m, 0, conn, spec, nullptr)) {
    const std::vector<Interval>& merged = f.busy;
    uint64_t length = 0;
    for (const Interval& iv : merged) length += static_cast<uint64_t>(iv.length());
    if (length > static_cast<uint64_t>(INT64_MAX)) throw NeedsSql("the busy time overflows");
    Row& r = by_gpu[integer_key(key.gpu)];
    r.busy = static_cast<int64_t>(length);
    if (f.first_start && f.last_end) {
      int64_t span = 0;  // SQL's last_end - first_start would turn real: the SQL path answers
      if (__builtin_sub_overflow(*f.last_end, *f.first_start, &span)) throw NeedsSql("the span overflows");
      r.span = span;
    }
    r.gaps = gap_figures(merged, {});
  }
}

MemberRows member_rows(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
  std::map<GpuKey, Row> by_gpu;
  bool busy_inexact = false;
  try {
    add_busy_figures(m, conn, by_gpu);
  } catch (const NeedsSql&) {
    busy_inexact = true;
    by_gpu.clear();
  }
  // The kernel groups from the kernels the launch delays read (one read of them for both).
  KernelCandidates kernels;
  const KernelVisitor visit = [&kernels](const KernelRow& k) { kernels.add(k); };
  for (DelayFigures& d : launch_delay_figures(m, conn, watch, kTable, &visit)) by_gpu[d.gpu].delays = std::move(d);
  const bool kernel_inexact = busy_inexact || kernels.inexact();
  if (!kernel_inexact)
    for (const auto& [gpu, n] : kernels.per_gpu()) by_gpu[gpu].kernel_candidates = n;
  if ((busy_inexact || kernel_inexact) && by_gpu.empty()) by_gpu[GpuKey{}];
  MemberRows out;
  out.rows.reserve(by_gpu.size());
  for (auto& [gpu, r] : by_gpu) {
    r.gpu = gpu;
    r.busy_inexact = busy_inexact;
    r.kernel_inexact = kernel_inexact;
    out.rows.push_back(std::move(r));
  }
  return out;
}

// The later passes' reads of member `m` (the header's pattern), left in the registry. A read that
// fails is left to its own pass, which then reports the error in its own words.
void read_ahead(members::Registry& registry, const canonical::MemberPtr& m, sqlite3* db,
                members::InterruptWatch& watch, const std::string& pattern) {
  const canonical::FileStamp stamp = registry.stamp(m);
  const int64_t offset = m->clock_offset.load();
  auto attempt = [&](auto&& read) {
    try {
      read();
    } catch (const Error& e) {
      if (e.code() == SQLITE_INTERRUPT || watch.stopped()) throw;
    }
  };
  attempt([&] {
    registry.stash(m, step_ranges_stash(pattern), stamp, offset,
                   std::make_shared<StepRangesByPid>(read_step_ranges(*m, db, watch, pattern, "rocpd_steps")));
  });
  attempt([&] {
    const auto profile = registry.profile_on(m, db, watch, uint64_t{1} << canonical::kOpsPid);
    registry.stash(m, kCollectivesStash, stamp, offset,
                   std::make_shared<MemberCollectivesRead>(
                       read_member_collectives(*m, db, watch, profile.get(), "rocpd_collectives")));
  });
}

void result_optional(sqlite3_context* ctx, const std::optional<int64_t>& v) {
  if (v) sqlite3_result_int64(ctx, *v);
  else sqlite3_result_null(ctx);
}

struct Def {
  static constexpr const char* kTableName = kTable;
  // The percentiles are declared without a type: they hold exactly what percentile() gives (a real
  // when interpolated, however whole), as rocpd_op_groups' med_ns.
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, gpu INTEGER, busy_ns INTEGER, span_ns INTEGER, gaps INTEGER, gap_med_ns, "
      "gap_p99_ns, gap_max_ns INTEGER, long_gaps INTEGER, long_gap_med_ns, delays INTEGER, delay_med_ns, "
      "delay_p99_ns, delay_max_ns INTEGER, kernel_candidates INTEGER, busy_inexact INTEGER, "
      "delay_inexact INTEGER, kernel_inexact INTEGER, pattern HIDDEN)";
  static constexpr PlanColumns kPlan{.db = 0, .pattern = kPattern};
  static constexpr bool kPatternOptional = true;
  using Rows = MemberRows;
  // A member's rows are a few (one per gpu): large batches, few barriers where a core waits for
  // the batch's last member.
  static constexpr size_t kBatchPerCore = 32;
  static Rows compute_visit(members::Registry& registry, const canonical::MemberPtr& m, sqlite3* conn,
                            members::InterruptWatch& watch, const Selection& sel) {
    Rows rows = member_rows(*m, conn, watch);
    if (sel.pattern) read_ahead(registry, m, conn, watch, *sel.pattern);
    return rows;
  }
  static void column(const Rows& rows, size_t row, const MemberRef&, const Selection& sel, sqlite3_context* ctx,
                     int col) {
    const Row& r = rows.rows[row];
    const bool has_gaps = r.busy && r.gaps.gaps > 0, has_delays = r.delays.delays > 0;
    switch (col) {
      case kGpu: r.gpu.result(ctx); break;
      case kBusy: result_optional(ctx, r.busy); break;
      case kSpan: result_optional(ctx, r.span); break;
      case kGaps: result_optional(ctx, r.busy ? std::optional<int64_t>(r.gaps.gaps) : std::nullopt); break;
      case kGapMed: stats::result_number(ctx, r.gaps.med); break;
      case kGapP99: stats::result_number(ctx, r.gaps.p99); break;
      case kGapMax: result_optional(ctx, has_gaps ? std::optional<int64_t>(r.gaps.max) : std::nullopt); break;
      case kLongGaps: result_optional(ctx, r.busy ? std::optional<int64_t>(r.gaps.long_gaps) : std::nullopt); break;
      case kLongGapMed: stats::result_number(ctx, r.gaps.long_med); break;
      case kDelays: sqlite3_result_int64(ctx, r.delays.delays); break;
      case kDelayMed: stats::result_number(ctx, r.delays.med); break;
      case kDelayP99: stats::result_number(ctx, r.delays.p99); break;
      case kDelayMax: result_optional(ctx, has_delays ? std::optional<int64_t>(r.delays.max) : std::nullopt); break;
      case kKernelCandidates: sqlite3_result_int64(ctx, r.kernel_candidates); break;
      case kBusyInexact: sqlite3_result_int64(ctx, r.busy_inexact); break;
      case kDelayInexact: sqlite3_result_int64(ctx, r.delays.inexact); break;
      case kKernelInexact: sqlite3_result_int64(ctx, r.kernel_inexact); break;
      case kPattern:
        if (sel.pattern) sqlite3_result_text(ctx, sel.pattern->data(), static_cast<int>(sel.pattern->size()), SQLITE_TRANSIENT);
        else sqlite3_result_null(ctx);
        break;
    }
  }
  static int64_t rowid(const Rows&, size_t row, const MemberRef& m) { return member_row_id(m, row, kTable); }
};

}  // namespace

void register_gpu_screen(sqlite3* db) { MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
