// rocpd_kernel_stacks: eponymous-only virtual table, one row per kernel and copy of rocpd_ops with
// the marker ranges (roctx ranges, PyTorch operators recorded as markers) that enclose its launch
// call on the launching thread, outermost first (diagnosis/stack_sweep.h). Per member: the ops,
// their launch calls and the ranges are read once each, and each thread is swept once.
// Pushdown: db =, gpu = (members and ops read); SQLite re-checks every constraint. Rowids are
// the ops' own rocpd_ops rowids (unique across members, stable). Hidden columns bottom_level_id,
// _start, _end: the innermost range's api_id and times (NULL at depth 0), what
// rocpd_kernel_sequences groups occurrences by.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "analysis/member_read.h"
#include "analysis/member_rows_table.h"
#include "diagnosis/launch_stacks.h"
#include "diagnosis/register.h"
#include "members/interrupt.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_kernel_stacks";
enum Column {
  kDb, kPid, kTid, kOpId, kCorrelation, kGpu, kQueue, kKind, kName, kStart, kEnd, kDepth, kStack, kTop, kBottom,
  kBottomId, kBottomStart, kBottomEnd
};
constexpr PlanColumns kColumns{.db = kDb, .gpu = kGpu};

// The text of a range name (NULL for a NULL name).
void name_result(sqlite3_context* ctx, const MemberStacks& c, uint32_t id) {
  if (id == c.null_range_name) return;
  const std::string& n = c.range_names[id];
  sqlite3_result_text(ctx, n.data(), static_cast<int>(n.size()), SQLITE_TRANSIENT);
}

// Column `col` (after db: the template answers it) of row `row` of a member.
void result_column(const MemberStacks& ms, size_t row, sqlite3_context* ctx, int col) {
  const OpRow& r = ms.rows[row];
  const StackInfo& info = ms.info(r);
  switch (col) {
    case kPid:
      if (r.call >= 0) ms.result(ctx, ms.calls[static_cast<size_t>(r.call)].pid);
      break;
    case kTid:
      if (r.call >= 0) ms.result(ctx, ms.calls[static_cast<size_t>(r.call)].tid);
      break;
    case kOpId: ms.result(ctx, r.op_id); break;
    case kCorrelation: ms.result(ctx, r.corr); break;
    case kGpu: ms.result(ctx, r.gpu); break;
    case kQueue: ms.result(ctx, r.queue); break;
    case kKind: sqlite3_result_text(ctx, r.copy ? "copy" : "kernel", -1, SQLITE_STATIC); break;
    case kName:
      if (r.name != kNoName) {
        const std::string& n = ms.names[r.name];
        sqlite3_result_text(ctx, n.data(), static_cast<int>(n.size()), SQLITE_TRANSIENT);
      }
      break;
    case kStart:
      if (r.has_start) sqlite3_result_int64(ctx, r.start);
      break;
    case kEnd:
      if (r.has_end) sqlite3_result_int64(ctx, r.end);
      break;
    case kDepth: sqlite3_result_int64(ctx, info.depth); break;
    case kStack: {
      const std::string& s = ms.stacks[info.stack];
      sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      break;
    }
    case kTop:
      if (info.top != kNoName) name_result(ctx, ms, info.top);
      break;
    case kBottom:
      if (info.bottom != kNoName) name_result(ctx, ms, info.bottom);
      break;
    case kBottomId:
      if (info.depth > 0) sqlite3_result_int64(ctx, info.bottom_id);
      break;
    case kBottomStart:
      if (info.depth > 0) sqlite3_result_int64(ctx, info.bottom_start);
      break;
    case kBottomEnd:
      if (info.depth > 0) sqlite3_result_int64(ctx, info.bottom_end);
      break;
  }
}

// HOW IT WORKS: analysis/member_rows_table.h (db = and gpu = pushed down; each batch of members
// read on every core).
struct Def {
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, pid INTEGER, tid INTEGER, op_id INTEGER, correlation_id INTEGER, gpu INTEGER, "
      "queue INTEGER, kind TEXT, name TEXT, start INTEGER, \"end\" INTEGER, depth INTEGER, stack TEXT, "
      "top_level TEXT, bottom_level TEXT, bottom_level_id INTEGER HIDDEN, bottom_level_start INTEGER HIDDEN, "
      "bottom_level_end INTEGER HIDDEN)";
  static constexpr PlanColumns kPlan = kColumns;
  static constexpr double kCost = 1e8;
  using Rows = MemberStacks;

  static Rows compute(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch,
                      const Selection& sel) {
    StackOptions options;
    options.gpu = sel.gpu;
    return member_stacks(m, conn, options, watch, kTable);
  }
  static void column(const Rows& rows, size_t row, const MemberRef&, const Selection&, sqlite3_context* ctx, int col) {
    result_column(rows, row, ctx, col);
  }
  static int64_t rowid(const Rows& rows, size_t row, const MemberRef&) { return rows.rows[row].rowid; }
};

}  // namespace

void register_kernel_stacks(sqlite3* db) { analysis::MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
