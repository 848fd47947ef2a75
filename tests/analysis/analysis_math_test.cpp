// The pure algorithms of the analysis base (ext/analysis) against brute force: collective families
// by name, the matching of collectives across participants (random sets with disagreeing counts,
// ties, several families, overflow), and the clipped length of merged intervals (common/interval_math.h, what
// rocpd_steps and rocpd_time_breakdown take of a busy list).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "common/sqlite_util.h"
#include "common/interval_math.h"
#include "analysis/collective_family.h"
#include "analysis/collective_match.h"

namespace rocpd::analysis {
namespace {

TEST(CollectiveFamily, Names) {
  EXPECT_EQ(collective_family("ncclDevKernel_AllReduce_Sum_f32_RING_LL"), "AllReduce");
  EXPECT_EQ(collective_family("ncclDevKernel_SendRecv"), "SendRecv");
  EXPECT_EQ(collective_family("ncclDevKernel_Generic_4"), "Generic");
  EXPECT_EQ(collective_family("ncclKernel_AllGather_RING_LL_Sum_int8_t"), "AllGather");
  EXPECT_EQ(collective_family("NCCLDEVKERNEL_ReduceScatter_Sum"), "ReduceScatter");
  EXPECT_EQ(collective_family("_Z24ncclDevKernel_Generic_4P11ncclDevComm"), "Generic");
  EXPECT_EQ(collective_family("rcclGenericKernel<1>(ncclDevComm*)"), "rcclGenericKernel");
  EXPECT_EQ(collective_family("_Z17rcclGenericKernelILi1EEvP11ncclDevComm"), "rcclGenericKernel");
  EXPECT_EQ(collective_family("_ZN4vllm26cross_device_reduce_2stageIN3c108BFloat16ELi8EEEvPNS_8RankData"),
            "cross_device_reduce_2stage");
  EXPECT_EQ(collective_family("void vllm::cross_device_reduce_1stage<c10::BFloat16, 8>(vllm::RankData*)"),
            "cross_device_reduce_1stage");
  EXPECT_EQ(collective_family("my_nccl_thing"), "nccl_thing");
  EXPECT_EQ(collective_family(std::string_view("nccl\0AllReduce", 14)), "nccl");  // read up to the NUL
  EXPECT_EQ(collective_family("ncclDevKernel_"), "ncclDevKernel_");  // no operation after the prefix
  EXPECT_EQ(collective_family(""), "");
}

// The matching written out directly: per family, every participant's collectives sorted by
// (start, tiebreak); the common prefix; per instance the first and last start.
int ties_seen = 0;  // rows whose start another participant of the instance shares

std::vector<MatchedCollective> brute_match(const std::vector<Collective>& in) {
  std::vector<MatchedCollective> out(in.size());
  std::map<uint32_t, std::map<uint32_t, std::vector<size_t>>> by;  // family -> participant -> indexes
  for (size_t i = 0; i < in.size(); ++i) by[in[i].family][in[i].participant].push_back(i);
  for (auto& [family, parts] : by) {
    size_t common = SIZE_MAX;
    for (auto& [p, idx] : parts) {
      std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        return in[a].start != in[b].start ? in[a].start < in[b].start : in[a].tiebreak < in[b].tiebreak;
      });
      common = std::min(common, idx.size());
    }
    for (auto& [p, idx] : parts)
      for (size_t n = 0; n < idx.size(); ++n) {
        MatchedCollective& m = out[idx[n]];
        m.instance = static_cast<int64_t>(n);
        m.family_count = static_cast<int64_t>(idx.size());
        m.matched_count = static_cast<int64_t>(common);
        if (n >= common) continue;
        int64_t first = INT64_MAX, last = INT64_MIN, waited = 0, earlier = 0;
        for (auto& [q, other] : parts) {
          first = std::min(first, in[other[n]].start);
          last = std::max(last, in[other[n]].start);
          if (in[other[n]].start < in[idx[n]].start) ++earlier;
          if (q != p && in[other[n]].start == in[idx[n]].start) ++ties_seen;
        }
        for (auto& [q, other] : parts) waited += last - in[other[n]].start;
        m.participants = static_cast<int64_t>(parts.size());
        m.arrival = earlier + 1;
        m.late_ns = in[idx[n]].start - first;
        m.wait_ns = last - in[idx[n]].start;
        m.caused_wait_ns = in[idx[n]].start == last && parts.size() > 1 ? waited : 0;
      }
  }
  return out;
}

void expect_same(const MatchedCollective& a, const MatchedCollective& b, size_t i) {
  EXPECT_EQ(a.instance, b.instance) << i;
  EXPECT_EQ(a.family_count, b.family_count) << i;
  EXPECT_EQ(a.matched_count, b.matched_count) << i;
  EXPECT_EQ(a.participants, b.participants) << i;
  EXPECT_EQ(a.arrival, b.arrival) << i;
  EXPECT_EQ(a.late_ns, b.late_ns) << i;
  EXPECT_EQ(a.wait_ns, b.wait_ns) << i;
  EXPECT_EQ(a.caused_wait_ns, b.caused_wait_ns) << i;
}

TEST(CollectiveMatch, MatchesBruteForce) {
  std::mt19937_64 rng(11);
  int unmatched = 0;
  ties_seen = 0;
  for (int round = 0; round < 2000; ++round) {
    const uint32_t participants = 1 + static_cast<uint32_t>(rng() % 6), families = 1 + static_cast<uint32_t>(rng() % 3);
    const int64_t span = round % 4 == 0 ? 5 : 1000;  // small spans: many ties
    std::vector<Collective> in;
    for (uint32_t p = 0; p < participants; ++p)
      for (uint32_t f = 0; f < families; ++f) {
        // Most participants issue the same count; some issue fewer or more (the common prefix).
        size_t count = 3 + f;
        if (rng() % 5 == 0) count = rng() % 6;
        for (size_t n = 0; n < count; ++n) {
          const int64_t start = static_cast<int64_t>(rng() % span) - span / 2;
          // Unique tiebreaks, as rowids are.
          in.push_back({p, f, start, start + 10, static_cast<int64_t>(in.size())});
        }
      }
    std::shuffle(in.begin(), in.end(), rng);
    const auto got = match_collectives(in, "t");
    const auto want = brute_match(in);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      expect_same(got[i], want[i], i);
      if (!got[i].arrival) ++unmatched;
    }
  }
  EXPECT_GT(unmatched, 100);
  EXPECT_GT(ties_seen, 100);
}

TEST(CollectiveMatch, OverflowIsAnError) {
  const std::vector<Collective> in = {{0, 0, INT64_MIN, INT64_MIN, 0}, {1, 0, INT64_MAX, INT64_MAX, 0}};
  try {
    match_collectives(in, "rocpd_collectives");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "rocpd_collectives: the starts -9223372036854775808 and 9223372036854775807 of one "
                           "collective are more than an integer apart");
  }
  // Many participants whose waits add up beyond int64.
  std::vector<Collective> many;
  for (uint32_t p = 0; p < 4; ++p) many.push_back({p, 0, p == 3 ? INT64_MAX / 2 : -INT64_MAX / 2, 0, 0});
  EXPECT_THROW(match_collectives(many, "t"), Error);
}

TEST(StepMath, ClippedLengthMatchesBruteForce) {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 3000; ++round) {
    std::vector<rocpd::Interval> ivs;
    const int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      const int64_t s = static_cast<int64_t>(rng() % 100);
      ivs.push_back({s, s + static_cast<int64_t>(rng() % 20)});
    }
    const auto merged = rocpd::merge(ivs);
    const int64_t lo = static_cast<int64_t>(rng() % 120) - 10, hi = lo + static_cast<int64_t>(rng() % 60);
    uint64_t want = 0;
    for (int64_t t = lo; t < hi; ++t)
      for (const auto& iv : merged)
        if (iv.start <= t && t < iv.end) {
          ++want;
          break;
        }
    EXPECT_EQ(rocpd::clipped_length(merged, lo, hi), want) << round;
  }
}

}  // namespace
}  // namespace rocpd::analysis
