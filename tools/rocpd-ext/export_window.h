// The window of `rocpd-ext export`: --start/--end given as time since the job's start (ns or
// with a unit), as a share of the job's span, as an absolute timestamp, or as a CPU range name;
// resolved into the members' nanoseconds that rocpd_export_trace takes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "session.h"

namespace rocpd_cli {

struct JobSpan {
  std::int64_t first_ns = 0, last_ns = 0;  // min(first_ns), max(last_ns) of rocpd_members
};

enum class Edge { Start, End };

// One bound: throws CliError naming the argument when it cannot be read or no range has the name.
std::int64_t resolve_time(Session& session, const JobSpan& job, const std::string& spec, Edge edge);

struct Window {
  std::optional<std::int64_t> start, end;  // absent: that side open
};
Window resolve_window(Session& session, const std::optional<std::string>& start, const std::optional<std::string>& end,
                      const std::optional<std::string>& range);

}  // namespace rocpd_cli
