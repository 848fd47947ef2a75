// summary's `apis` and `other_calls` sections (docs/cli.md, "Which calls are API calls"): the
// rows of rocpd_apis split by call_class.h, each name normalised (name_normal.h) so that a
// counter or version suffix does not make a row of its own.
#pragma once
#include "result_set.h"
#include "session.h"

namespace rocpd_cli {

struct CallSections {
  ResultSet apis;         // time_pct, total_ns, calls, avg_ns, api: runtime and driver calls
  ResultSet other_calls;  // class, total_ns, calls, avg_ns, name: markers, annotations, profiler, other
};

// Both sections, uncut (ordered by total time, largest first; ties by name).
CallSections call_sections(Session& session, bool with_markers);

}  // namespace rocpd_cli
