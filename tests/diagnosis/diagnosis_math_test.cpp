// The per-thread stack sweep and the idle-time classification against brute force on random sets
// (nested, crossing, identical, touching, zero-length and reversed intervals, several threads'
// worth of ranges in one set).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "diagnosis/idle_math.h"
#include "diagnosis/stack_sweep.h"

namespace rocpd::diagnosis {
namespace {

std::vector<uint32_t> brute_stack(const std::vector<Range>& ranges, const Call& c) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < ranges.size(); ++i)
    if (ranges[i].start <= c.start && c.end <= ranges[i].end) out.push_back(i);
  std::sort(out.begin(), out.end(), [&](uint32_t a, uint32_t b) { return outer_first(ranges[a], ranges[b]); });
  return out;
}

TEST(StackSweep, MatchesBruteForce) {
  std::mt19937_64 rng(7);
  for (int round = 0; round < 3000; ++round) {
    const int span = 10 + static_cast<int>(rng() % 200);
    std::vector<Range> ranges;
    const int nr = static_cast<int>(rng() % 30);
    for (int i = 0; i < nr; ++i) {
      int64_t s = static_cast<int64_t>(rng() % span), e = s + 1 + static_cast<int64_t>(rng() % (span / 2 + 1));
      if (round % 3 == 0 && !ranges.empty() && rng() % 2) {  // nested inside an earlier one
        const Range& p = ranges[rng() % ranges.size()];
        s = p.start + static_cast<int64_t>(rng() % static_cast<uint64_t>(p.end - p.start));
        e = s + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(p.end - s));
      }
      // api ids are unique within a member: ties on (start, end) are broken by them.
      ranges.push_back({s, e, static_cast<uint32_t>(i), static_cast<int64_t>(rng() % 5) * 1000 + i});
    }
    std::vector<Call> calls;
    const int nc = static_cast<int>(rng() % 40);
    for (int i = 0; i < nc; ++i) {
      const int64_t s = static_cast<int64_t>(rng() % span);
      calls.push_back({s, s + static_cast<int64_t>(rng() % 8), static_cast<uint32_t>(i)});
    }
    // Expected stacks, as range identities (names are unique per set).
    std::map<uint32_t, std::vector<uint32_t>> expected;
    for (const Call& c : calls) {
      std::vector<uint32_t> names;
      for (uint32_t r : brute_stack(ranges, c)) names.push_back(ranges[r].name);
      expected[c.id] = names;
    }
    std::vector<Range> rs = ranges;
    std::vector<Call> cs = calls;
    std::map<uint32_t, std::vector<uint32_t>> got;
    sweep_thread(rs, cs, [&](uint32_t id, std::span<const uint32_t> stack) {
      std::vector<uint32_t> names;
      for (uint32_t r : stack) names.push_back(rs[r].name);
      got[id] = names;
    });
    ASSERT_EQ(got, expected) << "round " << round;
  }
}

// Brute force: every integer point of a small domain is busy or not; gaps are maximal idle runs
// between busy points; each gap is classified from the ops starting at its end.
IdleTotals brute_idle(const std::vector<IdleOp>& ops, int64_t threshold, int64_t lo, int64_t hi, int64_t domain) {
  std::vector<bool> busy(static_cast<size_t>(domain), false);
  std::vector<IdleOp> clipped;
  for (IdleOp op : ops) {
    op.start = std::max(op.start, lo);
    op.end = std::min(op.end, hi);
    if (op.end <= op.start) continue;
    clipped.push_back(op);
    for (int64_t t = op.start; t < op.end; ++t) busy[static_cast<size_t>(t)] = true;
  }
  IdleTotals r;
  int64_t first = -1, last = -1;
  for (int64_t t = 0; t < domain; ++t)
    if (busy[static_cast<size_t>(t)]) {
      if (first < 0) first = t;
      last = t;
      ++r.busy_ns;
    }
  if (first < 0) return r;
  for (int64_t t = first; t <= last;) {
    if (busy[static_cast<size_t>(t)]) {
      ++t;
      continue;
    }
    const int64_t a = t;
    while (!busy[static_cast<size_t>(t)]) ++t;
    const int64_t b = t, gap = b - a;
    int64_t launch = kNoLaunch;
    for (const IdleOp& op : clipped)
      if (op.start == b && op.launch != kNoLaunch && (launch == kNoLaunch || op.launch < launch)) launch = op.launch;
    ++r.gaps;
    r.idle_ns += gap;
    if (launch != kNoLaunch && launch > a) r.host_wait_ns += gap;
    else if (launch != kNoLaunch && gap < threshold) r.kernel_wait_ns += gap;
    else r.other_ns += gap;
  }
  return r;
}

TEST(IdleMath, MatchesBruteForce) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 3000; ++round) {
    const int64_t domain = 20 + static_cast<int64_t>(rng() % 300);
    std::vector<IdleOp> ops;
    const int n = static_cast<int>(rng() % 25);
    for (int i = 0; i < n; ++i) {
      IdleOp op;
      op.start = static_cast<int64_t>(rng() % static_cast<uint64_t>(domain - 1));
      op.end = op.start + static_cast<int64_t>(rng() % 30) - (rng() % 10 == 0 ? 5 : 0);  // some empty / reversed
      op.end = std::min(op.end, domain - 1);
      if (rng() % 6) op.launch = op.start - static_cast<int64_t>(rng() % 40);
      ops.push_back(op);
    }
    const int64_t threshold = static_cast<int64_t>(rng() % 12);
    int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
    if (round % 4 == 1) {
      lo = static_cast<int64_t>(rng() % static_cast<uint64_t>(domain / 2));
      hi = lo + 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(domain / 2));
    }
    const IdleTotals want = brute_idle(ops, threshold, lo, hi, domain);
    std::vector<IdleOp> copy = ops;
    const IdleTotals got = classify_gaps(copy, threshold, lo, hi, "test");
    ASSERT_EQ(got.gaps, want.gaps) << round;
    ASSERT_EQ(got.idle_ns, want.idle_ns) << round;
    ASSERT_EQ(got.host_wait_ns, want.host_wait_ns) << round;
    ASSERT_EQ(got.kernel_wait_ns, want.kernel_wait_ns) << round;
    ASSERT_EQ(got.other_ns, want.other_ns) << round;
    ASSERT_EQ(got.busy_ns, want.busy_ns) << round;
    ASSERT_EQ(got.idle_ns, got.host_wait_ns + got.kernel_wait_ns + got.other_ns);
  }
}

TEST(IdleMath, FullRangeIsAnErrorNotAWrap) {
  std::vector<IdleOp> ops = {{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::min() + 1, kNoLaunch},
                             {std::numeric_limits<int64_t>::max() - 1, std::numeric_limits<int64_t>::max(), kNoLaunch}};
  EXPECT_THROW(classify_gaps(ops, 0, std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max(), "t"),
               std::exception);
}

}  // namespace
}  // namespace rocpd::diagnosis
