// --steps (docs/generator.md, "Training steps"): the job's schedule of steps and collectives, and
// the truth key "steps". A rank's collective starts at the job's ready time of that collective
// (once every rank has launched it and finished the compute before it) plus its arrival jitter
// and its planted lateness, and ends, in true time, when the last rank has arrived plus the
// collective's duration (plus the rank's clock jitter in its file).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "workload.h"

namespace rocpd_gen {

// What the first pass measured of one rank (ProcessTrace::step_*_rel).
struct StepProbe {
  std::vector<int64_t> ready_rel, host_rel, compute_end_rel;
};

struct StepSchedule {
  std::vector<int64_t> step_starts;  // per step
  std::vector<int64_t> ready, ends;  // per step and collective (k * C + j), true time
};

// The schedule of a job whose ranks (by rank index) measured `probes`.
StepSchedule plan_step_schedule(const WorkloadParams& params, std::span<const StepProbe> probes);

// Per collective instance, the earliest and the latest start over every rank (true time).
struct StepInstances {
  std::vector<int64_t> first_start, last_start;
};
StepInstances step_instances(const WorkloadParams& params, int procs);

// The truth key "steps" of a file holding `ranks` (its value, a JSON object): counts, the planted
// jitter and straggler, and per file the collectives' lateness and wait summed over its ranks.
std::string step_truth_json(const WorkloadParams& params, const StepInstances& instances, std::span<const int> ranks);

}  // namespace rocpd_gen
