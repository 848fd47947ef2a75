// The canonical workload: one traced process, independent of the file format it is written in.
// Every format writer and the ground truth read this model; nothing is ever read back from files.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "host_api.h"

namespace rocpd_gen {

enum class OpKind : uint8_t { Kernel, CopyHostToDevice, CopyDeviceToHost, CopyDeviceToDevice };

// rpd's opType spelling (KernelExecution, CopyHostToDevice, ...): also the canonical name of a copy.
std::string_view rpd_op_type(OpKind kind);
// rocpd's memory copy name (MEMORY_COPY_HOST_TO_DEVICE, ...); empty for kernels.
std::string_view rocpd_copy_name(OpKind kind);

// One GPU activity.
struct Op {
  int64_t start = 0;
  int64_t end = 0;     // end == start for the few zero-length ops
  int64_t bytes = 0;   // copies only
  int32_t kernel = -1; // index into kernel_pool(); -1 for copies
  uint32_t call = 0;   // index of the HostCall that issued it
  uint16_t gpu = 0;    // canonical gpu 0..G-1 (for copies: dst for H2D/D2D, src for D2H)
  uint16_t queue = 0;  // 0..Q-1 on that gpu
  uint16_t peer_gpu = 0;  // D2D copies: the source gpu (may equal gpu)
  OpKind kind = OpKind::Kernel;
  uint16_t graph_node = 0;  // graph ops: position of the node in its graph exec
  uint32_t graph = 0;       // 1 + index into ProcessTrace::graphs for ops of a graph launch; 0 = none
};

// One hipGraphLaunch: its ops are ops[first_op .. first_op + op_count), back to back on one queue.
struct GraphLaunch {
  uint32_t call = 0;         // the hipGraphLaunch call
  uint32_t first_op = 0;
  uint16_t op_count = 0;
  uint16_t kernel_count = 0;  // kernel nodes (the others are device-to-device copies)
  uint16_t gpu = 0;
  uint16_t queue = 0;
  uint32_t exec = 0;          // which graph exec of the process (0..2): the same nodes every launch
  int64_t start = 0;          // first op start .. last op end
  int64_t end = 0;
};

// One CPU-side call: a HIP API call or a roctx marker (api == UserMarker).
struct HostCall {
  int64_t start = 0;
  int64_t end = 0;      // markers: end == start for a mark, start < end for a range
  uint64_t arg_ptr = 0; // hipMalloc/hipFree pointer
  uint64_t arg_size = 0;
  int32_t op = -1;      // index of the Op it issued; -1 for none
  int32_t marker = -1;  // index into marker_messages() for markers
  uint32_t tid = 0;
  HostApi api = HostApi::HipGetLastError;
  int16_t wait_queue = -1;  // hipStreamWaitEvent of the critical path shapes: the queue made to wait
};

struct WorkloadParams {
  uint64_t seed = 0;
  int64_t ops = 0;         // GPU ops per process
  int gpus = 4;
  int queues = 2;          // per gpu
  int64_t apis_extra = 0;  // API calls without ops per process
  int64_t markers = 0;     // markers per process
  // Options beyond the original workload; all off by default (the default workload is unchanged).
  bool graphs = false;        // some kernels (and D2D copies) launched through hipGraphLaunch
  bool paired_frees = false;  // hipFree frees the oldest live hipMalloc pointer of the process
  int nodes = 0;              // hostnames node<rank % nodes>; 0: node<rank / 2>
  bool final_collective = false;  // ops - 1 regular ops, then one collective kernel on gpu 0
  int64_t collective_end = 0;     // its end (true time); 0: start + its usual duration
  // --diagnosis 1: host stalls (every queue drains before the next launch), event waits (an op
  // starts well after its queue is free), roctx ranges on the helper thread overlapping launches.
  bool diagnosis = false;
  // --diagnosis 2: also ops that start exactly where the previous op of their queue ended, and
  // short host stalls whose next kernel starts within a few us: host waits below the kernel-wait
  // threshold. (Its own random draws: --diagnosis 1 is unchanged.)
  bool edge_cases = false;
  // --steps N (docs/generator.md, "Training steps"): N ProfilerStep#k ranges, each running compute
  // ops and `step_collectives` collectives on gpu 0's last queue, matched across every rank.
  int steps = 0;
  int step_collectives = 0;
  int64_t collective_jitter = 0;  // arrivals within [0, J] of the schedule, ends within [-J, J]
  int straggler_rank = -1;        // this rank arrives straggler_delay ns late in odd steps
  int64_t straggler_delay = 0;
  int straggler_pct = 50;         // in this share of the steps, spread evenly (50: the odd ones)
  // The job's schedule in true time (second pass; empty in the first): per step its start, per
  // step and collective (k * C + j) when every rank is ready and when the collective ends.
  std::vector<int64_t> step_starts;
  std::vector<int64_t> collective_ready;
  std::vector<int64_t> collective_ends;
};

// One traced process. Its calls are in id order: call i has id i + 1 (rpd api id, rocpd
// correlation id). Its ops are in issue order: op i has id i + 1.
struct ProcessTrace {
  int rank = 0;
  int session = 0;
  int64_t pid = 0;
  int64_t ppid = 0;
  uint32_t main_tid = 0;
  uint32_t helper_tid = 0;
  std::string hostname;
  int node = 0;            // hostname = node<node>
  int gpus = 0;
  int queues = 0;
  int64_t init_ns = 0;  // process start/end (CLOCK_MONOTONIC-like)
  int64_t fini_ns = 0;
  std::vector<Op> ops;
  std::vector<HostCall> calls;
  std::vector<GraphLaunch> graphs;
  int64_t clock_offset = 0;     // added to every timestamp by apply_clock_offset
  int32_t collective_op = -1;   // the final collective op (WorkloadParams::final_collective)
  // --diagnosis only (empty otherwise): per op, the marker ranges open on the main thread when its
  // launch call was made, outermost first (call indices), recorded as the workload is built.
  std::vector<std::vector<uint32_t>> op_stacks;
  int64_t host_stalls = 0;   // --diagnosis: stalls emitted
  int64_t event_waits = 0;   // --diagnosis: ops delayed after their queue was free
  // --steps: per step and collective, when this rank was ready relative to the job's step start
  // (its launch made, its segment's compute done); per step, the host's and the compute queues'
  // progress relative to it before the step's closing sync. The first pass reads them.
  std::vector<int64_t> step_ready_rel;
  std::vector<int64_t> step_host_rel;
  std::vector<int64_t> step_compute_end_rel;
};

// The pool index of the final collective's kernel (ncclDevKernel_AllReduce_Sum_f32_RING_LL).
size_t collective_kernel();

// --steps: the pure functions every rank and the job's schedule agree on (docs/generator.md).
// The pool index of collective j of a step, and its duration in step k (the same on every rank).
size_t step_collective_kernel(int j);
int64_t step_collective_duration(const WorkloadParams& params, int step, int j);
// Rank `rank`'s arrival after the schedule ([0, J]) and its clock's error on the end ([-J, J]).
int64_t step_arrival_jitter(const WorkloadParams& params, int rank, int step, int j);
int64_t step_end_jitter(const WorkloadParams& params, int rank, int step, int j);
// The planted lateness of `rank` in `step`: straggler_delay for the straggler in straggler_pct % of
// the steps, spread evenly (step k when (k + 1) * pct / 100 passes an integer: 50 gives the odd
// steps), else 0.
int64_t step_straggle(const WorkloadParams& params, int rank, int step);
// The marker index of "ProfilerStep#k" (marker_message(step_marker(k)) names it).
int step_marker(int step);
// The job's first step start (true time): after every rank's process start.
int64_t step_first_start(const WorkloadParams& params);
constexpr int kMaxSteps = 10'000;

// Shifts every timestamp of the process by offset ns (a host clock that is off by offset).
void apply_clock_offset(ProcessTrace& trace, int64_t offset);

// Runtime handles (pointers) of a graph exec and of its nodes.
uint64_t graph_exec_handle(const ProcessTrace& trace, uint32_t exec);
uint64_t graph_node_handle(const ProcessTrace& trace, uint32_t exec, uint16_t node);

// The process of (rank, session): a pure function of its arguments.
ProcessTrace generate_process(const WorkloadParams& params, int rank, int session);

// How a marker call was made. A mark (roctxMarkA) has start == end; ranges are push/pop
// (roctxRangePushA/Pop, a thread range) or start/stop (roctxRangeStartA/Stop, a process range).
// The range kind is a pure function of the process and call index, so every format agrees.
enum class MarkerKind : uint8_t { Mark, ThreadRange, ProcessRange };
MarkerKind marker_kind(const ProcessTrace& trace, size_t call_index);
// rocprofv3's region name of a range: "roctxThreadRangeA" / "roctxProcessRangeA" (empty for marks).
std::string_view roctx_region_name(MarkerKind kind);

// Marker texts (roctx messages) used by the generator.
std::string_view marker_message(int index);
int marker_message_count();

// Launch geometry of kernel op `op_index` of a process (pure function, so every format agrees).
struct LaunchDims {
  uint32_t grid_x, grid_y, grid_z;
  uint32_t workgroup_x, workgroup_y, workgroup_z;
  uint32_t group_segment, private_segment;
};
LaunchDims launch_dims(const ProcessTrace& trace, size_t op_index);

// Device pointer values for copies and allocations (pure functions of their inputs).
uint64_t device_pointer(int64_t pid, uint64_t salt);
uint64_t host_pointer(int64_t pid, uint64_t salt);

}  // namespace rocpd_gen
