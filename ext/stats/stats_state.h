// The mergeable statistics state behind rocpd_stats_state / rocpd_stats_merge / rocpd_stats_get
// (docs/states.md): count, exact integer sums, compensated real sums, Welford/Chan moments,
// min and max with their SQL types, and a quantile summary that holds the values themselves up
// to kExactQuantileLimit (answers bit for bit those of percentile()) and a relative-error sketch
// beyond (quantile_sketch.h). Merging two states gives the state of all their values. No SQLite
// here: the BLOB form is stats_state_blob.cpp, the SQL functions stats_state_sql.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "stats/moments.h"
#include "stats/percentile_select.h"
#include "stats/quantile_sketch.h"

namespace rocpd::stats {

// Values kept exactly; a state holding more switches to the sketch, for good.
inline constexpr std::size_t kExactQuantileLimit = 4096;

class StatsState {
 public:
  void add(std::int64_t x);
  void add(double x);  // NaN is skipped like NULL (SQLite stores NaN as NULL anyway)
  // Throws std::overflow_error when a total overflows (2^64 values; only hostile states get there).
  void merge(const StatsState& other);

  std::uint64_t count() const noexcept { return count_; }
  // INTEGER when every value was one (throws std::overflow_error "integer overflow ..." when the
  // exact sum does not fit in int64, as SQLite's sum() does), REAL otherwise; nullopt for no value.
  std::optional<Number> sum() const;
  // The smallest / largest value with its SQL type; of equal values an INTEGER wins over a REAL,
  // and -0.0 over 0.0 for the minimum (0.0 for the maximum), so the answer is the same in any
  // merge order.
  const std::optional<Number>& min() const noexcept { return min_; }
  const std::optional<Number>& max() const noexcept { return max_; }
  std::optional<double> mean() const { return stats::mean(ints_, reals_); }
  std::optional<double> stddev() const { return sample_stddev(ints_, reals_); }
  // percentile(x, p) of the values: exactly while exact_quantiles(), else from the sketch, a REAL.
  std::optional<Number> quantile(double p) const;
  bool exact_quantiles() const noexcept { return !sketched_; }

  std::vector<std::uint8_t> to_blob() const;
  // Throws state_blob::FormatError for anything but a well-formed state of this version.
  static StatsState from_blob(std::span<const std::uint8_t> blob);

 private:
  void track_extremes(Number x);
  void switch_to_sketch();
  // The j-th smallest value (0-based) as the sketch answers it.
  double sketched_rank(std::uint64_t j) const;

  std::uint64_t count_ = 0;
  IntegerMoments ints_;
  RealMoments reals_;
  std::optional<Number> min_, max_;
  bool sketched_ = false;
  QuantileValues exact_;   // while !sketched_
  QuantileSketch sketch_;  // finite values once sketched_ (infinities are counted in reals_)
};

// -1, 0, 1 as a < b, a == b, a > b, comparing int64 and double exactly (neither is NaN).
int compare(Number a, Number b);

}  // namespace rocpd::stats
