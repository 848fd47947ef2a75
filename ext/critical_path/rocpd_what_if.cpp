// rocpd_what_if(step_pattern, name_pattern, factor): eponymous-only virtual table, one row per job
// step (docs/critical_path.md): its measured time and the time predicted when every op, range or
// API call whose name is LIKE name_pattern takes factor times as long, the longest path recomputed
// on the same dependency graph (nothing subtracted; no overlap the trace did not show is assumed).
// Every member is read; SQLite applies every constraint but the arguments. Rowids number the rows
// from 1 in step order.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "common/like_pattern.h"
#include "analysis/job_table.h"
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

// A pattern that matches nothing predicts the measured time: said, not left to be taken for a result.
std::string no_match_warning(const std::string& pattern) {
  return fmt::format("name_pattern '{}' matches no op, range or call of the step (LIKE, ASCII case-insensitive): "
                     "predicted_ns is the measured time",
                     pattern);
}

// One scan: the job's steps under the arguments they were computed with.
struct Scan {
  std::vector<WhatIfRow> rows;
  std::string step_pattern, name_pattern;
  double factor = 1.0;
};

struct Def {
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(step INTEGER, name TEXT, ranks INTEGER, start INTEGER, "
      "measured_ns INTEGER, predicted_ns INTEGER, change_ns INTEGER, matches INTEGER, "
      "inferred_edges INTEGER, run TEXT, warning TEXT, "
      "step_pattern HIDDEN, name_pattern HIDDEN, factor HIDDEN)";
  static constexpr int kFirstArg = kStepPattern, kArgCount = 3;
  static constexpr double kCost = 1e9, kRows = 1000;
  using Scan = critical_path::Scan;

  static void compute(sqlite3* conn, std::span<sqlite3_value* const> args, Scan& scan) {
    scan.step_pattern = analysis::default_step_pattern(conn);
    if (args[0]) analysis::step_pattern_arg(args[0], kTable, scan.step_pattern);
    auto name_pattern = args[1] ? like_pattern_arg(args[1], kTable, "name_pattern", "Cijk%") : std::nullopt;
    if (!name_pattern)
      throw Error(fmt::format("{}: name_pattern must be text (a LIKE pattern of op, range or call names such as 'Cijk%')",
                              kTable));
    scan.name_pattern = std::move(*name_pattern);
    const int ft = args[2] ? sqlite3_value_type(args[2]) : SQLITE_NULL;
    if (ft != SQLITE_INTEGER && ft != SQLITE_FLOAT)
      throw Error(fmt::format("{}: factor must be a number >= 0 (0.5: the matching ops take half as long)", kTable));
    scan.factor = sqlite3_value_double(args[2]);
    if (!std::isfinite(scan.factor) || scan.factor < 0 || scan.factor > 1e6)
      throw Error(fmt::format("{}: factor must be a number between 0 and 1e6, got {}", kTable, scan.factor));
    scan.rows = job_what_if(conn, scan.step_pattern, scan.name_pattern, scan.factor, kTable);
    // The project's warnings: sqlite3_log (for hosts that log) and, per step, the `warning` column.
    if (!scan.rows.empty() && std::all_of(scan.rows.begin(), scan.rows.end(), [](const WhatIfRow& r) { return r.matches == 0; }))
      sqlite3_log(SQLITE_WARNING,
                  "%s: name_pattern '%s' matches no op, range or call in any step: every predicted_ns is the measured time",
                  kTable, scan.name_pattern.c_str());
  }
  static size_t size(const Scan& scan) { return scan.rows.size(); }
  // Rows numbered from 1 in step order.
  static int64_t rowid(const Scan&, size_t row) { return static_cast<int64_t>(row + 1); }

  static void column(const Scan& scan, size_t row, sqlite3_context* ctx, int col) {
    const WhatIfRow& r = scan.rows[row];
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
          const std::string w = no_match_warning(scan.name_pattern);
          sqlite3_result_text(ctx, w.data(), static_cast<int>(w.size()), SQLITE_TRANSIENT);
        }
        break;
      case kStepPattern:
        sqlite3_result_text(ctx, scan.step_pattern.data(), static_cast<int>(scan.step_pattern.size()), SQLITE_TRANSIENT);
        break;
      case kNamePattern:
        sqlite3_result_text(ctx, scan.name_pattern.data(), static_cast<int>(scan.name_pattern.size()), SQLITE_TRANSIENT);
        break;
      case kFactor: sqlite3_result_double(ctx, scan.factor); break;
    }
  }
};

}  // namespace

void register_what_if(sqlite3* db) { analysis::JobTable<Def>::register_module(db); }

}  // namespace rocpd::critical_path
