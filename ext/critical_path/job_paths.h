// The job level of the critical path (docs/critical_path.md): every member read on every core into
// its graph (member_graph.h) and what the job keeps of it (member_paths.h), joined across members
// where matched collectives end (rocpd_collectives: an instance ends no earlier than its last
// participant's arrival). A job step is the n-th step range of every member process.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "critical_path/member_paths.h"
#include "diagnosis/diag_read.h"

namespace rocpd::critical_path {

using diagnosis::MemberRef;

// One segment of a step's longest path.
struct PathRow {
  uint32_t member = 0;  // index into JobPaths::members
  int64_t step = 0;
  Attribution what;  // kind, place, name, waited (in the member's tables)
  int64_t start = 0, end = 0;
};

struct JobPaths {
  std::vector<MemberRef> members;
  std::vector<MemberPaths> per_member;
  std::vector<PathRow> rows;  // by step, then start
  std::map<int64_t, int64_t> inferred;  // per step: edges inferred from the timing inside its windows
};

// The longest path of every job step whose ranges are LIKE `pattern`.
JobPaths job_critical_paths(sqlite3* conn, const std::string& pattern, const char* table);

struct WhatIfRow {
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
