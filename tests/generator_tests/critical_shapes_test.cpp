// --critical-path shapes that wait for the GPU (docs/generator.md, "Critical path shapes"): the
// timelines written are checked here for the properties the shapes promise, from the ops and calls
// themselves (not from the formulas the truth uses).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "critical_shapes.h"
#include "host_api.h"
#include "kernel_pool.h"
#include "options.h"
#include "workload.h"

namespace rocpd_gen {
namespace {

ShapeParams shape(const std::string& name, int64_t per_step = 64) {
  ShapeParams p;
  p.shape = name;
  p.seed = 7;
  p.procs = 1;
  p.steps = 3;
  p.ops = per_step * p.steps;
  return p;
}

bool is_launch(const HostCall& c) { return c.api == HostApi::HipLaunchKernel; }
std::string kernel_name(const Op& o) { return o.kernel < 0 ? "" : std::string(kernel_pool()[static_cast<size_t>(o.kernel)].name); }

// The ProfilerStep ranges, in order.
std::vector<HostCall> steps_of(const ProcessTrace& t) {
  std::vector<HostCall> out;
  for (const HostCall& c : t.calls)
    if (c.api == HostApi::UserMarker && marker_message(c.marker).starts_with("ProfilerStep#")) out.push_back(c);
  return out;
}

int64_t truth_int(const std::string& json, const std::string& key) {
  const size_t at = json.find("\"" + key + "\":");
  EXPECT_NE(at, std::string::npos) << key;
  return std::stoll(json.substr(at + key.size() + 3));
}

TEST(GenCriticalShapes, QueueLaunchesBlockOnAFullQueue) {
  for (int depth : {2, 8}) {
    ShapeParams p = shape("queue");
    p.queue_depth = depth;
    const ProcessTrace t = shape_process(p, 0);
    int64_t blocked = 0;
    for (const HostCall& c : t.calls) {
      if (!is_launch(c)) continue;
      // The ops in flight when the call started: launched before it, not ended yet.
      std::vector<int64_t> in_flight;
      for (const Op& o : t.ops)
        if (t.calls[o.call].start < c.start && o.end > c.start) in_flight.push_back(o.end);
      const bool full = static_cast<int>(in_flight.size()) >= depth;
      // The last launch of a step returns before the optimizer step, whose end no GEMM outlasts.
      EXPECT_EQ(c.end - c.start > 5'000, full) << "a launch blocks exactly when the queue is full";
      if (full) {
        ++blocked;
        // It returns 3 us after the oldest op in flight ends.
        EXPECT_EQ(c.end, *std::min_element(in_flight.begin(), in_flight.end()) + 3'000);
      }
    }
    EXPECT_EQ(blocked, 3 * (64 - depth));
    // The optimizer step that follows the last launch outlasts the GEMMs: the synchronize waits for none.
    for (const HostCall& c : t.calls) {
      if (c.api != HostApi::HipDeviceSynchronize) continue;
      for (const Op& o : t.ops) EXPECT_FALSE(o.end > c.start && o.end <= c.end);
    }
    EXPECT_EQ(truth_int(shape_truth_json(p, 0), "blocked_launches"), 64 - depth);
    // The queue runs its ops one after the other.
    for (size_t i = 1; i < t.ops.size(); ++i) EXPECT_GE(t.ops[i].start, t.ops[i - 1].end);
    const auto steps = steps_of(t);
    ASSERT_EQ(steps.size(), 3u);
    EXPECT_EQ(steps[0].end - steps[0].start, truth_int(shape_truth_json(p, 0), "step_ns"));
  }
}

TEST(GenCriticalShapes, EventWaitsForTheGemmsOnAnotherQueue) {
  for (const char* name : {"event", "event_untraced"}) {
    const ShapeParams p = shape(name, 16);
    const ProcessTrace t = shape_process(p, 0);
    int records = 0, waits = 0;
    for (const HostCall& c : t.calls) {
      records += c.api == HostApi::HipEventRecord;
      waits += c.api == HostApi::HipStreamWaitEvent;
    }
    EXPECT_EQ(records, std::string(name) == "event" ? 3 : 0);
    EXPECT_EQ(waits, records);
    for (const Op& o : t.ops) {
      if (o.queue != 1) continue;
      EXPECT_TRUE(kernel_name(o).starts_with("ncclDevKernel_AllReduce"));
      // It starts well after its launch returned, 2 us after the last GEMM of queue 0 ends.
      int64_t last = 0;
      for (const Op& g : t.ops)
        if (g.queue == 0 && g.end <= o.start) last = std::max(last, g.end);
      EXPECT_EQ(o.start, last + 2'000);
      EXPECT_GT(o.start - t.calls[o.call].end, 1'000'000);
    }
    EXPECT_EQ(truth_int(shape_truth_json(p, 0), "stream_waits"), 1);
  }
  // The two variants differ only by the two calls.
  const ProcessTrace a = shape_process(shape("event", 16), 0), b = shape_process(shape("event_untraced", 16), 0);
  ASSERT_EQ(a.ops.size(), b.ops.size());
  for (size_t i = 0; i < a.ops.size(); ++i) {
    EXPECT_EQ(a.ops[i].start, b.ops[i].start);
    EXPECT_EQ(a.ops[i].end, b.ops[i].end);
  }
}

TEST(GenCriticalShapes, CopyIsSynchronous) {
  const ProcessTrace t = shape_process(shape("copy", 8), 0);
  int copies = 0;
  for (const Op& o : t.ops) {
    if (o.kind != OpKind::CopyDeviceToHost) continue;
    ++copies;
    const HostCall& c = t.calls[o.call];
    EXPECT_EQ(c.api, HostApi::HipMemcpy);
    EXPECT_EQ(c.end, o.end + 2'000);  // returns after its copy
    for (const Op& g : t.ops) {
      if (g.queue == o.queue && g.start < o.start) {
        EXPECT_LE(g.end + 2'000, o.start);
      }
    }
  }
  EXPECT_EQ(copies, 3);
}

TEST(GenCriticalShapes, HostboundLeavesNoWaitToInfer) {
  const ProcessTrace t = shape_process(shape("hostbound", 10), 0);
  int slow = 0;
  for (const HostCall& c : t.calls) {
    if (c.api == HostApi::UserMarker || c.api == HostApi::HipDeviceSynchronize) continue;
    slow += c.end - c.start > 100'000;
    // No call returns within 50 us after an op ends.
    for (const Op& o : t.ops) EXPECT_FALSE(o.end <= c.end && c.end - o.end <= 50'000) << "a call returns near an op's end";
  }
  EXPECT_EQ(slow, 3 * 3);  // items 2, 5 and 8 of each step
  // The late kernel starts 60 us after its launch, no op of its device ending within 50 us before.
  for (const Op& o : t.ops) {
    if (o.queue != 1) continue;
    EXPECT_EQ(o.start - t.calls[o.call].end, 60'000);
    for (const Op& g : t.ops) EXPECT_FALSE(g.end <= o.start && o.start - g.end <= 50'000);
  }
}

TEST(GenCriticalShapes, Options) {
  auto parse = [](std::vector<std::string_view> extra) {
    std::vector<std::string_view> args = {"--out", "x", "--procs", "1", "--format", "rpd3", "--ops", "64", "--seed", "1",
                                          "--steps", "2"};
    args.insert(args.end(), extra.begin(), extra.end());
    return parse_options(args);
  };
  const Options o = parse({"--critical-path", "queue", "--queue-depth", "4", "--gemm", "100000"});
  EXPECT_EQ(o.queue_depth, 4);
  EXPECT_EQ(o.gemm_ns, 100'000);
  EXPECT_EQ(parse({"--critical-path", "copy"}).gemm_ns, 200'000);
  auto error = [&](std::vector<std::string_view> extra) {
    try {
      parse(extra);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error({"--critical-path", "gpu", "--queue-depth", "4"}), "option --queue-depth needs --critical-path queue");
  EXPECT_EQ(error({"--critical-path", "cpu", "--gemm", "100000"}),
            "option --gemm needs --critical-path queue, event, event_untraced or copy");
  EXPECT_EQ(error({"--critical-path", "queue", "--queue-depth", "64", "--gemm", "100000"}),
            "option --gemm with --queue-depth 64 must be at least 384000 (the launches must fill the queue before the "
            "first GEMM ends)");
  EXPECT_EQ(error({"--critical-path", "queue", "--queue-depth", "8", "--gemm", "600000"}),
            "option --gemm with --queue-depth 8 must be at most 498000 (the GEMMs queued behind the last launch must "
            "end within the 4 ms optimizer step)");
  EXPECT_EQ(error({"--critical-path", "queue", "--queue-depth", "32", "--gemm", "100000"}),
            "option --gemm with --queue-depth 32 must be at least 192000 (the launches must fill the queue before the "
            "first GEMM ends)");
  EXPECT_NE(error({"--critical-path", "queue", "--queue-depth", "1"}).find("--queue-depth"), std::string::npos);
  EXPECT_NE(error({"--critical-path", "disk"}).find("queue, event, event_untraced, copy or hostbound"), std::string::npos);
}

}  // namespace
}  // namespace rocpd_gen
