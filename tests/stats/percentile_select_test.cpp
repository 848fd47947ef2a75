// median/percentile selection against a brute-force sort, on random data with many ties.
#include "stats/percentile_select.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using rocpd::stats::Number;
using rocpd::stats::percentile_select;
using rocpd::stats::QuantileValues;

namespace {

// The documented definition, computed on a full sort in long double: (n - 1) * p is exact in its
// 64-bit mantissa for these sizes, so h is off by at most one long double rounding.
template <class T>
long double reference(std::vector<T> v, double p) {
  std::sort(v.begin(), v.end());
  const long double h = static_cast<long double>(v.size() - 1) * static_cast<long double>(p) / 100.0L;
  const auto k = static_cast<std::size_t>(std::floor(h));
  if (k + 1 >= v.size()) return v.back();
  const long double f = h - static_cast<long double>(k);
  return static_cast<long double>(v[k]) + f * (static_cast<long double>(v[k + 1]) - static_cast<long double>(v[k]));
}

long double as_long_double(Number n) {
  return std::visit([](auto x) { return static_cast<long double>(x); }, n);
}

const double kPs[] = {0, 1, 5, 10, 25, 33.3, 50, 66.7, 75, 90, 95, 99, 99.9, 100};

TEST(PercentileSelect, IntegersMatchSortWithTies) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + rng() % 200;
    const std::int64_t range = trial % 3 == 0 ? 5 : 1000000;  // few distinct values: many ties
    std::vector<std::int64_t> v(n);
    for (auto& x : v) x = static_cast<std::int64_t>(rng() % range) - range / 2;
    for (double p : kPs) {
      auto copy = v;
      const long double want = reference(v, p);
      const Number got = percentile_select(copy, p);
      ASSERT_NEAR(static_cast<double>(as_long_double(got)), static_cast<double>(want), 1e-6)
          << "n=" << n << " p=" << p;
      // An integral result of integer input is exact and INTEGER-typed.
      if (want == std::floor(want)) {
        ASSERT_TRUE(std::holds_alternative<std::int64_t>(got)) << "p=" << p;
      }
      std::sort(copy.begin(), copy.end());
      auto sorted = v;
      std::sort(sorted.begin(), sorted.end());
      ASSERT_EQ(copy, sorted) << "selection must only reorder";
    }
  }
}

TEST(PercentileSelect, SortedValuesReadAtTheSameRanks) {
  // percentile_of_sorted (the pushdown's rocpd_values_percentile) against the selection, on the
  // same values sorted: the same Number, type included.
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + rng() % 300;
    std::vector<std::int64_t> v(n);
    for (auto& x : v)
      x = trial % 4 == 0 ? static_cast<std::int64_t>(rng())  // the int64 extremes' neighbourhood
                         : static_cast<std::int64_t>(rng() % 1000) - 500;
    std::vector<std::int64_t> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    for (double p : kPs) {
      auto copy = v;
      ASSERT_EQ(rocpd::stats::percentile_of_sorted(sorted.data(), n, p), percentile_select(copy, p))
          << "n=" << n << " p=" << p;
    }
  }
}

TEST(PercentileSelect, RealsMatchSort) {
  std::mt19937_64 rng(2);
  std::normal_distribution<double> dist(1e6, 3e5);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = 1 + rng() % 300;
    std::vector<double> v(n);
    for (auto& x : v) x = trial % 2 ? std::round(dist(rng) / 1000) : dist(rng);
    for (double p : kPs) {
      auto copy = v;
      ASSERT_DOUBLE_EQ(percentile_select(copy, p), static_cast<double>(reference(v, p))) << "n=" << n << " p=" << p;
    }
  }
}

TEST(PercentileSelect, MedianOddAndEven) {
  std::vector<std::int64_t> odd{5, 1, 3};
  EXPECT_EQ(std::get<std::int64_t>(percentile_select(odd, 50)), 3);
  std::vector<std::int64_t> even{4, 1, 3, 2};
  EXPECT_EQ(std::get<double>(percentile_select(even, 50)), 2.5);
  std::vector<std::int64_t> even_integral{1, 3};
  EXPECT_EQ(std::get<std::int64_t>(percentile_select(even_integral, 50)), 2);
  std::vector<std::int64_t> one{42};
  EXPECT_EQ(std::get<std::int64_t>(percentile_select(one, 0)), 42);
  EXPECT_EQ(std::get<std::int64_t>(percentile_select(one, 100)), 42);
}

TEST(PercentileSelect, Int64ExtremesStayExact) {
  constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> v{kMax, kMax - 2};
  EXPECT_EQ(std::get<std::int64_t>(percentile_select(v, 50)), kMax - 1);  // a double would round to 2^63
  std::vector<std::int64_t> span{kMin, kMax};
  EXPECT_EQ(std::get<double>(percentile_select(span, 50)), -0.5);
  std::vector<std::int64_t> span2{kMin + 1, kMax};
  EXPECT_EQ(std::get<std::int64_t>(percentile_select(span2, 50)), 0);
  std::vector<std::int64_t> top{kMin, kMax};
  EXPECT_EQ(std::get<std::int64_t>(percentile_select(top, 100)), kMax);
  EXPECT_EQ(std::get<std::int64_t>(percentile_select(top, 0)), kMin);
}

TEST(PercentileSelect, Infinities) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v{inf, inf, 1};
  EXPECT_EQ(percentile_select(v, 75), inf);  // equal neighbours: no inf - inf
  std::vector<double> w{-inf, 1, 2};
  EXPECT_EQ(percentile_select(w, 25), -inf);
}

TEST(PercentileSelect, RealGapsThatOverflowADouble) {
  // hi - lo is infinite in doubles although both are finite: the result is still finite.
  std::vector<double> v{-1.5e308, 1.5e308};
  EXPECT_EQ(percentile_select(v, 50), 0.0);
  std::vector<double> w{-1e308, 1.7e308};
  const long double want = -1e308L + 0.75L * (1.7e308L + 1e308L);  // 80-bit: no overflow
  EXPECT_DOUBLE_EQ(percentile_select(w, 75), static_cast<double>(want));
}

TEST(QuantileValues, NaNIsSkippedAndRealsSwitchMode) {
  QuantileValues q;
  EXPECT_FALSE(q.percentile(50).has_value());
  q.add(std::int64_t{1});
  q.add(std::numeric_limits<double>::quiet_NaN());
  q.add(std::int64_t{3});
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(std::get<std::int64_t>(*q.percentile(50)), 2);
  q.add(4.0);
  EXPECT_FALSE(q.all_integers());
  EXPECT_EQ(std::get<double>(*q.percentile(50)), 3.0);
}

TEST(QuantileValues, RemoveForWindowFrames) {
  std::mt19937_64 rng(3);
  QuantileValues q;
  std::vector<std::int64_t> window;
  for (int i = 0; i < 2000; ++i) {
    const auto x = static_cast<std::int64_t>(rng() % 50);
    q.add(x);
    window.push_back(x);
    if (window.size() > 17) {
      ASSERT_TRUE(q.remove(window.front()));
      window.erase(window.begin());
    }
    ASSERT_NEAR(static_cast<double>(as_long_double(*q.percentile(90))), static_cast<double>(reference(window, 90)),
                1e-9);
  }
  EXPECT_FALSE(q.remove(std::int64_t{1000}));
}

}  // namespace
