// Ground truth: the interval union against a brute-force reference, and file totals against a
// direct recount of the workload.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "random.h"
#include "truth.h"

namespace rocpd_gen {
namespace {

using Intervals = std::vector<std::pair<int64_t, int64_t>>;

// Reference: mark covered elementary segments between all distinct endpoints.
UnionLength brute_force(const Intervals& in) {
  std::set<int64_t> points;
  for (auto [s, e] : in) points.insert({s, e});
  const std::vector<int64_t> p(points.begin(), points.end());
  UnionLength u;
  bool previous_covered = false;
  for (size_t i = 0; i + 1 < p.size(); ++i) {
    bool covered = false;
    for (auto [s, e] : in) covered = covered || (s <= p[i] && p[i + 1] <= e && s < e);
    if (covered) {
      u.length += p[i + 1] - p[i];
      if (!previous_covered) ++u.components;
    }
    previous_covered = covered;
  }
  return u;
}

TEST(GenIntervalUnion, KnownCases) {
  Intervals none;
  EXPECT_EQ(interval_union(none).length, 0);
  Intervals twice = {{0, 100}, {0, 100}};
  EXPECT_EQ(interval_union(twice).length, 100);
  EXPECT_EQ(interval_union(twice).components, 1);
  Intervals touching = {{10, 20}, {0, 10}};
  EXPECT_EQ(interval_union(touching).length, 20);
  EXPECT_EQ(interval_union(touching).components, 1);
  Intervals empty_only = {{5, 5}, {7, 7}};
  EXPECT_EQ(interval_union(empty_only).length, 0);
  EXPECT_EQ(interval_union(empty_only).components, 0);
  Intervals nested_and_gap = {{0, 50}, {10, 20}, {60, 70}, {65, 65}};
  EXPECT_EQ(interval_union(nested_and_gap).length, 60);
  EXPECT_EQ(interval_union(nested_and_gap).components, 2);
}

TEST(GenIntervalUnion, MatchesBruteForce) {
  Rng rng(99);
  for (int round = 0; round < 300; ++round) {
    Intervals in;
    const int n = static_cast<int>(rng.between(0, 25));
    for (int i = 0; i < n; ++i) {
      const int64_t s = rng.between(0, 200);
      in.emplace_back(s, s + rng.between(0, 40));
    }
    Intervals copy = in;
    const UnionLength expect = brute_force(in);
    const UnionLength got = interval_union(copy);
    ASSERT_EQ(got.length, expect.length) << round;
    ASSERT_EQ(got.components, expect.components) << round;
  }
}

TEST(GenFileTruth, RecountsTheWorkload) {
  WorkloadParams p;
  p.seed = 21;
  p.ops = 4000;
  p.apis_extra = 700;
  p.markers = 90;
  const std::vector<ProcessTrace> sessions = {generate_process(p, 0, 0), generate_process(p, 0, 1)};
  const FileTruth t = compute_truth(sessions);
  EXPECT_EQ(t.ops, 8000);
  EXPECT_EQ(t.apis, 2 * (4000 + 700));
  EXPECT_EQ(t.markers, 180);
  EXPECT_EQ(t.kernels + t.copies, t.ops);
  ASSERT_EQ(t.pids.size(), 2u);
  EXPECT_NE(t.pids[0], t.pids[1]);
  EXPECT_EQ(t.hostname, "node0");

  int64_t sum = 0, api_sum = 0, first = INT64_MAX, last = INT64_MIN;
  std::map<int, Intervals> by_gpu;
  for (const ProcessTrace& s : sessions) {
    for (const Op& op : s.ops) {
      sum += op.end - op.start;
      by_gpu[op.gpu].emplace_back(op.start, op.end);
      first = std::min(first, op.start);
      last = std::max(last, op.end);
    }
    for (const HostCall& c : s.calls) {
      if (c.api != HostApi::UserMarker) api_sum += c.end - c.start;
      first = std::min(first, c.start);
      last = std::max(last, c.end);
    }
  }
  EXPECT_EQ(t.ops_sum_ns, sum);
  EXPECT_EQ(t.apis_sum_ns, api_sum);
  EXPECT_EQ(t.first_ns, first);
  EXPECT_EQ(t.last_ns, last);
  ASSERT_EQ(t.gpus.size(), by_gpu.size());
  for (const GpuTruth& g : t.gpus) {
    Intervals& in = by_gpu[g.gpu];
    EXPECT_EQ(g.ops, static_cast<int64_t>(in.size()));
    const UnionLength u = interval_union(in);
    EXPECT_EQ(g.busy_ns, u.length);
    EXPECT_EQ(g.busy_intervals, u.components);
    EXPECT_LE(g.busy_ns, g.sum_ns);
    EXPECT_LE(g.busy_ns, g.last_ns - g.first_ns);
  }
  int64_t top_calls = 0, top_total = 0;
  for (size_t i = 0; i < t.top.size(); ++i) {
    top_calls += t.top[i].calls;
    top_total += t.top[i].total_ns;
    EXPECT_LE(t.top[i].min_ns, t.top[i].max_ns);
    if (i) {
      EXPECT_GE(t.top[i - 1].total_ns, t.top[i].total_ns);
    }
  }
  EXPECT_EQ(top_calls, t.ops);
  EXPECT_EQ(top_total, t.ops_sum_ns);
  int64_t marker_calls = 0;
  for (const NameTotals& m : t.marker_top) marker_calls += m.calls;
  EXPECT_EQ(marker_calls, t.markers);
}

TEST(GenTruthJson, IsStableAndEscaped) {
  FileTruth f;
  f.file = "rank0.rpd";
  f.db = "rank0";
  f.format = "rpd";
  f.schema_version = 2;
  f.hostname = "node\"0";
  f.pids = {12, 13};
  f.top.push_back({"a\\b", "kernel", 1, 5, 5, 5});
  const std::string json = truth_json({7, "rpd2", 1}, std::span<const FileTruth>(&f, 1));
  EXPECT_NE(json.find("\"hostname\":\"node\\\"0\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"name\":\"a\\\\b\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"uuid\":null"), std::string::npos) << json;
  EXPECT_NE(json.find("\"pids\":[12,13]"), std::string::npos) << json;
  EXPECT_EQ(json, truth_json({7, "rpd2", 1}, std::span<const FileTruth>(&f, 1)));
}

}  // namespace
}  // namespace rocpd_gen
