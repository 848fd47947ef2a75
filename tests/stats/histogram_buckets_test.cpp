// histogram()/histogram_log2() bucketing against direct counting, and their JSON text.
#include "stats/histogram_buckets.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>

using rocpd::stats::FixedHistogram;
using rocpd::stats::HistogramError;
using rocpd::stats::Log2Histogram;
using rocpd::stats::Number;

namespace {

std::string error_of(auto&& body) {
  try {
    body();
  } catch (const HistogramError& e) {
    return e.message;
  }
  return "no error";
}

TEST(FixedHistogram, IntegerBucketsIncludingNegativesAndGaps) {
  FixedHistogram h(Number{std::int64_t{10}}, Number{std::int64_t{5}});
  for (std::int64_t v : {5, 14, 15, -6, -5, 44}) h.add(v);
  EXPECT_EQ(h.count(), 6);
  EXPECT_EQ(h.to_json(),
            R"([{"lo":-15,"hi":-5,"count":1},{"lo":-5,"hi":5,"count":1},{"lo":5,"hi":15,"count":2},)"
            R"({"lo":15,"hi":25,"count":1},{"lo":25,"hi":35,"count":0},{"lo":35,"hi":45,"count":1}])");
}

TEST(FixedHistogram, MatchesDirectCounting) {
  std::mt19937_64 rng(6);
  for (int trial = 0; trial < 50; ++trial) {
    const std::int64_t width = 1 + static_cast<std::int64_t>(rng() % 100);
    const std::int64_t origin = static_cast<std::int64_t>(rng() % 50) - 25;
    FixedHistogram h(Number{width}, Number{origin});
    std::map<std::int64_t, std::int64_t> want;  // lo -> count
    for (int i = 0; i < 1000; ++i) {
      const auto v = static_cast<std::int64_t>(rng() % 5000) - 2500;
      h.add(v);
      ++want[origin + static_cast<std::int64_t>(std::floor(static_cast<double>(v - origin) / width)) * width];
    }
    std::string expected = "[";
    for (std::int64_t lo = want.begin()->first; lo <= want.rbegin()->first; lo += width) {
      if (expected.size() > 1) expected += ',';
      expected += "{\"lo\":" + std::to_string(lo) + ",\"hi\":" + std::to_string(lo + width) +
                  ",\"count\":" + std::to_string(want.count(lo) ? want[lo] : 0) + "}";
    }
    expected += "]";
    ASSERT_EQ(h.to_json(), expected) << "width " << width << " origin " << origin;
  }
}

TEST(FixedHistogram, RealsAndNaN) {
  FixedHistogram h(Number{0.5}, Number{std::int64_t{0}});
  h.add(0.2);
  h.add(std::numeric_limits<double>::quiet_NaN());
  h.add(std::int64_t{1});
  EXPECT_EQ(h.count(), 2);
  EXPECT_EQ(h.to_json(), R"([{"lo":0,"hi":0.5,"count":1},{"lo":0.5,"hi":1,"count":0},{"lo":1,"hi":1.5,"count":1}])");
}

TEST(FixedHistogram, Errors) {
  EXPECT_EQ(error_of([] { FixedHistogram(Number{std::int64_t{0}}, Number{std::int64_t{0}}); }),
            "width must be a positive number, got 0");
  EXPECT_EQ(error_of([] { FixedHistogram(Number{-2.5}, Number{std::int64_t{0}}); }),
            "width must be a positive number, got -2.5");
  EXPECT_EQ(error_of([] { FixedHistogram(Number{std::int64_t{1}}, Number{std::numeric_limits<double>::infinity()}); }),
            "origin must be a finite number, got 9e999");
  EXPECT_EQ(error_of([] {
              FixedHistogram h(Number{std::int64_t{1}}, Number{std::int64_t{0}});
              h.add(std::int64_t{0});
              h.add(std::int64_t{100000});
              h.to_json();
            }),
            "100001 buckets of width 1 would be needed (limit 100000); choose a wider width");
  EXPECT_EQ(error_of([] {
              FixedHistogram h(Number{std::int64_t{1}}, Number{std::numeric_limits<std::int64_t>::min()});
              h.add(std::numeric_limits<std::int64_t>::max());
            }),
            "value 9223372036854775807 is too far from the origin for width 1");
  EXPECT_EQ(error_of([] {
              FixedHistogram h(Number{std::int64_t{1}}, Number{std::int64_t{0}});
              h.add(-std::numeric_limits<double>::infinity());
            }),
            "value -9e999 has no bucket");
}

TEST(Log2Histogram, BucketBoundaries) {
  Log2Histogram h;
  for (std::int64_t v : {0, 1, 2, 3, 4, 7, 8}) h.add(v);
  h.add(0.5);
  h.add(1.5);
  EXPECT_EQ(h.to_json(),
            R"([{"lo":0,"hi":1,"count":2},{"lo":1,"hi":2,"count":2},{"lo":2,"hi":4,"count":2},)"
            R"({"lo":4,"hi":8,"count":2},{"lo":8,"hi":16,"count":1}])");
}

TEST(Log2Histogram, MatchesBitWidthOnRandomData) {
  std::mt19937_64 rng(7);
  Log2Histogram h;
  std::vector<std::int64_t> want(64, 0);
  for (int i = 0; i < 10000; ++i) {
    const auto v = static_cast<std::int64_t>(rng() >> (1 + rng() % 63));
    h.add(v);
    const int k = v == 0 ? -1 : static_cast<int>(std::floor(std::log2(static_cast<long double>(v))));
    ++want[static_cast<std::size_t>(k + 1)];
  }
  // Check each rendered bucket's count against direct counting.
  const std::string json = h.to_json();
  for (int k = -1; k < 62; ++k) {
    if (!want[static_cast<std::size_t>(k + 1)]) continue;
    const std::string lo = k < 0 ? "0" : std::to_string(std::int64_t{1} << k);
    const std::string hi = std::to_string(std::int64_t{1} << (k + 1));
    const std::string bucket = "{\"lo\":" + lo + ",\"hi\":" + hi +
                               ",\"count\":" + std::to_string(want[static_cast<std::size_t>(k + 1)]) + "}";
    ASSERT_NE(json.find(bucket), std::string::npos) << bucket;
  }
}

TEST(Log2Histogram, ExtremesAndErrors) {
  Log2Histogram h;
  h.add(std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(h.to_json(), R"([{"lo":4611686018427387904,"hi":9.223372036854776e+18,"count":1}])");
  Log2Histogram empty;
  EXPECT_EQ(empty.to_json(), "[]");
  EXPECT_EQ(error_of([] { Log2Histogram().add(std::int64_t{-5}); }), "negative value -5 has no log2 bucket");
  EXPECT_EQ(error_of([] { Log2Histogram().add(-0.25); }), "negative value -0.25 has no log2 bucket");
  EXPECT_EQ(error_of([] { Log2Histogram().add(std::numeric_limits<double>::infinity()); }),
            "value 9e999 has no log2 bucket");
}

}  // namespace
