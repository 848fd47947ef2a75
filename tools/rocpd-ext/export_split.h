// `rocpd-ext export ... --split N|ranks|steps` (docs/cli.md, "export"): one job written as several
// Perfetto files, each one call of rocpd_export_trace over its part: N equal windows of time, one
// member (rank) each, or one step each (the step ranges of every member named alike).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "export_window.h"
#include "options.h"
#include "session.h"

namespace rocpd_cli {

struct SplitPart {
  std::string file;                        // OUT with ".<part>" before its extension
  std::optional<std::int64_t> start, end;  // the part's window (absent: open)
  std::vector<std::string> dbs;            // only these members (empty: o.dbs or all)
};

// Whether `spec` is a --split value: "ranks", "steps" or a whole number from 1 to 10000.
bool is_split_spec(const std::string& spec);
// The parts of the export window `w` by o.split; throws CliError when there is nothing to split by.
std::vector<SplitPart> split_parts(Session& session, const Options& o, const Window& w);
// "trace.json" + "3" -> "trace.3.json" (also .json.gz and .pftrace; else appended).
std::string part_file(const std::string& out, const std::string& part);

}  // namespace rocpd_cli
