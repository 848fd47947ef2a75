// StatsState against brute force: quantiles bit for bit those of percentile_select() up to the
// threshold and within the documented bound beyond it; a merge of parts equals the state of all
// values (the same bytes for integer data, whatever the grouping and order); exact integer sums
// with overflow reported on read; moments, extremes and their types; infinities.
#include "stats/stats_state.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "stats/exact_rank.h"
#include "stats/running_stddev.h"

using rocpd::stats::kExactQuantileLimit;
using rocpd::stats::kSketchAlpha;
using rocpd::stats::Number;
using rocpd::stats::QuantileValues;
using rocpd::stats::StatsState;

namespace {

constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
const double kPs[] = {0, 0.1, 1, 5, 10, 25, 33.3, 50, 66.7, 75, 90, 95, 99, 99.9, 100};

// Same SQL type and the same bits (so -0.0 differs from 0.0).
bool identical(const std::optional<Number>& a, const std::optional<Number>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  if (a->index() != b->index()) return false;
  if (auto* i = std::get_if<std::int64_t>(&*a)) return *i == std::get<std::int64_t>(*b);
  return std::bit_cast<std::uint64_t>(std::get<double>(*a)) == std::bit_cast<std::uint64_t>(std::get<double>(*b));
}

double as_double(Number n) { return std::visit([](auto v) { return static_cast<double>(v); }, n); }

// The documented bound of a sketch answer: alpha * ((1 - f)|x_k| + f|x_k+1|) on the sorted values.
double sketch_bound(const std::vector<double>& sorted, double p) {
  const auto rank = rocpd::stats::rank_of(sorted.size(), p);
  const double f = rank.fraction();
  const double lo = std::fabs(sorted[rank.lower]);
  const double hi = rank.whole() ? lo : std::fabs(sorted[rank.lower + 1]);
  return kSketchAlpha * ((1 - f) * lo + f * hi);
}

template <class T>
StatsState state_of(const std::vector<T>& v) {
  StatsState s;
  for (T x : v) s.add(x);
  return s;
}

// The values split into `parts` random groups, each made a state, merged in a shuffled order.
template <class T>
StatsState merged_in_parts(const std::vector<T>& v, std::size_t parts, std::mt19937_64& rng) {
  std::vector<StatsState> states(parts);
  for (T x : v) states[rng() % parts].add(x);
  std::shuffle(states.begin(), states.end(), rng);
  // Pairwise rounds, as a distributed reduction would: ((a+b)+(c+d))+...
  while (states.size() > 1) {
    std::vector<StatsState> next;
    for (std::size_t i = 0; i + 1 < states.size(); i += 2) {
      next.push_back(states[i]);
      next.back().merge(states[i + 1]);
    }
    if (states.size() % 2) next.push_back(states.back());
    states = std::move(next);
  }
  return states.front();
}

TEST(StatsState, ExactQuantilesAreThoseOfPercentileBitForBit) {
  std::mt19937_64 rng(11);
  for (std::size_t n : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{100}, kExactQuantileLimit}) {
    std::vector<std::int64_t> ints(n);
    for (auto& x : ints) x = static_cast<std::int64_t>(rng() % 2000001) - 1000000;
    std::vector<double> reals(n);
    for (auto& x : reals) x = std::lognormal_distribution<double>(3, 2)(rng) * (rng() % 4 == 0 ? -1 : 1);
    auto a = state_of(ints);
    auto b = state_of(reals);
    ASSERT_TRUE(a.exact_quantiles() && b.exact_quantiles());
    std::vector<double> ps(std::begin(kPs), std::end(kPs));
    for (int i = 0; i < 20; ++i) ps.push_back(std::uniform_real_distribution<double>(0, 100)(rng));
    for (double p : ps) {
      QuantileValues qi, qr;
      for (auto x : ints) qi.add(x);
      for (auto x : reals) qr.add(x);
      ASSERT_TRUE(identical(a.quantile(p), qi.percentile(p))) << n << " " << p;
      ASSERT_TRUE(identical(b.quantile(p), qr.percentile(p))) << n << " " << p;
      // And after a trip through the BLOB form.
      ASSERT_TRUE(identical(StatsState::from_blob(a.to_blob()).quantile(p), qi.percentile(p)));
      ASSERT_TRUE(identical(StatsState::from_blob(b.to_blob()).quantile(p), qr.percentile(p)));
    }
  }
}

TEST(StatsState, SwitchesToTheSketchPastTheThreshold) {
  StatsState s;
  for (std::size_t i = 0; i < kExactQuantileLimit; ++i) s.add(static_cast<std::int64_t>(i));
  EXPECT_TRUE(s.exact_quantiles());
  EXPECT_TRUE(identical(s.quantile(50), Number{2047.5}));
  s.add(std::int64_t{5000});
  EXPECT_FALSE(s.exact_quantiles());
  EXPECT_EQ(s.count(), kExactQuantileLimit + 1);
  const auto median = as_double(*s.quantile(50));
  EXPECT_NEAR(median, 2048, 2048 * kSketchAlpha);
  EXPECT_TRUE(identical(s.quantile(0), Number{0.0}));     // the minimum, exact (as a REAL)
  EXPECT_TRUE(identical(s.quantile(100), Number{5000.0}));
}

TEST(StatsState, SketchQuantilesWithinTheDocumentedBound) {
  struct Case {
    const char* name;
    std::function<double(std::mt19937_64&)> draw;
    bool integer;
  };
  const Case cases[] = {
      {"durations ns", [](auto& r) { return std::round(std::lognormal_distribution<double>(9, 2.5)(r)); }, true},
      {"pareto", [](auto& r) { return 10 / std::pow(std::uniform_real_distribution<double>(0, 1)(r), 1.0); }, false},
      {"signed", [](auto& r) { return std::cauchy_distribution<double>(0, 100)(r); }, false},
      {"zeros", [](auto& r) { return r() % 2 ? 0.0 : std::exponential_distribution<double>(1)(r); }, false},
      {"tiny", [](auto& r) { return 1e-300 * std::uniform_real_distribution<double>(1, 1e6)(r); }, false},
      {"huge", [](auto& r) { return -1e300 * std::uniform_real_distribution<double>(1, 1e6)(r); }, false},
      {"timestamps", [](auto& r) { return 1.7e18 + static_cast<double>(r() % 100000000); }, true},
  };
  for (const auto& c : cases) {
    std::mt19937_64 rng(5);
    std::vector<double> v(60000);
    for (auto& x : v) x = c.draw(rng);
    StatsState s;
    for (double x : v) c.integer ? s.add(static_cast<std::int64_t>(x)) : s.add(x);
    ASSERT_FALSE(s.exact_quantiles());
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    double worst = 0;
    QuantileValues exact;
    for (double x : v) exact.add(x);
    for (int i = 0; i <= 1000; ++i) {
      const double p = i / 10.0;
      const double want = as_double(*exact.percentile(p));
      const double got = as_double(*s.quantile(p));
      ASSERT_LE(std::fabs(got - want), sketch_bound(sorted, p) * (1 + 1e-9)) << c.name << " p" << p;
      if (want != 0) worst = std::max(worst, std::fabs(got - want) / std::fabs(want));
    }
    std::printf("%-12s worst relative error of p0..p100 (step 0.1): %.4f%%\n", c.name, 100 * worst);
  }
}

TEST(StatsState, MergedPartsAreTheWholeByteForByteForIntegers) {
  std::mt19937_64 rng(21);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{3000}, std::size_t{8000}, std::size_t{70000}}) {
    std::vector<std::int64_t> v(n);
    for (auto& x : v)
      x = rng() % 50 == 0 ? static_cast<std::int64_t>(rng()) : static_cast<std::int64_t>(rng() % 1000000);
    const auto whole = state_of(v).to_blob();
    for (std::size_t parts : {1, 2, 3, 17}) {
      ASSERT_EQ(merged_in_parts(v, parts, rng).to_blob(), whole) << n << " values in " << parts << " parts";
    }
  }
}

TEST(StatsState, ExactAndSketchStatesMergeInEveryCombination) {
  std::mt19937_64 rng(8);
  std::vector<std::int64_t> small(3000), big(9000);
  for (auto& x : small) x = static_cast<std::int64_t>(rng() % 100000);
  for (auto& x : big) x = static_cast<std::int64_t>(rng() % 100000);
  auto all = small;
  all.insert(all.end(), big.begin(), big.end());
  const auto whole = state_of(all).to_blob();
  const StatsState a = state_of(small), b = state_of(big);
  StatsState ab = a, ba = b, aa = a;
  ab.merge(b);  // exact + sketch
  ba.merge(a);  // sketch + exact
  EXPECT_EQ(ab.to_blob(), whole);
  EXPECT_EQ(ba.to_blob(), whole);
  aa.merge(a);  // exact + exact past the threshold
  EXPECT_FALSE(aa.exact_quantiles());
  auto twice = small;
  twice.insert(twice.end(), small.begin(), small.end());
  EXPECT_EQ(aa.to_blob(), state_of(twice).to_blob());
}

TEST(StatsState, MergedPartsOfRealsAgreeWithTheWhole) {
  std::mt19937_64 rng(4);
  for (std::size_t n : {std::size_t{2000}, std::size_t{20000}}) {
    std::vector<double> v(n);
    for (auto& x : v) x = std::normal_distribution<double>(1e6, 1e3)(rng);
    StatsState whole = state_of(v);
    StatsState merged = merged_in_parts(v, 7, rng);
    EXPECT_EQ(merged.count(), whole.count());
    EXPECT_TRUE(identical(merged.min(), whole.min()));
    EXPECT_TRUE(identical(merged.max(), whole.max()));
    EXPECT_NEAR(as_double(*merged.sum()), as_double(*whole.sum()), 1e-15 * std::fabs(as_double(*whole.sum())));
    EXPECT_NEAR(*merged.mean(), *whole.mean(), 1e-15 * *whole.mean());
    EXPECT_NEAR(*merged.stddev(), *whole.stddev(), 1e-12 * *whole.stddev());
    for (double p : kPs) EXPECT_TRUE(identical(merged.quantile(p), whole.quantile(p))) << p;
    // Against a long double reference.
    long double sum = 0;
    for (double x : v) sum += x;
    EXPECT_NEAR(as_double(*whole.sum()), static_cast<double>(sum), 1e-13 * std::fabs(static_cast<double>(sum)));
  }
}

TEST(StatsState, IntegerSumIsExactAndOverflowIsReportedOnRead) {
  StatsState s;
  s.add(kI64Max);
  s.add(kI64Max);
  EXPECT_EQ(s.count(), 2u);
  try {
    s.sum();
    FAIL() << "no overflow";
  } catch (const std::overflow_error& e) {
    EXPECT_STREQ(e.what(),
                 "integer overflow: the sum 18446744073709551614 does not fit in a 64-bit integer ('mean' still "
                 "answers)");
  }
  EXPECT_EQ(*s.mean(), 9223372036854775807.0);
  s.add(-kI64Max);  // back in range: the exact sum never wrapped
  EXPECT_TRUE(identical(s.sum(), Number{kI64Max}));
  s.add(1.5);
  EXPECT_TRUE(identical(s.sum(), Number{9223372036854775808.5}));  // REAL once a REAL came
}

TEST(StatsState, StddevOfCloseTimestampsKeepsItsDigits) {
  const std::int64_t base = 1'700'000'000'000'000'000;
  StatsState s, a, b;
  rocpd::stats::RunningStddev reference;
  for (std::int64_t i = 0; i < 10; ++i) {
    s.add(base + i);
    (i % 2 ? a : b).add(base + i);
    reference.add(static_cast<long double>(base + i));
  }
  a.merge(b);
  EXPECT_DOUBLE_EQ(*s.stddev(), std::sqrt(55.0 / 6.0));  // the variance of 0..9 is 82.5 / 9
  EXPECT_DOUBLE_EQ(*s.stddev(), *reference.sample_stddev());
  EXPECT_EQ(*a.stddev(), *s.stddev());
  EXPECT_DOUBLE_EQ(*s.mean(), static_cast<double>(base) + 4.5);
}

TEST(StatsState, MixedIntegersAndRealsAgreeWithBruteForce) {
  std::mt19937_64 rng(12);
  StatsState s;
  std::vector<long double> all;
  for (int i = 0; i < 5000; ++i) {
    if (rng() % 2) {
      const auto x = static_cast<std::int64_t>(rng() % 1000);
      s.add(x);
      all.push_back(x);
    } else {
      const double x = std::uniform_real_distribution<double>(-10, 2000)(rng);
      s.add(x);
      all.push_back(x);
    }
  }
  long double sum = 0;
  for (auto x : all) sum += x;
  const long double mean = sum / all.size();
  long double m2 = 0;
  for (auto x : all) m2 += (x - mean) * (x - mean);
  const double sd = static_cast<double>(std::sqrt(m2 / (all.size() - 1)));
  EXPECT_NEAR(as_double(*s.sum()), static_cast<double>(sum), 1e-15 * static_cast<double>(sum));
  EXPECT_NEAR(*s.mean(), static_cast<double>(mean), 1e-14 * static_cast<double>(mean));
  EXPECT_NEAR(*s.stddev(), sd, 1e-13 * sd);
  const auto back = StatsState::from_blob(s.to_blob());
  EXPECT_NEAR(*back.stddev(), sd, 1e-13 * sd);
  EXPECT_EQ(back.count(), s.count());
}

TEST(StatsState, ExtremesKeepTheirTypeInAnyOrder) {
  StatsState a, b;
  a.add(1.0);
  a.add(std::int64_t{1});
  b.add(std::int64_t{1});
  b.add(1.0);
  for (const auto* s : {&a, &b}) {
    EXPECT_TRUE(identical(s->min(), Number{std::int64_t{1}}));
    EXPECT_TRUE(identical(s->max(), Number{std::int64_t{1}}));
  }
  StatsState z1, z2;
  z1.add(0.0);
  z1.add(-0.0);
  z2.add(-0.0);
  z2.add(0.0);
  for (const auto* s : {&z1, &z2}) {
    EXPECT_TRUE(identical(s->min(), Number{-0.0}));
    EXPECT_TRUE(identical(s->max(), Number{0.0}));
  }
  StatsState big;  // int64 against a double that rounds to 2^63
  big.add(kI64Max);
  big.add(9223372036854775808.0);
  EXPECT_TRUE(identical(big.max(), Number{9223372036854775808.0}));
  EXPECT_TRUE(identical(big.min(), Number{kI64Max}));
}

TEST(StatsState, InfinitiesAsStddevAndPercentileTreatThem) {
  const double inf = std::numeric_limits<double>::infinity();
  StatsState s;
  s.add(std::int64_t{1});
  s.add(inf);
  EXPECT_TRUE(identical(s.sum(), Number{inf}));
  EXPECT_EQ(*s.mean(), inf);
  EXPECT_FALSE(s.stddev());
  EXPECT_TRUE(identical(s.quantile(50), Number{inf}));
  EXPECT_TRUE(identical(s.max(), Number{inf}));
  s.add(-inf);
  EXPECT_FALSE(s.sum());
  EXPECT_FALSE(s.mean());
  StatsState both;
  both.add(-inf);
  both.add(inf);
  EXPECT_FALSE(both.quantile(50));  // -inf + 0.5 * (inf - -inf) is NaN: NULL
  // The same in the sketch.
  for (int i = 0; i < 5000; ++i) both.add(static_cast<std::int64_t>(i));
  ASSERT_FALSE(both.exact_quantiles());
  EXPECT_TRUE(identical(both.quantile(0), Number{-inf}));
  EXPECT_TRUE(identical(both.quantile(100), Number{inf}));
  EXPECT_NEAR(as_double(*both.quantile(50)), 2499, 2499 * kSketchAlpha);
}

TEST(StatsState, HugeRealsOverflowLikeStddev) {
  StatsState s;
  s.add(1.5e308);
  s.add(-1.5e308);
  EXPECT_EQ(*s.stddev(), std::numeric_limits<double>::infinity());
  EXPECT_EQ(*s.mean(), 0.0);
  StatsState back = StatsState::from_blob(s.to_blob());
  EXPECT_EQ(*back.stddev(), std::numeric_limits<double>::infinity());
  // Values whose squared deviations overflow a double still round-trip their spread.
  StatsState wide;
  for (double x : {1e200, -1e200, 3e200, 2.5e200}) wide.add(x);
  const double sd = *wide.stddev();
  EXPECT_NEAR(sd, 1.796988221070652e200, 1e-14 * sd);
  EXPECT_NEAR(*StatsState::from_blob(wide.to_blob()).stddev(), sd, 1e-14 * sd);
}

TEST(StatsState, EmptyStateAnswersNothing) {
  const StatsState s = StatsState::from_blob(StatsState{}.to_blob());
  EXPECT_EQ(s.count(), 0u);
  EXPECT_FALSE(s.sum());
  EXPECT_FALSE(s.min());
  EXPECT_FALSE(s.mean());
  EXPECT_FALSE(s.stddev());
  EXPECT_FALSE(s.quantile(50));
  EXPECT_EQ(StatsState{}.to_blob().size(), 128u);
}

}  // namespace
