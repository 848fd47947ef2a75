// rocpd_queue_steps: eponymous-only virtual table holding the rows of the rocpd_queue_depth view
// (sql/views/65_rocpd_queue_depth.sql, docs/diagnosis.md): per member and lane (gpu, queue,
// stream) the step function of outstanding ops, computed per member on every core from direct
// member reads (ops, then their launch calls), instead of SQL windows over every API row.
// Pushdown: db = (members read); everything else is filtered by SQLite. Rowid: member ordinal in
// the high bits, the row's index within the member (lanes in order, then ts) in the low 40.
#include <fmt/format.h>

#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "common/vtab_util.h"
#include "diagnosis/diag_read.h"
#include "diagnosis/member_batches.h"
#include "diagnosis/queue_steps.h"
#include "diagnosis/sql_names.h"
#include "federation/member_columns.h"

namespace rocpd::diagnosis {
namespace {

constexpr const char* kTable = "rocpd_queue_steps";
constexpr int kIndexBits = 40;

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
};

StoredValue stored(const GpuKey& k) {
  StoredValue v;
  v.type = k.type;
  v.i = k.i;
  v.d = k.d;
  v.bytes = k.bytes.data();
  v.length = static_cast<int>(k.bytes.size());
  return v;
}

MemberRows member_rows(const federation::Member& m, sqlite3* conn, const federation::InterruptWatch& watch) {
  using namespace federation;
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
    const LaunchCall& call = launches[static_cast<size_t>(wanted.find(op.corr))];
    if (!call.found) continue;
    LaneOp lane_op{call.start, op.start, op.end};
    if (op.bad) {  // integral reals count; anything else is time_value's error, as the other diagnosis tables
      const auto& [s, e] = bad_times.at(i);
      lane_op.start = *time_value(stored(s), kTable, m.alias, "start");
      lane_op.end = *time_value(stored(e), kTable, m.alias, "end");
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
  if (out.steps.size() >= (uint64_t{1} << kIndexBits))
    throw Error(fmt::format("{}: member {} has too many rows to number", kTable, m.alias));
  return out;
}

struct Table : sqlite3_vtab {
  sqlite3* conn;
};

struct Cursor : sqlite3_vtab_cursor {
  std::unique_ptr<MemberBatches<MemberRows>> batches;
  size_t member = 0, row = 0;
  bool eof = true;

  Table& table() const { return *static_cast<Table*>(pVtab); }
  void settle() {
    for (;;) {
      while (member < batches->size() && row >= batches->rows(member).steps.size()) {
        ++member;
        row = 0;
      }
      if (member < batches->size()) {
        eof = false;
        return;
      }
      member = row = 0;
      if (!batches->next_batch()) {
        eof = true;
        return;
      }
    }
  }
};

int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    int rc = sqlite3_declare_vtab(db,
                                  "CREATE TABLE x(db TEXT, gpu INTEGER, queue INTEGER, stream INTEGER, ts INTEGER, "
                                  "depth INTEGER, waiting INTEGER, duration INTEGER)");
    if (rc != SQLITE_OK) throw Error(sqlite3_errmsg(db), rc);
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    auto table = std::make_unique<Table>();
    *static_cast<sqlite3_vtab*>(table.get()) = {};
    table->conn = db;
    *out = table.release();
    return SQLITE_OK;
  });
}

int best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guard(vtab, [&] { return plan(info, PlanColumns{.db = kDb}, 1e7); });
}

int filter(sqlite3_vtab_cursor* cur, int, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    const Selection sel = decode(kTable, idx_str, argc, argv);
    c->batches = std::make_unique<MemberBatches<MemberRows>>(c->table().conn, kTable, member_rows);
    c->batches->start(sel.nothing ? std::vector<MemberRef>{} : intervals::member_dbs(c->table().conn, sel.db));
    c->member = c->row = 0;
    c->settle();
    return SQLITE_OK;
  });
}

int next(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    ++c->row;
    c->settle();
    return SQLITE_OK;
  });
}

int eof(sqlite3_vtab_cursor* cur) { return static_cast<Cursor*>(cur)->eof; }

int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  const MemberRows& rows = c->batches->rows(c->member);
  const Step& s = rows.steps[c->row];
  const LaneKey& lane = rows.lanes[s.lane];
  switch (col) {
    case kDb: {
      const std::string& db = c->batches->member(c->member).db;
      sqlite3_result_text(ctx, db.data(), static_cast<int>(db.size()), SQLITE_TRANSIENT);
      break;
    }
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
  return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    const int64_t ordinal = c->batches->member(c->member).ordinal;
    if (ordinal < 0 || ordinal >= (int64_t{1} << (62 - kIndexBits)))
      throw Error(fmt::format("{}: member ordinal {} cannot be numbered in rowids", kTable, ordinal));
    *out = (ordinal << kIndexBits) | static_cast<int64_t>(c->row);
    return SQLITE_OK;
  });
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.xConnect = connect;
  m.xBestIndex = best_index;
  m.xDisconnect = vtab_disconnect<Table>;
  m.xOpen = vtab_open<Cursor>;
  m.xClose = vtab_close<Cursor>;
  m.xFilter = filter;
  m.xNext = next;
  m.xEof = eof;
  m.xColumn = column;
  m.xRowid = rowid;
  return m;
}
const sqlite3_module kModule = make_module();

}  // namespace

void register_queue_steps(sqlite3* db) {
  int rc = sqlite3_create_module(db, kTable, &kModule, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", kTable, sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::diagnosis
