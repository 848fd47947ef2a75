// The summary's roofline section and the html page's roofline plot (docs/roofline.md,
// docs/cli.md): the kernels that took the most time, per kernel name and device, against the roof
// of their GPU at their arithmetic intensity (rocpd_kernel_roofline_by_kernel).
#pragma once
#include <ostream>

#include "result_set.h"
#include "session.h"

namespace rocpd_cli {

// The `top` kernels (per name and device) by total duration that have counters a formula maps
// (?1 of its statement is top + 1, so that a cut shows); empty when no kernel has.
ResultSet roofline_section(Session& session, long long top);

// A log-log roofline of the device with the most kernel time under a roof: its roofs (one per
// data type and unit its row has a peak for, each min(peak, intensity x bandwidth)) and one point
// per kernel of the section's rows on that device, its area proportional to its time. Draws nothing
// when no kernel has a roof.
void write_roofline_svg(std::ostream& out, Session& session, long long top);

}  // namespace rocpd_cli
