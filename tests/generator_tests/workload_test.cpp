// The canonical workload: deterministic, exact counts, consistent links, realistic structure.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "kernel_pool.h"
#include "workload.h"

namespace rocpd_gen {
namespace {

WorkloadParams params(int64_t ops, uint64_t seed = 5) {
  WorkloadParams p;
  p.seed = seed;
  p.ops = ops;
  p.gpus = 4;
  p.queues = 2;
  p.apis_extra = ops / 4;
  p.markers = ops / 50;
  return p;
}

bool same(const ProcessTrace& a, const ProcessTrace& b) {
  if (a.pid != b.pid || a.hostname != b.hostname || a.init_ns != b.init_ns || a.fini_ns != b.fini_ns ||
      a.ops.size() != b.ops.size() || a.calls.size() != b.calls.size())
    return false;
  for (size_t i = 0; i < a.ops.size(); ++i) {
    const Op &x = a.ops[i], &y = b.ops[i];
    if (x.start != y.start || x.end != y.end || x.kernel != y.kernel || x.gpu != y.gpu || x.queue != y.queue ||
        x.call != y.call || x.kind != y.kind || x.bytes != y.bytes || x.peer_gpu != y.peer_gpu)
      return false;
  }
  for (size_t i = 0; i < a.calls.size(); ++i) {
    const HostCall &x = a.calls[i], &y = b.calls[i];
    if (x.start != y.start || x.end != y.end || x.api != y.api || x.op != y.op || x.marker != y.marker ||
        x.tid != y.tid || x.arg_ptr != y.arg_ptr || x.arg_size != y.arg_size)
      return false;
  }
  return true;
}

TEST(GenWorkload, SameSeedSameProcess) {
  EXPECT_TRUE(same(generate_process(params(3000), 2, 0), generate_process(params(3000), 2, 0)));
  EXPECT_FALSE(same(generate_process(params(3000), 2, 0), generate_process(params(3000, 6), 2, 0)));
  EXPECT_FALSE(same(generate_process(params(3000), 2, 0), generate_process(params(3000), 3, 0)));
  EXPECT_FALSE(same(generate_process(params(3000), 0, 0), generate_process(params(3000), 0, 1)));
}

TEST(GenWorkload, CountsAreExact) {
  for (int64_t ops : {1, 2, 7, 50, 999, 4000}) {
    WorkloadParams p = params(ops);
    p.apis_extra = ops / 3 + 1;
    p.markers = ops / 20 + 2;
    const ProcessTrace t = generate_process(p, 1, 0);
    EXPECT_EQ(static_cast<int64_t>(t.ops.size()), ops);
    int64_t markers = 0, extras = 0, launches = 0;
    for (const HostCall& c : t.calls) {
      if (c.api == HostApi::UserMarker) ++markers;
      else if (c.op < 0) ++extras;
      else ++launches;
    }
    EXPECT_EQ(markers, p.markers) << ops;
    EXPECT_EQ(extras, p.apis_extra) << ops;
    EXPECT_EQ(launches, ops) << ops;
  }
}

TEST(GenWorkload, OpsAndCallsLinkBothWays) {
  const ProcessTrace t = generate_process(params(5000), 0, 0);
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.ops[i];
    ASSERT_LT(op.call, t.calls.size());
    const HostCall& c = t.calls[op.call];
    EXPECT_EQ(c.op, static_cast<int32_t>(i));
    EXPECT_GE(op.end, op.start);
    EXPECT_LT(op.gpu, 4);
    EXPECT_LT(op.queue, 2);
    // The GPU cannot start before the launch call began.
    EXPECT_GT(op.start, c.start);
    if (op.kind == OpKind::Kernel) {
      ASSERT_GE(op.kernel, 0);
      EXPECT_EQ(c.api, kernel_pool()[static_cast<size_t>(op.kernel)].launch_api);
    } else {
      EXPECT_EQ(op.kernel, -1);
      EXPECT_TRUE(c.api == HostApi::HipMemcpy || c.api == HostApi::HipMemcpyAsync);
      EXPECT_GT(op.bytes, 0);
      if (c.api == HostApi::HipMemcpy) {
        EXPECT_GE(c.end, op.end) << "hipMemcpy returns after the copy";
      }
    }
  }
  for (const HostCall& c : t.calls) {
    if (c.api == HostApi::UserMarker) {
      EXPECT_EQ(c.op, -1);
      EXPECT_GE(c.marker, 0);
      EXPECT_GE(c.end, c.start);
    } else {
      EXPECT_GT(c.end, c.start) << host_api_name(c.api);
    }
  }
}

TEST(GenWorkload, HasConcurrencyTwinsAndEmptyOps) {
  const ProcessTrace t = generate_process(params(20000), 0, 0);
  // Kernels on different queues of one gpu overlap.
  std::map<int, std::vector<const Op*>> by_gpu;
  for (const Op& op : t.ops) by_gpu[op.gpu].push_back(&op);
  int overlapping = 0;
  for (auto& [gpu, ops] : by_gpu) {
    std::sort(ops.begin(), ops.end(), [](const Op* a, const Op* b) { return a->start < b->start; });
    for (size_t i = 1; i < ops.size(); ++i)
      if (ops[i]->start < ops[i - 1]->end && ops[i]->queue != ops[i - 1]->queue) ++overlapping;
  }
  EXPECT_GT(overlapping, 100);
  // Collectives: identical start and end on two gpus.
  std::set<std::pair<int64_t, int64_t>> seen;
  int twins = 0, empty = 0, copies = 0;
  for (const Op& op : t.ops) {
    if (op.end == op.start) ++empty;
    if (op.kind != OpKind::Kernel) ++copies;
    if (op.kind == OpKind::Kernel && kernel_pool()[static_cast<size_t>(op.kernel)].family == KernelFamily::Nccl &&
        !seen.insert({op.start, op.end}).second)
      ++twins;
  }
  EXPECT_GT(twins, 10);
  EXPECT_GT(empty, 5);
  EXPECT_LT(empty, 500);
  EXPECT_GT(copies, 20000 * 10 / 100);
  EXPECT_LT(copies, 20000 * 20 / 100);
}

TEST(GenWorkload, SkewedKernelFrequencies) {
  const ProcessTrace t = generate_process(params(20000), 0, 0);
  std::map<int, int> calls;
  for (const Op& op : t.ops)
    if (op.kind == OpKind::Kernel) ++calls[op.kernel];
  std::vector<int> counts;
  for (auto& [k, n] : calls) counts.push_back(n);
  std::sort(counts.rbegin(), counts.rend());
  ASSERT_GE(counts.size(), 40u);
  EXPECT_GT(counts[0], 10 * counts[counts.size() / 2]) << "a few names dominate";
}

TEST(GenWorkload, MarkerRangesNestOnTheirThread) {
  WorkloadParams p = params(5000);
  p.markers = 400;
  const ProcessTrace t = generate_process(p, 0, 0);
  std::vector<const HostCall*> ranges;
  int marks = 0;
  for (const HostCall& c : t.calls)
    if (c.api == HostApi::UserMarker) {
      if (c.end == c.start) ++marks;
      else ranges.push_back(&c);
    }
  EXPECT_GT(marks, 20);
  EXPECT_GT(ranges.size(), 200u);
  for (size_t i = 0; i < ranges.size(); ++i)
    for (size_t j = i + 1; j < ranges.size(); ++j) {
      const HostCall &a = *ranges[i], &b = *ranges[j];
      const bool disjoint = a.end <= b.start || b.end <= a.start;
      const bool nested = (a.start <= b.start && b.end <= a.end) || (b.start <= a.start && a.end <= b.end);
      ASSERT_TRUE(disjoint || nested) << i << " " << j;
    }
}

TEST(GenWorkload, ProcessIdentityAndClock) {
  std::set<int64_t> pids;
  for (int rank = 0; rank < 64; ++rank)
    for (int session = 0; session < 3; ++session) {
      WorkloadParams p = params(10);
      const ProcessTrace t = generate_process(p, rank, session);
      EXPECT_TRUE(pids.insert(t.pid).second) << rank << " " << session;
      EXPECT_EQ(t.hostname, "node" + std::to_string(rank / 2));
      EXPECT_GT(t.ops.front().start, 1'000'000'000'000'000);
      EXPECT_LT(t.ops.front().start, 1'000'200'000'000'000);
      EXPECT_LT(t.init_ns, t.calls.front().start);
      EXPECT_GT(t.fini_ns, t.ops.back().end);
    }
  // Ranks of a job overlap in time.
  const ProcessTrace a = generate_process(params(2000), 0, 0);
  const ProcessTrace b = generate_process(params(2000), 7, 0);
  EXPECT_LT(std::max(a.ops.front().start, b.ops.front().start), std::min(a.ops.back().end, b.ops.back().end));
}

TEST(GenWorkload, GraphLaunches) {
  WorkloadParams p = params(3000);
  p.graphs = true;
  const ProcessTrace t = generate_process(p, 1, 0);
  EXPECT_EQ(static_cast<int64_t>(t.ops.size()), 3000);
  ASSERT_GT(t.graphs.size(), 10u);
  size_t graph_ops = 0;
  std::set<uint32_t> execs;
  for (size_t g = 0; g < t.graphs.size(); ++g) {
    const GraphLaunch& gl = t.graphs[g];
    EXPECT_EQ(t.calls[gl.call].api, HostApi::HipGraphLaunch);
    EXPECT_EQ(t.calls[gl.call].op, static_cast<int32_t>(gl.first_op));
    execs.insert(gl.exec);
    int kernels = 0;
    for (uint32_t i = gl.first_op; i < gl.first_op + gl.op_count; ++i) {
      const Op& op = t.ops[i];
      EXPECT_EQ(op.graph, g + 1);
      EXPECT_EQ(op.call, gl.call);
      EXPECT_EQ(op.gpu, gl.gpu);
      EXPECT_EQ(op.queue, gl.queue);
      EXPECT_EQ(op.graph_node, i - gl.first_op);
      EXPECT_GE(op.start, gl.start);
      EXPECT_LE(op.end, gl.end);
      if (i > gl.first_op) {
        EXPECT_GE(op.start, t.ops[i - 1].end);
      }
      kernels += op.kind == OpKind::Kernel;
    }
    EXPECT_EQ(kernels, gl.kernel_count);
    graph_ops += gl.op_count;
  }
  EXPECT_EQ(execs.size(), 3u);
  EXPECT_EQ(graph_ops, static_cast<size_t>(std::count_if(t.ops.begin(), t.ops.end(), [](const Op& op) { return op.graph; })));
  // Off by default: the default workload has none.
  EXPECT_TRUE(generate_process(params(3000), 1, 0).graphs.empty());
}

TEST(GenWorkload, PairedFreesAndFinalCollective) {
  WorkloadParams p = params(2000);
  p.apis_extra = 800;
  p.paired_frees = true;
  p.final_collective = true;
  p.collective_end = 0;
  const ProcessTrace t = generate_process(p, 0, 0);
  EXPECT_EQ(static_cast<int64_t>(t.ops.size()), 2000);
  std::set<uint64_t> allocated;
  int paired = 0;
  for (const HostCall& c : t.calls) {
    if (c.api == HostApi::HipMalloc) allocated.insert(c.arg_ptr);
    if (c.api == HostApi::HipFree && allocated.erase(c.arg_ptr)) ++paired;
  }
  EXPECT_GT(paired, 0);
  ASSERT_EQ(t.collective_op, 1999);
  const Op& last = t.ops.back();
  EXPECT_EQ(kernel_pool()[static_cast<size_t>(last.kernel)].name, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  p.collective_end = last.start + 5'000'000;
  const ProcessTrace again = generate_process(p, 0, 0);
  EXPECT_EQ(again.ops.back().start, last.start);
  EXPECT_EQ(again.ops.back().end, p.collective_end);
  ProcessTrace shifted = again;
  apply_clock_offset(shifted, -777);
  EXPECT_EQ(shifted.clock_offset, -777);
  EXPECT_EQ(shifted.ops.back().end, p.collective_end - 777);
  EXPECT_EQ(shifted.calls.front().start, again.calls.front().start - 777);
}

}  // namespace
}  // namespace rocpd_gen
