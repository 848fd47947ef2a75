// `rocpd-ext compare A B`: two runs opened in one session, each side's members labelled with its
// run (rocpd_open(path, run)); a warning per setup property they differ in; the step time and
// time shares first (compare_time.h), the runs' facts side by side, then per kernel, runtime API
// call and copy kind the calls, totals, medians and a rank test of each side's durations, ranked
// by the significant changes only (compare_pairs.h).
#pragma once
#include <string>

namespace rocpd_cli {

bool is_compare_section(const std::string& name);
// "time, runs, kernels, apis, copies"
std::string compare_section_names();

}  // namespace rocpd_cli
