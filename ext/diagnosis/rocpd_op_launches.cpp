// rocpd_op_launches: eponymous-only virtual table, one row per op of rocpd_ops with a launch call
// (the call of its member with its correlation id: earliest start, then smallest api_id; calls
// without a start are no launches), with the op's columns and the call's (docs/diagnosis.md). It
// is the join `rocpd_ops o CROSS JOIN <first call per (db, correlation_id)> c` computed per member
// on every core from direct member reads, for rocpd_launch_stats and rocpd_queue_depth; plus the
// op's graph_id and lane_free: when the ops ahead of it on its lane (gpu, queue, stream: every op
// of the lane that starts before it, then by rowid) had all ended (NULL for the lane's first op),
// for the launch delay's split into queueing and the rest.
// Pushdown and module: analysis/member_rows_table.h. Rowid: the op's rowid in rocpd_ops (unique
// across members, stable).
#include <algorithm>
#include <bit>
#include <numeric>
#include <tuple>
#include <vector>

#include "analysis/cell_store.h"
#include "analysis/member_read.h"
#include "diagnosis/launch_calls.h"
#include "analysis/member_rows_table.h"
#include "diagnosis/register.h"
#include "members/member_columns.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_op_launches";

enum Column {
  kDb, kPid, kTid, kOpId, kCorr, kGpu, kQueue, kStream, kKind, kName, kApiName, kLaunchStart, kLaunchEnd, kStart, kEnd,
  kGraphId, kLaneFree
};

struct OpRow {
  int64_t rowid;
  uint32_t call;  // index into MemberRows::calls
  Cell op_id, corr, gpu, queue, stream, kind, name, start, end, graph_id, lane_free;
};

struct MemberRows {
  CellStore cells;
  std::vector<StoredCall> calls;
  std::vector<OpRow> ops;  // only ops with a launch
  size_t size() const { return ops.size(); }
};

// A cell as a key part: equal parts, equal values (text by its interned index within the member).
std::pair<int, int64_t> cell_key(const Cell& c) {
  if (c.type == SQLITE_FLOAT) return {c.type, std::bit_cast<int64_t>(c.d)};
  if (c.type == SQLITE_TEXT || c.type == SQLITE_BLOB) return {c.type, static_cast<int64_t>(c.text)};
  return {c.type, c.type == SQLITE_INTEGER ? c.i : 0};
}

// One op of a lane, for lane_free: ops whose start and end are integers form the lanes.
struct LaneOp {
  std::tuple<std::pair<int, int64_t>, std::pair<int, int64_t>, std::pair<int, int64_t>> lane;
  int64_t start, end, rowid;
  int64_t row;  // index into MemberRows::ops, or -1 for an op without a launch
};

// Sets each kept op's lane_free: the largest end among the ops ahead of it on its lane.
void set_lane_free(std::vector<LaneOp>& lane_ops, MemberRows& out) {
  std::sort(lane_ops.begin(), lane_ops.end(), [](const LaneOp& a, const LaneOp& b) {
    return std::tie(a.lane, a.start, a.rowid) < std::tie(b.lane, b.start, b.rowid);
  });
  for (size_t i = 0; i < lane_ops.size(); ++i) {
    const bool first = i == 0 || lane_ops[i - 1].lane != lane_ops[i].lane;
    if (!first) lane_ops[i].end = std::max(lane_ops[i].end, lane_ops[i - 1].end);  // running max of ends
    if (lane_ops[i].row >= 0 && !first)
      out.ops[static_cast<size_t>(lane_ops[i].row)].lane_free = out.cells.integer(lane_ops[i - 1].end);
  }
}

MemberRows member_rows(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
  using namespace canonical;
  using namespace members;
  MemberRows out;
  std::vector<int64_t> corrs;
  std::vector<LaneOp> lane_ops;
  {
    MemberColumns ops(m, conn, TableKind::Ops, {kOpsOpId, kOpsCorrelationId, kOpsGpu, kOpsQueue, kOpsStream, kOpsKind,
                                                kOpsName, kOpsStart, kOpsEnd, kOpsGraphId});
    uint64_t read = 0;
    CellStore& c = out.cells;
    while (ops.next()) {
      if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
      const StoredValue corr = ops[1], start = ops[7], end = ops[8];
      const bool launched = corr.type == SQLITE_INTEGER;  // else no launch (the join's equality needs a value)
      const Cell gpu = c.keep(ops[2]), queue = c.keep(ops[3]), stream = c.keep(ops[4]);
      if (start.type == SQLITE_INTEGER && end.type == SQLITE_INTEGER)
        lane_ops.push_back({{cell_key(gpu), cell_key(queue), cell_key(stream)}, start.i, end.i, ops.rowid(),
                            launched ? static_cast<int64_t>(out.ops.size()) : -1});
      if (!launched) continue;
      corrs.push_back(corr.i);
      out.ops.push_back({ops.rowid(), 0, c.keep(ops[0]), c.keep(corr), gpu, queue, stream, c.keep(ops[5]),
                         c.keep(ops[6]), c.keep(start), c.keep(end), c.keep(ops[9]), Cell()});
    }
  }
  set_lane_free(lane_ops, out);
  lane_ops = {};
  CorrSlots wanted;
  wanted.assign(corrs);
  out.calls = read_stored_calls(m, conn, wanted, out.cells, kTable, watch);
  size_t kept = 0;
  for (size_t i = 0; i < out.ops.size(); ++i) {
    OpRow& r = out.ops[i];
    const auto slot = static_cast<size_t>(wanted.find(corrs[i]));
    if (!out.calls[slot].found) continue;
    r.call = static_cast<uint32_t>(slot);
    out.ops[kept++] = r;
  }
  out.ops.resize(kept);
  out.ops.shrink_to_fit();
  return out;
}

struct Def {
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, pid INTEGER, tid INTEGER, op_id INTEGER, correlation_id INTEGER, gpu INTEGER, "
      "queue INTEGER, stream INTEGER, kind TEXT, name TEXT, api_name TEXT, launch_start INTEGER, "
      "launch_end INTEGER, start INTEGER, \"end\" INTEGER, graph_id INTEGER, lane_free INTEGER)";
  using Rows = MemberRows;
  static Rows compute(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
    return member_rows(m, conn, watch);
  }
  static void column(const Rows& rows, size_t row, const MemberRef&, sqlite3_context* ctx, int col) {
    const OpRow& r = rows.ops[row];
    const StoredCall& call = rows.calls[r.call];
    const CellStore& s = rows.cells;
    switch (col) {
      case kPid: s.result(ctx, call.pid); break;
      case kTid: s.result(ctx, call.tid); break;
      case kOpId: s.result(ctx, r.op_id); break;
      case kCorr: s.result(ctx, r.corr); break;
      case kGpu: s.result(ctx, r.gpu); break;
      case kQueue: s.result(ctx, r.queue); break;
      case kStream: s.result(ctx, r.stream); break;
      case kKind: s.result(ctx, r.kind); break;
      case kName: s.result(ctx, r.name); break;
      case kApiName: s.result(ctx, call.name); break;
      case kLaunchStart: sqlite3_result_int64(ctx, call.start); break;
      case kLaunchEnd: s.result(ctx, call.end); break;
      case kStart: s.result(ctx, r.start); break;
      case kEnd: s.result(ctx, r.end); break;
      case kGraphId: s.result(ctx, r.graph_id); break;
      case kLaneFree: s.result(ctx, r.lane_free); break;
    }
  }
  static int64_t rowid(const Rows& rows, size_t row, const MemberRef&) { return rows.ops[row].rowid; }
};

}  // namespace

void register_op_launches(sqlite3* db) { MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
