// `rocpd-ext compare A B`: two runs opened in one session, each side's members labelled with its
// run (rocpd_open(path, run)); the runs' facts side by side, then per kernel, API call and copy
// kind the calls, totals and medians per call of each side, ranked by the change of time per step
// when both sides have steps (rocpd_steps), else by the change of the median per call.
#pragma once
#include <string>

namespace rocpd_cli {

bool is_compare_section(const std::string& name);
// "runs, kernels, apis, copies"
std::string compare_section_names();

}  // namespace rocpd_cli
