// `rocpd-ext export ... --split N|ranks|steps` (docs/cli.md, "export"): one job written as several
// Perfetto files by one call of rocpd_export_split (docs/export.md, "Splitting a job"): N equal
// windows of time, one member (rank) each, or one step each; each row in one part.
#pragma once
#include <ostream>
#include <string>

#include "export_window.h"
#include "options.h"
#include "session.h"

namespace rocpd_cli {

// Whether `spec` is a --split value: "ranks", "steps" or a whole number from 1 to 10000.
bool is_split_spec(const std::string& spec);
// Writes the parts of window `w` with the export options `options` (a JSON object or NULL); a
// line per part: its file and events, or that it held nothing and was not written.
int export_split(Session& session, const Options& o, const Window& w, const Param& options, std::ostream& out);

}  // namespace rocpd_cli
