// Steps (docs/ranks.md, "Steps"): the marker ranges of a member whose name is LIKE a pattern, per
// process, in start order. What rocpd_steps and rocpd_time_breakdown cut time into.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "canonical/member.h"
#include "analysis/member_read.h"
#include "members/interrupt.h"

namespace rocpd::analysis {

// PyTorch profiler's ranges, one per iteration (as roctx, NVTX or Kineto record them).
inline constexpr const char* kDefaultStepPattern = "ProfilerStep#%";

// The pattern the step tables take when given none: the connection's rocpd_step_pattern()
// (ext/ranks/rocpd_step_pattern.cpp; kDefaultStepPattern unless set).
std::string default_step_pattern(sqlite3* conn);
// A step pattern argument (the step_pattern of rocpd_critical_path and rocpd_what_if): NULL keeps
// the default (false), text is taken (true), anything else is the error "<table>: step_pattern
// must be text (a LIKE pattern such as 'ProfilerStep#%')".
bool step_pattern_arg(sqlite3_value* v, const char* table, std::string& pattern);

struct StepRange {
  GpuKey tid;
  std::string name;
  int64_t start = 0, end = 0;
  int64_t rowid = 0;  // in rocpd_apis
};

// Per process (the range's pid), its steps: rows of rocpd_apis of domain 'marker' whose name is
// text LIKE `pattern` (ASCII case-insensitive) and whose end > start, sorted by start, then rowid:
// step k of a process is the k-th. A start or end that is not an integer is an error naming
// `table` and the member.
// The stash tag (members::Registry::stash) of a member's ranges for `pattern`, as read_step_ranges
// gives them (a StepRangesByPid), read by a pass for a later rocpd_steps(pattern).
inline std::string step_ranges_stash(const std::string& pattern) { return "step_ranges:" + pattern; }
using StepRangesByPid = std::map<GpuKey, std::vector<StepRange>>;

std::map<GpuKey, std::vector<StepRange>> read_step_ranges(const canonical::Member& m, sqlite3* conn,
                                                          const members::InterruptWatch& watch,
                                                          const std::string& pattern, const char* table);

}  // namespace rocpd::analysis
