// The figures of one step (rocpd_steps, docs/ranks.md) from a member's merged busy intervals, without
// SQLite.
#pragma once
#include <cstdint>
#include <span>

#include "intervals/interval_math.h"

namespace rocpd::ranks {

// Length of the part of `merged` (sorted, disjoint intervals, as intervals::merge returns them)
// inside [lo, hi). O(log n + intervals inside).
uint64_t clipped_length(std::span<const intervals::Interval> merged, int64_t lo, int64_t hi);

}  // namespace rocpd::ranks
