// rocpd_collectives: eponymous-only virtual table, one row per collective kernel of every member
// (job_collectives.h) with its match across members: instance, participants, arrival, late_ns,
// wait_ns, caused_wait_ns (docs/ranks.md). Every row depends on every member, so each scan reads
// all members (on every core) whatever the constraints; SQLite applies every constraint itself.
// Rowids: the op's rocpd_ops rowid (unique across members, stable), so `JOIN rocpd_ops o ON
// o.rowid = c.rowid` pairs a row with its op. Rows come per member in start order.
#include <fmt/format.h>

#include <memory>

#include "common/vtab_util.h"
#include "ranks/job_collectives.h"
#include "ranks/register.h"

namespace rocpd::ranks {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_collectives";

enum Column {
  kDb, kPid, kGpu, kQueue, kStream, kOpId, kName, kFamily, kInstance, kStart, kEnd, kParticipants, kArrival,
  kLateNs, kWaitNs, kCausedWaitNs, kFamilyCount, kMatchedCount
};

struct Table : sqlite3_vtab {
  sqlite3* conn;
};

struct Cursor : sqlite3_vtab_cursor {
  JobCollectives job;
  size_t member = 0, row = 0;
  bool eof = true;

  void settle() {
    while (member < job.per_member.size() && row >= job.per_member[member].rows.size()) {
      ++member;
      row = 0;
    }
    eof = member >= job.per_member.size();
  }
};

int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    int rc = sqlite3_declare_vtab(
        db,
        "CREATE TABLE x(db TEXT, pid INTEGER, gpu INTEGER, queue INTEGER, stream INTEGER, op_id INTEGER, name TEXT, "
        "family TEXT, instance INTEGER, start INTEGER, \"end\" INTEGER, participants INTEGER, arrival INTEGER, "
        "late_ns INTEGER, wait_ns INTEGER, caused_wait_ns INTEGER, family_count INTEGER, matched_count INTEGER)");
    if (rc != SQLITE_OK) throw Error(sqlite3_errmsg(db), rc);
    // It reads member files: a view or trigger stored in a (possibly hostile) database may not.
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    auto table = std::make_unique<Table>();
    *static_cast<sqlite3_vtab*>(table.get()) = {};
    table->conn = db;
    *out = table.release();
    return SQLITE_OK;
  });
}

int best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  // Nothing is pushed down: a member's rows depend on every other member.
  info->estimatedCost = 1e8;
  info->estimatedRows = 100000;
  return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* cur, int, const char*, int, sqlite3_value**) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    c->job = read_job_collectives(static_cast<Table*>(cur->pVtab)->conn, kTable);
    c->member = c->row = 0;
    c->settle();
    return SQLITE_OK;
  });
}

int next(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  ++c->row;
  c->settle();
  return SQLITE_OK;
}

int eof(sqlite3_vtab_cursor* cur) { return static_cast<Cursor*>(cur)->eof; }

void result_opt(sqlite3_context* ctx, const std::optional<int64_t>& v) {
  if (v) sqlite3_result_int64(ctx, *v);
}

int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  const MemberCollectives& mc = c->job.per_member[c->member];
  const CollectiveRow& r = mc.rows[c->row];
  const MatchedCollective& m = r.match;
  switch (col) {
    case kDb: {
      const std::string& db = c->job.members[c->member].db;
      sqlite3_result_text(ctx, db.data(), static_cast<int>(db.size()), SQLITE_TRANSIENT);
      break;
    }
    case kPid: mc.cells.result(ctx, r.pid); break;
    case kGpu: mc.cells.result(ctx, r.gpu); break;
    case kQueue: mc.cells.result(ctx, r.queue); break;
    case kStream: mc.cells.result(ctx, r.stream); break;
    case kOpId: mc.cells.result(ctx, r.op_id); break;
    case kName: mc.cells.result(ctx, r.name); break;
    case kFamily: {
      const std::string& f = c->job.families[r.family];
      sqlite3_result_text(ctx, f.data(), static_cast<int>(f.size()), SQLITE_TRANSIENT);
      break;
    }
    case kInstance: sqlite3_result_int64(ctx, m.instance); break;
    case kStart: sqlite3_result_int64(ctx, r.start); break;
    case kEnd: sqlite3_result_int64(ctx, r.end); break;
    case kParticipants: result_opt(ctx, m.participants); break;
    case kArrival: result_opt(ctx, m.arrival); break;
    case kLateNs: result_opt(ctx, m.late_ns); break;
    case kWaitNs: result_opt(ctx, m.wait_ns); break;
    case kCausedWaitNs: result_opt(ctx, m.caused_wait_ns); break;
    case kFamilyCount: sqlite3_result_int64(ctx, m.family_count); break;
    case kMatchedCount: sqlite3_result_int64(ctx, m.matched_count); break;
  }
  return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  auto* c = static_cast<Cursor*>(cur);
  *out = c->job.per_member[c->member].rows[c->row].rowid;
  return SQLITE_OK;
}

sqlite3_module make_module() {
  sqlite3_module m{};  // eponymous only: no xCreate/xDestroy, read only
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

void register_collectives(sqlite3* db) {
  int rc = sqlite3_create_module(db, kTable, &kModule, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", kTable, sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::ranks
