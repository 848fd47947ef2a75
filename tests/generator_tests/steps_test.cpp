// --steps (docs/generator.md, "Training steps"): the step workload, its schedule across ranks, and
// its command line.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "kernel_pool.h"
#include "options.h"
#include "step_schedule.h"
#include "workload.h"

namespace rocpd_gen {
namespace {

WorkloadParams step_params(int steps, int per) {
  WorkloadParams p;
  p.seed = 9;
  p.ops = 600;
  p.gpus = 2;
  p.queues = 2;
  p.apis_extra = 100;
  p.markers = 30;
  p.steps = steps;
  p.step_collectives = per;
  p.collective_jitter = 1'000;
  p.straggler_rank = 2;
  p.straggler_delay = 200'000;
  return p;
}

// Both passes, as rocpd_gen runs them: the schedule from every rank's first pass.
std::vector<ProcessTrace> scheduled_job(WorkloadParams& p, int procs) {
  std::vector<StepProbe> probes;
  for (int r = 0; r < procs; ++r) {
    ProcessTrace t = generate_process(p, r, 0);
    probes.push_back({t.step_ready_rel, t.step_host_rel, t.step_compute_end_rel});
  }
  StepSchedule s = plan_step_schedule(p, probes);
  p.step_starts = s.step_starts;
  p.collective_ready = s.ready;
  p.collective_ends = s.ends;
  std::vector<ProcessTrace> out;
  for (int r = 0; r < procs; ++r) out.push_back(generate_process(p, r, 0));
  return out;
}

bool is_collective_name(std::string_view name) {
  return name.find("nccl") != std::string_view::npos || name.find("cross_device_reduce") != std::string_view::npos;
}

TEST(GenSteps, RangesCollectivesAndSchedule) {
  WorkloadParams p = step_params(5, 3);
  const int procs = 4;
  const auto job = scheduled_job(p, procs);
  const auto pool = kernel_pool();
  for (const ProcessTrace& t : job) {
    EXPECT_EQ(static_cast<int64_t>(t.ops.size()), p.ops);
    // One ProfilerStep#k range per step, in order, each enclosing its collectives.
    std::vector<const HostCall*> steps;
    for (const HostCall& c : t.calls)
      if (c.api == HostApi::UserMarker && marker_message(c.marker).starts_with("ProfilerStep#")) steps.push_back(&c);
    ASSERT_EQ(steps.size(), 5u);
    std::vector<const Op*> collectives;
    for (const Op& op : t.ops)
      if (op.kind == OpKind::Kernel && is_collective_name(pool[static_cast<size_t>(op.kernel)].name)) collectives.push_back(&op);
    ASSERT_EQ(collectives.size(), 15u);
    for (int k = 0; k < 5; ++k) {
      EXPECT_EQ(marker_message(steps[k]->marker), "ProfilerStep#" + std::to_string(k));
      EXPECT_GT(steps[k]->end, steps[k]->start);
      if (k > 0) {
        EXPECT_GT(steps[k]->start, steps[k - 1]->end);
      }
      for (int j = 0; j < 3; ++j) {
        const Op& c = *collectives[static_cast<size_t>(k * 3 + j)];
        const size_t at = static_cast<size_t>(k) * 3 + j;
        EXPECT_EQ(c.gpu, 0);
        EXPECT_EQ(c.queue, 1);  // the last queue
        EXPECT_EQ(static_cast<size_t>(c.kernel), step_collective_kernel(j));
        EXPECT_EQ(c.start, p.collective_ready[at] + step_arrival_jitter(p, t.rank, k, j) + step_straggle(p, t.rank, k));
        EXPECT_EQ(c.end, p.collective_ends[at] + step_end_jitter(p, t.rank, k, j));
        EXPECT_LT(c.start, c.end);
        EXPECT_GE(c.start, steps[k]->start);
        EXPECT_LE(c.end, steps[k]->end);
        EXPECT_GE(c.start, t.calls[c.call].start);  // launched before it starts
      }
    }
    // Compute ops never run on the collectives' queue.
    for (const Op& op : t.ops)
      if (!(op.kind == OpKind::Kernel && is_collective_name(pool[static_cast<size_t>(op.kernel)].name))) {
        EXPECT_EQ(op.queue, 0);
      }
  }
  // The end is the last arrival plus the duration, the same for every rank (before clock jitter).
  for (int k = 0; k < 5; ++k)
    for (int j = 0; j < 3; ++j) {
      const size_t at = static_cast<size_t>(k) * 3 + j;
      int64_t last = 0;
      for (int r = 0; r < procs; ++r)
        last = std::max(last, p.collective_ready[at] + step_arrival_jitter(p, r, k, j) + step_straggle(p, r, k));
      EXPECT_EQ(p.collective_ends[at], last + step_collective_duration(p, k, j));
    }
  EXPECT_EQ(step_straggle(p, 2, 1), 200'000);
  EXPECT_EQ(step_straggle(p, 2, 2), 0);
  EXPECT_EQ(step_straggle(p, 1, 1), 0);
  for (int r = 0; r < procs; ++r)
    for (int k = 0; k < 5; ++k) {
      EXPECT_LE(step_arrival_jitter(p, r, k, 0), 1'000);
      EXPECT_GE(step_arrival_jitter(p, r, k, 0), 0);
      EXPECT_LE(std::abs(step_end_jitter(p, r, k, 1)), 1'000);
    }
}

TEST(GenSteps, TruthFromTheSchedule) {
  WorkloadParams p = step_params(4, 2);
  const auto job = scheduled_job(p, 3);
  const StepInstances inst = step_instances(p, 3);
  const std::vector<int> straggler = {2};
  const std::string json = step_truth_json(p, inst, straggler);
  EXPECT_NE(json.find("\"straggled_steps\":[1,3]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"collectives\":8"), std::string::npos) << json;
  const std::vector<int> other = {0};
  EXPECT_NE(step_truth_json(p, inst, other).find("\"straggled_steps\":[]"), std::string::npos);
}

std::string error_of(std::initializer_list<std::string_view> args) {
  try {
    parse_options(std::vector<std::string_view>(args));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(GenSteps, Options) {
  const Options o = parse_options({"--out", "d", "--procs", "8", "--format", "rpd3", "--ops", "500", "--seed", "1",
                                   "--steps", "6", "--straggler", "5:300000", "--collective-jitter", "500"});
  EXPECT_EQ(o.steps, 6);
  EXPECT_EQ(o.step_collectives, 4);
  EXPECT_EQ(o.straggler_rank, 5);
  EXPECT_EQ(o.straggler_delay, 300000);
  EXPECT_EQ(o.collective_jitter, 500);
  EXPECT_EQ(error_of({"--out", "d", "--procs", "4", "--format", "rpd3", "--ops", "100", "--seed", "1", "--straggler", "1:5"}),
            "options --step-collectives, --collective-jitter and --straggler need --steps");
  EXPECT_EQ(error_of({"--out", "d", "--procs", "4", "--format", "rpd3", "--ops", "100", "--seed", "1", "--steps", "3",
                      "--queues", "1"}),
            "option --steps needs --queues 2 or more (the last queue of gpu 0 runs the collectives)");
  EXPECT_EQ(error_of({"--out", "d", "--procs", "4", "--format", "rpd3", "--ops", "100", "--seed", "1", "--steps", "30"}),
            "option --steps 30 with 4 collectives per step needs --ops 150 or more");
  EXPECT_EQ(error_of({"--out", "d", "--procs", "4", "--format", "rpd3", "--ops", "100", "--seed", "1", "--steps", "3",
                      "--straggler", "4:10"}),
            "option --straggler names rank 4, but there are 4 ranks");
  EXPECT_EQ(error_of({"--out", "d", "--procs", "4", "--format", "rpd3", "--ops", "100", "--seed", "1", "--steps", "3",
                      "--straggler", "x"}),
            "option --straggler expects RANK:NS[:PCT], got 'x'");
  EXPECT_EQ(error_of({"--out", "d", "--procs", "4", "--format", "rpd3", "--ops", "100", "--seed", "1", "--steps", "3",
                      "--diagnosis", "1"}),
            "option --steps does not combine with --diagnosis 1");
  EXPECT_EQ(error_of({"--out", "d", "--procs", "4", "--format", "rpd3", "--ops", "100", "--seed", "1", "--steps", "3",
                      "--sessions", "2"}),
            "option --steps does not combine with --sessions (one process per rank)");
  EXPECT_EQ(error_of({"--out", "d", "--procs", "4", "--format", "rpd3", "--ops", "100", "--seed", "1", "--steps", "3",
                      "--collective-jitter", "20001"}),
            "option --collective-jitter must be between 0 and 20000, got 20001");
}

}  // namespace
}  // namespace rocpd_gen
