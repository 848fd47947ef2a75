// --critical-path SHAPE (docs/generator.md, "Critical path shapes"): processes whose steps have a
// critical path known by construction, for rocpd_critical_path and rocpd_what_if
// (docs/critical_path.md). Each rank runs --steps ProfilerStep#k ranges on its main thread:
//
//   cpu     every kernel is short and launched after a long CPU operator: the path runs through the
//           operators and launch calls, the GPU idles;
//   gpu     long kernels launched back to back: the path is the kernels and the gaps between them;
//   sync    a GPU-bound half, a hipStreamSynchronize in the middle of the step, a CPU-bound half;
//   loader  every rank loads data (DataLoader.__next__), computes, and all-reduces; one rank's loader
//           is slow (--loader RANK:NS), so every other rank waits in the all-reduce for it;
//   queue   GEMMs launched into a queue of --queue-depth slots: a launch finding them all taken
//           blocks until the oldest op ends (launch back-pressure); the step is GPU-bound;
//   event, event_untraced
//           GEMMs on queue 0, then an all-reduce on queue 1 made to wait for them by an event
//           (hipEventRecord + hipStreamWaitEvent in the trace, or not: the same timeline without
//           those two calls);
//   copy    GEMMs, then a synchronous hipMemcpy whose copy waits for them, then CPU work;
//   hostbound  CPU-bound with calls that are slow while the GPU idles and a kernel that starts
//           late with no op ending near it: no wait may be inferred from the timing.
//
// The truth (per file and step: the time the job's path spends on this rank by kind and by name)
// comes from closed formulas over the shape's constants, not from the timeline written.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "workload.h"

namespace rocpd_gen {

struct ShapeParams {
  std::string shape;  // cpu | gpu | sync | loader | queue | event | event_untraced | copy | hostbound
  uint64_t seed = 0;
  int procs = 1;
  int steps = 1;
  int64_t ops = 0;           // per process, split over the steps
  int loader_rank = -1;      // loader: the slow rank
  int64_t loader_ns = 0;     // loader: its data loader's duration
  int queue_depth = 8;       // queue: ops in flight before a launch blocks
  int64_t gemm_ns = 200'000; // queue, event, event_untraced, copy: a GEMM's duration
};

// Whether `shape` is one of the shapes above.
bool known_shape(std::string_view shape);

// The process of `rank` (all ranks share one clock: no skew).
ProcessTrace shape_process(const ShapeParams& params, int rank);

// The truth key "critical_path" of `rank`'s file (a JSON object).
std::string shape_truth_json(const ShapeParams& params, int rank);

}  // namespace rocpd_gen
