// The BLOB form of StatsState: round trips, and hostile BLOBs (every truncation of valid ones,
// every single-byte change of the header, random bytes behind a valid magic, wrong magic, foreign
// kind, future version, counts larger than the BLOB) end in state_blob::FormatError or in a state
// whose every answer can be computed, never in a crash (CI runs this under ASan and UBSan).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "common/state_blob.h"
#include "stats/stats_state.h"

using rocpd::state_blob::FormatError;
using rocpd::stats::StatsState;

namespace {

using Bytes = std::vector<std::uint8_t>;

// Valid states of every shape: empty, exact integers, exact reals with infinities, sketches of
// integers and of signed reals with zeros and infinities.
std::vector<Bytes> samples() {
  std::mt19937_64 rng(9);
  std::vector<Bytes> out;
  out.push_back(StatsState{}.to_blob());
  StatsState ints, reals, big_ints, big_reals;
  for (int i = 0; i < 50; ++i) ints.add(static_cast<std::int64_t>(rng()));
  for (int i = 0; i < 40; ++i) reals.add(std::normal_distribution<double>(0, 1e3)(rng));
  reals.add(std::numeric_limits<double>::infinity());
  reals.add(-std::numeric_limits<double>::infinity());
  reals.add(std::int64_t{7});
  for (int i = 0; i < 6000; ++i) big_ints.add(static_cast<std::int64_t>(rng() % 100000));
  for (int i = 0; i < 6000; ++i) big_reals.add(i % 5 == 0 ? 0.0 : std::cauchy_distribution<double>(0, 1)(rng));
  big_reals.add(std::numeric_limits<double>::infinity());
  for (const auto* s : {&ints, &reals, &big_ints, &big_reals}) out.push_back(s->to_blob());
  return out;
}

// Every answer of a state that parsed.
void query_everything(const StatsState& s) {
  (void)s.count();
  try {
    (void)s.sum();
  } catch (const std::overflow_error&) {
  }
  (void)s.mean();
  (void)s.stddev();
  for (double p : {0.0, 0.5, 25.0, 50.0, 99.9, 100.0}) (void)s.quantile(p);
}

std::string message(const Bytes& b) {
  try {
    StatsState::from_blob(b);
  } catch (const FormatError& e) {
    return e.what();
  }
  return "parsed";
}

TEST(StatsStateBlob, RoundTripsKeepEveryByte) {
  for (const Bytes& b : samples()) {
    const StatsState s = StatsState::from_blob(b);
    EXPECT_EQ(s.to_blob(), b);
    query_everything(s);
  }
}

TEST(StatsStateBlob, EveryTruncationIsAnError) {
  for (const Bytes& b : samples()) {
    for (std::size_t n = 0; n < b.size(); ++n) {
      const Bytes cut(b.begin(), b.begin() + static_cast<std::ptrdiff_t>(n));
      EXPECT_THROW(StatsState::from_blob(cut), FormatError) << n << " of " << b.size();
    }
  }
}

TEST(StatsStateBlob, TrailingBytesAreAnError) {
  for (Bytes b : samples()) {
    b.push_back(0);
    EXPECT_EQ(message(b), "is corrupt (1 bytes after the last field)");
  }
}

TEST(StatsStateBlob, WrongMagicForeignKindAndFutureVersion) {
  Bytes b = StatsState{}.to_blob();
  EXPECT_EQ(message({}), "is not a rocpd_stats state (bad magic)");
  EXPECT_EQ(message({'r', 'p'}), "is not a rocpd_stats state (bad magic)");
  EXPECT_EQ(message({'r', 'p', 'S', 'T'}), "is truncated (4 bytes)");
  Bytes foreign = b;
  std::memcpy(foreign.data(), "rpIU", 4);
  EXPECT_EQ(message(foreign), "is an interval_union state, not a rocpd_stats state");
  Bytes future = b;
  future[4] = 2;
  EXPECT_EQ(message(future), "is a rocpd_stats state of version 2; this build reads version 1");
  Bytes text(b.size(), 'x');
  EXPECT_EQ(message(text), "is not a rocpd_stats state (bad magic)");
}

TEST(StatsStateBlob, CountsBeyondTheBlobAreRefusedBeforeAllocating) {
  StatsState five;
  for (std::int64_t i = 1; i <= 5; ++i) five.add(i);
  Bytes b = five.to_blob();
  for (const std::uint64_t count : {std::uint64_t{4000}, std::uint64_t{1} << 60}) {
    std::memcpy(b.data() + 8, &count, 8);   // count
    std::memcpy(b.data() + 16, &count, 8);  // of which integers
    EXPECT_EQ(message(b), count == 4000 ? "is truncated (168 bytes)" : "is corrupt (more exact values than a state holds)");
  }
  // A sketch claiming 2^32 - 1 buckets.
  StatsState big;
  for (int i = 0; i < 5000; ++i) big.add(static_cast<std::int64_t>(i));
  Bytes s = big.to_blob();
  const std::uint32_t buckets = 0xFFFFFFFF;
  std::memcpy(s.data() + 136 + 4, &buckets, 4);
  EXPECT_EQ(message(s), "is corrupt (more sketch buckets than a store holds)");
}

TEST(StatsStateBlob, InconsistentFieldsAreCorrupt) {
  StatsState ints;
  for (std::int64_t i = 1; i <= 5; ++i) ints.add(i);
  const Bytes good = ints.to_blob();
  auto with = [&](std::size_t offset, auto value) {
    Bytes b = good;
    std::memcpy(b.data() + offset, &value, sizeof value);
    return message(b);
  };
  EXPECT_EQ(with(40, __int128{16}), "is corrupt (integer sums and exact values disagree)");
  EXPECT_EQ(with(56, std::uint64_t{1}), "is corrupt (integer sums inconsistent)");  // n*S2 < S1^2
  EXPECT_EQ(with(112, std::int64_t{2}), "is corrupt (the smallest exact value is not min)");
  EXPECT_EQ(with(120, std::int64_t{0}), "is corrupt (min above max)");
  EXPECT_EQ(with(128, std::int64_t{3}), "is corrupt (the smallest exact value is not min)");
  EXPECT_EQ(with(136, std::int64_t{0}), "is corrupt (exact values out of order)");
  EXPECT_EQ(with(24, std::uint64_t{1}), "is corrupt (counts do not add up)");
  EXPECT_EQ(with(5, std::uint8_t{7}), "is corrupt (unknown quantile summary)");
  EXPECT_EQ(with(7, std::uint8_t{1}), "is corrupt (unknown flags)");
  EXPECT_EQ(with(96, 1.0), "is corrupt (real sums without reals)");
}

TEST(StatsStateBlob, EverySingleByteChangeIsRefusedOrAnswers) {
  std::mt19937_64 rng(2);
  for (const Bytes& b : samples()) {
    const std::size_t span = std::min<std::size_t>(b.size(), 200);  // the header and the first values
    for (std::size_t i = 0; i < span; ++i) {
      for (std::uint8_t v : {std::uint8_t{0}, std::uint8_t{1}, std::uint8_t{0x7F}, std::uint8_t{0x80},
                             std::uint8_t{0xFF}, static_cast<std::uint8_t>(rng())}) {
        Bytes m = b;
        m[i] = v;
        try {
          query_everything(StatsState::from_blob(m));
        } catch (const FormatError&) {
        }
      }
    }
  }
}

TEST(StatsStateBlob, RandomBytesBehindAValidHeaderAreRefusedOrAnswer) {
  std::mt19937_64 rng(1);
  int parsed = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    Bytes b = {'r', 'p', 'S', 'T', 1};
    const std::size_t n = rng() % 400;
    for (std::size_t i = 0; i < n; ++i) b.push_back(static_cast<std::uint8_t>(rng() % 4 == 0 ? 0 : rng()));
    try {
      query_everything(StatsState::from_blob(b));
      ++parsed;
    } catch (const FormatError&) {
    }
  }
  EXPECT_LT(parsed, 20000);
}

TEST(StatsStateBlob, MergingHostileCountsOverflowsCleanly) {
  // A well-formed sketch claiming 2^64 - 11 values (all but 5000 of them zeros) merged with itself.
  StatsState big;
  for (int i = 0; i < 5000; ++i) big.add(std::int64_t{1});
  Bytes s = big.to_blob();
  const std::uint64_t near_max = std::numeric_limits<std::uint64_t>::max() - 10, zeros = near_max - 5000;
  std::memcpy(s.data() + 8, &near_max, 8);   // count
  std::memcpy(s.data() + 16, &near_max, 8);  // of which integers
  std::memcpy(s.data() + 128, &zeros, 8);    // zeros of the sketch
  StatsState x = StatsState::from_blob(s);
  EXPECT_THROW(x.merge(StatsState::from_blob(s)), std::overflow_error);
}

}  // namespace
