// rocpd_what_if(step_pattern, name_pattern, factor): eponymous-only virtual table, one row per job
// step (docs/critical_path.md): its measured time and the time predicted when every op, range or
// API call whose name is LIKE name_pattern takes factor times as long, the longest path recomputed
// on the same dependency graph (nothing subtracted; no overlap the trace did not show is assumed).
// Every member is read; SQLite applies every constraint but the arguments. Rowids number the rows
// from 1 in step order.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "common/like_pattern.h"
#include "common/vtab_util.h"
#include "critical_path/job_paths.h"
#include "critical_path/register.h"
#include "analysis/step_ranges.h"

namespace rocpd::critical_path {
namespace {

constexpr const char* kTable = "rocpd_what_if";

enum Column {
  kStep, kName, kRanks, kStart, kMeasured, kPredicted, kChange, kMatches, kInferred, kRun, kWarning, kStepPattern,
  kNamePattern, kFactor
};

struct Table : sqlite3_vtab {
  sqlite3* conn;
};

struct Cursor : sqlite3_vtab_cursor {
  std::vector<WhatIfRow> rows;
  std::string step_pattern, name_pattern;
  double factor = 1.0;
  size_t row = 0;
};

// A pattern that matches nothing predicts the measured time: said, not left to be taken for a result.
std::string no_match_warning(const std::string& pattern) {
  return fmt::format("name_pattern '{}' matches no op, range or call of the step (LIKE, ASCII case-insensitive): "
                     "predicted_ns is the measured time",
                     pattern);
}

int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    int rc = sqlite3_declare_vtab(db,
                                  "CREATE TABLE x(step INTEGER, name TEXT, ranks INTEGER, start INTEGER, "
                                  "measured_ns INTEGER, predicted_ns INTEGER, change_ns INTEGER, matches INTEGER, "
                                  "inferred_edges INTEGER, run TEXT, warning TEXT, "
                                  "step_pattern HIDDEN, name_pattern HIDDEN, factor HIDDEN)");
    if (rc != SQLITE_OK) throw Error(sqlite3_errmsg(db), rc);
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    auto table = std::make_unique<Table>();
    *static_cast<sqlite3_vtab*>(table.get()) = {};
    table->conn = db;
    *out = table.release();
    return SQLITE_OK;
  });
}

// idxNum: bit 0, 1, 2 for step_pattern, name_pattern, factor; their values come in that order.
int best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  int slot[3] = {-1, -1, -1};
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.iColumn < kStepPattern || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!c.usable) return SQLITE_CONSTRAINT;
    const int arg = c.iColumn - kStepPattern;
    if (slot[arg] < 0) slot[arg] = i;
  }
  int bits = 0, n = 0;
  for (int arg = 0; arg < 3; ++arg) {
    if (slot[arg] < 0) continue;
    bits |= 1 << arg;
    info->aConstraintUsage[slot[arg]].argvIndex = ++n;
    info->aConstraintUsage[slot[arg]].omit = 1;
  }
  info->idxNum = bits;
  info->estimatedCost = 1e9;
  info->estimatedRows = 1000;
  return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* cur, int idx_num, const char*, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    sqlite3* conn = static_cast<Table*>(cur->pVtab)->conn;
    sqlite3_value* args[3] = {nullptr, nullptr, nullptr};
    int k = 0;
    for (int arg = 0; arg < 3; ++arg)
      if (idx_num & (1 << arg)) {
        if (k >= argc) throw Error(fmt::format("{}: inconsistent query plan", kTable));
        args[arg] = argv[k++];
      }
    c->step_pattern = analysis::default_step_pattern(conn);
    if (args[0]) analysis::step_pattern_arg(args[0], kTable, c->step_pattern);
    auto name_pattern = args[1] ? like_pattern_arg(args[1], kTable, "name_pattern", "Cijk%") : std::nullopt;
    if (!name_pattern)
      throw Error(fmt::format("{}: name_pattern must be text (a LIKE pattern of op, range or call names such as 'Cijk%')",
                              kTable));
    c->name_pattern = std::move(*name_pattern);
    const int ft = args[2] ? sqlite3_value_type(args[2]) : SQLITE_NULL;
    if (ft != SQLITE_INTEGER && ft != SQLITE_FLOAT)
      throw Error(fmt::format("{}: factor must be a number >= 0 (0.5: the matching ops take half as long)", kTable));
    c->factor = sqlite3_value_double(args[2]);
    if (!std::isfinite(c->factor) || c->factor < 0 || c->factor > 1e6)
      throw Error(fmt::format("{}: factor must be a number between 0 and 1e6, got {}", kTable, c->factor));
    c->rows = job_what_if(conn, c->step_pattern, c->name_pattern, c->factor, kTable);
    c->row = 0;
    // The project's warnings: sqlite3_log (for hosts that log) and, per step, the `warning` column.
    if (!c->rows.empty() && std::all_of(c->rows.begin(), c->rows.end(), [](const WhatIfRow& r) { return r.matches == 0; }))
      sqlite3_log(SQLITE_WARNING,
                  "%s: name_pattern '%s' matches no op, range or call in any step: every predicted_ns is the measured time",
                  kTable, c->name_pattern.c_str());
    return SQLITE_OK;
  });
}

int next(sqlite3_vtab_cursor* cur) {
  ++static_cast<Cursor*>(cur)->row;
  return SQLITE_OK;
}

int eof(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return c->row >= c->rows.size();
}

int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  const WhatIfRow& r = c->rows[c->row];
  const int64_t measured = r.measured_end - r.start, predicted = r.predicted_end - r.start;
  switch (col) {
    case kStep: sqlite3_result_int64(ctx, r.step); break;
    case kName: sqlite3_result_text(ctx, r.name.data(), static_cast<int>(r.name.size()), SQLITE_TRANSIENT); break;
    case kRanks: sqlite3_result_int64(ctx, r.ranks); break;
    case kStart: sqlite3_result_int64(ctx, r.start); break;
    case kMeasured: sqlite3_result_int64(ctx, measured); break;
    case kPredicted: sqlite3_result_int64(ctx, predicted); break;
    case kChange: sqlite3_result_int64(ctx, predicted - measured); break;
    case kMatches: sqlite3_result_int64(ctx, r.matches); break;
    case kInferred: sqlite3_result_int64(ctx, r.inferred); break;
    case kRun:
      if (r.run_label) sqlite3_result_text(ctx, r.run_label->data(), static_cast<int>(r.run_label->size()), SQLITE_TRANSIENT);
      break;
    case kWarning:
      if (r.matches == 0) {
        const std::string w = no_match_warning(c->name_pattern);
        sqlite3_result_text(ctx, w.data(), static_cast<int>(w.size()), SQLITE_TRANSIENT);
      }
      break;
    case kStepPattern:
      sqlite3_result_text(ctx, c->step_pattern.data(), static_cast<int>(c->step_pattern.size()), SQLITE_TRANSIENT);
      break;
    case kNamePattern:
      sqlite3_result_text(ctx, c->name_pattern.data(), static_cast<int>(c->name_pattern.size()), SQLITE_TRANSIENT);
      break;
    case kFactor: sqlite3_result_double(ctx, c->factor); break;
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

void register_what_if(sqlite3* db) {
  int rc = sqlite3_create_module(db, kTable, &kModule, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", kTable, sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::critical_path
