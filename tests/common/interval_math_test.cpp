// Brute-force comparison of the interval algorithms on thousands of random interval sets:
// nested, identical, zero-length, touching, reversed (end < start), negative and near-int64
// values, unsorted; clipped and unclipped. The reference is independent of the code under test:
// it cuts the line at every endpoint and asks, per elementary segment, whether any interval
// covers it (O(n^2), exact in 128-bit arithmetic).
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

#include "common/interval_math.h"

namespace {
using rocpd::BucketGrid;
using rocpd::IncrementalUnion;
using rocpd::Interval;
using rocpd::kNoHi;
using rocpd::kNoLo;
namespace iv = rocpd;

constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

// Covered elementary segments of the intervals clipped to [lo, hi), merged into maximal runs.
std::vector<Interval> brute_merge(const std::vector<Interval>& ivs, int64_t lo = kNoLo, int64_t hi = kNoHi) {
  std::vector<int64_t> cuts;
  for (const auto& x : ivs) {
    cuts.push_back(std::clamp(x.start, lo, hi));
    cuts.push_back(std::clamp(x.end, lo, hi));
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<Interval> runs;
  for (size_t i = 0; i + 1 < cuts.size(); ++i) {
    const int64_t a = cuts[i], b = cuts[i + 1];
    bool covered = false;
    for (const auto& x : ivs)
      if (x.start < x.end && x.start <= a && b <= x.end && a >= lo && b <= hi) covered = true;
    if (!covered) continue;
    if (!runs.empty() && runs.back().end == a)
      runs.back().end = b;
    else
      runs.push_back({a, b});
  }
  return runs;
}

unsigned __int128 brute_length(const std::vector<Interval>& ivs, int64_t lo = kNoLo, int64_t hi = kNoHi) {
  unsigned __int128 total = 0;
  for (const auto& r : brute_merge(ivs, lo, hi)) total += static_cast<__int128>(r.end) - r.start;
  return total;
}

// Random value from one of several regimes so that sets mix every awkward case.
struct RandomSets {
  std::mt19937_64 rng;
  explicit RandomSets(uint64_t seed) : rng(seed) {}

  int64_t value(int regime) {
    switch (regime) {
      case 0: return std::uniform_int_distribution<int64_t>(0, 40)(rng);       // dense: nests, ties
      case 1: return std::uniform_int_distribution<int64_t>(-1000, 1000)(rng); // negative
      case 2: return kI64Max - std::uniform_int_distribution<int64_t>(0, 50)(rng);
      case 3: return kI64Min + std::uniform_int_distribution<int64_t>(0, 50)(rng);
      default: return std::uniform_int_distribution<int64_t>(kI64Min, kI64Max)(rng);
    }
  }

  std::vector<Interval> set() {
    const int n = std::uniform_int_distribution<int>(0, 24)(rng);
    const int regime = std::uniform_int_distribution<int>(0, 5)(rng);  // 5: mixed regimes
    std::vector<Interval> out;
    for (int i = 0; i < n; ++i) {
      const int r = regime == 5 ? std::uniform_int_distribution<int>(0, 4)(rng) : regime;
      int64_t a = value(r), b = value(r);
      switch (std::uniform_int_distribution<int>(0, 9)(rng)) {
        case 0: b = a; break;                                   // zero length
        case 1: if (!out.empty()) { a = out.back().start; b = out.back().end; } break;  // identical
        case 2: if (!out.empty()) a = out.back().end; break;    // touching
        case 3: std::swap(a, b); break;                         // often reversed: empty
        default: if (a > b) std::swap(a, b);
      }
      out.push_back({a, b});
    }
    if (std::uniform_int_distribution<int>(0, 3)(rng) == 0)     // sorted input takes the O(n) path
      std::sort(out.begin(), out.end(), [](auto& x, auto& y) { return x.start < y.start; });
    return out;
  }

  std::pair<int64_t, int64_t> window(const std::vector<Interval>& ivs) {
    int64_t lo = kNoLo, hi = kNoHi;
    auto pick = [&] {
      if (!ivs.empty() && std::uniform_int_distribution<int>(0, 1)(rng)) {
        const auto& x = ivs[std::uniform_int_distribution<size_t>(0, ivs.size() - 1)(rng)];
        return std::uniform_int_distribution<int>(0, 1)(rng) ? x.start : x.end;
      }
      return value(std::uniform_int_distribution<int>(0, 4)(rng));
    };
    const int mode = std::uniform_int_distribution<int>(0, 3)(rng);
    if (mode & 1) lo = pick();
    if (mode & 2) hi = pick();
    return {lo, hi};
  }
};

TEST(IntervalMath, UnionLengthMatchesBruteForceUnclipped) {
  RandomSets gen(1);
  for (int i = 0; i < 5000; ++i) {
    auto ivs = gen.set();
    const auto expected = brute_length(ivs);
    ASSERT_EQ(static_cast<unsigned __int128>(iv::union_length(ivs)), expected) << "set " << i;
  }
}

TEST(IntervalMath, UnionLengthMatchesBruteForceClipped) {
  RandomSets gen(2);
  for (int i = 0; i < 5000; ++i) {
    auto ivs = gen.set();
    const auto [lo, hi] = gen.window(ivs);
    const auto expected = brute_length(ivs, lo, hi);
    std::vector<Interval> clipped;
    for (const auto& x : ivs) clipped.push_back(iv::clip(x, lo, hi));
    ASSERT_EQ(static_cast<unsigned __int128>(iv::union_length(clipped)), expected) << "set " << i;
  }
}

TEST(IntervalMath, MergeAndGapsMatchBruteForce) {
  RandomSets gen(3);
  for (int i = 0; i < 5000; ++i) {
    auto ivs = gen.set();
    const auto expected = brute_merge(ivs);
    auto copy = ivs;
    const auto merged = iv::merge(copy);
    ASSERT_EQ(merged, expected) << "set " << i;
    const auto holes = iv::gaps(merged);
    ASSERT_EQ(holes.size(), merged.empty() ? 0 : merged.size() - 1);
    for (size_t k = 0; k < holes.size(); ++k) {
      ASSERT_EQ(holes[k].start, merged[k].end);
      ASSERT_EQ(holes[k].end, merged[k + 1].start);
      ASSERT_FALSE(holes[k].empty()) << "touching intervals must have merged";
      for (const auto& x : ivs)  // nothing covers any part of a gap
        ASSERT_TRUE(x.empty() || x.end <= holes[k].start || x.start >= holes[k].end);
    }
  }
}

TEST(IntervalMath, BucketsSumToClippedUnionAndMatchPerBucketBruteForce) {
  RandomSets gen(4);
  std::mt19937_64 rng(44);
  for (int i = 0; i < 3000; ++i) {
    auto ivs = gen.set();
    // Grids live where the values are: small regimes mostly, so buckets are hit.
    BucketGrid grid;
    grid.origin = std::uniform_int_distribution<int64_t>(-1100, 100)(rng);
    grid.width = std::uniform_int_distribution<uint64_t>(1, 300)(rng);
    grid.first = std::uniform_int_distribution<int64_t>(-3, 3)(rng);
    grid.last = grid.first + std::uniform_int_distribution<int64_t>(-1, 12)(rng);
    if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) grid.limit = grid.bucket(grid.last).start + 1;
    std::vector<uint64_t> busy(grid.count());
    auto copy = ivs;
    const auto merged = iv::merge(copy);
    iv::add_to_buckets(merged, grid, busy);
    unsigned __int128 sum = 0;
    for (int64_t k = grid.first; k <= grid.last; ++k) {
      const Interval b = grid.bucket(k);
      const auto expected = brute_length(ivs, b.start, b.end);
      ASSERT_EQ(static_cast<unsigned __int128>(busy[k - grid.first]), expected) << "set " << i << " bucket " << k;
      ASSERT_LE(busy[k - grid.first], b.length());
      sum += busy[k - grid.first];
    }
    if (grid.count() > 0) {
      ASSERT_EQ(sum, brute_length(ivs, grid.bucket(grid.first).start, grid.bucket(grid.last).end));
    }
  }
}

TEST(IntervalMath, IncrementalUnionMatchesBruteForceAfterEveryInsert) {
  RandomSets gen(5);
  for (int i = 0; i < 2000; ++i) {
    auto ivs = gen.set();
    IncrementalUnion inc;
    std::vector<Interval> seen;
    for (const auto& x : ivs) {
      inc.insert(x);
      seen.push_back(x);
      ASSERT_EQ(static_cast<unsigned __int128>(inc.length()), brute_length(seen)) << "set " << i;
    }
  }
}

TEST(IntervalMath, ExtremeValues) {
  std::vector<Interval> whole{{kI64Min, kI64Max}};
  EXPECT_EQ(iv::union_length(whole), std::numeric_limits<uint64_t>::max());
  std::vector<Interval> halves{{0, kI64Max}, {kI64Min, 0}};
  EXPECT_EQ(iv::union_length(halves), std::numeric_limits<uint64_t>::max());
  std::vector<Interval> reversed{{kI64Max, kI64Min}};
  EXPECT_EQ(iv::union_length(reversed), 0u);
  EXPECT_EQ(Interval({5, 5}).length(), 0u);
}

TEST(IntervalMath, TouchingIntervalsMergeAndNestedOnesVanish) {
  std::vector<Interval> ivs{{10, 20}, {0, 10}, {2, 3}, {20, 20}, {25, 30}, {26, 27}};
  const auto merged = iv::merge(ivs);
  EXPECT_EQ(merged, (std::vector<Interval>{{0, 20}, {25, 30}}));
  EXPECT_EQ(iv::gaps(merged), (std::vector<Interval>{{20, 25}}));
}

TEST(IntervalMath, BucketIndexIsFloorAndSaturates) {
  BucketGrid g{.origin = 100, .width = 10, .first = 0, .last = 0, .limit = kNoHi};
  EXPECT_EQ(g.index_of(100), 0);
  EXPECT_EQ(g.index_of(109), 0);
  EXPECT_EQ(g.index_of(110), 1);
  EXPECT_EQ(g.index_of(99), -1);
  EXPECT_EQ(g.index_of(90), -1);
  EXPECT_EQ(g.index_of(89), -2);
  BucketGrid tiny{.origin = kI64Min, .width = 1, .first = 0, .last = 0, .limit = kNoHi};
  EXPECT_EQ(tiny.index_of(kI64Max), kI64Max);  // 2^64 - 1 saturates
  EXPECT_EQ(tiny.bucket(kI64Max).start, -1);  // INT64_MIN + INT64_MAX
  EXPECT_EQ(tiny.bucket(kI64Max).end, 0);
  BucketGrid cut{.origin = 0, .width = 10, .first = 0, .last = 2, .limit = 25};
  EXPECT_EQ(cut.bucket(2), (Interval{20, 25}));
}

TEST(IntervalMath, SortedDetectionIgnoresEmptyRows) {
  std::vector<Interval> ivs{{1, 5}, {9, 0}, {2, 6}};
  EXPECT_TRUE(iv::sorted_by_start(ivs));
  std::vector<Interval> unsorted{{3, 5}, {2, 6}};
  EXPECT_FALSE(iv::sorted_by_start(unsorted));
}

}  // namespace
