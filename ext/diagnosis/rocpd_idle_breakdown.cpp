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

#include "common/vtab_util.h"
#include "diagnosis/diag_read.h"
#include "diagnosis/idle_math.h"
#include "diagnosis/sql_names.h"
#include "federation/interrupt.h"

namespace rocpd::diagnosis {
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

struct Table : sqlite3_vtab {
  sqlite3* conn;
};

struct Cursor : sqlite3_vtab_cursor {
  Selection sel;
  int64_t threshold = kDefaultKernelWaitNs, lo = intervals::kNoLo, hi = intervals::kNoHi;
  std::vector<MemberRef> dbs;
  size_t next_db = 0;
  std::vector<Row> rows;  // of dbs[next_db - 1]
  size_t row = 0;
  bool eof = true;
  intervals::RowNumbering numbering;
  std::unique_ptr<federation::InterruptWatch> watch;

  Table& table() const { return *static_cast<Table*>(pVtab); }
  const std::string& db() const { return dbs[next_db - 1].db; }

  void settle() {
    while (row >= rows.size()) {
      if (next_db >= dbs.size()) {
        eof = true;
        return;
      }
      watch->check();
      const std::string& db = dbs[next_db].db;
      MemberInput in = ahead && ahead->db == db ? std::move(*ahead) : start_member(db);
      ahead.reset();
      ++next_db;
      // The next member's reads start now and run while this one is classified.
      if (next_db < dbs.size()) ahead = start_member(dbs[next_db].db);
      rows = load(in);
      row = 0;
    }
  }

  struct MemberInput {
    std::string db;
    Prefetched ops, launches;
  };
  std::optional<MemberInput> ahead;

  struct Window {
    std::optional<int64_t> gpu;
    int64_t lo, hi;
  };

  MemberInput start_member(const std::string& db) {
    sqlite3* conn = table().conn;
    std::string sql = "SELECT gpu, queue, stream, start, \"end\", correlation_id FROM temp.rocpd_ops WHERE db = ?1";
    if (sel.gpu) sql += " AND gpu = ?2";
    if (lo != intervals::kNoLo) sql += " AND \"end\" > ?3";
    if (hi != intervals::kNoHi) sql += " AND start < ?4";
    const Window w{sel.gpu, lo, hi};
    MemberInput in;
    in.db = db;
    in.ops = Prefetched(conn, sql, db, "reading rocpd_ops", +[](sqlite3_stmt* st, const void* arg) {
      const Window& w = *static_cast<const Window*>(arg);
      if (w.gpu) sqlite3_bind_int64(st, 2, *w.gpu);
      if (w.lo != intervals::kNoLo) sqlite3_bind_int64(st, 3, w.lo);
      if (w.hi != intervals::kNoHi) sqlite3_bind_int64(st, 4, w.hi);
    }, &w);
    in.launches = launch_query(conn, db, false);
    return in;
  }

  std::vector<Row> load(MemberInput& in) {
    const std::string& db = in.db;
    struct RawOp {
      uint32_t gpu, lane;  // indices into gpus / lanes
      int64_t start, end;
      int64_t slot;        // the launch's slot in `wanted`, -1 for none
    };
    std::vector<RawOp> raw;
    std::map<GpuKey, uint32_t> gpus;
    std::map<std::tuple<GpuKey, GpuKey, GpuKey>, uint32_t> lanes;
    // Fast path for the usual integer-or-NULL (gpu, queue, stream): a short list searched linearly.
    struct IntLane {
      int64_t v[3];
      int types;
      uint32_t gpu, lane;
    };
    std::vector<IntLane> int_lanes;
    CorrSlots wanted;
    sqlite3_stmt* s = in.ops.get();
    uint64_t rows_read = 0;
    while (in.ops.next()) {
      if ((++rows_read & 0xffff) == 0) watch->check();
      int types = 0;
      int64_t v[3] = {0, 0, 0};
      bool plain = true;
      for (int c = 0; c < 3; ++c) {
        const int t = sqlite3_column_type(s, c);
        if (t == SQLITE_INTEGER) v[c] = sqlite3_column_int64(s, c);
        else if (t != SQLITE_NULL) plain = false;
        types = types * 8 + t;
      }
      uint32_t gi = 0, li = 0;
      const IntLane* hit = nullptr;
      if (plain)
        for (const IntLane& l : int_lanes)
          if (l.types == types && l.v[0] == v[0] && l.v[1] == v[1] && l.v[2] == v[2]) {
            hit = &l;
            break;
          }
      if (hit) {
        gi = hit->gpu;
        li = hit->lane;
      } else {
        GpuKey gpu = value_key(s, 0);
        auto g = gpus.try_emplace(gpu, static_cast<uint32_t>(gpus.size())).first;
        auto l = lanes.try_emplace({std::move(gpu), value_key(s, 1), value_key(s, 2)}, static_cast<uint32_t>(lanes.size())).first;
        gi = g->second;
        li = l->second;
        if (plain && int_lanes.size() < 256) int_lanes.push_back({{v[0], v[1], v[2]}, types, gi, li});
      }
      const auto start = time_column(s, 3, kTable, db, "start");
      const auto end = time_column(s, 4, kTable, db, "end");
      if (!start || !end) continue;  // no busy time (as rocpd_gaps)
      const auto corr = corr_column(s, 5);
      raw.push_back({gi, li, *start, *end, corr ? static_cast<int64_t>(wanted.add(*corr)) : -1});
    }
    in.ops.finish();
    const auto launches = read_launches(in.launches, db, wanted, false, kTable);
    std::vector<std::vector<IdleOp>> by_gpu(gpus.size()), by_lane(lanes.size());
    for (const RawOp& op : raw) {
      IdleOp x{op.start, op.end, kNoLaunch};
      if (op.slot >= 0 && launches[static_cast<size_t>(op.slot)].found) x.launch = launches[static_cast<size_t>(op.slot)].start;
      by_gpu[op.gpu].push_back(x);
      by_lane[op.lane].push_back(x);
    }
    std::vector<Row> out;
    std::map<uint32_t, uint64_t> next_index;  // gpu -> next lane index
    for (auto& [gpu, gi] : gpus) {
      Row r;
      r.gpu = gpu;
      r.totals = classify_gaps(by_gpu[gi], threshold, lo, hi, kTable);
      out.push_back(std::move(r));
      for (auto& [key, li] : lanes) {
        if (!(std::get<0>(key) == gpu)) continue;
        Row lr;
        lr.gpu = gpu;
        lr.lane = true;
        lr.queue = std::get<1>(key);
        lr.stream = std::get<2>(key);
        lr.index = ++next_index[gi];
        lr.totals = classify_gaps(by_lane[li], threshold, lo, hi, kTable);
        out.push_back(std::move(lr));
      }
    }
    return out;
  }
};

int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    int rc = sqlite3_declare_vtab(
        db,
        "CREATE TABLE x(db TEXT, gpu INTEGER, level TEXT, queue INTEGER, stream INTEGER, ops INTEGER, gaps INTEGER, "
        "idle_ns INTEGER, host_wait_ns INTEGER, kernel_wait_ns INTEGER, other_ns INTEGER, busy_ns INTEGER, "
        "threshold_ns HIDDEN, lo HIDDEN, hi HIDDEN)");
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
  return guard(vtab, [&] { return plan(info, kColumns, 1e7); });
}

int filter(sqlite3_vtab_cursor* cur, int, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    c->sel = decode(kTable, idx_str, argc, argv);
    c->threshold = c->sel.threshold.value_or(kDefaultKernelWaitNs);
    if (c->threshold < 0) throw Error(fmt::format("{}: threshold_ns must be >= 0, got {}", kTable, c->threshold));
    c->lo = c->sel.lo.value_or(intervals::kNoLo);
    c->hi = c->sel.hi.value_or(intervals::kNoHi);
    if (c->sel.lo && c->sel.hi && *c->sel.hi <= *c->sel.lo)
      throw Error(fmt::format("{}: hi ({}) must be greater than lo ({})", kTable, *c->sel.hi, *c->sel.lo));
    c->watch = std::make_unique<federation::InterruptWatch>(c->table().conn);
    c->dbs = c->sel.nothing ? std::vector<MemberRef>{} : intervals::member_dbs(c->table().conn, c->sel.db);
    c->next_db = c->row = 0;
    c->ahead.reset();
    c->rows.clear();
    c->eof = false;
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
  const Row& r = c->rows[c->row];
  switch (col) {
    case kDb: sqlite3_result_text(ctx, c->db().data(), static_cast<int>(c->db().size()), SQLITE_TRANSIENT); break;
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
    case kArgThreshold: sqlite3_result_int64(ctx, c->threshold); break;
    case kArgLo:
      if (c->sel.lo) sqlite3_result_int64(ctx, *c->sel.lo);
      break;
    case kArgHi:
      if (c->sel.hi) sqlite3_result_int64(ctx, *c->sel.hi);
      break;
  }
  return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    const Row& r = c->rows[c->row];
    *out = c->numbering.rowid(c->dbs[c->next_db - 1].ordinal, r.gpu, r.index, kTable);
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

void register_idle_breakdown(sqlite3* db) {
  int rc = sqlite3_create_module(db, kTable, &kModule, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", kTable, sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::diagnosis
