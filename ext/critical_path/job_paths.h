// The job level of the critical path (docs/critical_path.md): every member read on every core into
// its graph (member_graph.h) and what the job keeps of it (member_paths.h), joined across members
// where matched collectives end (rocpd_collectives: an instance ends no earlier than its last
// participant's arrival). A job step is the n-th step range of every member process of one run
// (members opened with a run label, rocpd_runs; the unlabelled ones are one run): runs are steps
// and paths of their own, and their collectives never match each other's.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "critical_path/member_paths.h"
#include "analysis/member_read.h"

namespace rocpd::critical_path {

using analysis::MemberRef;

using analysis::MemberRef;

// A job step: its run (0 for the unlabelled members, else 1 + the label's index in JobRuns) and
// its number in the run, from 0.
using StepKey = std::pair<uint32_t, int64_t>;

// The run labels of the job's members.
struct JobRuns {
  std::vector<std::string> labels;  // sorted
  std::vector<uint32_t> of_member;   // per member: 0 (none) or 1 + its label's index
  // The label of run r (nullptr: the unlabelled members).
  const std::string* label(uint32_t r) const { return r == 0 ? nullptr : &labels[r - 1]; }
};

// One segment of a step's longest path.
struct PathRow {
  uint32_t member = 0;  // index into JobPaths::members
  uint32_t run = 0;
  int64_t step = 0;
  Attribution what;  // kind, place, name, waited (in the member's tables)
  int64_t start = 0, end = 0;
};

struct JobPaths {
  std::vector<MemberRef> members;
  std::vector<MemberPaths> per_member;
  JobRuns runs;
  std::vector<PathRow> rows;  // by run, step, then start
  std::map<StepKey, int64_t> inferred;  // per step: edges inferred from the timing inside its windows
};

// The longest path of every job step whose ranges are LIKE `pattern`.
JobPaths job_critical_paths(sqlite3* conn, const std::string& pattern, const char* table);

struct WhatIfRow {
  uint32_t run = 0;  // as PathRow's (JobRuns of the what-if's members)
  std::optional<std::string> run_label;
  int64_t step = 0;
  std::string name;  // the step's range name (the smallest over its member processes)
  int64_t ranks = 0;  // member processes with this step
  int64_t start = 0, measured_end = 0, predicted_end = 0;
  int64_t matches = 0;  // ops, ranges and calls inside the step whose name matched
  int64_t inferred = 0;  // edges inferred from the timing inside the step's windows
};

// The step times when every op, range or call whose name is LIKE `name_pattern` takes `factor`
// times as long, the longest paths recomputed on the same graphs.
std::vector<WhatIfRow> job_what_if(sqlite3* conn, const std::string& step_pattern, const std::string& name_pattern,
                                   double factor, const char* table);

}  // namespace rocpd::critical_path
