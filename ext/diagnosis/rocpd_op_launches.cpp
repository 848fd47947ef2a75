// rocpd_op_launches: eponymous-only virtual table, one row per op of rocpd_ops with a launch call
// (the call of its member with its correlation id: earliest start, then smallest api_id; calls
// without a start are no launches), with the op's columns and the call's (docs/diagnosis.md). It
// is the join `rocpd_ops o CROSS JOIN <first call per (db, correlation_id)> c` computed per member
// on every core from direct member reads, for rocpd_launch_stats and rocpd_queue_depth.
// Pushdown: db = (members read); everything else is filtered by SQLite. Rowid: the op's rowid in
// rocpd_ops (unique across members, stable).
#include <fmt/format.h>

#include <memory>
#include <vector>

#include "common/vtab_util.h"
#include "diagnosis/cell_store.h"
#include "diagnosis/diag_read.h"
#include "diagnosis/launch_calls.h"
#include "diagnosis/member_batches.h"
#include "diagnosis/sql_names.h"
#include "federation/member_columns.h"

namespace rocpd::diagnosis {
namespace {

constexpr const char* kTable = "rocpd_op_launches";

enum Column {
  kDb, kPid, kTid, kOpId, kCorr, kGpu, kQueue, kStream, kKind, kName, kApiName, kLaunchStart, kLaunchEnd, kStart, kEnd
};

struct OpRow {
  int64_t rowid;
  uint32_t call;  // index into MemberRows::calls
  Cell op_id, corr, gpu, queue, stream, kind, name, start, end;
};

struct MemberRows {
  CellStore cells;
  std::vector<StoredCall> calls;
  std::vector<OpRow> ops;  // only ops with a launch
};

MemberRows member_rows(const federation::Member& m, sqlite3* conn, const federation::InterruptWatch& watch) {
  using namespace federation;
  MemberRows out;
  std::vector<int64_t> corrs;
  {
    MemberColumns ops(m, conn, TableKind::Ops, {kOpsOpId, kOpsCorrelationId, kOpsGpu, kOpsQueue, kOpsStream, kOpsKind,
                                                kOpsName, kOpsStart, kOpsEnd});
    uint64_t read = 0;
    CellStore& c = out.cells;
    while (ops.next()) {
      if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
      const StoredValue corr = ops[1];
      if (corr.type != SQLITE_INTEGER) continue;  // no launch (the join's equality needs a value)
      corrs.push_back(corr.i);
      out.ops.push_back({ops.rowid(), 0, c.keep(ops[0]), c.keep(corr), c.keep(ops[2]), c.keep(ops[3]), c.keep(ops[4]),
                         c.keep(ops[5]), c.keep(ops[6]), c.keep(ops[7]), c.keep(ops[8])});
    }
  }
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

struct Table : sqlite3_vtab {
  sqlite3* conn;
};

struct Cursor : sqlite3_vtab_cursor {
  std::unique_ptr<MemberBatches<MemberRows>> batches;
  size_t member = 0, row = 0;
  bool eof = true;

  Table& table() const { return *static_cast<Table*>(pVtab); }
  // Moves to the next existing row from (member, row), computing batches as needed.
  void settle() {
    for (;;) {
      while (member < batches->size() && row >= batches->rows(member).ops.size()) {
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
    int rc = sqlite3_declare_vtab(
        db,
        "CREATE TABLE x(db TEXT, pid INTEGER, tid INTEGER, op_id INTEGER, correlation_id INTEGER, gpu INTEGER, "
        "queue INTEGER, stream INTEGER, kind TEXT, name TEXT, api_name TEXT, launch_start INTEGER, "
        "launch_end INTEGER, start INTEGER, \"end\" INTEGER)");
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
  const OpRow& r = rows.ops[c->row];
  const StoredCall& call = rows.calls[r.call];
  const CellStore& s = rows.cells;
  switch (col) {
    case kDb: {
      const std::string& db = c->batches->member(c->member).db;
      sqlite3_result_text(ctx, db.data(), static_cast<int>(db.size()), SQLITE_TRANSIENT);
      break;
    }
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
  }
  return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  auto* c = static_cast<Cursor*>(cur);
  *out = c->batches->rows(c->member).ops[c->row].rowid;
  return SQLITE_OK;
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

void register_op_launches(sqlite3* db) {
  int rc = sqlite3_create_module(db, kTable, &kModule, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", kTable, sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::diagnosis
