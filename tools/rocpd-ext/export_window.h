// The window of `rocpd-ext export`: --start/--end given as time since the job's start (ns or
// with a unit), as a share of the job's span, as an absolute timestamp, or as a CPU range name;
// resolved into the members' nanoseconds that rocpd_export_trace takes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "options.h"
#include "session.h"

namespace rocpd_cli {

struct JobSpan {
  std::int64_t first_ns = 0, last_ns = 0;  // min(first_ns), max(last_ns) of rocpd_members
};

enum class Edge { Start, End };

// One bound of option `option` ("--start"): throws CliError naming the option and its value when
// the value cannot be read, no range has the name, or the time is beyond what an int64 of ns holds.
std::int64_t resolve_time(Session& session, const JobSpan& job, const std::string& option, const std::string& spec,
                          Edge edge);

struct Window {
  std::optional<std::int64_t> start, end;  // absent: that side open
};
Window resolve_window(Session& session, const std::optional<std::string>& start, const std::optional<std::string>& end,
                      const std::optional<std::string>& range);

// The error of a window that holds nothing, in the terms of the command line (the options given,
// times since the job's start) rather than rocpd_export_trace's SQL arguments.
std::string empty_window_message(Session& session, const Window& w, const Options& o);

}  // namespace rocpd_cli
