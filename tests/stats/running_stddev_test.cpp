// stddev's Welford update against an exact two-pass computation.
#include "stats/running_stddev.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

using rocpd::stats::RunningStddev;

namespace {

// Exact enough as a reference: values are shifted by the first one before summing, so sums of
// 1000 values near 1.7e18 do not exceed the 64-bit mantissa.
long double two_pass(const std::vector<long double>& v) {
  long double mean = 0;
  for (auto x : v) mean += x - v[0];
  mean /= static_cast<long double>(v.size());
  long double ss = 0;
  for (auto x : v) ss += (x - v[0] - mean) * (x - v[0] - mean);
  return std::sqrt(ss / static_cast<long double>(v.size() - 1));
}

TEST(RunningStddev, FewerThanTwoValuesIsNull) {
  RunningStddev s;
  EXPECT_FALSE(s.sample_stddev().has_value());
  s.add(5);
  EXPECT_FALSE(s.sample_stddev().has_value());
  s.add(7);
  EXPECT_DOUBLE_EQ(*s.sample_stddev(), std::sqrt(2.0));
  s.add(7);
  s.add(7);
  EXPECT_EQ(s.count(), 4);
}

TEST(RunningStddev, MatchesTwoPassOnRandomData) {
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 100; ++trial) {
    std::uniform_real_distribution<double> dist(-1e6, 1e6);
    std::vector<long double> v(2 + rng() % 1000);
    RunningStddev s;
    for (auto& x : v) {
      x = dist(rng);
      s.add(x);
    }
    const double want = static_cast<double>(two_pass(v));
    ASSERT_NEAR(*s.sample_stddev(), want, want * 1e-12);
  }
}

// Nanosecond timestamps near 1.7e18 with a spread of a few ns: the textbook
// sum-of-squares formula loses every digit here; Welford keeps them.
TEST(RunningStddev, LargeOffsetSmallSpread) {
  const long double base = 1.7e18L;
  std::vector<long double> v;
  RunningStddev s;
  double naive_sum = 0, naive_sq = 0;
  for (int i = 0; i < 1000; ++i) {
    const long double x = base + (i % 7);
    v.push_back(x);
    s.add(x);
    naive_sum += static_cast<double>(x);
    naive_sq += static_cast<double>(x) * static_cast<double>(x);
  }
  const double want = static_cast<double>(two_pass(v));
  EXPECT_NEAR(*s.sample_stddev(), want, 1e-9);
  const double naive = std::sqrt(std::fabs((naive_sq - naive_sum * naive_sum / 1000) / 999));
  EXPECT_GT(std::fabs(naive - want), 1.0) << "the naive formula should be visibly wrong here";
}

TEST(RunningStddev, RemoveMatchesSlidingWindow) {
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<std::int64_t> dist(1000, 5000000);
  RunningStddev s;
  std::vector<long double> window;
  for (int i = 0; i < 5000; ++i) {
    const long double x = static_cast<long double>(dist(rng));
    s.add(x);
    window.push_back(x);
    if (window.size() > 25) {
      s.remove(window.front());
      window.erase(window.begin());
    }
    if (window.size() >= 2) {
      const double want = static_cast<double>(two_pass(window));
      ASSERT_NEAR(*s.sample_stddev(), want, want * 1e-9 + 1e-9) << "step " << i;
    }
  }
  for (auto x : window) s.remove(x);
  EXPECT_EQ(s.count(), 0);
  EXPECT_FALSE(s.sample_stddev().has_value());
}

}  // namespace
