// The mergeable moments of a stats state (docs/states.md): count, sum and the spread, kept apart
// for INTEGER and REAL inputs. Integers are summed exactly (sum in 128 bits, sum of squares in
// 192 bits), so merging them is exact in any order and the variance n*S2 - S1^2 has no
// cancellation: nanosecond timestamps near 1.7e18 that differ by a few ns keep their digits.
// Finite reals keep a Neumaier-compensated sum and Welford's mean and M2, merged with Chan et
// al.'s formula; infinities are only counted. No SQLite here.
#pragma once
#include <array>
#include <cstdint>
#include <optional>

namespace rocpd::stats {

// Unsigned 192-bit integer, least significant limb first.
using U192 = std::array<std::uint64_t, 3>;

struct IntegerMoments {
  std::uint64_t n = 0;
  __int128 sum = 0;
  U192 sum_sq{};

  void add(std::int64_t x);
  // Throws std::overflow_error when a total leaves its width (only hostile states get there).
  void merge(const IntegerMoments& other);
  // True when n * S2 >= S1^2, as it is for every real set of values (Cauchy-Schwarz).
  bool consistent() const;
  // n * S2 - S1^2 = n * (sum of squared deviations from the mean), as a long double.
  long double scaled_m2() const;
};

struct RealMoments {
  std::uint64_t n = 0;  // finite values
  double sum = 0, compensation = 0;  // Neumaier: the sum is sum + compensation
  // Welford / Chan. long double while a state is built (one pass over a group keeps 11 more bits);
  // a BLOB stores the mean and sqrt(m2 / n) as doubles.
  long double mean = 0, m2 = 0;
  std::uint64_t pos_inf = 0, neg_inf = 0;

  void add(double x);  // any non-NaN value
  void merge(const RealMoments& other);
  // The compensated sum of the finite values (an overflow to +-inf stays there).
  long double finite_sum() const;
};

// Sum, mean and sample standard deviation over both parts. nullopt where SQL gives NULL: no value,
// fewer than two values (stddev), an undefined result (inf - inf, stddev with an infinity).
std::optional<double> real_sum(const IntegerMoments& ints, const RealMoments& reals);
std::optional<double> mean(const IntegerMoments& ints, const RealMoments& reals);
std::optional<double> sample_stddev(const IntegerMoments& ints, const RealMoments& reals);

}  // namespace rocpd::stats
