// rocpd_steps([pattern]): eponymous-only virtual table, one row per member process and step: a
// marker range (rocpd_apis, domain 'marker', end > start) whose name is LIKE `pattern` (default
// 'ProfilerStep#%', PyTorch profiler's steps as roctx/NVTX record them), with the process's GPU busy
// time inside it, its collective time, the time its collectives waited for other ranks
// (rocpd_collectives.wait_ns) and its idle time (docs/ranks.md).
// Every member is read (the waits need every member's collectives); SQLite applies every
// constraint but the argument itself. Rowids: the member's ordinal above the row's index.
#include <fmt/format.h>

#include <map>
#include <memory>

#include "common/vtab_util.h"
#include "common/like_pattern.h"
#include "analysis/member_rows_table.h"
#include "analysis/step_ranges.h"
#include "members/interrupt.h"
#include "members/member_columns.h"
#include "members/member_pool.h"
#include "ranks/job_collectives.h"
#include "ranks/register.h"

namespace rocpd::ranks {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_steps";
constexpr const char* kDefaultPattern = analysis::kDefaultStepPattern;

enum Column {
  kDb, kPid, kTid, kStep, kName, kStart, kEnd, kDuration, kBusyNs, kCollectiveNs, kWaitNs, kIdleNs, kCollectives,
  kPattern
};

using analysis::GpuKey;

struct StepRow {
  GpuKey pid, tid;
  std::string name;
  int64_t step = 0, start = 0, end = 0;
  uint64_t busy_ns = 0, collective_ns = 0, wait_ns = 0;
  int64_t collectives = 0;
};

// What one member process contributes: its ops' busy intervals, its collectives and their waits.
struct Process {
  std::vector<Interval> busy, collectives, waits;
  std::vector<int64_t> collective_starts;  // sorted
};

// A length as an integer; only a step over both halves of the int64 range is longer than one holds,
// and is reported as a real (as rocpd_busy_intervals reports such a duration).
void result_length(sqlite3_context* ctx, uint64_t length) {
  if (length > static_cast<uint64_t>(INT64_MAX)) sqlite3_result_double(ctx, static_cast<double>(length));
  else sqlite3_result_int64(ctx, static_cast<int64_t>(length));
}

std::vector<StepRow> member_steps(const federation::Member& m, sqlite3* conn, const federation::InterruptWatch& watch,
                                  const std::string& pattern, const JobCollectives& job, size_t member) {
  using namespace federation;
  auto ranges = analysis::read_step_ranges(m, conn, watch, pattern, kTable);
  if (ranges.empty()) return {};
  std::map<GpuKey, Process> processes;
  for (const auto& [pid, r] : ranges) processes[pid];
  {
    MemberColumns ops(m, conn, TableKind::Ops, {kOpsPid, kOpsStart, kOpsEnd});
    uint64_t read = 0;
    Process* last = nullptr;
    GpuKey last_pid;
    while (ops.next()) {
      if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
      GpuKey pid = analysis::value_key(ops[0]);
      if (!last || !(pid == last_pid)) {
        auto it = processes.find(pid);
        last = it == processes.end() ? nullptr : &it->second;
        last_pid = std::move(pid);
        if (!last) continue;
      }
      const auto start = analysis::time_value(ops[1], kTable, m.alias, "start");
      const auto end = analysis::time_value(ops[2], kTable, m.alias, "end");
      if (start && end && *end > *start) last->busy.push_back({*start, *end});
    }
  }
  for (const CollectiveRow& c : job.per_member[member].rows) {
    auto it = processes.find(job.participant_pid[c.participant]);
    if (it == processes.end()) continue;
    it->second.collectives.push_back({c.start, c.end});
    it->second.collective_starts.push_back(c.start);
    if (c.match.wait_ns && *c.match.wait_ns > 0) {
      int64_t wait_end = 0;
      if (__builtin_add_overflow(c.start, *c.match.wait_ns, &wait_end)) wait_end = INT64_MAX;
      it->second.waits.push_back({c.start, wait_end});
    }
  }
  std::vector<StepRow> out;
  for (auto& [pid, rs] : ranges) {
    Process& p = processes[pid];
    const auto busy = merge(p.busy);
    const auto collectives = merge(p.collectives);
    const auto waits = merge(p.waits);
    std::sort(p.collective_starts.begin(), p.collective_starts.end());
    for (size_t k = 0; k < rs.size(); ++k) {
      if (watch.stopped()) InterruptWatch::raise();
      StepRow row;
      row.pid = pid;
      row.tid = std::move(rs[k].tid);
      row.name = std::move(rs[k].name);
      row.step = static_cast<int64_t>(k);
      row.start = rs[k].start;
      row.end = rs[k].end;
      row.busy_ns = clipped_length(busy, row.start, row.end);
      row.collective_ns = clipped_length(collectives, row.start, row.end);
      row.wait_ns = clipped_length(waits, row.start, row.end);
      const auto& starts = p.collective_starts;
      row.collectives = std::lower_bound(starts.begin(), starts.end(), row.end) -
                        std::lower_bound(starts.begin(), starts.end(), row.start);
      out.push_back(std::move(row));
    }
  }
  return out;
}

struct Table : sqlite3_vtab {
  sqlite3* conn;
};

struct Cursor : sqlite3_vtab_cursor {
  std::vector<MemberRef> members;
  std::vector<std::vector<StepRow>> rows;  // per member
  std::string pattern;
  bool pattern_given = false;
  size_t member = 0, row = 0;
  bool eof = true;

  void settle() {
    while (member < rows.size() && row >= rows[member].size()) {
      ++member;
      row = 0;
    }
    eof = member >= rows.size();
  }
};

int connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    int rc = sqlite3_declare_vtab(
        db,
        "CREATE TABLE x(db TEXT, pid INTEGER, tid INTEGER, step INTEGER, name TEXT, start INTEGER, \"end\" INTEGER, "
        "duration INTEGER, busy_ns INTEGER, collective_ns INTEGER, wait_ns INTEGER, idle_ns INTEGER, "
        "collectives INTEGER, pattern HIDDEN)");
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
  info->estimatedCost = 1e8;
  info->estimatedRows = 10000;
  return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* cur, int idx_num, const char*, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    sqlite3* conn = static_cast<Table*>(cur->pVtab)->conn;
    c->pattern = analysis::default_step_pattern(conn);  // the connection's, rocpd_step_pattern()
    c->pattern_given = false;
    if (idx_num == 1 && argc == 1) {
      if (auto pattern = like_pattern_arg(argv[0], kTable, "pattern", kDefaultPattern)) {
        c->pattern = std::move(*pattern);
        c->pattern_given = true;
      }
    }
    const JobCollectives job = read_job_collectives(conn, kTable);
    c->members = job.members;
    c->rows.assign(job.members.size(), {});
    if (!job.members.empty()) {
      const analysis::MemberSet set = analysis::open_members(conn, job.members, kTable);
      federation::InterruptWatch watch(conn);
      try {
        federation::MemberPool(*set.registry, watch).run(set.members, [&](size_t i, sqlite3* db, size_t) {
          c->rows[i] = member_steps(*set.members[i], db, watch, c->pattern, job, i);
        });
      } catch (...) {
        federation::InterruptWatch host(conn);
        if (host.poll()) federation::InterruptWatch::raise();
        throw;
      }
    }
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

int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  const StepRow& r = c->rows[c->member][c->row];
  switch (col) {
    case kDb: {
      const std::string& db = c->members[c->member].db;
      sqlite3_result_text(ctx, db.data(), static_cast<int>(db.size()), SQLITE_TRANSIENT);
      break;
    }
    case kPid: r.pid.result(ctx); break;
    case kTid: r.tid.result(ctx); break;
    case kStep: sqlite3_result_int64(ctx, r.step); break;
    case kName: sqlite3_result_text(ctx, r.name.data(), static_cast<int>(r.name.size()), SQLITE_TRANSIENT); break;
    case kStart: sqlite3_result_int64(ctx, r.start); break;
    case kEnd: sqlite3_result_int64(ctx, r.end); break;
    case kDuration: result_length(ctx, static_cast<uint64_t>(r.end) - static_cast<uint64_t>(r.start)); break;
    case kBusyNs: result_length(ctx, r.busy_ns); break;
    case kCollectiveNs: result_length(ctx, r.collective_ns); break;
    case kWaitNs: result_length(ctx, r.wait_ns); break;
    case kIdleNs: result_length(ctx, static_cast<uint64_t>(r.end) - static_cast<uint64_t>(r.start) - r.busy_ns); break;
    case kCollectives: sqlite3_result_int64(ctx, r.collectives); break;
    case kPattern:
      sqlite3_result_text(ctx, c->pattern.data(), static_cast<int>(c->pattern.size()), SQLITE_TRANSIENT);
      break;
  }
  return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    *out = analysis::member_row_id(c->members[c->member], c->row, kTable);
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

void register_steps(sqlite3* db) {
  int rc = sqlite3_create_module(db, kTable, &kModule, nullptr);
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", kTable, sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::ranks
