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

#include "common/vtab_util.h"
#include "analysis/member_read.h"
#include "diagnosis/launch_stacks.h"
#include "diagnosis/register.h"
#include "members/interrupt.h"
#include "members/member_pool.h"
#include "members/progress.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_kernel_stacks";
enum Column {
  kDb, kPid, kTid, kOpId, kCorrelation, kGpu, kQueue, kKind, kName, kStart, kEnd, kDepth, kStack, kTop, kBottom,
  kBottomId, kBottomStart, kBottomEnd
};
constexpr PlanColumns kColumns{.db = kDb, .gpu = kGpu};

using Table = ConnVtab;

struct Cursor : sqlite3_vtab_cursor {
  Selection sel;
  std::vector<canonical::MemberPtr> members;  // in db order
  std::shared_ptr<members::Registry> registry;
  size_t next_member = 0;                       // first member of the next batch
  std::vector<MemberStacks> batch;              // members [next_member - batch.size(), next_member)
  size_t member = 0, row = 0;                   // position in batch
  bool eof = true;
  // For progress lines: the statement's start and the member rows read by earlier batches.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  int64_t rows_before = 0;

  Table& table() const { return *static_cast<Table*>(pVtab); }
  const MemberStacks& current() const { return batch[member]; }
  const std::string& db() const { return members[next_member - batch.size() + member]->alias; }

  // The next members, two per lane, read on every core: memory holds one batch's rows.
  bool load_batch() {
    if (next_member >= members.size()) return false;
    members::InterruptWatch watch(table().conn);
    members::MemberPool pool(*registry, watch);
    const size_t count = std::min(members.size() - next_member, 2 * pool.lanes());
    std::vector<canonical::MemberPtr> part(members.begin() + static_cast<std::ptrdiff_t>(next_member),
                                            members.begin() + static_cast<std::ptrdiff_t>(next_member + count));
    batch.clear();
    batch.resize(count);
    StackOptions options;
    options.gpu = sel.gpu;
    members::PoolProgress progress;
    if (registry->progress)
      watch.report_progress(
          [&] {
            members::ProgressCounts c;
            c.what = kTable;
            c.members_done = next_member + progress.members_done.load();
            c.members_total = members.size();
            c.rows = rows_before + progress.rows.load();
            return members::progress_line(c);
          },
          started);
    pool.run(
        part,
        [&](size_t i, sqlite3* conn, size_t) {
          batch[i] = member_stacks(*part[i], conn, options, watch, kTable, &progress.rows);
        },
        &progress);
    rows_before += progress.rows.load();
    next_member += count;
    member = row = 0;
    return true;
  }

  void settle() {
    for (;;) {
      while (member < batch.size() && row >= batch[member].rows.size()) {
        ++member;
        row = 0;
      }
      if (member < batch.size()) {
        eof = false;
        return;
      }
      if (!load_batch()) {
        batch.clear();
        eof = true;
        return;
      }
    }
  }
};

int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
  return connect_direct_only(
      db,
      "CREATE TABLE x(db TEXT, pid INTEGER, tid INTEGER, op_id INTEGER, correlation_id INTEGER, gpu INTEGER, "
      "queue INTEGER, kind TEXT, name TEXT, start INTEGER, \"end\" INTEGER, depth INTEGER, stack TEXT, "
      "top_level TEXT, bottom_level TEXT, bottom_level_id INTEGER HIDDEN, bottom_level_start INTEGER HIDDEN, "
      "bottom_level_end INTEGER HIDDEN)",
      out, err);
}

int best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guard(vtab, [&] { return plan(info, kColumns, 1e8); });
}

int filter(sqlite3_vtab_cursor* cur, int, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    c->sel = decode(kTable, idx_str, argc, argv);
    const auto dbs = c->sel.nothing ? std::vector<MemberRef>{} : analysis::query_members(c->table().conn, c->sel.db);
    c->batch.clear();
    c->next_member = c->member = c->row = 0;
    c->started = std::chrono::steady_clock::now();
    c->rows_before = 0;
    MemberSet set = open_members(c->table().conn, dbs, kTable);
    c->registry = std::move(set.registry);
    c->members = std::move(set.members);
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

// The text of a range name (NULL for a NULL name).
void name_result(sqlite3_context* ctx, const MemberStacks& c, uint32_t id) {
  if (id == c.null_range_name) return;
  const std::string& n = c.range_names[id];
  sqlite3_result_text(ctx, n.data(), static_cast<int>(n.size()), SQLITE_TRANSIENT);
}

int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    const MemberStacks& ms = c->current();
    const OpRow& r = ms.rows[c->row];
    const StackInfo& info = ms.info(r);
    switch (col) {
      case kDb: sqlite3_result_text(ctx, c->db().data(), static_cast<int>(c->db().size()), SQLITE_TRANSIENT); break;
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
    return SQLITE_OK;
  });
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  const auto* c = static_cast<Cursor*>(cur);
  *out = c->current().rows[c->row].rowid;
  return SQLITE_OK;
}

sqlite3_module make_module() { return read_only_module<Cursor>(connect, best_index, filter, next, eof, column, rowid); }
const sqlite3_module kModule = make_module();

}  // namespace

void register_kernel_stacks(sqlite3* db) {
  int rc = sqlite3_create_module(db, kTable, &kModule, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", kTable, sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::diagnosis
