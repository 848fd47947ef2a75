// Exact rank arithmetic of percentile(): the position h = (n - 1) * p / 100 and the interpolation
// x[k] + frac * (x[k+1] - x[k]) computed without rounding. p is a double, hence an exact binary
// fraction; frac is then a fraction with denominator 100 * 2^shift. In doubles, a gap of 2^60
// between neighbours times a fraction off by one ulp is off by hundreds of ns. No SQLite here.
#pragma once
#include <cstddef>
#include <cstdint>
#include <variant>

#include "stats/big_uint.h"

namespace rocpd::stats {

// h = (n - 1) * p / 100 split into floor(h) = lower and h - lower = numerator / (100 * 2^shift).
struct Rank {
  std::size_t lower = 0;
  BigUint numerator;  // zero when h is whole
  unsigned shift = 0;

  bool whole() const noexcept { return numerator.is_zero(); }
  // h - lower as the nearest double.
  double fraction() const;
};

// The rank of the p-th percentile (p finite, in [0, 100]) among n >= 1 values.
Rank rank_of(std::size_t n, double p);

// lo + frac * (hi - lo) for lo <= hi and frac of `rank`, exactly: an int64 when that is a whole
// number, else the nearest double (ties to even).
std::variant<std::int64_t, double> interpolate(std::int64_t lo, std::int64_t hi, const Rank& rank);

// numerator / (100 * 2^shift) rounded to the nearest double (ties to even, subnormals included),
// negated when `negative`.
double nearest_double(BigUint numerator, unsigned shift, bool negative);

}  // namespace rocpd::stats
