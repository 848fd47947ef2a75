// rocpd_busy_intervals([lo, hi [, kind]]) and rocpd_gaps([lo, hi [, kind]]): eponymous-only virtual
// tables listing, per db and gpu, the merged busy intervals of the ops in rocpd_ops and the idle
// gaps between them.
//   columns: db, gpu, start, "end", duration, HIDDEN lo, hi (the clipping window), kind
// With lo/hi, busy time is clipped to [lo, hi) first (an interval crossing an edge is cut there).
// With kind ('kernel', 'kernel,CopyDeviceToDevice': comma-separated kinds or op names), only the
// ops whose kind or name is listed are busy time (raptor's idle time without host copies is
// rocpd_gaps(NULL, NULL, 'kernel,CopyDeviceToDevice')).
// Constraints on start/end filter like on a plain table; `db =`, `gpu =` and the bounds of
// ops_window.h are pushed into the rocpd_ops query (idxNum/idxStr: see ops_window.h).
// Rowids: the member's ordinal, the gpu's slot and the row's index (ops_window.h RowNumbering).
#include <fmt/format.h>

#include <memory>

#include "common/vtab_util.h"
#include "analysis/ops_window.h"
#include "intervals/register.h"

namespace rocpd::intervals {

using namespace analysis;
namespace {

enum Column { kDb, kGpu, kStart, kEnd, kDuration, kArgLo, kArgHi, kArgKind };
constexpr WindowColumns kColumns{.db = kDb, .gpu = kGpu, .lo = kArgLo, .hi = kArgHi, .kind = kArgKind};

struct Table : sqlite3_vtab {
  sqlite3* conn;
  bool gaps;  // rocpd_gaps rather than rocpd_busy_intervals
  const char* name() const { return gaps ? "rocpd_gaps" : "rocpd_busy_intervals"; }
};

struct Cursor : sqlite3_vtab_cursor {
  OpsWindow window;
  std::vector<MemberRef> dbs;
  RowNumbering numbering;
  BusyReader reader;  // members' busy lists a batch at a time, on every core
  size_t next_db = 0;
  std::vector<GpuBusy> gpus;  // of dbs[next_db - 1]
  size_t next_gpu = 0;
  std::vector<Interval> rows;  // of gpus[next_gpu - 1]: busy intervals or gaps
  size_t row = 0;
  bool eof = true;

  Table& table() const { return *static_cast<Table*>(pVtab); }
  const std::string& db() const { return dbs[next_db - 1].db; }
  const GpuBusy& gpu() const { return gpus[next_gpu - 1]; }

  // Moves to the next row, loading the next gpu / member as each runs out.
  void settle() {
    while (row >= rows.size()) {
      if (next_gpu < gpus.size()) {
        rows = table().gaps ? gaps(gpus[next_gpu].busy) : gpus[next_gpu].busy;
        ++next_gpu;
        row = 0;
        continue;
      }
      if (next_db >= dbs.size()) {
        eof = true;
        return;
      }
      gpus = reader.load(table().conn, dbs[next_db].db, window, table().name());
      ++next_db;
      next_gpu = 0;
      rows.clear();
      row = 0;
    }
  }
};

int connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    int rc = sqlite3_declare_vtab(
        db, "CREATE TABLE x(db TEXT, gpu INTEGER, start INTEGER, \"end\" INTEGER, duration INTEGER, lo HIDDEN, hi HIDDEN, kind HIDDEN)");
    if (rc != SQLITE_OK) throw Error(sqlite3_errmsg(db), rc);
    // It reads member files: a view or trigger stored in a (possibly hostile) database may not.
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    auto table = std::make_unique<Table>();
    *static_cast<sqlite3_vtab*>(table.get()) = {};
    table->conn = db;
    table->gaps = aux != nullptr;
    *out = table.release();
    return SQLITE_OK;
  });
}

int best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guard(vtab, [&] { return plan_constraints(info, kColumns); });
}

int filter(sqlite3_vtab_cursor* cur, int, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    c->window = decode_constraints(c->table().name(), idx_str, argc, argv);
    if (c->window.arg_lo && c->window.arg_hi && *c->window.arg_hi <= *c->window.arg_lo)
      throw Error(fmt::format("{}: hi ({}) must be greater than lo ({})", c->table().name(), *c->window.arg_hi,
                              *c->window.arg_lo));
    c->dbs = c->window.nothing ? std::vector<MemberRef>{} : query_members(c->table().conn, c->window.db);
    c->reader.start(c->dbs);
    c->next_db = c->next_gpu = c->row = 0;
    c->gpus.clear();
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
  const Interval& iv = c->rows[c->row];
  switch (col) {
    case kDb: sqlite3_result_text(ctx, c->db().data(), static_cast<int>(c->db().size()), SQLITE_TRANSIENT); break;
    case kGpu:
      c->gpu().gpu.result(ctx);
      break;
    case kStart: sqlite3_result_int64(ctx, iv.start); break;
    case kEnd: sqlite3_result_int64(ctx, iv.end); break;
    case kDuration:
      // A single interval longer than INT64_MAX needs values near both int64 limits: report it as real.
      if (iv.length() > static_cast<uint64_t>(kNoHi)) sqlite3_result_double(ctx, static_cast<double>(iv.length()));
      else sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(iv.length()));
      break;
    case kArgLo:
      if (c->window.arg_lo) sqlite3_result_int64(ctx, *c->window.arg_lo);
      break;
    case kArgHi:
      if (c->window.arg_hi) sqlite3_result_int64(ctx, *c->window.arg_hi);
      break;
    case kArgKind:
      if (c->window.kind) sqlite3_result_text(ctx, c->window.kind->data(), static_cast<int>(c->window.kind->size()), SQLITE_TRANSIENT);
      break;
  }
  return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    *out = c->numbering.rowid(c->dbs[c->next_db - 1].ordinal, c->gpu().gpu, c->row, c->table().name());
    return SQLITE_OK;
  });
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

void register_busy_interval_tables(sqlite3* db) {
  static int gaps_marker = 1;
  for (auto [name, aux] : {std::pair<const char*, void*>{"rocpd_busy_intervals", nullptr},
                          std::pair<const char*, void*>{"rocpd_gaps", &gaps_marker}}) {
    int rc = sqlite3_create_module(db, name, &kModule, aux);
    if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", name, sqlite3_errmsg(db)), rc);
  }
}

}  // namespace rocpd::intervals
