// rocpd_idle_breakdown([kernel_wait_ns [, lo, hi]]): eponymous-only virtual table. Per member and
// gpu (level 'gpu') and per (queue, stream) of that gpu (level 'queue'): the idle time between
// busy intervals split into host wait, kernel wait and other (diagnosis/idle_math.h,
// docs/diagnosis.md). Each op's launch is the rocpd_apis call with its (pid, correlation_id).
// Pushdown: db =, gpu = (members and gpus read), the arguments (omitted: consumed). Everything
// else is filtered by SQLite. Rowids: member ordinal, gpu slot, row index within the gpu (0 for
// the gpu row, 1.. for its lanes in (queue, stream) order), as ops_window.h's RowNumbering.
#include <fmt/format.h>

#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "analysis/member_read.h"
#include "analysis/member_rows_table.h"
#include "diagnosis/idle_math.h"
#include "diagnosis/register.h"
#include "members/member_columns.h"
#include "members/interrupt.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_idle_breakdown";
constexpr int64_t kDefaultKernelWaitNs = 5'000;

enum Column {
  kDb, kGpu, kLevel, kQueue, kStream, kOps, kGaps, kIdle, kHost, kKernel, kOther, kBusy, kArgThreshold, kArgLo, kArgHi
};
constexpr PlanColumns kColumns{.db = kDb, .gpu = kGpu, .threshold = kArgThreshold, .lo = kArgLo, .hi = kArgHi};

struct Row {
  GpuKey gpu;
  bool lane = false;
  GpuKey queue, stream;
  IdleTotals totals;
  uint64_t index = 0;  // within the gpu
};

struct Params {
  std::optional<int64_t> gpu;
  int64_t threshold, lo, hi;
};

// Each distinct gpu and (gpu, queue, stream) lane of a member, numbered in order of appearance.
struct LaneIndex {
  std::map<GpuKey, uint32_t> gpus;
  std::map<std::tuple<GpuKey, GpuKey, GpuKey>, uint32_t> lanes;
  // Fast path for the usual integer-or-NULL (gpu, queue, stream): a short list searched linearly.
  struct IntLane {
    int64_t v[3];
    int types;
    uint32_t gpu, lane;
  };
  std::vector<IntLane> int_lanes;

  // The (gpu, lane) numbers of an op's gpu, queue and stream values.
  std::pair<uint32_t, uint32_t> find(const StoredValue (&lane_values)[3]) {
    int types = 0;
    int64_t v[3] = {0, 0, 0};
    bool plain = true;
    for (int c = 0; c < 3; ++c) {
      const int t = lane_values[c].type;
      if (t == SQLITE_INTEGER) v[c] = lane_values[c].i;
      else if (t != SQLITE_NULL) plain = false;
      types = types * 8 + t;
    }
    if (plain)
      for (const IntLane& l : int_lanes)
        if (l.types == types && l.v[0] == v[0] && l.v[1] == v[1] && l.v[2] == v[2]) return {l.gpu, l.lane};
    GpuKey gpu = value_key(lane_values[0]);
    auto g = gpus.try_emplace(gpu, static_cast<uint32_t>(gpus.size())).first;
    auto l = lanes.try_emplace({std::move(gpu), value_key(lane_values[1]), value_key(lane_values[2])},
                               static_cast<uint32_t>(lanes.size()))
                 .first;
    if (plain && int_lanes.size() < 256) int_lanes.push_back({{v[0], v[1], v[2]}, types, g->second, l->second});
    return {g->second, l->second};
  }
};

// The rows of one member: its ops and their launch calls read on a leased connection
// (MemberColumns, on any core), classified per gpu and per (queue, stream).
std::vector<Row> member_rows(const canonical::Member& m, sqlite3* conn, const Params& p,
                             const members::InterruptWatch& watch) {
  using namespace canonical;
  using namespace members;
  const std::string& db = m.alias;
  struct RawOp {
    uint32_t gpu, lane;  // indices into gpus / lanes
    int64_t start, end;
    int64_t corr;
    bool has_corr;
  };
  std::vector<RawOp> raw;
  LaneIndex index;
  std::vector<int64_t> corrs;
  MemberColumns ops(m, conn, TableKind::Ops, {kOpsGpu, kOpsQueue, kOpsStream, kOpsStart, kOpsEnd, kOpsCorrelationId});
  uint64_t rows_read = 0;
  while (ops.next()) {
    if ((++rows_read & 0xffff) == 0 && watch.stopped()) members::InterruptWatch::raise();
    const StoredValue lane_values[3] = {ops[0], ops[1], ops[2]};
    // The table's pruning constraints, compared as SQLite compares them.
    if (p.gpu && !equals_int(lane_values[0], *p.gpu)) continue;
    if (p.lo != kNoLo && !greater_than(ops[4], p.lo)) continue;
    if (p.hi != kNoHi && !less_than(ops[3], p.hi)) continue;
    const auto [gi, li] = index.find(lane_values);
    const auto start = time_value(ops[3], kTable, db, "start");
    const auto end = time_value(ops[4], kTable, db, "end");
    if (!start || !end) continue;  // no busy time (as rocpd_gaps)
    const StoredValue corr = ops[5];
    const bool has_corr = corr.type == SQLITE_INTEGER;
    if (has_corr) corrs.push_back(corr.i);
    raw.push_back({gi, li, *start, *end, has_corr ? corr.i : 0, has_corr});
  }
  CorrSlots wanted;
  wanted.assign(corrs);
  corrs = {};
  const auto launches = read_member_launches(m, conn, wanted, false, kTable);
  std::vector<std::vector<IdleOp>> by_gpu(index.gpus.size()), by_lane(index.lanes.size());
  for (const RawOp& op : raw) {
    IdleOp x{op.start, op.end, kNoLaunch};
    const int64_t slot = op.has_corr ? wanted.find(op.corr) : -1;
    if (slot >= 0 && launches.calls[static_cast<size_t>(slot)].found) x.launch = launches.calls[static_cast<size_t>(slot)].start;
    by_gpu[op.gpu].push_back(x);
    by_lane[op.lane].push_back(x);
  }
  std::vector<Row> out;
  std::map<uint32_t, uint64_t> next_index;  // gpu -> next lane index
  for (auto& [gpu, gi] : index.gpus) {
    Row r;
    r.gpu = gpu;
    r.totals = classify_gaps(by_gpu[gi], p.threshold, p.lo, p.hi, kTable);
    out.push_back(std::move(r));
    for (auto& [key, li] : index.lanes) {
      if (!(std::get<0>(key) == gpu)) continue;
      Row lr;
      lr.gpu = gpu;
      lr.lane = true;
      lr.queue = std::get<1>(key);
      lr.stream = std::get<2>(key);
      lr.index = ++next_index[gi];
      lr.totals = classify_gaps(by_lane[li], p.threshold, p.lo, p.hi, kTable);
      out.push_back(std::move(lr));
    }
  }
  return out;
}

void result_row(const Row& r, const Selection& sel, sqlite3_context* ctx, int col) {
  switch (col) {
    case kGpu: r.gpu.result(ctx); break;
    case kLevel: sqlite3_result_text(ctx, r.lane ? "queue" : "gpu", -1, SQLITE_STATIC); break;
    case kQueue:
      if (r.lane) r.queue.result(ctx);
      break;
    case kStream:
      if (r.lane) r.stream.result(ctx);
      break;
    case kOps: sqlite3_result_int64(ctx, r.totals.ops); break;
    case kGaps: sqlite3_result_int64(ctx, r.totals.gaps); break;
    case kIdle: sqlite3_result_int64(ctx, r.totals.idle_ns); break;
    case kHost: sqlite3_result_int64(ctx, r.totals.host_wait_ns); break;
    case kKernel: sqlite3_result_int64(ctx, r.totals.kernel_wait_ns); break;
    case kOther: sqlite3_result_int64(ctx, r.totals.other_ns); break;
    case kBusy: sqlite3_result_int64(ctx, r.totals.busy_ns); break;
    case kArgThreshold: sqlite3_result_int64(ctx, sel.threshold.value_or(kDefaultKernelWaitNs)); break;
    case kArgLo:
      if (sel.lo) sqlite3_result_int64(ctx, *sel.lo);
      break;
    case kArgHi:
      if (sel.hi) sqlite3_result_int64(ctx, *sel.hi);
      break;
  }
}

// HOW IT WORKS: analysis/member_rows_table.h (db =, gpu = and the arguments pushed down; each batch
// of members read on every core).
struct Def {
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, gpu INTEGER, level TEXT, queue INTEGER, stream INTEGER, ops INTEGER, gaps INTEGER, "
      "idle_ns INTEGER, host_wait_ns INTEGER, kernel_wait_ns INTEGER, other_ns INTEGER, busy_ns INTEGER, "
      "threshold_ns HIDDEN, lo HIDDEN, hi HIDDEN)";
  static constexpr PlanColumns kPlan = kColumns;
  using Rows = std::vector<Row>;
  using RowState = RowNumbering;

  static void check(const Selection& sel) {
    const int64_t threshold = sel.threshold.value_or(kDefaultKernelWaitNs);
    if (threshold < 0) throw Error(fmt::format("{}: threshold_ns must be >= 0, got {}", kTable, threshold));
    if (sel.lo && sel.hi && *sel.hi <= *sel.lo)
      throw Error(fmt::format("{}: hi ({}) must be greater than lo ({})", kTable, *sel.hi, *sel.lo));
  }
  static Rows compute(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch,
                      const Selection& sel) {
    const Params p{sel.gpu, sel.threshold.value_or(kDefaultKernelWaitNs), sel.lo.value_or(kNoLo), sel.hi.value_or(kNoHi)};
    return member_rows(m, conn, p, watch);
  }
  static void column(const Rows& rows, size_t row, const MemberRef&, const Selection& sel, sqlite3_context* ctx,
                     int col) {
    result_row(rows[row], sel, ctx, col);
  }
  static int64_t rowid(const Rows& rows, size_t row, const MemberRef& m, RowNumbering& numbering) {
    return numbering.rowid(m.ordinal, rows[row].gpu, rows[row].index, kTable);
  }
};

}  // namespace

void register_idle_breakdown(sqlite3* db) { analysis::MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
