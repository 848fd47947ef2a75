#include "common/interval_math.h"

#include <algorithm>

namespace rocpd {

namespace {
constexpr __int128 kMin = std::numeric_limits<int64_t>::min();
constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
int64_t saturate(__int128 v) noexcept { return static_cast<int64_t>(v < kMin ? kMin : v > kMax ? kMax : v); }
}  // namespace

bool sorted_by_start(std::span<const Interval> ivs) noexcept {
  bool have_prev = false;
  int64_t prev = 0;
  for (const auto& iv : ivs) {
    if (iv.empty()) continue;  // empty rows never matter, wherever they are
    if (have_prev && iv.start < prev) return false;
    prev = iv.start;
    have_prev = true;
  }
  return true;
}

void sort_by_start(std::span<Interval> ivs) {
  if (sorted_by_start(ivs)) return;
  std::sort(ivs.begin(), ivs.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
}

uint64_t union_length_sorted(std::span<const Interval> ivs) noexcept {
  Merger merger;
  uint64_t total = 0;
  Interval done{};
  for (const auto& iv : ivs)
    if (merger.push(iv, done)) total += done.length();
  if (merger.finish(done)) total += done.length();
  return total;
}

uint64_t union_length(std::span<Interval> ivs) {
  sort_by_start(ivs);
  return union_length_sorted(ivs);
}

std::vector<Interval> merge(std::span<Interval> ivs) {
  sort_by_start(ivs);
  std::vector<Interval> out;
  Merger merger;
  Interval done{};
  for (const auto& iv : ivs)
    if (merger.push(iv, done)) out.push_back(done);
  if (merger.finish(done)) out.push_back(done);
  return out;
}

uint64_t clipped_length(std::span<const Interval> merged, int64_t lo, int64_t hi) {
  // The first interval that ends after lo; the rest start after it (disjoint and sorted).
  auto it = std::partition_point(merged.begin(), merged.end(), [&](const Interval& iv) { return iv.end <= lo; });
  uint64_t total = 0;
  for (; it != merged.end() && it->start < hi; ++it) total += clip(*it, lo, hi).length();
  return total;
}

std::vector<Interval> gaps(std::span<const Interval> merged) {
  std::vector<Interval> out;
  for (size_t i = 1; i < merged.size(); ++i) out.push_back({merged[i - 1].end, merged[i].start});
  return out;
}

int64_t BucketGrid::index_of(int64_t t) const noexcept {
  const __int128 d = static_cast<__int128>(t) - origin;
  if (divisions) {
    // Bucket k starts at floor(k*span/n) <= d  <=>  k < (d + 1) * n / span.
    if (d < 0) return -1;
    const __int128 span = static_cast<__int128>(limit) - origin, n = divisions;
    const __int128 num = (d + 1) * n;
    return saturate((num + span - 1) / span - 1);
  }
  const __int128 w = width;
  __int128 q = d / w;
  if (d % w != 0 && d < 0) --q;  // floor, not truncation, for times before the origin
  return saturate(q);
}

Interval BucketGrid::bucket(int64_t k) const noexcept {
  if (divisions) {
    const __int128 span = static_cast<__int128>(limit) - origin, n = divisions;
    return {saturate(origin + k * span / n), saturate(origin + (static_cast<__int128>(k) + 1) * span / n)};
  }
  const __int128 start = static_cast<__int128>(origin) + static_cast<__int128>(k) * width;
  const __int128 end = start + width;
  Interval b{saturate(start), saturate(end)};
  if (b.end > limit) b.end = limit;
  return b;
}

void add_to_buckets(std::span<const Interval> merged, const BucketGrid& grid, std::vector<uint64_t>& busy) {
  if (grid.count() == 0) return;
  const int64_t grid_lo = grid.bucket(grid.first).start;
  const int64_t grid_hi = grid.bucket(grid.last).end;
  for (const auto& whole : merged) {
    const Interval iv = clip(whole, grid_lo, grid_hi);
    if (iv.empty()) continue;
    const int64_t k0 = std::max(grid.index_of(iv.start), grid.first);
    const int64_t k1 = std::min(grid.index_of(iv.end - 1), grid.last);
    for (int64_t k = k0; k <= k1; ++k) {
      const Interval b = grid.bucket(k);
      busy[static_cast<size_t>(k - grid.first)] += clip(iv, b.start, b.end).length();
    }
  }
}

void IncrementalUnion::insert(Interval iv) {
  if (iv.empty()) return;
  auto it = parts_.upper_bound(iv.start);
  if (it != parts_.begin()) {
    auto prev = std::prev(it);
    if (prev->second >= iv.start) it = prev;  // overlaps or touches the part before
  }
  while (it != parts_.end() && it->first <= iv.end) {
    iv.start = std::min(iv.start, it->first);
    iv.end = std::max(iv.end, it->second);
    total_ -= Interval{it->first, it->second}.length();
    it = parts_.erase(it);
  }
  parts_.emplace_hint(it, iv.start, iv.end);
  total_ += iv.length();
}

}  // namespace rocpd
