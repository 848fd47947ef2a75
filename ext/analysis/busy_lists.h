// The merged busy intervals of every member and gpu, read by the summary engine on every core:
// what rocpd_utilization buckets. Same ops, clipping and gpus as its own SQL (ops_window.h
// load_busy), which remains the answer whenever this one cannot give it exactly.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/sqlite_util.h"
#include "common/interval_math.h"

namespace rocpd::analysis {

struct GpuBusyList {
  std::optional<int64_t> gpu;  // NULL first, then by id
  std::vector<Interval> busy;
};

// Members named in `dbs` -> their gpus' busy lists within [lo, hi) (INT64_MIN / INT64_MAX: open),
// only gpu `gpu` when given. nullopt when the engine cannot answer exactly (a member's value is
// not an integer...) or the connection has no member registry: the caller reads through SQL.
std::optional<std::map<std::string, std::vector<GpuBusyList>>> busy_lists(sqlite3* host,
                                                                           const std::vector<std::string>& dbs,
                                                                           int64_t lo, int64_t hi,
                                                                           std::optional<int64_t> gpu);

}  // namespace rocpd::analysis
