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
};

struct ExportResult {
  uint64_t events = 0;  // every trace event written (metadata, slices, instants, flows, counters)
  uint64_t ops = 0, apis = 0, flows = 0, counters = 0, members = 0;
  uint64_t bytes = 0;   // uncompressed output size
};

// Writes the trace; throws Error with a message naming what was wrong. Reads the members through
// temp.rocpd_members, temp.rocpd_ops, temp.rocpd_apis and temp.rocpd_utilization of `db`.
ExportResult export_trace(sqlite3* db, const ExportRequest& req);

}  // namespace rocpd::exporter
