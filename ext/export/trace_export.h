// rocpd_export_trace: every op and API call of the federation in a time window, written as a
// trace file for Perfetto UI / chrome://tracing (docs/export.md).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/sqlite_util.h"

namespace rocpd::exporter {

inline constexpr const char* kFn = "rocpd_export_trace";

// The names ops are shown by: rocpd_ops.demangled (the default: readable C++ names, other names
// as recorded without a kernel-descriptor suffix), rocpd_display_name (at most 60 characters) or
// the raw name as recorded.
enum class NameForm { demangled, display, raw };

struct ExportRequest {
  std::string path;
  std::optional<int64_t> lo, hi;           // the window [lo, hi); nullopt: open side
  std::optional<std::vector<std::string>> dbs;  // members to export (all when nullopt)
  int64_t utilization_buckets = 1000;      // per gpu; 0: no utilization counter
  NameForm names = NameForm::demangled;
  // Filters (options drop_domains, members, args): API calls of these domains (lower case) are
  // left out, with the arrows they launch; only members whose name matches one of these GLOB
  // patterns (all when empty); no debug annotations (correlation_id, op_id, args) on slices.
  std::vector<std::string> drop_domains;
  std::vector<std::string> member_globs;
  bool args = true;
  // A split part (rocpd_export_split): a row belongs to the window when its start lies in it, so
  // that adjacent windows share no row; and a window holding nothing writes no file, returns 0.
  bool by_start = false;
  bool allow_empty = false;
};

struct ExportResult {
  uint64_t events = 0;  // every trace event written (metadata, slices, instants, flows, counters)
  uint64_t ops = 0, apis = 0, flows = 0, counters = 0, members = 0;
  uint64_t bytes = 0;   // uncompressed output size
};

// Writes the trace; throws Error with a message naming what was wrong. Reads the members through
// temp.rocpd_members, temp.rocpd_ops, temp.rocpd_apis and temp.rocpd_utilization of `db`.
ExportResult export_trace(sqlite3* db, const ExportRequest& req);

// The names of the members `req` exports (options db and members), in rocpd_members order;
// throws Error naming the option that chose none.
std::vector<std::string> export_member_names(sqlite3* db, const ExportRequest& req);

// Parses the options argument (a JSON object as text, NULL: none) into `req`; errors start with `fn`.
void parse_export_options(sqlite3* db, sqlite3_value* v, ExportRequest& req, const char* fn);
// An integer ns bound argument (NULL: open side); errors name `fn` and `what`.
std::optional<int64_t> export_bound_arg(sqlite3_value* v, const char* what, const char* fn);

}  // namespace rocpd::exporter
