#include "step_schedule.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

namespace rocpd_gen {
namespace {

// The comm queue frees 0.5-3 us after an op's end (add_op), the closing sync returns 2-8 us after
// the last queue is free and closing the ranges costs a few us more: a step starts this long after
// the last of them, plus the pause between steps (the data loader).
constexpr int64_t kQueueSlack = 3'000;
constexpr int64_t kStepSlack = 100'000;
constexpr int64_t kStepPause = 300'000;

int64_t arrival(const WorkloadParams& p, int rank, int step, int j) {
  return step_arrival_jitter(p, rank, step, j) + step_straggle(p, rank, step);
}

}  // namespace

StepSchedule plan_step_schedule(const WorkloadParams& p, std::span<const StepProbe> probes) {
  const int steps = p.steps, per = p.step_collectives;
  const int procs = static_cast<int>(probes.size());
  StepSchedule s;
  s.step_starts.resize(static_cast<size_t>(steps));
  s.ready.resize(static_cast<size_t>(steps) * per);
  s.ends.resize(s.ready.size());
  int64_t start = step_first_start(p);
  for (int k = 0; k < steps; ++k) {
    s.step_starts[static_cast<size_t>(k)] = start;
    for (int j = 0; j < per; ++j) {
      const size_t at = static_cast<size_t>(k) * per + j;
      int64_t ready = std::numeric_limits<int64_t>::min(), latest = 0;
      for (int r = 0; r < procs; ++r) {
        ready = std::max(ready, start + probes[static_cast<size_t>(r)].ready_rel[at]);
        latest = std::max(latest, arrival(p, r, k, j));
      }
      // Collectives of one queue run one after the other.
      if (j > 0) ready = std::max(ready, s.ends[at - 1] + p.collective_jitter + kQueueSlack);
      s.ready[at] = ready;
      s.ends[at] = ready + latest + step_collective_duration(p, k, j);
    }
    int64_t host = 0, compute = 0;
    for (const StepProbe& probe : probes) {
      host = std::max(host, probe.host_rel[static_cast<size_t>(k)]);
      compute = std::max(compute, probe.compute_end_rel[static_cast<size_t>(k)]);
    }
    const int64_t last_end = s.ends[static_cast<size_t>(k) * per + per - 1] + p.collective_jitter + kQueueSlack;
    start = std::max({start + host + 3 * kQueueSlack, last_end + kQueueSlack, start + compute + kQueueSlack}) +
            kStepSlack + kStepPause;
  }
  return s;
}

StepInstances step_instances(const WorkloadParams& p, int procs) {
  StepInstances out;
  const size_t n = static_cast<size_t>(p.steps) * p.step_collectives;
  out.first_start.assign(n, std::numeric_limits<int64_t>::max());
  out.last_start.assign(n, std::numeric_limits<int64_t>::min());
  for (int k = 0; k < p.steps; ++k)
    for (int j = 0; j < p.step_collectives; ++j) {
      const size_t at = static_cast<size_t>(k) * p.step_collectives + j;
      for (int r = 0; r < procs; ++r) {
        const int64_t start = p.collective_ready[at] + arrival(p, r, k, j);
        out.first_start[at] = std::min(out.first_start[at], start);
        out.last_start[at] = std::max(out.last_start[at], start);
      }
    }
  return out;
}

std::string step_truth_json(const WorkloadParams& p, const StepInstances& inst, std::span<const int> ranks) {
  int64_t collectives = 0, late = 0, wait = 0, last = 0;
  std::vector<std::string> straggled;
  for (int rank : ranks)
    for (int k = 0; k < p.steps; ++k) {
      if (step_straggle(p, rank, k) > 0) straggled.push_back(std::to_string(k));
      for (int j = 0; j < p.step_collectives; ++j) {
        const size_t at = static_cast<size_t>(k) * p.step_collectives + j;
        const int64_t start = p.collective_ready[at] + arrival(p, rank, k, j);
        ++collectives;
        late += start - inst.first_start[at];
        wait += inst.last_start[at] - start;
        if (start == inst.last_start[at]) ++last;
      }
    }
  return fmt::format(
      "{{\"count\":{},\"collectives_per_step\":{},\"jitter_ns\":{},\"straggler_rank\":{},\"straggler_delay_ns\":{},"
      "\"straggled_steps\":[{}],\"collectives\":{},\"late_ns\":{},\"wait_ns\":{},\"times_last\":{}}}",
      p.steps, p.step_collectives, p.collective_jitter, p.straggler_rank, p.straggler_delay,
      fmt::join(straggled, ","), collectives, late, wait, last);
}

}  // namespace rocpd_gen
