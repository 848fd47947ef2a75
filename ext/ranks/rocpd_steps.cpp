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
#include <optional>
#include <span>

#include "common/like_pattern.h"
#include "analysis/job_table.h"
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

// Step `k` of process `pid`: its range, no figures yet.
StepRow range_row(const GpuKey& pid, analysis::StepRange&& range, size_t k) {
  StepRow row;
  row.pid = pid;
  row.tid = std::move(range.tid);
  row.name = std::move(range.name);
  row.step = static_cast<int64_t>(k);
  row.start = range.start;
  row.end = range.end;
  return row;
}

// The step rows of one member; without `job` only the ranges (no column of the process's time
// was asked for).
// The rows of the ranges alone.
std::vector<StepRow> range_rows(analysis::StepRangesByPid&& ranges) {
  std::vector<StepRow> out;
  for (auto& [pid, rs] : ranges)
    for (size_t k = 0; k < rs.size(); ++k) out.push_back(range_row(pid, std::move(rs[k]), k));
  return out;
}

std::vector<StepRow> member_steps(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch,
                                  const std::string& pattern, const JobCollectives* job, size_t member) {
  using namespace canonical;
  using namespace members;
  auto ranges = analysis::read_step_ranges(m, conn, watch, pattern, kTable);
  if (ranges.empty()) return {};
  if (!job) return range_rows(std::move(ranges));
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
  for (const CollectiveRow& c : job->per_member[member].rows) {
    auto it = processes.find(job->participant_pid[c.participant]);
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
      StepRow row = range_row(pid, std::move(rs[k]), k);
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

// One scan: every member's step rows, in member order, and the (member, index) of each row.
struct Scan {
  std::vector<MemberRef> members;
  std::vector<std::vector<StepRow>> rows;  // per member
  std::vector<std::pair<size_t, size_t>> at;
  std::string pattern;
};

struct Def {
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, pid INTEGER, tid INTEGER, step INTEGER, name TEXT, start INTEGER, \"end\" INTEGER, "
      "duration INTEGER, busy_ns INTEGER, collective_ns INTEGER, wait_ns INTEGER, idle_ns INTEGER, "
      "collectives INTEGER, pattern HIDDEN)";
  static constexpr int kFirstArg = kPattern, kArgCount = 1;
  static constexpr double kCost = 1e8, kRows = 10000;
  using Scan = ranks::Scan;

  // A statement reading only the steps' ranges (db ... duration) reads neither the ops nor the
  // job's collectives: the columns of the process's time are worth a pass over every member.
  static constexpr int kTimeBit = 1 << 1;
  static int used_bits(uint64_t col_used) {
    constexpr uint64_t time_columns = (uint64_t{1} << kBusyNs) | (uint64_t{1} << kCollectiveNs) |
                                      (uint64_t{1} << kWaitNs) | (uint64_t{1} << kIdleNs) |
                                      (uint64_t{1} << kCollectives);
    return (col_used & time_columns) ? kTimeBit : 0;
  }

  static void compute(sqlite3* conn, std::span<sqlite3_value* const> args, int idx_num, Scan& scan) {
    scan.pattern = analysis::default_step_pattern(conn);  // the connection's, rocpd_step_pattern()
    if (args[0])
      if (auto pattern = like_pattern_arg(args[0], kTable, "pattern", kDefaultPattern)) scan.pattern = std::move(*pattern);
    std::optional<JobCollectives> job;
    if (idx_num & kTimeBit) job = read_job_collectives(conn, kTable);
    scan.members = job ? job->members : analysis::query_members(conn, std::nullopt);
    scan.rows.assign(scan.members.size(), {});
    if (!scan.members.empty()) {
      const analysis::MemberSet set = analysis::open_members(conn, scan.members, kTable);
      members::InterruptWatch watch(conn);
      try {
        // The ranges alone of a member an earlier pass read for this one (rocpd_gpu_screen(pattern))
        // need no visit; with the process's time, every member is visited.
        members::Registry::ToVisit to_visit;
        if (job) {
          to_visit.members = set.members;
          for (size_t i = 0; i < set.members.size(); ++i) to_visit.index.push_back(i);
        } else {
          to_visit = set.registry->take_stashes(set.members, step_ranges_stash(scan.pattern), [&](size_t i, std::shared_ptr<void> v) {
            scan.rows[i] = range_rows(std::move(*std::static_pointer_cast<StepRangesByPid>(v)));
          });
        }
        members::MemberPool(*set.registry, watch).run(to_visit.members, [&](size_t k, sqlite3* db, size_t) {
          const size_t i = to_visit.index[k];
          scan.rows[i] = member_steps(*set.members[i], db, watch, scan.pattern, job ? &*job : nullptr, i);
        });
      } catch (...) {
        members::InterruptWatch host(conn);
        if (host.poll()) members::InterruptWatch::raise();
        throw;
      }
    }
    for (size_t m = 0; m < scan.rows.size(); ++m)
      for (size_t i = 0; i < scan.rows[m].size(); ++i) scan.at.emplace_back(m, i);
  }
  static size_t size(const Scan& scan) { return scan.at.size(); }
  static int64_t rowid(const Scan& scan, size_t row) {
    const auto [member, index] = scan.at[row];
    return analysis::member_row_id(scan.members[member], index, kTable);
  }

  static void column(const Scan& scan, size_t row, sqlite3_context* ctx, int col) {
    const auto [member, index] = scan.at[row];
    const StepRow& r = scan.rows[member][index];
    switch (col) {
      case kDb: {
        const std::string& db = scan.members[member].db;
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
        sqlite3_result_text(ctx, scan.pattern.data(), static_cast<int>(scan.pattern.size()), SQLITE_TRANSIENT);
        break;
    }
  }
};

}  // namespace

void register_steps(sqlite3* db) { analysis::JobTable<Def>::register_module(db); }

}  // namespace rocpd::ranks
