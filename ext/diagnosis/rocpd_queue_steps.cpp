// rocpd_queue_steps: eponymous-only virtual table holding the rows of the rocpd_queue_depth view
// (sql/views/65_rocpd_queue_depth.sql, docs/diagnosis.md): per member and lane (gpu, queue,
// stream) the step function of outstanding ops, computed per member on every core from direct
// member reads (ops, then their launch calls), instead of SQL windows over every API row.
// Pushdown and module: analysis/member_rows_table.h. Rowid: member_row_id (the row's index within
// the member: lanes in order, then ts).
#include <map>
#include <tuple>
#include <vector>

#include "analysis/member_read.h"
#include "analysis/member_rows_table.h"
#include "diagnosis/queue_steps.h"
#include "diagnosis/register.h"
#include "members/member_columns.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_queue_steps";

enum Column { kDb, kGpu, kQueue, kStream, kTs, kDepth, kWaiting, kDuration };

using LaneKey = std::tuple<GpuKey, GpuKey, GpuKey>;

struct Step {
  uint32_t lane;
  QueueStep step;
  int64_t next_ts;  // for a duration that overflows (SQLite then subtracts as reals)
};

struct MemberRows {
  std::vector<LaneKey> lanes;
  std::vector<Step> steps;
  size_t size() const { return steps.size(); }
};

MemberRows member_rows(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
  using namespace canonical;
  using namespace members;
  struct RawOp {
    uint32_t lane;
    int64_t start, end, corr;
    bool bad;  // start or end not an integer: read by time_value if the op has a launch
  };
  std::vector<RawOp> raw;
  std::vector<int64_t> corrs;
  std::map<LaneKey, uint32_t> lane_index;
  std::map<size_t, std::pair<GpuKey, GpuKey>> bad_times;  // raw index -> (start, end)
  {
    MemberColumns ops(m, conn, TableKind::Ops, {kOpsGpu, kOpsQueue, kOpsStream, kOpsStart, kOpsEnd, kOpsCorrelationId});
    uint64_t read = 0;
    while (ops.next()) {
      if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
      const StoredValue start = ops[3], end = ops[4], corr = ops[5];
      if (corr.type != SQLITE_INTEGER || start.type == SQLITE_NULL || end.type == SQLITE_NULL) continue;
      auto it = lane_index.try_emplace({value_key(ops[0]), value_key(ops[1]), value_key(ops[2])},
                                       static_cast<uint32_t>(lane_index.size()))
                    .first;
      const bool bad = start.type != SQLITE_INTEGER || end.type != SQLITE_INTEGER;
      if (bad) bad_times.emplace(raw.size(), std::pair{value_key(start), value_key(end)});
      raw.push_back({it->second, start.i, end.i, corr.i, bad});
      corrs.push_back(corr.i);
    }
  }
  CorrSlots wanted;
  wanted.assign(corrs);
  corrs = {};
  const auto launches = read_member_launches(m, conn, wanted, false, kTable);
  std::vector<std::vector<LaneOp>> by_lane(lane_index.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    const RawOp& op = raw[i];
    const LaunchCall& call = launches.calls[static_cast<size_t>(wanted.find(op.corr))];
    if (!call.found) continue;
    LaneOp lane_op{call.start, op.start, op.end};
    if (op.bad) {  // integral reals count; anything else is time_value's error, as the other diagnosis tables
      const auto& [s, e] = bad_times.at(i);
      lane_op.start = *time_value(stored_of(s), kTable, m.alias, "start");
      lane_op.end = *time_value(stored_of(e), kTable, m.alias, "end");
    }
    by_lane[op.lane].push_back(lane_op);
  }
  MemberRows out;
  out.lanes.reserve(lane_index.size());
  for (auto& [key, index] : lane_index) {
    if (watch.stopped()) InterruptWatch::raise();
    const auto lane = static_cast<uint32_t>(out.lanes.size());
    out.lanes.push_back(key);
    const auto steps = queue_steps(by_lane[index]);
    for (size_t i = 0; i < steps.size(); ++i)
      out.steps.push_back({lane, steps[i], i + 1 < steps.size() ? steps[i + 1].ts : 0});
  }
  return out;
}

struct Def {
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, gpu INTEGER, queue INTEGER, stream INTEGER, ts INTEGER, depth INTEGER, "
      "waiting INTEGER, duration INTEGER)";
  using Rows = MemberRows;
  static Rows compute(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
    return member_rows(m, conn, watch);
  }
  static void column(const Rows& rows, size_t row, const MemberRef&, sqlite3_context* ctx, int col) {
    const Step& s = rows.steps[row];
    const LaneKey& lane = rows.lanes[s.lane];
    switch (col) {
      case kGpu: std::get<0>(lane).result(ctx); break;
      case kQueue: std::get<1>(lane).result(ctx); break;
      case kStream: std::get<2>(lane).result(ctx); break;
      case kTs: sqlite3_result_int64(ctx, s.step.ts); break;
      case kDepth: sqlite3_result_int64(ctx, s.step.depth); break;
      case kWaiting: sqlite3_result_int64(ctx, s.step.waiting); break;
      case kDuration:
        if (s.step.duration) sqlite3_result_int64(ctx, *s.step.duration);
        else if (s.step.duration_overflows)
          sqlite3_result_double(ctx, static_cast<double>(s.next_ts) - static_cast<double>(s.step.ts));
        else sqlite3_result_null(ctx);
        break;
    }
  }
  static int64_t rowid(const Rows&, size_t row, const MemberRef& m) { return member_row_id(m, row, kTable); }
};

}  // namespace

void register_queue_steps(sqlite3* db) { MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
