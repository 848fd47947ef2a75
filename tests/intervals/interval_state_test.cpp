// IntervalSet (interval_union_state) against brute force: on small coordinates every unit of time
// is marked covered or not, so the expected union and its busy runs come from a bitmap, not from
// interval_math; merges of parts give the same bytes as the whole; hostile BLOBs (truncations,
// wrong magic, foreign kind, future version, unsorted, touching or empty intervals, counts beyond
// the BLOB) are FormatError, never a crash.
#include "intervals/interval_state.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>

#include "common/state_blob.h"

namespace {
using rocpd::Interval;
using rocpd::intervals::IntervalSet;
using rocpd::state_blob::FormatError;
using Bytes = std::vector<uint8_t>;

constexpr int64_t kI64Min = std::numeric_limits<int64_t>::min();
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kLo = -300, kHi = 300;

std::vector<Interval> random_intervals(std::mt19937_64& rng, std::size_t n) {
  std::vector<Interval> out(n);
  for (auto& iv : out) {
    iv.start = kLo + static_cast<int64_t>(rng() % (kHi - kLo));
    iv.end = iv.start + static_cast<int64_t>(rng() % 12) - 2;  // some empty, some reversed
    iv.end = std::min(iv.end, kHi);
  }
  return out;
}

// Maximal runs of covered unit cells [t, t+1).
std::vector<Interval> brute_runs(const std::vector<Interval>& ivs) {
  std::vector<bool> covered(static_cast<std::size_t>(kHi - kLo), false);
  for (const auto& iv : ivs)
    for (int64_t t = iv.start; t < iv.end; ++t) covered[static_cast<std::size_t>(t - kLo)] = true;
  std::vector<Interval> runs;
  for (int64_t t = kLo; t < kHi; ++t) {
    if (!covered[static_cast<std::size_t>(t - kLo)]) continue;
    if (!runs.empty() && runs.back().end == t) {
      ++runs.back().end;
    } else {
      runs.push_back({t, t + 1});
    }
  }
  return runs;
}

IntervalSet set_of(const std::vector<Interval>& ivs) {
  IntervalSet s;
  for (const auto& iv : ivs) s.add(iv);
  return s;
}

std::string message(const Bytes& b) {
  try {
    IntervalSet::from_blob(b);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "parsed";
}

TEST(IntervalState, UnionMatchesTheBitmap) {
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 400; ++trial) {
    const auto ivs = random_intervals(rng, rng() % (trial < 200 ? 30 : 12000));
    IntervalSet s = set_of(ivs);
    const auto runs = brute_runs(ivs);
    ASSERT_EQ(s.merged(), runs) << trial;
    uint64_t length = 0;
    for (const auto& r : runs) length += static_cast<uint64_t>(r.end - r.start);
    ASSERT_EQ(s.length(), length);
    ASSERT_EQ(IntervalSet::from_blob(s.to_blob()), runs);
    ASSERT_EQ(s.to_blob().size(), 16 + 16 * runs.size());  // the state is the disjoint list
  }
}

TEST(IntervalState, MergedPartsAreTheWholeByteForByte) {
  std::mt19937_64 rng(2);
  for (int trial = 0; trial < 100; ++trial) {
    const auto ivs = random_intervals(rng, 1 + rng() % 20000);
    const Bytes whole = set_of(ivs).to_blob();
    const std::size_t parts = 1 + rng() % 9;
    std::vector<IntervalSet> states(parts);
    for (const auto& iv : ivs) states[rng() % parts].add(iv);
    IntervalSet merged;
    for (std::size_t i = parts; i-- > 0;) merged.add(IntervalSet::from_blob(states[i].to_blob()));
    ASSERT_EQ(merged.to_blob(), whole) << trial;
  }
}

TEST(IntervalState, ExtremesOfInt64) {
  IntervalSet s;
  s.add({kI64Min, 0});
  s.add({0, kI64Max});  // touching: one busy interval of 2^64 - 1 ns
  EXPECT_EQ(s.merged(), (std::vector<Interval>{{kI64Min, kI64Max}}));
  EXPECT_EQ(s.length(), std::numeric_limits<uint64_t>::max());
  IntervalSet empty;
  empty.add({5, 5});
  empty.add({9, 3});
  EXPECT_EQ(empty.length(), 0u);
  EXPECT_EQ(empty.to_blob().size(), 16u);
}

TEST(IntervalState, HostileBlobs) {
  IntervalSet s;
  s.add({0, 10});
  s.add({20, 30});
  const Bytes good = s.to_blob();
  for (std::size_t n = 0; n < good.size(); ++n)
    EXPECT_THROW(IntervalSet::from_blob(Bytes(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n))),
                 FormatError)
        << n;
  EXPECT_EQ(message({}), "is not an interval_union state (bad magic)");
  Bytes foreign = good;
  std::memcpy(foreign.data(), "rpST", 4);
  EXPECT_EQ(message(foreign), "is a rocpd_stats state, not an interval_union state");
  Bytes future = good;
  future[4] = 9;
  EXPECT_EQ(message(future), "is an interval_union state of version 9; this build reads version 1");
  auto with = [&](std::size_t offset, auto value) {
    Bytes b = good;
    std::memcpy(b.data() + offset, &value, sizeof value);
    return message(b);
  };
  EXPECT_EQ(with(5, uint8_t{1}), "is corrupt (unknown flags)");
  EXPECT_EQ(with(8, uint64_t{3}), "is truncated (48 bytes)");
  EXPECT_EQ(with(8, uint64_t{1} << 62), "is truncated (48 bytes)");
  EXPECT_EQ(with(8, uint64_t{1}), "is corrupt (16 bytes after the last field)");
  EXPECT_EQ(with(24, int64_t{0}), "is corrupt (an empty interval)");
  EXPECT_EQ(with(32, int64_t{10}), "is corrupt (intervals not sorted and disjoint)");  // touching
  EXPECT_EQ(with(32, int64_t{-5}), "is corrupt (intervals not sorted and disjoint)");
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 20000; ++trial) {
    Bytes b = {'r', 'p', 'I', 'U', 1, 0, 0, 0};
    const uint64_t n = rng() % 4;
    for (int i = 0; i < 8; ++i) b.push_back(static_cast<uint8_t>(n >> (8 * i)));
    for (std::size_t i = 0, k = rng() % 70; i < k; ++i) b.push_back(static_cast<uint8_t>(rng()));
    try {
      const auto ivs = IntervalSet::from_blob(b);
      IntervalSet merged;
      merged.add(ivs);
      ASSERT_EQ(merged.merged(), ivs);  // a valid state is its own union
    } catch (const FormatError&) {
    }
  }
}

}  // namespace
