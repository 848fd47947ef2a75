// The figures of one gpu's idle gaps (the gaps between its merged busy intervals, as rocpd_gaps
// lists them): how many, their median, 99th percentile and largest, the same for the gaps of 1 ms
// or more, and the gaps a synchronize call was blocked in. Shared by rocpd_gap_groups and
// rocpd_gpu_screen, which read a member's busy intervals through the summary engine.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/op_groups.h"
#include "canonical/member.h"
#include "common/interval_math.h"
#include "members/interrupt.h"
#include "stats/percentile_select.h"

namespace rocpd::diagnosis {

// A gap this long or longer is worth reading (nsys-ai's threshold; docs/anomalies.md).
inline constexpr int64_t kLongGapNs = 1000000;

struct GapFigures {
  int64_t gaps = 0, max = 0, long_gaps = 0, sync_gaps = 0, sync_ns = 0;
  std::optional<stats::Number> med, p99, long_med;  // percentile(x, 50), percentile(x, 99)
};

struct SyncCall {
  int64_t start, end;
};

// The member's busy intervals per gpu (the summary engine's groups by db and gpu, each with its
// merged list). Throws analysis::NeedsSql for a value the engine cannot read exactly.
analysis::JobGroups busy_by_gpu(const canonical::Member& m, sqlite3* conn);

// The member's synchronize calls (name LIKE '%Synchronize%', start < end). Throws
// analysis::NeedsSql when a value is not what SQL would compare as read here.
std::vector<SyncCall> sync_calls(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch);

// The figures of the gaps between `busy` (disjoint, sorted); `calls` sorted or not.
GapFigures gap_figures(const std::vector<Interval>& busy, const std::vector<SyncCall>& calls);

}  // namespace rocpd::diagnosis
