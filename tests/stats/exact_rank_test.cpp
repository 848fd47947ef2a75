// Exact rank arithmetic of percentile(): BigUint against native 128-bit arithmetic, rounding
// against glibc's strtod (correctly rounded) on the exact decimal expansion, interpolation
// against values worked out by hand. The SQL-level brute force against Python's Fraction is
// tests/stats/percentile_exact_test.py.
#include "stats/exact_rank.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>

using rocpd::stats::BigUint;
using rocpd::stats::interpolate;
using rocpd::stats::nearest_double;
using rocpd::stats::rank_of;

namespace {
using U128 = unsigned __int128;

std::string decimal(U128 v) {
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  return s;
}

// n / (100 * 2^shift) = n * 5^shift / 10^(shift + 2): a finite decimal, read by strtod.
double strtod_of(std::uint64_t n, unsigned shift) {
  U128 scaled = n;
  for (unsigned i = 0; i < shift; ++i) scaled *= 5;
  std::string digits = decimal(scaled);
  const std::size_t point = shift + 2;
  if (digits.size() <= point) digits.insert(0, point - digits.size() + 1, '0');
  digits.insert(digits.size() - point, ".");
  return std::strtod(digits.c_str(), nullptr);
}

constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
}  // namespace

TEST(BigUint, MatchesNativeArithmetic) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    const U128 a = (static_cast<U128>(rng() >> (rng() % 64)) << 40) | rng() % 1000;
    const std::uint64_t m = rng() >> (rng() % 64);
    const unsigned s = static_cast<unsigned>(rng() % 20);
    BigUint x(a);
    x *= m % (1u << 20);
    ASSERT_TRUE(x.to_u128() == a * (m % (1u << 20)));
    BigUint y(a);
    y <<= s;
    ASSERT_TRUE(y.to_u128() == a << s);
    const bool lost = y.shift_right(s + 3);
    ASSERT_TRUE(y.to_u128() == (a >> 3));
    ASSERT_EQ(lost, (a & 7) != 0);
    BigUint z(a);
    const std::uint32_t divisor = 1 + static_cast<std::uint32_t>(rng() % 1000);
    ASSERT_EQ(z.divide(divisor), static_cast<std::uint32_t>(a % divisor));
    ASSERT_TRUE(z.to_u128() == a / divisor);
    BigUint sum(a);
    sum += BigUint(m);
    sum -= BigUint(a);
    ASSERT_TRUE(sum.to_u128() == m);
    ASSERT_EQ(BigUint(a) <=> BigUint(m), a <=> static_cast<U128>(m));
  }
  BigUint wide(1);
  wide <<= 1200;
  EXPECT_EQ(wide.bit_length(), 1201u);
  EXPECT_TRUE(wide.low_bits_zero(1200));
  EXPECT_FALSE(wide.low_bits_zero(1201));
}

TEST(ExactRank, NearestDoubleMatchesStrtod) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 50000; ++i) {
    const std::uint64_t n = rng() >> (rng() % 64);
    const unsigned shift = static_cast<unsigned>(rng() % 27);  // n * 5^shift fits in 128 bits
    ASSERT_EQ(nearest_double(BigUint(n), shift, false), strtod_of(n, shift)) << n << " " << shift;
  }
  // Ties: 0.5 ulp above 2^53 rounds to even.
  EXPECT_EQ(nearest_double(BigUint((U128{1} << 53) * 100 + 50), 0, false), 9007199254740992.0);
  EXPECT_EQ(nearest_double(BigUint((U128{1} << 53) * 100 + 150), 0, false), 9007199254740994.0);
  // Down to the subnormals: 1 / (100 * 2^1074) is below half the smallest subnormal.
  EXPECT_EQ(nearest_double(BigUint(1), 1074, false), 0.0);
  EXPECT_EQ(nearest_double(BigUint(100), 1074, false), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(nearest_double(BigUint(150), 1074, true), -2 * std::numeric_limits<double>::denorm_min());
}

TEST(ExactRank, RankOfIsExact) {
  // p = 90 over 4 values: h = 2.7 exactly, not the double 2.7000000000000002.
  auto r = rank_of(4, 90);
  EXPECT_EQ(r.lower, 2u);
  EXPECT_EQ(r.shift, 0u);
  EXPECT_TRUE(r.numerator == BigUint(70));  // 0.7 = 70 / 100
  EXPECT_TRUE(rank_of(11, 10).whole());
  EXPECT_EQ(rank_of(11, 10).lower, 1u);
  EXPECT_EQ(rank_of(5, 100).lower, 4u);
  EXPECT_TRUE(rank_of(5, 100).whole());
  EXPECT_TRUE(rank_of(1, 37.5).whole());
  // p = 1e-300: not zero.
  EXPECT_FALSE(rank_of(2, 1e-300).whole());
  EXPECT_EQ(rank_of(2, 1e-300).lower, 0u);
}

TEST(ExactRank, InterpolationIsExactAndTyped) {
  using V = std::variant<std::int64_t, double>;
  // [INT64_MIN, INT64_MAX] at 75 %: -2^63 + 0.75 * (2^64 - 1) = 2^62 - 0.75, a REAL.
  EXPECT_EQ(interpolate(kMin, kMax, rank_of(2, 75)), V(4611686018427387904.0));
  // At 50 %: -0.5.
  EXPECT_EQ(interpolate(kMin, kMax, rank_of(2, 50)), V(-0.5));
  // Whole results stay INTEGER: 2^62 + 0.5 * 2 = 2^62 + 1.
  EXPECT_EQ(interpolate(std::int64_t{1} << 62, (std::int64_t{1} << 62) + 2, rank_of(2, 50)),
            V((std::int64_t{1} << 62) + 1));
  // A gap of 2^60 at p = 90 over 4 values: 0.7 * 2^60 = 807045053224792883.2, exactly, then rounded
  // (a double fraction 0.7000000000000002 gives ...883.4 + 160 ns of error).
  const std::int64_t lo = 1000;
  const std::int64_t hi = lo + (std::int64_t{1} << 60);
  EXPECT_EQ(interpolate(lo, hi, rank_of(4, 90)), V(807045053224793883.2));
  // 10 % of a gap of 10 over 11 values is whole: INTEGER.
  EXPECT_EQ(interpolate(0, 10, rank_of(2, 10)), V(std::int64_t{1}));
  // Negative values: -3 + 0.5 * 1 = -2.5.
  EXPECT_EQ(interpolate(-3, -2, rank_of(2, 50)), V(-2.5));
  // The tiniest p: 5e-324 / 100 of a gap of 1 rounds to +0.0.
  const V tiny = interpolate(0, 1, rank_of(2, 5e-324));
  ASSERT_TRUE(std::holds_alternative<double>(tiny));
  EXPECT_EQ(std::get<double>(tiny), 0.0);
  EXPECT_FALSE(std::signbit(std::get<double>(tiny)));
}
