// The top-kernel bars of the html summary: one bar per row of the kernels section, its length
// the kernel's share of the job's kernel time.
#pragma once
#include <ostream>

#include "result_set.h"

namespace rocpd_cli {

// The bar colour: not one of the heatmap's.
inline constexpr const char* kBarColor = "#e6550d";

// `kernels` has the columns of rocpd_kernel_summary (time_pct, total_ns, ..., kernel).
void write_kernel_bars_svg(std::ostream& out, const ResultSet& kernels);

}  // namespace rocpd_cli
