// rocpd_critical_path([step_pattern]): eponymous-only virtual table, one row per segment of the
// longest path of each job step (docs/critical_path.md): the n-th step range (a marker range LIKE
// the pattern, default 'ProfilerStep#%') of every member process of one run (rocpd_runs), from the
// first of them to start to the last to end. The segments of a step tile that span. Every member is read (paths cross
// members where collectives end); SQLite applies every constraint but the argument. Rowids number
// the rows from 1 in step, then time order.
#include <span>

#include "analysis/job_table.h"
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

// One scan: the job's paths under the pattern it was computed with.
struct Scan {
  JobPaths paths;
  std::string pattern;
};

struct Def {
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, pid INTEGER, tid INTEGER, gpu INTEGER, queue INTEGER, "
      "stream INTEGER, kind TEXT, name TEXT, start INTEGER, \"end\" INTEGER, "
      "duration INTEGER, step INTEGER, waited_for TEXT, inferred INTEGER, step_inferred_edges INTEGER, "
      "run TEXT, step_pattern HIDDEN)";
  static constexpr int kFirstArg = kPattern, kArgCount = 1;
  static constexpr double kCost = 1e9, kRows = 100000;
  using Scan = critical_path::Scan;

  static void compute(sqlite3* conn, std::span<sqlite3_value* const> args, Scan& scan) {
    scan.pattern = analysis::default_step_pattern(conn);
    if (args[0]) analysis::step_pattern_arg(args[0], kTable, scan.pattern);
    scan.paths = job_critical_paths(conn, scan.pattern, kTable);
  }
  static size_t size(const Scan& scan) { return scan.paths.rows.size(); }
  // Rows numbered from 1 in step, then time order.
  static int64_t rowid(const Scan&, size_t row) { return static_cast<int64_t>(row + 1); }

  static void column(const Scan& scan, size_t row, sqlite3_context* ctx, int col) {
    const PathRow& r = scan.paths.rows[row];
    const MemberPaths& pm = scan.paths.per_member[r.member];
    const Place& place = pm.places[r.what.place];
    switch (col) {
      case kDb: {
        const std::string& db = scan.paths.members[r.member].db;
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
      case kStepInferred: sqlite3_result_int64(ctx, scan.paths.inferred.at({r.run, r.step})); break;
      case kRun:
        if (const std::string* label = scan.paths.runs.label(r.run))
          sqlite3_result_text(ctx, label->data(), static_cast<int>(label->size()), SQLITE_TRANSIENT);
        break;
      case kStart: sqlite3_result_int64(ctx, r.start); break;
      case kEnd: sqlite3_result_int64(ctx, r.end); break;
      case kDuration: sqlite3_result_int64(ctx, r.end - r.start); break;
      case kStep: sqlite3_result_int64(ctx, r.step); break;
      case kPattern: sqlite3_result_text(ctx, scan.pattern.data(), static_cast<int>(scan.pattern.size()), SQLITE_TRANSIENT); break;
    }
  }
};

}  // namespace

void register_critical_path(sqlite3* db) { analysis::JobTable<Def>::register_module(db); }

}  // namespace rocpd::critical_path
