// The summary's critical_path section: for the slowest and the median job step, the share of the
// step each kind of segment holds on its critical path (rocpd_critical_path, docs/critical_path.md),
// largest first, with the member and name that hold the most of that kind. The segments are read
// once into temp.cli_critical_path, which the html page's lane chart reads again.
#pragma once
#include "result_set.h"
#include "session.h"

#include <string>
#include <vector>

namespace rocpd_cli {

// Fills temp.cli_critical_path with every segment of every job step (once per session).
void prepare_critical_path(Session& session);
// Headline lines: what bounds the slowest and the median step (rocpd_critical_path_summary's
// bound_by, over the segments read): "critical path, slowest step 3 (13.03 ms): GPU-bound: ...".
std::vector<std::string> critical_path_bounds(Session& session);
// The section: the `top` largest kinds of each of the two steps (?1 of its statement is top + 1);
// the note says when a step had more, or that the job has no steps.
ResultSet critical_path_section(Session& session, long long top);

}  // namespace rocpd_cli
