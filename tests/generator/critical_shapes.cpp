#include "critical_shapes.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "kernel_pool.h"
#include "random.h"

namespace rocpd_gen {
namespace {

// The shapes' constants (ns): one table, read by the timeline and by the truth's formulas.
constexpr int64_t kLead = 5'000;          // step start -> first item
constexpr int64_t kOpGap = 1'000;         // operator end -> its launch call
constexpr int64_t kNextGap = 2'000;       // launch call end -> next item
constexpr int64_t kLaunch = 5'000;        // a launch call
constexpr int64_t kLatency = 3'000;       // launch call end -> its kernel's start (empty queue)
constexpr int64_t kDispatch = 2'000;      // kernel end -> the next queued kernel's start
constexpr int64_t kSyncReturn = 2'000;    // the waited op's end -> the synchronize call's return
constexpr int64_t kTail = 1'000;          // synchronize return -> step end
constexpr int64_t kPause = 100'000;       // step end -> next step start
constexpr int64_t kCpuOperator = 200'000; // cpu, sync: the operator before each launch
constexpr int64_t kShortKernel = 20'000;  // cpu, sync, loader: the kernels that keep the GPU idle
constexpr int64_t kLongKernel = 300'000;  // gpu, sync: back-to-back kernels
constexpr int64_t kLoaderOperator = 50'000;  // loader: the operator before each GEMM launch
constexpr int64_t kOtherLoader = 100'000;    // loader: every other rank's data loader
constexpr int64_t kAllReduce = 100'000;      // loader: the all-reduce once every rank has arrived
constexpr int64_t kRankTail = 10;            // loader: rank r's synchronize returns r x this later
constexpr int64_t kSlotReturn = 3'000;       // queue: a blocked launch returns this long after its slot frees
constexpr int64_t kQueueTail = 4'000'000;    // queue: the optimizer.step range after the last launch
constexpr int64_t kEventCall = 2'000;        // event: hipEventRecord and hipStreamWaitEvent each
constexpr int64_t kCopy = 50'000;            // copy: the synchronous copy
constexpr int64_t kLateStart = 60'000;       // hostbound: a kernel starts this long after its launch returns
constexpr int64_t kSlowMalloc = 150'000;     // hostbound: every third hipMalloc (the others take kLaunch)

constexpr int kStepMarkerOperator = 8;    // "aten::addmm" (workload.cpp's marker messages)
constexpr int kStepMarkerLoader = 4;      // "DataLoader.__next__"
constexpr int kStepMarkerOptimizer = 3;   // "optimizer.step"

size_t pool_index(std::string_view prefix) {
  const auto pool = kernel_pool();
  for (size_t k = 0; k < pool.size(); ++k)
    if (pool[k].name.starts_with(prefix)) return k;
  throw std::logic_error(fmt::format("kernel pool has no '{}'", prefix));
}

int64_t per_step(const ShapeParams& p) { return p.ops / p.steps; }
bool gemm_shape(const ShapeParams& p) { return p.shape == "queue" || p.shape.starts_with("event") || p.shape == "copy"; }
// hostbound: whether item i's hipMalloc is slow, and the items' hipMalloc time in a step.
bool slow_malloc(int64_t i) { return i % 3 == 2; }
int64_t malloc_ns(int64_t items) {
  const int64_t slow = items / 3;  // i = 2, 5, 8, ... below items
  return slow * kSlowMalloc + (items - slow) * kLaunch;
}
int64_t loader_of(const ShapeParams& p, int rank) { return rank == p.loader_rank ? p.loader_ns : kOtherLoader; }

// One step's length on `rank` from its start to its end, by formula.
int64_t step_length(const ShapeParams& p, int rank) {
  const int64_t m = per_step(p);
  if (p.shape == "cpu")
    return kLead + m * (kCpuOperator + kOpGap + kLaunch) + (m - 1) * kNextGap + kLatency + kShortKernel + kSyncReturn + kTail;
  if (p.shape == "gpu") return kLead + kLaunch + kLatency + m * kLongKernel + (m - 1) * kDispatch + kSyncReturn + kTail;
  const int64_t g = p.gemm_ns;
  if (p.shape == "queue") {
    // The path leaves the GPU through the last launch, released by GEMM m - 1 - depth.
    const int64_t m1 = m - p.queue_depth;
    return kLead + kLaunch + kLatency + m1 * g + (m1 - 1) * kDispatch + kSlotReturn + 2 * kOpGap + kQueueTail +
           kSyncReturn + kTail;
  }
  if (p.shape.starts_with("event"))
    return kLead + kLaunch + kLatency + (m - 1) * g + (m - 1) * kDispatch + kAllReduce + kSyncReturn + kTail;
  if (p.shape == "copy")
    return kLead + kLaunch + kLatency + (m - 1) * g + (m - 1) * kDispatch + kCopy + kSyncReturn + kNextGap + kCpuOperator +
           kOpGap + kLaunch + kLatency + kShortKernel + kSyncReturn + kTail;
  if (p.shape == "hostbound")
    return kLead + kLaunch + kNextGap + (m - 1) * (kCpuOperator + 2 * kOpGap + kLaunch) + malloc_ns(m - 1) +
           (m - 2) * kNextGap + kLatency + kShortKernel + kSyncReturn + kTail;
  if (p.shape == "sync") {
    const int64_t m1 = std::max<int64_t>(1, m / 2), m2 = m - m1;
    return kLead + kLaunch + kLatency + m1 * kLongKernel + (m1 - 1) * kDispatch + kSyncReturn + kNextGap +
           m2 * (kCpuOperator + kOpGap + kLaunch) + (m2 - 1) * kNextGap + kLatency + kShortKernel + kSyncReturn + kTail;
  }
  // loader: every rank's all-reduce ends when the slowest loader's rank arrives.
  const int64_t compute = m - 1;
  const int64_t slowest = std::max(p.loader_ns, kOtherLoader);
  return kLead + slowest + kNextGap + compute * (kLoaderOperator + kOpGap + kLaunch + kNextGap) + kLaunch + kLatency +
         kAllReduce + kSyncReturn + kRankTail * rank + kTail;
}

// queue: launches that find every slot taken. Launch `depth` starts before the first GEMM ends
// (options.cpp asks gemm_ns >= depth x (kLaunch + kOpGap)), and from there on each launch starts
// kSlotReturn + kOpGap after a GEMM ends, before the next one ends: all but the first `depth` block.
int64_t blocked_launches(const ShapeParams& p) {
  return p.shape == "queue" ? std::max<int64_t>(0, per_step(p) - p.queue_depth) : 0;
}

int64_t job_step_length(const ShapeParams& p) {
  int64_t most = 0;
  for (int r = 0; r < p.procs; ++r) most = std::max(most, step_length(p, r));
  return most;
}

int64_t first_start(const ShapeParams& p) { return 1'000'000'000'000'000 + static_cast<int64_t>(mix64(p.seed) % 100'000'000'000ULL); }

class Writer {
 public:
  Writer(ProcessTrace& t) : t_(t) {}
  uint32_t call(HostApi api, int64_t start, int64_t end, int marker = -1) {
    HostCall c;
    c.api = api;
    c.start = start;
    c.end = end;
    c.marker = marker;
    c.tid = t_.main_tid;
    t_.calls.push_back(c);
    return static_cast<uint32_t>(t_.calls.size() - 1);
  }
  void op(uint32_t call, size_t kernel, int64_t start, int64_t end, uint16_t queue) {
    Op o;
    o.start = start;
    o.end = end;
    o.kernel = static_cast<int32_t>(kernel);
    o.call = call;
    o.gpu = 0;
    o.queue = queue;
    t_.ops.push_back(o);
    t_.calls[call].op = static_cast<int32_t>(t_.ops.size() - 1);
  }
  void copy(uint32_t call, int64_t start, int64_t end, uint16_t queue) {
    Op o;
    o.start = start;
    o.end = end;
    o.kind = OpKind::CopyDeviceToHost;
    o.bytes = 1 << 20;
    o.call = call;
    o.gpu = 0;
    o.queue = queue;
    t_.ops.push_back(o);
    t_.calls[call].op = static_cast<int32_t>(t_.ops.size() - 1);
  }
  // An operator range, then its launch: returns the launch call's end.
  int64_t operator_and_launch(int64_t c, int64_t length, int marker, size_t kernel, int64_t kernel_ns) {
    call(HostApi::UserMarker, c, c + length, marker);
    const int64_t ls = c + length + kOpGap;
    const uint32_t l = call(HostApi::HipLaunchKernel, ls, ls + kLaunch);
    op(l, kernel, ls + kLaunch + kLatency, ls + kLaunch + kLatency + kernel_ns, 0);
    return ls + kLaunch;
  }
  // Long kernels launched back to back from c: returns (last launch end, last kernel end).
  std::pair<int64_t, int64_t> burst(int64_t c, int64_t count, size_t kernel, int64_t kernel_ns = kLongKernel) {
    int64_t free = 0, le = 0;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t ls = c + i * (kLaunch + kOpGap);
      le = ls + kLaunch;
      const uint32_t l = call(HostApi::HipLaunchKernel, ls, le);
      const int64_t ks = i == 0 ? le + kLatency : free + kDispatch;
      op(l, kernel, ks, ks + kernel_ns, 0);
      free = ks + kernel_ns;
    }
    return {le, free};
  }
  // queue: `count` kernels into a queue of `depth` slots: a launch that finds `depth` ops in
  // flight blocks until the oldest ends and returns kSlotReturn after. Returns (last launch end,
  // last kernel end, launches that blocked).
  std::tuple<int64_t, int64_t, int64_t> queued(int64_t c, int64_t count, int depth, size_t kernel, int64_t kernel_ns) {
    std::vector<int64_t> ends;
    int64_t le = 0, blocked = 0;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t ls = i == 0 ? c : le + kOpGap;
      le = ls + kLaunch;
      if (i >= depth && ends[static_cast<size_t>(i - depth)] > ls) {
        le = std::max(le, ends[static_cast<size_t>(i - depth)] + kSlotReturn);
        ++blocked;
      }
      const uint32_t l = call(HostApi::HipLaunchKernel, ls, le);
      const int64_t ks = i == 0 ? le + kLatency : std::max(le + kLatency, ends.back() + kDispatch);
      op(l, kernel, ks, ks + kernel_ns, 0);
      ends.push_back(ks + kernel_ns);
    }
    return {le, ends.back(), blocked};
  }

 private:
  ProcessTrace& t_;
};

}  // namespace

bool known_shape(std::string_view shape) {
  for (std::string_view s : {"cpu", "gpu", "sync", "loader", "queue", "event", "event_untraced", "copy", "hostbound"})
    if (shape == s) return true;
  return false;
}

ProcessTrace shape_process(const ShapeParams& p, int rank) {
  ProcessTrace t;
  t.rank = rank;
  t.pid = 1000 + static_cast<int64_t>(mix64(p.seed ^ 0x63726974ULL) % 3'000'000) + rank * 131LL;
  t.ppid = t.pid - 1;
  t.main_tid = static_cast<uint32_t>(t.pid);
  t.helper_tid = static_cast<uint32_t>(t.pid + 7);
  t.node = rank / 2;
  t.hostname = fmt::format("node{}", t.node);
  t.gpus = 1;
  t.queues = 2;
  const int64_t t0 = first_start(p);
  t.init_ns = t0 - 2'000'000'000;
  const size_t gemm = pool_index("Cijk_"), small = pool_index("triton_"),
               allreduce = pool_index("ncclDevKernel_AllReduce_Sum_bf16");
  const int64_t m = per_step(p);
  const int64_t period = job_step_length(p) + kPause;
  Writer w(t);
  for (int k = 0; k < p.steps; ++k) {
    const int64_t start = t0 + k * period, end = start + step_length(p, rank);
    w.call(HostApi::UserMarker, start, end, step_marker(k));
    int64_t c = start + kLead;
    if (p.shape == "cpu" || p.shape == "sync") {
      int64_t cpu_items = m;
      if (p.shape == "sync") {
        const int64_t m1 = std::max<int64_t>(1, m / 2);
        cpu_items = m - m1;
        const auto [le, free] = w.burst(c, m1, gemm);
        const int64_t ss = le + kOpGap;  // hipStreamSynchronize waits for the burst
        w.call(HostApi::HipStreamSynchronize, ss, free + kSyncReturn);
        c = free + kSyncReturn + kNextGap;
      }
      int64_t le = 0;
      for (int64_t i = 0; i < cpu_items; ++i) {
        le = w.operator_and_launch(c, kCpuOperator, kStepMarkerOperator, small, kShortKernel);
        c = le + kNextGap;
      }
      w.call(HostApi::HipDeviceSynchronize, c, le + kLatency + kShortKernel + kSyncReturn);
    } else if (p.shape == "gpu") {
      const auto [le, free] = w.burst(c, m, gemm);
      w.call(HostApi::HipDeviceSynchronize, le + kOpGap, free + kSyncReturn);
    } else if (p.shape == "queue") {
      const auto [le, free, blocked] = w.queued(c, m, p.queue_depth, gemm, p.gemm_ns);
      if (blocked != blocked_launches(p))
        throw std::logic_error(fmt::format("critical path shape queue: {} launches blocked, the formula says {}", blocked,
                                           blocked_launches(p)));
      // CPU work longer than the GEMMs still queued: the path runs through the last launch's wait.
      const int64_t os = le + kOpGap, ss = os + kQueueTail + kOpGap;
      if (free >= ss) throw std::logic_error("critical path shape queue: the GEMMs outlast the optimizer step");
      w.call(HostApi::UserMarker, os, os + kQueueTail, kStepMarkerOptimizer);
      w.call(HostApi::HipDeviceSynchronize, ss, ss + kSyncReturn);
    } else if (p.shape.starts_with("event")) {
      // The all-reduce on queue 1 waits for the GEMMs on queue 0 through an event recorded after them.
      const auto [le, free] = w.burst(c, m - 1, gemm, p.gemm_ns);
      const int64_t record = le + kOpGap, wait = record + kEventCall + kOpGap, ls = wait + kEventCall + kOpGap;
      if (p.shape == "event") {
        w.call(HostApi::HipEventRecord, record, record + kEventCall);
        t.calls[w.call(HostApi::HipStreamWaitEvent, wait, wait + kEventCall)].wait_queue = 1;
      }
      const uint32_t l = w.call(HostApi::HipLaunchKernel, ls, ls + kLaunch);
      const int64_t ar = std::max(ls + kLaunch + kLatency, free + kDispatch);
      w.op(l, allreduce, ar, ar + kAllReduce, 1);
      w.call(HostApi::HipDeviceSynchronize, ls + kLaunch + kOpGap, ar + kAllReduce + kSyncReturn);
    } else if (p.shape == "copy") {
      const auto [le, free] = w.burst(c, m - 1, gemm, p.gemm_ns);
      // A synchronous device-to-host copy: queued behind the GEMMs, its call returns after it.
      const int64_t cs = le + kOpGap, copy_start = free + kDispatch;
      const uint32_t mc = w.call(HostApi::HipMemcpy, cs, copy_start + kCopy + kSyncReturn);
      w.copy(mc, copy_start, copy_start + kCopy, 0);
      const int64_t l2 = w.operator_and_launch(copy_start + kCopy + kSyncReturn + kNextGap, kCpuOperator, kStepMarkerOperator,
                                               small, kShortKernel);
      w.call(HostApi::HipDeviceSynchronize, l2 + kNextGap, l2 + kLatency + kShortKernel + kSyncReturn);
    } else if (p.shape == "hostbound") {
      // A kernel on queue 1 that starts late while no other op ends near it (no wait to infer).
      const uint32_t trap = w.call(HostApi::HipLaunchKernel, c, c + kLaunch);
      w.op(trap, small, c + kLaunch + kLateStart, c + kLaunch + kLateStart + kShortKernel, 1);
      c += kLaunch + kNextGap;
      int64_t le = 0;
      for (int64_t i = 0; i + 1 < m; ++i) {
        w.call(HostApi::UserMarker, c, c + kCpuOperator, kStepMarkerOperator);
        const int64_t ms = c + kCpuOperator + kOpGap, me = ms + (slow_malloc(i) ? kSlowMalloc : kLaunch);
        w.call(HostApi::HipMalloc, ms, me);
        const int64_t ls = me + kOpGap;
        le = ls + kLaunch;
        const uint32_t l = w.call(HostApi::HipLaunchKernel, ls, le);
        w.op(l, small, le + kLatency, le + kLatency + kShortKernel, 0);
        c = le + kNextGap;
      }
      w.call(HostApi::HipDeviceSynchronize, c, le + kLatency + kShortKernel + kSyncReturn);
    } else {
      const int64_t loader = loader_of(p, rank);
      w.call(HostApi::UserMarker, c, c + loader, kStepMarkerLoader);
      c += loader + kNextGap;
      for (int64_t i = 0; i + 1 < m; ++i) c = w.operator_and_launch(c, kLoaderOperator, kStepMarkerOperator, gemm, kShortKernel) + kNextGap;
      const uint32_t l = w.call(HostApi::HipLaunchKernel, c, c + kLaunch);
      const int64_t arrival = c + kLaunch + kLatency;
      const int64_t ar_end = end - kTail - kSyncReturn - kRankTail * rank;
      w.op(l, allreduce, arrival, ar_end, 1);
      w.call(HostApi::HipDeviceSynchronize, c + kLaunch + kNextGap, ar_end + kSyncReturn + kRankTail * rank);
    }
    if (t.calls.back().end + kTail != end)
      throw std::logic_error(fmt::format("critical path shape {}: step {} of rank {} ends at {}, its formula says {}",
                                         p.shape, k, rank, t.calls.back().end + kTail, end));
  }
  t.fini_ns = t0 + p.steps * period + 1'000'000;
  // Calls in time order (ids follow it); ops keep their calls.
  std::vector<uint32_t> order(t.calls.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    const HostCall &x = t.calls[a], &y = t.calls[b];
    return x.start != y.start ? x.start < y.start : x.end > y.end;
  });
  std::vector<HostCall> calls;
  std::vector<uint32_t> new_index(order.size());
  for (uint32_t i = 0; i < order.size(); ++i) {
    new_index[order[i]] = i;
    calls.push_back(t.calls[order[i]]);
  }
  t.calls = std::move(calls);
  for (Op& o : t.ops) o.call = new_index[o.call];
  return t;
}

std::string shape_truth_json(const ShapeParams& p, int rank) {
  // Per kind and per name, the time the job's path spends on this rank in every step (all steps
  // are alike). The path ends on the rank whose step ends last (the highest rank: ties go to the
  // first, rank 0, in every shape but loader) and, in loader, crosses into the slow rank.
  const int64_t m = per_step(p);
  std::map<std::string, int64_t> kinds, names;
  const std::string step_name = "ProfilerStep#";  // + k; reported as the prefix
  auto add = [&](const char* kind, const std::string& name, int64_t ns) {
    if (ns <= 0) return;
    kinds[kind] += ns;
    if (!name.empty()) names[name] += ns;
  };
  const int anchor = p.shape == "loader" ? p.procs - 1 : 0;
  const int slow = p.shape == "loader" ? p.loader_rank : 0;  // its loader is the slowest (--loader NS > 100 us)
  const size_t gemm = pool_index("Cijk_"), small = pool_index("triton_");
  const std::string gemm_name(kernel_pool()[gemm].name), small_name(kernel_pool()[small].name),
      allreduce_name(kernel_pool()[pool_index("ncclDevKernel_AllReduce_Sum_bf16")].name);
  std::map<std::string, std::string> waits;  // kind -> the op its waits wait for
  if (p.shape == "cpu" && rank == anchor) {
    add("cpu_op", step_name, kLead + m * kOpGap + (m - 1) * kNextGap + kTail);
    add("cpu_op", "aten::addmm", m * kCpuOperator);
    add("launch", "hipLaunchKernel", (m - 1) * kLaunch + kLaunch + kLatency);
    add("kernel", small_name, kShortKernel);
    add("sync_wait", "hipDeviceSynchronize", kSyncReturn);
  } else if (p.shape == "gpu" && rank == anchor) {
    add("cpu_op", step_name, kLead + kTail);
    add("launch", "hipLaunchKernel", kLaunch + kLatency);
    add("kernel", gemm_name, m * kLongKernel);
    add("idle_gap", "", (m - 1) * kDispatch);
    add("sync_wait", "hipDeviceSynchronize", kSyncReturn);
  } else if (p.shape == "sync" && rank == anchor) {
    const int64_t m1 = std::max<int64_t>(1, m / 2), m2 = m - m1;
    add("cpu_op", step_name, kLead + kNextGap + m2 * kOpGap + (m2 - 1) * kNextGap + kTail);
    add("launch", "hipLaunchKernel", kLaunch + kLatency + (m2 - 1) * kLaunch + kLaunch + kLatency);
    add("kernel", gemm_name, m1 * kLongKernel);
    add("idle_gap", "", (m1 - 1) * kDispatch);
    add("sync_wait", "hipStreamSynchronize", kSyncReturn);
    add("cpu_op", "aten::addmm", m2 * kCpuOperator);
    add("kernel", small_name, kShortKernel);
    add("sync_wait", "hipDeviceSynchronize", kSyncReturn);
  } else if (p.shape == "queue" && rank == anchor) {
    // The GEMMs bind every op after the first; the last launch waited for GEMM m - 1 - depth, then
    // the CPU's optimizer step outlasts the GEMMs still queued.
    const int64_t m1 = m - p.queue_depth;
    add("cpu_op", step_name, kLead + 2 * kOpGap + kTail);
    add("launch", "hipLaunchKernel", kLaunch + kLatency);
    add("kernel", gemm_name, m1 * p.gemm_ns);
    add("idle_gap", "", (m1 - 1) * kDispatch);
    add("gpu_wait", "hipLaunchKernel", kSlotReturn);
    add("cpu_op", "optimizer.step", kQueueTail);
    add("sync_wait", "hipDeviceSynchronize", kSyncReturn);
    waits["gpu_wait"] = gemm_name;
  } else if (p.shape.starts_with("event") && rank == anchor) {
    add("cpu_op", step_name, kLead + kTail);
    add("launch", "hipLaunchKernel", kLaunch + kLatency);
    add("kernel", gemm_name, (m - 1) * p.gemm_ns);
    add("idle_gap", "", (m - 2) * kDispatch);
    add("stream_wait", allreduce_name, kDispatch);
    add("collective_wait", allreduce_name, kAllReduce);
    add("sync_wait", "hipDeviceSynchronize", kSyncReturn);
    waits["stream_wait"] = gemm_name;
  } else if (p.shape == "copy" && rank == anchor) {
    add("cpu_op", step_name, kLead + kNextGap + kOpGap + kTail);
    add("launch", "hipLaunchKernel", 2 * (kLaunch + kLatency));
    add("kernel", gemm_name, (m - 1) * p.gemm_ns);
    add("idle_gap", "", (m - 1) * kDispatch);
    add("copy", "CopyDeviceToHost", kCopy);
    add("gpu_wait", "hipMemcpy", kSyncReturn);
    add("cpu_op", "aten::addmm", kCpuOperator);
    add("kernel", small_name, kShortKernel);
    add("sync_wait", "hipDeviceSynchronize", kSyncReturn);
    waits["gpu_wait"] = "CopyDeviceToHost";
  } else if (p.shape == "hostbound" && rank == anchor) {
    const int64_t items = m - 1;
    add("cpu_op", step_name, kLead + kNextGap + items * 2 * kOpGap + (items - 1) * kNextGap + kTail);
    add("launch", "hipLaunchKernel", (items + 1) * kLaunch + kLatency);
    add("cpu_op", "aten::addmm", items * kCpuOperator);
    add("cpu_op", "hipMalloc", malloc_ns(items));
    add("kernel", small_name, kShortKernel);
    add("sync_wait", "hipDeviceSynchronize", kSyncReturn);
  } else if (p.shape == "loader") {
    if (rank == anchor) {
      add("cpu_op", step_name, kTail);
      add("sync_wait", "hipDeviceSynchronize", kSyncReturn + kRankTail * rank);
      add("collective_wait", "ncclDevKernel_AllReduce_Sum_bf16_RING_LL128", kAllReduce);
    }
    if (rank == slow) {
      const int64_t compute = m - 1;
      add("cpu_op", step_name, kLead + kNextGap + compute * (kOpGap + kNextGap));
      add("cpu_op", "DataLoader.__next__", loader_of(p, rank));
      add("cpu_op", "aten::addmm", compute * kLoaderOperator);
      add("launch", "hipLaunchKernel", compute * kLaunch + kLaunch + kLatency);
    }
  }
  auto object = [](const std::map<std::string, int64_t>& values) {
    std::string out = "{";
    for (const auto& [key, ns] : values) out += fmt::format("{}\"{}\":{}", out.size() > 1 ? "," : "", key, ns);
    return out + "}";
  };
  std::string waited = "{";
  for (const auto& [kind, name] : waits) waited += fmt::format("{}\"{}\":\"{}\"", waited.size() > 1 ? "," : "", kind, name);
  waited += "}";
  return fmt::format(
      "{{\"shape\":\"{}\",\"steps\":{},\"ops_per_step\":{},\"step_ns\":{},\"job_step_ns\":{},\"loader_rank\":{},"
      "\"loader_ns\":{},\"queue_depth\":{},\"gemm_ns\":{},\"blocked_launches\":{},\"stream_waits\":{},"
      "\"path_rank\":{},\"path_kinds\":{},\"path_names\":{},\"path_waited_for\":{}}}",
      p.shape, p.steps, m, step_length(p, rank), job_step_length(p), p.shape == "loader" ? p.loader_rank : -1,
      p.shape == "loader" ? loader_of(p, rank) : 0, p.shape == "queue" ? p.queue_depth : 0,
      gemm_shape(p) ? p.gemm_ns : 0, blocked_launches(p), p.shape.starts_with("event") ? 1 : 0,
      rank == anchor || rank == slow ? 1 : 0, object(kinds), object(names), waited);
}

}  // namespace rocpd_gen
