// Pure interval algorithms behind interval_union, rocpd_busy_intervals, rocpd_gaps and
// rocpd_utilization. No SQLite here, so every function is unit-tested directly.
//
// Conventions (all of them documented in docs/intervals.md):
//  - An interval is half-open [start, end) in int64 nanoseconds; it is empty when end <= start
//    (a zero-length op and an op whose end precedes its start both cover no time).
//  - Lengths are uint64_t: the longest possible union, [INT64_MIN, INT64_MAX), is 2^64 - 1 ns,
//    which fits; differences are computed in unsigned arithmetic so nothing overflows.
//  - Touching intervals ([a, b) and [b, c)) merge into one busy interval: no zero-length gap.
//  - Clipping to a window [lo, hi) uses kNoLo / kNoHi for an open side; clipping with both is the
//    identity for every interval.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <span>
#include <vector>

namespace rocpd {

struct Interval {
  int64_t start;
  int64_t end;
  bool empty() const noexcept { return end <= start; }
  // Exact for every non-empty interval, including [INT64_MIN, INT64_MAX).
  uint64_t length() const noexcept {
    return empty() ? 0 : static_cast<uint64_t>(end) - static_cast<uint64_t>(start);
  }
  friend bool operator==(const Interval&, const Interval&) = default;
};

inline constexpr int64_t kNoLo = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kNoHi = std::numeric_limits<int64_t>::max();

// The part of `iv` inside [lo, hi); may be empty.
inline Interval clip(Interval iv, int64_t lo, int64_t hi) noexcept {
  return {iv.start < lo ? lo : iv.start, iv.end > hi ? hi : iv.end};
}

// True when the non-empty intervals of `ivs` appear in non-decreasing start order.
bool sorted_by_start(std::span<const Interval> ivs) noexcept;

// Sorts `ivs` by start unless it already is (O(n) for sorted input, O(n log n) otherwise).
void sort_by_start(std::span<Interval> ivs);

// Length of the union of the non-empty intervals of `ivs`, which must be sorted by start.
uint64_t union_length_sorted(std::span<const Interval> ivs) noexcept;

// Length of the union, any order; reorders `ivs`.
uint64_t union_length(std::span<Interval> ivs);

// Merges intervals arriving in start order into maximal busy intervals, one at a time, so a
// caller can stream millions of ops without holding them. Empty intervals are ignored.
class Merger {
 public:
  // Feeds the next interval (start >= previous starts). Returns true and sets `done` when the
  // interval before this one is complete (the new one starts after its end).
  bool push(Interval iv, Interval& done) noexcept {
    if (iv.empty()) return false;
    if (!open_) {
      current_ = iv;
      open_ = true;
      return false;
    }
    if (iv.start <= current_.end) {  // overlapping or touching: extend
      if (iv.end > current_.end) current_.end = iv.end;
      return false;
    }
    done = current_;
    current_ = iv;
    return true;
  }
  // Ends the stream: returns true and sets `done` to the last busy interval, if any.
  bool finish(Interval& done) noexcept {
    if (!open_) return false;
    done = current_;
    open_ = false;
    return true;
  }

 private:
  Interval current_{0, 0};
  bool open_ = false;
};

// The maximal busy intervals of `ivs` (any order; reorders `ivs`), sorted, disjoint, not touching.
std::vector<Interval> merge(std::span<Interval> ivs);

// Length of the part of `merged` (sorted, disjoint intervals, as merge returns them) inside
// [lo, hi). O(log n + intervals inside): what a step or window takes of a busy list.
uint64_t clipped_length(std::span<const Interval> merged, int64_t lo, int64_t hi);

// The idle gaps between consecutive busy intervals (as returned by merge): never before the
// first or after the last one.
std::vector<Interval> gaps(std::span<const Interval> merged);

// A grid of equal buckets [origin + k*width, origin + (k+1)*width) for k in [first, last],
// with the last bucket's end cut at `limit` (the window's hi) when that falls inside it.
// With `divisions` set, the grid is instead [origin, limit) divided into exactly that many
// buckets, bucket k being [origin + floor(k*span/divisions), origin + floor((k+1)*span/divisions)):
// widths differ by at most 1 ns (span = limit - origin >= divisions).
struct BucketGrid {
  int64_t origin = 0;
  uint64_t width = 1;  // > 0
  int64_t first = 0;   // bucket index range, inclusive
  int64_t last = -1;
  int64_t limit = kNoHi;
  uint64_t divisions = 0;

  // floor((t - origin) / width), exact for every int64 t.
  int64_t index_of(int64_t t) const noexcept;
  // Bounds of bucket k, saturated to the int64 range and cut at `limit`.
  Interval bucket(int64_t k) const noexcept;
  uint64_t count() const noexcept {
    return last < first ? 0 : static_cast<uint64_t>(last) - static_cast<uint64_t>(first) + 1;
  }
};

// Adds the busy time of `merged` (sorted, disjoint busy intervals) falling into each bucket of
// `grid` to busy[k - grid.first]; `busy` must hold grid.count() entries. Time outside the grid
// is ignored. O(intervals + buckets).
void add_to_buckets(std::span<const Interval> merged, const BucketGrid& grid, std::vector<uint64_t>& busy);

// Union of a changing set of intervals with O(log n) amortised insertion: what the window
// form of interval_union uses for frames that only grow (running totals).
class IncrementalUnion {
 public:
  void insert(Interval iv);
  void clear() noexcept {
    parts_.clear();
    total_ = 0;
  }
  uint64_t length() const noexcept { return total_; }

 private:
  std::map<int64_t, int64_t> parts_;  // start -> end of disjoint, non-touching busy intervals
  uint64_t total_ = 0;
};

}  // namespace rocpd
