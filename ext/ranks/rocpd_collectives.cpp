// rocpd_collectives: eponymous-only virtual table, one row per collective kernel of every member
// (job_collectives.h) with its match across members: instance, participants, arrival, late_ns,
// wait_ns, caused_wait_ns (docs/ranks.md). Every row depends on every member, so each scan reads
// all members (on every core) whatever the constraints; SQLite applies every constraint itself.
// Rowids: the op's rocpd_ops rowid (unique across members, stable), so `JOIN rocpd_ops o ON
// o.rowid = c.rowid` pairs a row with its op. Rows come per member in start order.
#include <span>

#include "analysis/job_table.h"
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

void result_opt(sqlite3_context* ctx, const std::optional<int64_t>& v) {
  if (v) sqlite3_result_int64(ctx, *v);
}

// One scan: every member's collectives with their matches, and the (member, index) of each row.
struct Scan {
  JobCollectives job;
  std::vector<std::pair<size_t, size_t>> at;
};

struct Def {
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, pid INTEGER, gpu INTEGER, queue INTEGER, stream INTEGER, op_id INTEGER, name TEXT, "
      "family TEXT, instance INTEGER, start INTEGER, \"end\" INTEGER, participants INTEGER, arrival INTEGER, "
      "late_ns INTEGER, wait_ns INTEGER, caused_wait_ns INTEGER, family_count INTEGER, matched_count INTEGER)";
  // Nothing is pushed down: a member's rows depend on every other member.
  static constexpr int kFirstArg = kMatchedCount + 1, kArgCount = 0;
  static constexpr double kCost = 1e8, kRows = 100000;
  using Scan = ranks::Scan;

  static void compute(sqlite3* conn, std::span<sqlite3_value* const>, Scan& scan) {
    scan.job = read_job_collectives(conn, kTable);
    for (size_t m = 0; m < scan.job.per_member.size(); ++m)
      for (size_t i = 0; i < scan.job.per_member[m].rows.size(); ++i) scan.at.emplace_back(m, i);
  }
  static size_t size(const Scan& scan) { return scan.at.size(); }
  static int64_t rowid(const Scan& scan, size_t row) {
    const auto [member, index] = scan.at[row];
    return scan.job.per_member[member].rows[index].rowid;
  }

  static void column(const Scan& scan, size_t row, sqlite3_context* ctx, int col) {
    const auto [member, index] = scan.at[row];
    const MemberCollectives& mc = scan.job.per_member[member];
    const CollectiveRow& r = mc.rows[index];
    const MatchedCollective& m = r.match;
    switch (col) {
      case kDb: {
        const std::string& db = scan.job.members[member].db;
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
        const std::string& f = scan.job.families[r.family];
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
  }
};

}  // namespace

void register_collectives(sqlite3* db) { analysis::JobTable<Def>::register_module(db); }

}  // namespace rocpd::ranks
