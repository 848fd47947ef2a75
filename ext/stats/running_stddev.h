// Sample standard deviation by Welford's online update (numerically stable in one pass, unlike
// sqrt((sum(x^2) - sum(x)^2/n) / (n-1)), which cancels catastrophically for large, close values
// such as nanosecond timestamps). No SQLite here, so it is unit-tested directly.
#pragma once
#include <cmath>
#include <cstdint>
#include <optional>

namespace rocpd::stats {

class RunningStddev {
 public:
  void add(long double x) {
    if (n_ == 0) shift_ = x;
    x -= shift_;
    ++n_;
    const long double delta = x - mean_;
    mean_ += delta / static_cast<long double>(n_);
    m2_ += delta * (x - mean_);
  }
  // Inverse update for sliding window frames: undoes add(x) for a value previously added.
  void remove(long double x) {
    if (n_ <= 1) {
      *this = RunningStddev{};
      return;
    }
    x -= shift_;
    --n_;
    const long double delta = x - mean_;
    mean_ -= delta / static_cast<long double>(n_);
    m2_ -= delta * (x - mean_);
    if (m2_ < 0) m2_ = 0;  // rounding can leave a tiny negative remainder
  }
  std::int64_t count() const { return n_; }
  // Sample standard deviation (divisor n - 1); nullopt for fewer than two values.
  std::optional<double> sample_stddev() const {
    if (n_ < 2) return std::nullopt;
    return static_cast<double>(std::sqrt(m2_ / static_cast<long double>(n_ - 1)));
  }

 private:
  std::int64_t n_ = 0;
  long double mean_ = 0;
  long double m2_ = 0;  // sum of squared deviations from the running mean
  // Values are taken relative to the first one: for nanosecond timestamps (~1.7e18) the mean would
  // otherwise be held with a resolution of 1/8 ns and deviations of a few ns lose their digits.
  // long double holds every int64 exactly (64-bit mantissa on x86-64), so the shift is exact.
  long double shift_ = 0;
};

}  // namespace rocpd::stats
