#include "ranks/step_math.h"

#include <algorithm>

namespace rocpd::ranks {

uint64_t clipped_length(std::span<const intervals::Interval> merged, int64_t lo, int64_t hi) {
  // The first interval that ends after lo; the rest start after it (disjoint and sorted).
  auto it = std::partition_point(merged.begin(), merged.end(), [&](const intervals::Interval& iv) { return iv.end <= lo; });
  uint64_t total = 0;
  for (; it != merged.end() && it->start < hi; ++it) total += intervals::clip(*it, lo, hi).length();
  return total;
}

}  // namespace rocpd::ranks
