// A mergeable relative-error quantile sketch in the manner of DDSketch (Masson, Rim, Lee, VLDB
// 2019): logarithmic buckets, one store for positive values, one for the magnitudes of negative
// values, and a count of zeros. Bucket i holds magnitudes in (gamma^(i-1), gamma^i]; its
// representative 2 gamma^i / (gamma + 1) is within kSketchBucketAlpha of every magnitude of the
// bucket, so the j-th smallest value is answered within that relative error. Merging adds counts:
// exact, associative and commutative. Each store keeps at most kSketchMaxBuckets buckets; beyond
// that its lowest buckets (smallest magnitudes) fold into the lowest kept one, a rule that gives
// the same result in any merge order. No SQLite here. Guarantee and layout: docs/states.md.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

namespace rocpd::stats {

// Relative accuracy promised on a quantile (docs/states.md). The buckets are built for a slightly
// smaller one, so the rounding of log(), exp() and the interpolation stays inside the promise.
inline constexpr double kSketchAlpha = 0.005;
inline constexpr double kSketchBucketAlpha = 0.0049;
// Buckets per store: gamma^4607 is 4e19, so every int64 magnitude from 1 to 2^63 fits without
// anything folding (1 ns to 292 years; 19.6 decades of reals).
inline constexpr std::size_t kSketchMaxBuckets = 4608;

// Counts of consecutive bucket indices [first, first + counts.size()).
class BucketStore {
 public:
  BucketStore() = default;
  // A store read back from a BLOB; throws std::invalid_argument when `first` and the number of
  // buckets fall outside the index range of finite doubles or exceed kSketchMaxBuckets. Zero
  // buckets at either end are dropped.
  BucketStore(std::int32_t first, std::vector<std::uint64_t> counts);

  bool empty() const noexcept { return counts_.empty(); }
  std::int32_t first() const noexcept { return empty() ? 0 : first_; }
  std::span<const std::uint64_t> counts() const noexcept { return counts_; }
  // Sum of the counts; throws std::overflow_error beyond 2^64 - 1.
  std::uint64_t total() const;

  void add(std::int32_t index, std::uint64_t count);
  void merge(const BucketStore& other);

 private:
  std::int64_t last() const noexcept { return first_ + static_cast<std::int64_t>(counts_.size()) - 1; }
  // Moves the counts of every bucket below `floor` into bucket `floor`.
  void fold_below(std::int64_t floor);
  std::int32_t first_ = 0;
  std::vector<std::uint64_t> counts_;
};

class QuantileSketch {
 public:
  QuantileSketch() = default;
  QuantileSketch(BucketStore positive, BucketStore negative, std::uint64_t zeros)
      : positive_(std::move(positive)), negative_(std::move(negative)), zeros_(zeros) {}

  // Adds a finite value (callers keep infinities and NaN out).
  void add(double x);
  void merge(const QuantileSketch& other);
  // Values held; throws std::overflow_error beyond 2^64 - 1.
  std::uint64_t count() const;

  // The representative of the j-th smallest value (0-based, j < count()), clamped to [lo, hi]
  // (the exact minimum and maximum of the values, which no answer needs to leave).
  double value_at_rank(std::uint64_t j, double lo, double hi) const;

  const BucketStore& positive() const noexcept { return positive_; }
  const BucketStore& negative() const noexcept { return negative_; }
  std::uint64_t zeros() const noexcept { return zeros_; }

  // The bucket of a magnitude m > 0 (finite), and the representative of a bucket.
  static std::int32_t index_of(double m);
  static double representative(std::int32_t index);
  // Indices of the smallest (subnormal) and the largest finite magnitude.
  static std::int32_t min_index();
  static std::int32_t max_index();

 private:
  BucketStore positive_, negative_;
  std::uint64_t zeros_ = 0;
};

}  // namespace rocpd::stats
