// The relative-error sketch against brute force: on several distributions (uniform, log-normal and
// Pareto heavy tails, negatives, zeros, magnitudes near 1e-300 and 1e300), every rank's answer is
// within kSketchBucketAlpha of the true value; merging is exact and order-independent, also when
// stores fold; the memory bound holds.
#include "stats/quantile_sketch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using rocpd::stats::BucketStore;
using rocpd::stats::kSketchBucketAlpha;
using rocpd::stats::kSketchMaxBuckets;
using rocpd::stats::QuantileSketch;

namespace {

using Generator = double (*)(std::mt19937_64&);

struct Distribution {
  const char* name;
  Generator draw;
};

const Distribution kDistributions[] = {
    {"uniform", [](std::mt19937_64& r) { return std::uniform_real_distribution<double>(1, 1e6)(r); }},
    {"lognormal", [](std::mt19937_64& r) { return std::lognormal_distribution<double>(10, 3)(r); }},
    {"pareto", [](std::mt19937_64& r) { return 1e3 / std::pow(std::uniform_real_distribution<double>(0, 1)(r), 1 / 1.1); }},
    {"signed", [](std::mt19937_64& r) { return std::normal_distribution<double>(0, 1e4)(r); }},
    {"zeros", [](std::mt19937_64& r) { return r() % 3 == 0 ? 0.0 : std::exponential_distribution<double>(1e-3)(r); }},
    {"integers", [](std::mt19937_64& r) { return static_cast<double>(r() % 1000); }},
    {"tiny", [](std::mt19937_64& r) { return std::lognormal_distribution<double>(-690, 2)(r); }},
    {"huge", [](std::mt19937_64& r) { return -std::lognormal_distribution<double>(690, 2)(r); }},
    {"timestamps", [](std::mt19937_64& r) { return 1.7e18 + static_cast<double>(r() % 1000000); }},
};

QuantileSketch sketch_of(const std::vector<double>& v) {
  QuantileSketch s;
  for (double x : v) s.add(x);
  return s;
}

bool same_buckets(const BucketStore& a, const BucketStore& b) {
  return a.first() == b.first() && std::ranges::equal(a.counts(), b.counts());
}
bool same(const QuantileSketch& a, const QuantileSketch& b) {
  return same_buckets(a.positive(), b.positive()) && same_buckets(a.negative(), b.negative()) && a.zeros() == b.zeros();
}

TEST(QuantileSketch, EveryRankWithinAlphaOnSeveralDistributions) {
  for (const auto& dist : kDistributions) {
    std::mt19937_64 rng(42);
    std::vector<double> v(20000);
    for (auto& x : v) x = dist.draw(rng);
    const QuantileSketch s = sketch_of(v);
    std::sort(v.begin(), v.end());
    ASSERT_EQ(s.count(), v.size());
    double worst = 0;
    for (std::size_t j = 0; j < v.size(); ++j) {
      const double got = s.value_at_rank(j, v.front(), v.back());
      const double error = std::fabs(got - v[j]);
      ASSERT_LE(error, kSketchBucketAlpha * std::fabs(v[j]) * (1 + 1e-12)) << dist.name << " rank " << j;
      if (v[j] != 0) worst = std::max(worst, error / std::fabs(v[j]));
    }
    std::printf("%-10s worst relative error over all ranks %.5f%%\n", dist.name, 100 * worst);
  }
}

TEST(QuantileSketch, ClampedToTheExtremes) {
  const QuantileSketch s = sketch_of({10, 20, 30});
  EXPECT_EQ(s.value_at_rank(0, 10, 30), 10);
  EXPECT_EQ(s.value_at_rank(2, 10, 30), 30);
  EXPECT_NEAR(s.value_at_rank(1, 10, 30), 20, 20 * kSketchBucketAlpha);
}

TEST(QuantileSketch, BucketsAreMonotoneAndRepresentativesClose) {
  double previous = 0;
  std::int32_t previous_index = QuantileSketch::min_index();
  for (double m = std::numeric_limits<double>::min(); m < 1e308; m *= 1.0007) {
    const std::int32_t i = QuantileSketch::index_of(m);
    ASSERT_GE(i, previous_index) << m;
    ASSERT_LE(std::fabs(QuantileSketch::representative(i) - m), kSketchBucketAlpha * m * (1 + 1e-12)) << m;
    previous_index = i;
    previous = m;
  }
  EXPECT_GT(previous, 1e307);
  EXPECT_EQ(QuantileSketch::index_of(std::numeric_limits<double>::max()), QuantileSketch::max_index());
  EXPECT_EQ(QuantileSketch::index_of(std::numeric_limits<double>::denorm_min()), QuantileSketch::min_index());
}

TEST(QuantileSketch, MergeIsExactInAnyOrder) {
  std::mt19937_64 rng(7);
  std::vector<double> v(30000);
  for (auto& x : v) x = kDistributions[rng() % std::size(kDistributions)].draw(rng);
  const QuantileSketch whole = sketch_of(v);
  // Three parts merged as (a + b) + c and c + (b + a).
  std::vector<QuantileSketch> parts(3);
  for (std::size_t i = 0; i < v.size(); ++i) parts[rng() % 3].add(v[i]);
  QuantileSketch left = parts[0];
  left.merge(parts[1]);
  left.merge(parts[2]);
  QuantileSketch right = parts[1];
  right.merge(parts[0]);
  QuantileSketch c = parts[2];
  c.merge(right);
  EXPECT_TRUE(same(left, whole));
  EXPECT_TRUE(same(c, whole));
}

TEST(QuantileSketch, StoresFoldTheirLowestBucketsWithinTheBound) {
  // Magnitudes from 1e-300 to 1e300: ~140000 bucket indices, far beyond one store.
  std::mt19937_64 rng(3);
  std::vector<double> v(50000);
  for (auto& x : v) x = std::pow(10.0, std::uniform_real_distribution<double>(-300, 300)(rng));
  const QuantileSketch whole = sketch_of(v);
  EXPECT_EQ(whole.positive().counts().size(), kSketchMaxBuckets);
  EXPECT_EQ(whole.count(), v.size());
  // The same in sorted, reverse and merged orders.
  auto sorted = v;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_TRUE(same(sketch_of(sorted), whole));
  EXPECT_TRUE(same(sketch_of({sorted.rbegin(), sorted.rend()}), whole));
  QuantileSketch low = sketch_of({sorted.begin(), sorted.begin() + 25000});
  low.merge(sketch_of({sorted.begin() + 25000, sorted.end()}));
  EXPECT_TRUE(same(low, whole));
  // The unfolded top buckets still answer within alpha.
  const std::int32_t kept_from = whole.positive().first() + 1;
  for (std::size_t j = 0; j < sorted.size(); ++j) {
    if (QuantileSketch::index_of(sorted[j]) <= kept_from) continue;
    const double got = whole.value_at_rank(j, sorted.front(), sorted.back());
    ASSERT_LE(std::fabs(got - sorted[j]), kSketchBucketAlpha * sorted[j] * (1 + 1e-12)) << j;
  }
}

TEST(QuantileSketch, EveryInt64MagnitudeFitsWithoutFolding) {
  QuantileSketch s;
  for (double m : {1.0, 9223372036854775807.0, -1.0, -9223372036854775808.0, 2.0, -3.0}) s.add(m);
  EXPECT_EQ(s.positive().counts().front(), 1u);  // 1 kept in its own bucket
  EXPECT_EQ(s.negative().counts().front(), 1u);
  EXPECT_LE(s.positive().counts().size(), kSketchMaxBuckets);
}

TEST(QuantileSketch, AddingFarApartValuesNeverGrowsPastTheBound) {
  BucketStore store;
  store.add(QuantileSketch::min_index(), 1);
  store.add(QuantileSketch::max_index(), 2);
  EXPECT_LE(store.counts().size(), kSketchMaxBuckets);
  EXPECT_EQ(store.total(), 3u);
  store.add(QuantileSketch::min_index(), 4);  // below the kept range: joins the lowest kept bucket
  EXPECT_EQ(store.counts().front(), 5u);
  EXPECT_EQ(store.total(), 7u);
}

TEST(QuantileSketch, StoreFromBlobFieldsIsChecked) {
  EXPECT_THROW(BucketStore(0, std::vector<std::uint64_t>(kSketchMaxBuckets + 1, 1)), std::invalid_argument);
  EXPECT_THROW(BucketStore(QuantileSketch::max_index(), {1, 1}), std::invalid_argument);
  EXPECT_THROW(BucketStore(QuantileSketch::min_index() - 1, {1}), std::invalid_argument);
  const BucketStore trimmed(5, {0, 0, 3, 0, 4, 0});
  EXPECT_EQ(trimmed.first(), 7);
  EXPECT_EQ(trimmed.counts().size(), 3u);
  EXPECT_EQ(BucketStore(5, {0, 0}).counts().size(), 0u);
}

TEST(QuantileSketch, CountOverflowIsAnError) {
  BucketStore store;
  store.add(1, std::numeric_limits<std::uint64_t>::max());
  EXPECT_THROW(store.add(1, 1), std::overflow_error);
}

}  // namespace
