// rocpd_critical_path([step_pattern]): eponymous-only virtual table, one row per segment of the
// longest path of each job step (docs/critical_path.md): the n-th step range (a marker range LIKE
// the pattern, default 'ProfilerStep#%') of every member process of one run (rocpd_runs), from the
// first of them to start to the last to end. The segments of a step tile that span. Every member is read (paths cross
// members where collectives end); SQLite applies every constraint but the argument. Rowids number
// the rows from 1 in step, then time order.
#include <fmt/format.h>

#include <memory>

#include "common/vtab_util.h"
#include "critical_path/job_paths.h"
#include "critical_path/register.h"
#include "analysis/step_ranges.h"

namespace rocpd::critical_path {
namespace {

constexpr const char* kTable = "rocpd_critical_path";

enum Column {
  kDb, kPid, kTid, kGpu, kQueue, kStream, kKind, kName, kStart, kEnd, kDuration, kStep, kWaitedFor, kInferred,
  kStepInferred, kRun, kPattern
};

struct Table : sqlite3_vtab {
  sqlite3* conn;
};

struct Cursor : sqlite3_vtab_cursor {
  JobPaths paths;
  std::string pattern;
  bool pattern_given = false;
  size_t row = 0;
};

int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    int rc = sqlite3_declare_vtab(db,
                                  "CREATE TABLE x(db TEXT, pid INTEGER, tid INTEGER, gpu INTEGER, queue INTEGER, "
                                  "stream INTEGER, kind TEXT, name TEXT, start INTEGER, \"end\" INTEGER, "
                                  "duration INTEGER, step INTEGER, waited_for TEXT, inferred INTEGER, step_inferred_edges INTEGER, "
                                  "run TEXT, step_pattern HIDDEN)");
    if (rc != SQLITE_OK) throw Error(sqlite3_errmsg(db), rc);
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    auto table = std::make_unique<Table>();
    *static_cast<sqlite3_vtab*>(table.get()) = {};
    table->conn = db;
    *out = table.release();
    return SQLITE_OK;
  });
}

int best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  int used = 0;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.iColumn != kPattern || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    // A plan without the argument of the table-valued call would change its meaning.
    if (!c.usable) return SQLITE_CONSTRAINT;
    if (used) continue;
    info->aConstraintUsage[i].argvIndex = ++used;
    info->aConstraintUsage[i].omit = 1;
  }
  info->idxNum = used;
  info->estimatedCost = 1e9;
  info->estimatedRows = 100000;
  return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* cur, int idx_num, const char*, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    sqlite3* conn = static_cast<Table*>(cur->pVtab)->conn;
    c->pattern = analysis::default_step_pattern(conn);
    c->pattern_given = false;
    if (idx_num == 1 && argc == 1) c->pattern_given = analysis::step_pattern_arg(argv[0], kTable, c->pattern);
    c->paths = job_critical_paths(conn, c->pattern, kTable);
    c->row = 0;
    return SQLITE_OK;
  });
}

int next(sqlite3_vtab_cursor* cur) {
  ++static_cast<Cursor*>(cur)->row;
  return SQLITE_OK;
}

int eof(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return c->row >= c->paths.rows.size();
}

int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  const PathRow& r = c->paths.rows[c->row];
  const MemberPaths& pm = c->paths.per_member[r.member];
  const Place& place = pm.places[r.what.place];
  switch (col) {
    case kDb: {
      const std::string& db = c->paths.members[r.member].db;
      sqlite3_result_text(ctx, db.data(), static_cast<int>(db.size()), SQLITE_TRANSIENT);
      break;
    }
    case kPid: pm.cells.result(ctx, place.pid); break;
    case kTid: pm.cells.result(ctx, place.tid); break;
    case kGpu: pm.cells.result(ctx, place.gpu); break;
    case kQueue: pm.cells.result(ctx, place.queue); break;
    case kStream: pm.cells.result(ctx, place.stream); break;
    case kKind: sqlite3_result_text(ctx, kind_name(r.what.kind), -1, SQLITE_STATIC); break;
    case kName:
    case kWaitedFor: {
      const uint32_t name = col == kName ? r.what.name : r.what.waited;
      if (name != kNone) {
        const std::string& n = pm.names[name];
        sqlite3_result_text(ctx, n.data(), static_cast<int>(n.size()), SQLITE_TRANSIENT);
      }
      break;
    }
    case kInferred: sqlite3_result_int(ctx, r.what.inferred ? 1 : 0); break;
    case kStepInferred: sqlite3_result_int64(ctx, c->paths.inferred.at({r.run, r.step})); break;
    case kRun:
      if (const std::string* label = c->paths.runs.label(r.run))
        sqlite3_result_text(ctx, label->data(), static_cast<int>(label->size()), SQLITE_TRANSIENT);
      break;
    case kStart: sqlite3_result_int64(ctx, r.start); break;
    case kEnd: sqlite3_result_int64(ctx, r.end); break;
    case kDuration: sqlite3_result_int64(ctx, r.end - r.start); break;
    case kStep: sqlite3_result_int64(ctx, r.step); break;
    case kPattern: sqlite3_result_text(ctx, c->pattern.data(), static_cast<int>(c->pattern.size()), SQLITE_TRANSIENT); break;
  }
  return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  *out = static_cast<sqlite3_int64>(static_cast<Cursor*>(cur)->row + 1);
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

void register_critical_path(sqlite3* db) {
  int rc = sqlite3_create_module(db, kTable, &kModule, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", kTable, sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::critical_path
