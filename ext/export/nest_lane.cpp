#include "export/nest_lane.h"

#include <algorithm>

namespace rocpd::exporter {

bool NestLane::try_place(int64_t start, int64_t end) {
  if (in_order_ && start >= last_start_) {
    while (!open_.empty() && open_.back().second <= start) open_.pop_back();
    // The innermost open slice contains every later one: the new slice must end inside it (the
    // same start is fine: the one written first is the longer).
    if (!open_.empty() && end > open_.back().second) return false;
    open_.emplace_back(start, end);
    all_.emplace_back(start, end);
    last_start_ = start;
    return true;
  }
  if (in_order_) to_maps();
  if (!fits_anywhere(start, end)) return false;
  by_start_.emplace(start, end);
  by_end_.emplace(end, start);
  return true;
}

void NestLane::to_maps() {
  for (const auto& [s, e] : all_) {
    by_start_.emplace(s, e);
    by_end_.emplace(e, s);
  }
  all_ = {};
  open_ = {};
  in_order_ = false;
}

bool NestLane::fits_anywhere(int64_t s, int64_t e) const {
  // Slices starting where this one starts were written first: they must contain it.
  for (auto [it, last] = by_start_.equal_range(s); it != last; ++it)
    if (it->second < e) return false;
  // A slice starting where this one ends was written first: its begin would sort before this end.
  if (by_start_.count(e)) return false;
  // Slices starting inside (s, e) must end by e. The lane nests, so after the outermost slice
  // starting at a point, the next to look at starts at or after its end.
  for (auto it = by_start_.upper_bound(s); it != by_start_.end() && it->first < e;) {
    int64_t outer = it->second;
    const int64_t at = it->first;
    for (; it != by_start_.end() && it->first == at; ++it) outer = std::max(outer, it->second);
    if (outer > e) return false;
    it = by_start_.lower_bound(std::max(outer, at + 1));
  }
  // Slices ending inside (s, e) must start at or after s; from the latest end down, skipping what
  // lies in the outermost slice ending at a point.
  auto it = by_end_.lower_bound(e);
  while (it != by_end_.begin()) {
    --it;
    if (it->first <= s) break;
    const int64_t at = it->first;
    int64_t outer = it->second;
    for (auto j = it; j->first == at; --j) {
      outer = std::min(outer, j->second);
      if (j == by_end_.begin()) break;
    }
    if (outer < s) return false;
    it = by_end_.upper_bound(std::min(outer, at - 1));
  }
  return true;
}

}  // namespace rocpd::exporter
