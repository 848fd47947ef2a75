// One track lane of slices that must nest: trace viewers build call stacks per thread track and
// cut short (Perfetto) a slice that starts inside another and ends after it. A lane accepts a
// slice only when it nests with every slice already there, whatever order rows come in.
#pragma once
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace rocpd::exporter {

class NestLane {
 public:
  // Records [start, end) (end > start) and returns true when, with every slice P = [a, b) of the
  // lane (written earlier), it is disjoint (b <= start, or end < a), contains P (start < a,
  // b <= end) or lies in P (a <= start, end <= b). Ties that a viewer sorting events by time
  // alone could read the other way are refused: the same start with a longer slice than P, and an
  // end equal to P's start. Otherwise returns false and records nothing.
  bool try_place(int64_t start, int64_t end);

 private:
  bool fits_anywhere(int64_t start, int64_t end) const;
  void to_maps();

  // While slices come in start order (the usual case): the stack of those containing the last
  // start, and every slice (kept for the general case).
  bool in_order_ = true;
  int64_t last_start_ = INT64_MIN;
  std::vector<std::pair<int64_t, int64_t>> open_, all_;
  // Any order: the slices by start and by end.
  std::multimap<int64_t, int64_t> by_start_, by_end_;
};

}  // namespace rocpd::exporter
