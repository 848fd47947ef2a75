#include "workload.h"

#include <algorithm>
#include <array>
#include <deque>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "kernel_pool.h"
#include "random.h"

namespace rocpd_gen {
namespace {

// CLOCK_MONOTONIC-like base: about 11.6 days of uptime, shifted per job by up to 100 s.
constexpr int64_t kClockBase = 1'000'000'000'000'000;
// A launch blocks once its queue is this far ahead of the host (a full AQL queue).
constexpr int64_t kMaxQueueAheadNs = 4'000'000;
// --steps: marker indexes from here on name "ProfilerStep#k" (marker_message).
constexpr int kStepMarkerBase = 1 << 20;

// The first true time of the job's clock (every rank starts within 0.8 ms after it).
int64_t job_base_time(uint64_t job_key) { return kClockBase + static_cast<int64_t>(job_key % 100'000'000'000ULL); }
uint64_t job_key_of(uint64_t seed) { return mix64(seed ^ 0x726f6370645f6765ULL); }

constexpr std::array<std::string_view, 20> kMarkerMessages = {
    "ProfilerStep",
    "forward",
    "backward",
    "optimizer.step",
    "DataLoader.__next__",
    "DistributedDataParallel.forward",
    "nccl:all_reduce",
    "aten::linear",
    "aten::addmm",
    "aten::_scaled_dot_product_flash_attention",
    "aten::layer_norm",
    "aten::embedding",
    "aten::cross_entropy_loss",
    "aten::copy_",
    "aten::to",
    "model.layers.0.self_attn",
    "model.layers.0.mlp",
    "vllm.model_executor.execute_model",
    "checkpoint.save",
    "## Call CompiledFxGraph fkfvz6rjp ##",
};

// Draws indices with weights w_i = 1/(i+1) over a job-wide permutation: a few names dominate, as
// in real traces, and every rank of a job shares the same hot names.
class SkewedPicker {
 public:
  SkewedPicker(size_t count, uint64_t job_key) : order_(count), cumulative_(count) {
    std::iota(order_.begin(), order_.end(), 0u);
    Rng rng(job_key);
    for (size_t i = count; i > 1; --i) std::swap(order_[i - 1], order_[rng.below(i)]);
    uint64_t total = 0;
    for (size_t i = 0; i < count; ++i) {
      total += 1'000'000 / (i + 1);
      cumulative_[i] = total;
    }
  }
  uint32_t pick(Rng& rng) const {
    const uint64_t r = rng.below(cumulative_.back());
    const size_t slot = std::upper_bound(cumulative_.begin(), cumulative_.end(), r) - cumulative_.begin();
    return order_[slot];
  }

 private:
  std::vector<uint32_t> order_;
  std::vector<uint64_t> cumulative_;
};

struct ExtraApi {
  HostApi api;
  unsigned weight;
  int64_t min_ns, max_ns;
  bool may_use_helper;  // sometimes issued by the helper thread
};

constexpr std::array<ExtraApi, 11> kExtraApis = {{
    {HostApi::HipStreamSynchronize, 15, 1'500, 4'000, false},
    {HostApi::HipDeviceSynchronize, 5, 2'000, 6'000, false},
    {HostApi::HipEventRecord, 18, 2'000, 6'000, false},
    {HostApi::HipEventSynchronize, 5, 1'500, 4'000, false},
    {HostApi::HipStreamWaitEvent, 10, 1'500, 5'000, false},
    {HostApi::HipGetDevice, 14, 200, 900, true},
    {HostApi::HipSetDevice, 5, 300, 1'500, false},
    {HostApi::HipMalloc, 5, 20'000, 400'000, false},
    {HostApi::HipFree, 5, 10'000, 150'000, false},
    {HostApi::HipGetLastError, 10, 100, 400, true},
    {HostApi::HipPointerGetAttributes, 5, 500, 2'000, true},
}};

class ProcessGenerator {
 public:
  ProcessGenerator(const WorkloadParams& params, int rank, int session)
      : p_(params),
        job_key_(job_key_of(params.seed)),
        rng_(mix64(job_key_ + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(rank + 1) +
                   0x632be59bd9b4e019ULL * static_cast<uint64_t>(session))),
        kernels_(kernel_pool().size(), job_key_),
        messages_(kMarkerMessages.size(), job_key_ ^ 0x5bd1e995ULL) {
    t_.rank = rank;
    t_.session = session;
    // Distinct per (rank, session): 131 and 17 are coprime and sessions are capped at 64.
    t_.pid = 1000 + static_cast<int64_t>(job_key_ % 3'000'000) + rank * 131LL + session * 17LL;
    t_.ppid = t_.pid - 1 - static_cast<int64_t>(mix64(job_key_ + rank) % 500);
    t_.main_tid = static_cast<uint32_t>(t_.pid);
    t_.helper_tid = static_cast<uint32_t>(t_.pid + 7);
    t_.node = params.nodes > 0 ? rank % params.nodes : rank / 2;
    t_.hostname = fmt::format("node{}", t_.node);
    t_.gpus = params.gpus;
    t_.queues = params.queues;
    // All ranks start within a millisecond of each other; sessions of one file a bit later.
    const int64_t job_base = job_base_time(job_key_);
    t0_ = job_base + static_cast<int64_t>(mix64(job_key_ + 77 + rank) % 800'000) + session * 3'000'000LL;
    t_.init_ns = t0_ - rng_.between(1'500'000'000, 3'000'000'000);
    queue_free_.assign(static_cast<size_t>(p_.gpus) * p_.queues, t0_ + 20'000);
    host_ = t0_;
    if (p_.graphs) define_graph_execs();
    drng_ = Rng(mix64(job_key_ ^ 0x646961676e6f7365ULL) + 0x9e3779b97f4a7c15ULL * static_cast<uint64_t>(rank + 1) +
                0x632be59bd9b4e019ULL * static_cast<uint64_t>(session));
  }

  ProcessTrace run() {
    if (p_.steps > 0) return run_steps();
    const int64_t n = p_.final_collective ? p_.ops - 1 : p_.ops;
    t_.ops.reserve(static_cast<size_t>(n));
    t_.calls.reserve(static_cast<size_t>(n + p_.apis_extra + p_.markers));
    int64_t extras_done = 0;
    int64_t markers_opened = 0;
    int64_t i = 0;
    while (i < n) {
      // Extras and markers are spread evenly over the run: item k is due at op k * n / count.
      while (markers_opened < p_.markers && markers_opened * n / p_.markers <= i) {
        open_marker(i);
        ++markers_opened;
      }
      while (extras_done < p_.apis_extra && extras_done * n / p_.apis_extra <= i) {
        emit_extra();
        ++extras_done;
      }
      close_markers(i);
      i += emit_ops(n - i);
    }
    // A collective emitted as the last two ops can step over the last due items.
    for (; markers_opened < p_.markers; ++markers_opened) open_marker(n);
    for (; extras_done < p_.apis_extra; ++extras_done) emit_extra();
    if (p_.final_collective) emit_collective();
    close_markers(INT64_MAX);
    if (p_.paired_frees) pair_frees();
    int64_t last = host_;
    for (int64_t q : queue_free_) last = std::max(last, q);
    t_.fini_ns = last + rng_.between(100'000'000, 300'000'000);
    return std::move(t_);
  }

 private:
  // A graph exec: its nodes, run in order. A node is a pool kernel index, or -1 for a D2D copy.
  struct GraphExecDef {
    std::vector<int32_t> nodes;
    int64_t copy_bytes = 0;
  };

  struct OpenRange {
    int64_t close_at;  // op index at which the range pops
    uint32_t call;
  };

  size_t queue_slot(int gpu, int queue) const { return static_cast<size_t>(gpu) * p_.queues + queue; }
  // Queues compute ops and host calls pick: with --steps the last queue of every gpu is kept for
  // the collectives (their times come from the job's schedule, which the rest must not depend on).
  int compute_queues() const { return p_.steps > 0 ? p_.queues - 1 : p_.queues; }

  uint32_t add_call(HostApi api, int64_t start, int64_t end, uint32_t tid) {
    HostCall c;
    c.api = api;
    c.start = start;
    c.end = end;
    c.tid = tid;
    t_.calls.push_back(c);
    return static_cast<uint32_t>(t_.calls.size() - 1);
  }

  // A launch/copy API call on the main thread starting now.
  uint32_t launch_call(HostApi api, int64_t min_ns, int64_t max_ns) {
    const int64_t start = host_ + rng_.between(800, 4'000);
    const int64_t end = start + rng_.between(min_ns, max_ns);
    host_ = end;
    return add_call(api, start, end, t_.main_tid);
  }

  // The launch call blocks while the queue is too far ahead of the host.
  void throttle(uint32_t call, int64_t op_start) {
    HostCall& c = t_.calls[call];
    if (op_start - c.end > kMaxQueueAheadNs) {
      c.end = op_start - kMaxQueueAheadNs;
      host_ = c.end;
    }
  }

  void add_op(Op op) {
    if (p_.diagnosis) {
      std::vector<uint32_t> stack;
      for (const OpenRange& r : open_) stack.push_back(r.call);
      t_.op_stacks.push_back(std::move(stack));
    }
    t_.calls[op.call].op = static_cast<int32_t>(t_.ops.size());
    const int64_t pause = rng_.between(500, 3'000);
    // --diagnosis 2: the next op of the queue may touch this one.
    queue_free_[queue_slot(op.gpu, op.queue)] = op.end + (p_.edge_cases && drng_.permille(300) ? 0 : pause);
    t_.ops.push_back(op);
  }

  // --steps (docs/generator.md, "Training steps"): the ops are cut into steps, each a
  // "ProfilerStep#k" range on the main thread opened at the job's step start, with its compute ops
  // in `step_collectives` segments, each followed by a collective on gpu 0's last queue, and a
  // closing hipDeviceSynchronize. A step starts from a drained device, so everything in it but the
  // collectives' times is the same whatever the schedule: the first pass measures when the rank is
  // ready for each collective, the second places the collectives on the job's schedule.
  ProcessTrace run_steps() {
    const int steps = p_.steps, per = p_.step_collectives;
    const int64_t n = p_.ops;
    const bool scheduled = !p_.step_starts.empty();
    t_.step_ready_rel.assign(static_cast<size_t>(steps) * per, 0);
    t_.step_host_rel.assign(static_cast<size_t>(steps), 0);
    t_.step_compute_end_rel.assign(static_cast<size_t>(steps), 0);
    int64_t i = 0, extras_done = 0, markers_opened = 0;
    int64_t step_start = step_first_start(p_);
    for (int k = 0; k < steps; ++k) {
      if (scheduled) {
        step_start = p_.step_starts[static_cast<size_t>(k)];
        if (host_ > step_start)
          throw std::logic_error(fmt::format("rocpd_gen --steps: rank {} is still busy when step {} starts", t_.rank, k));
      } else if (k > 0) {
        step_start = host_ + 300'000;  // any start does: a step's times are relative to it
      }
      host_ = step_start + rng_.between(0, 2'000);
      std::fill(queue_free_.begin(), queue_free_.end(), host_);
      const uint32_t range = add_call(HostApi::UserMarker, host_, host_, t_.main_tid);
      t_.calls[range].marker = step_marker(k);
      host_ += rng_.between(300, 1'200);
      const int64_t step_ops = k + 1 < steps ? n / steps : n - (n / steps) * (steps - 1);
      const int64_t compute = step_ops - per;
      for (int j = 0; j < per; ++j) {
        const int64_t segment = compute * (j + 1) / per - compute * j / per;
        int64_t segment_end = step_start;
        for (int64_t done = 0; done < segment;) {
          while (markers_opened < p_.markers && markers_opened * n / p_.markers <= i) {
            open_marker(i);
            ++markers_opened;
          }
          while (extras_done < p_.apis_extra && extras_done * n / p_.apis_extra <= i) {
            emit_extra();
            ++extras_done;
          }
          close_markers(i);
          const size_t before = t_.ops.size();
          const int64_t emitted = emit_ops(segment - done);
          for (size_t o = before; o < t_.ops.size(); ++o) segment_end = std::max(segment_end, t_.ops[o].end);
          done += emitted;
          i += emitted;
        }
        emit_step_collective(k, j, step_start, segment_end, scheduled);
        ++i;
      }
      close_markers(INT64_MAX);
      const size_t s = static_cast<size_t>(k);
      t_.step_host_rel[s] = host_ - step_start;
      int64_t compute_free = step_start;
      for (int g = 0; g < p_.gpus; ++g)
        for (int q = 0; q < compute_queues(); ++q) compute_free = std::max(compute_free, queue_free_[queue_slot(g, q)]);
      t_.step_compute_end_rel[s] = compute_free - step_start;
      // The step ends when the device is drained (as loss.item() or the optimizer's sync does).
      const int64_t sync_start = host_ + rng_.between(500, 3'000);
      int64_t sync_end = sync_start + rng_.between(2'000, 6'000);
      for (int64_t q : queue_free_) sync_end = std::max(sync_end, q + 3'000);
      add_call(HostApi::HipDeviceSynchronize, sync_start, sync_end, t_.main_tid);
      host_ = sync_end;
      t_.calls[range].end = host_;
      host_ += rng_.between(200, 600);
    }
    for (; markers_opened < p_.markers; ++markers_opened) open_marker(n);
    for (; extras_done < p_.apis_extra; ++extras_done) emit_extra();
    close_markers(INT64_MAX);
    if (p_.paired_frees) pair_frees();
    int64_t last = host_;
    for (int64_t q : queue_free_) last = std::max(last, q);
    t_.fini_ns = last + rng_.between(100'000'000, 300'000'000);
    return std::move(t_);
  }

  // Collective j of step k on gpu 0's last queue, launched after its segment's compute ops: ready
  // once launched and once that compute is done; on the schedule it starts at the job's ready time
  // plus its arrival jitter (and the planted lateness), and ends at the collective's end plus its
  // clock's jitter.
  void emit_step_collective(int k, int j, int64_t step_start, int64_t segment_end, bool scheduled) {
    const int comm_queue = p_.queues - 1;
    Op op;
    op.kind = OpKind::Kernel;
    op.kernel = static_cast<int32_t>(step_collective_kernel(j));
    op.gpu = 0;
    op.queue = static_cast<uint16_t>(comm_queue);
    op.call = launch_call(HostApi::HipLaunchKernel, 3'000, 12'000);
    const int64_t ready = std::max(t_.calls[op.call].start + rng_.between(5'000, 30'000),
                                   segment_end + rng_.between(1'000, 5'000));
    const size_t at = static_cast<size_t>(k) * p_.step_collectives + j;
    t_.step_ready_rel[at] = ready - step_start;
    if (scheduled) {
      op.start = p_.collective_ready[at] + step_arrival_jitter(p_, t_.rank, k, j) + step_straggle(p_, t_.rank, k);
      op.end = p_.collective_ends[at] + step_end_jitter(p_, t_.rank, k, j);
    } else {
      op.start = std::max(ready, queue_free_[queue_slot(0, comm_queue)]);
      op.end = op.start + step_collective_duration(p_, k, j);
    }
    add_op(op);
  }

  // Emits one op, or two for a collective running on two gpus at once. Returns how many.
  int64_t emit_ops(int64_t remaining) {
    if (p_.diagnosis && drng_.permille(15)) host_stall();
    if (p_.graphs && remaining >= 8 && rng_.permille(40)) return emit_graph();
    if (rng_.permille(850)) return emit_kernel(remaining);
    emit_copy();
    return 1;
  }

  int64_t emit_kernel(int64_t remaining) {
    const auto pool = kernel_pool();
    uint32_t k = kernels_.pick(rng_);
    // --steps: collectives are the scheduled ones only (every rank issues them in one order); vLLM's
    // custom all-reduce counts as one too (rocpd_comm_classes).
    while (p_.steps > 0 &&
           (pool[k].family == KernelFamily::Nccl || pool[k].name.find("cross_device_reduce") != std::string_view::npos))
      k = kernels_.pick(rng_);
    const KernelInfo& info = pool[k];
    const bool twin = info.family == KernelFamily::Nccl && p_.gpus > 1 && remaining >= 2 && rng_.permille(500);
    int64_t duration = info.base_ns * rng_.between(700, 1'400) / 1'000;
    if (rng_.permille(5)) duration = 0;  // empty launches exist (e.g. zero-sized tensors)

    const int64_t api_min = info.launch_api == HostApi::HipExtModuleLaunchKernel ? 8'000 : 3'000;
    const int64_t api_max = info.launch_api == HostApi::HipExtModuleLaunchKernel ? 25'000 : 12'000;

    Op op;
    op.kind = OpKind::Kernel;
    op.kernel = static_cast<int32_t>(k);
    op.gpu = static_cast<uint16_t>(rng_.below(p_.gpus));
    op.queue = static_cast<uint16_t>(rng_.below(compute_queues()));
    op.call = launch_call(info.launch_api, api_min, api_max);
    int64_t latency = rng_.between(5'000, 30'000);
    if (quick_launch_) latency = drng_.between(100, 1'000);  // --diagnosis 2, after a short stall
    quick_launch_ = false;
    int64_t start = std::max(queue_free_[queue_slot(op.gpu, op.queue)], t_.calls[op.call].start + latency);
    if (!twin) {
      if (p_.diagnosis && drng_.permille(20)) {
        // Waits for an event recorded elsewhere: starts well after its queue is free.
        start += drng_.between(30'000, 150'000);
        ++t_.event_waits;
      }
      throttle(op.call, start);
      op.start = start;
      op.end = start + duration;
      add_op(op);
      return 1;
    }
    // A collective: the same kernel on two gpus with identical start and end.
    Op other = op;
    other.gpu = static_cast<uint16_t>((op.gpu + 1 + rng_.below(p_.gpus - 1)) % p_.gpus);
    other.queue = static_cast<uint16_t>(rng_.below(compute_queues()));
    other.call = launch_call(info.launch_api, api_min, api_max);
    start = std::max({start, queue_free_[queue_slot(other.gpu, other.queue)],
                      t_.calls[other.call].start + rng_.between(5'000, 30'000)});
    throttle(other.call, start);
    op.start = other.start = start;
    op.end = other.end = start + duration;
    add_op(op);
    add_op(other);
    return 2;
  }

  // Three graph execs per job (every rank runs the same model): 3..6 kernels each (no collectives),
  // the second one starting with a device-to-device copy node. A separate random stream, so the
  // main one is untouched.
  void define_graph_execs() {
    const auto pool = kernel_pool();
    Rng rng(job_key_ ^ 0x67726170685f6578ULL);
    for (int e = 0; e < 3; ++e) {
      GraphExecDef def;
      if (e == 1) {
        def.nodes.push_back(-1);
        def.copy_bytes = (int64_t{1} << 20) + static_cast<int64_t>(rng.below(1 << 20));
      }
      const int kernels = static_cast<int>(rng.between(3, 6));
      while (static_cast<int>(def.nodes.size()) < kernels + (e == 1 ? 1 : 0)) {
        const uint32_t k = kernels_.pick(rng);
        if (pool[k].family != KernelFamily::Nccl) def.nodes.push_back(static_cast<int32_t>(k));
      }
      execs_.push_back(std::move(def));
    }
  }

  // hipGraphLaunch: the nodes of one exec back to back on one queue, all issued by one call.
  int64_t emit_graph() {
    const auto pool = kernel_pool();
    const uint32_t exec = static_cast<uint32_t>(rng_.below(execs_.size()));
    const GraphExecDef& def = execs_[exec];
    GraphLaunch g;
    g.exec = exec;
    g.gpu = static_cast<uint16_t>(rng_.below(p_.gpus));
    g.queue = static_cast<uint16_t>(rng_.below(compute_queues()));
    g.call = launch_call(HostApi::HipGraphLaunch, 6'000, 20'000);
    g.first_op = static_cast<uint32_t>(t_.ops.size());
    int64_t t = std::max(queue_free_[queue_slot(g.gpu, g.queue)], t_.calls[g.call].start + rng_.between(5'000, 30'000));
    throttle(g.call, t);
    g.start = t;
    const uint32_t index = static_cast<uint32_t>(t_.graphs.size()) + 1;
    for (size_t node = 0; node < def.nodes.size(); ++node) {
      Op op;
      op.call = g.call;
      op.gpu = op.peer_gpu = g.gpu;
      op.queue = g.queue;
      op.graph = index;
      op.graph_node = static_cast<uint16_t>(node);
      int64_t duration = 0;
      if (def.nodes[node] < 0) {
        op.kind = OpKind::CopyDeviceToDevice;
        op.bytes = def.copy_bytes;
        duration = 1'500 + op.bytes / 1'000;
      } else {
        op.kind = OpKind::Kernel;
        op.kernel = def.nodes[node];
        duration = pool[static_cast<size_t>(op.kernel)].base_ns * rng_.between(700, 1'400) / 1'000;
        ++g.kernel_count;
      }
      op.start = t;
      op.end = t + duration;
      t = op.end + rng_.between(1'000, 3'000);
      add_op(op);
    }
    g.op_count = static_cast<uint16_t>(def.nodes.size());
    g.end = t_.ops.back().end;
    t_.calls[g.call].op = static_cast<int32_t>(g.first_op);
    t_.graphs.push_back(g);
    return g.op_count;
  }

  // The last op of every rank: an all-reduce on gpu 0 that ends at the same true time everywhere
  // (the slowest rank arrives last; the others wait inside the kernel).
  void emit_collective() {
    const size_t k = collective_kernel();
    const KernelInfo& info = kernel_pool()[k];
    Op op;
    op.kind = OpKind::Kernel;
    op.kernel = static_cast<int32_t>(k);
    op.call = launch_call(info.launch_api, 3'000, 12'000);
    op.start = std::max(queue_free_[queue_slot(0, 0)], t_.calls[op.call].start + 10'000);
    op.end = p_.collective_end > 0 ? std::max(p_.collective_end, op.start) : op.start + info.base_ns;
    t_.collective_op = static_cast<int32_t>(t_.ops.size());
    add_op(op);
  }

  // hipFree releases the oldest pointer still allocated by hipMalloc (if any), as real code does.
  void pair_frees() {
    std::deque<uint64_t> live;
    for (HostCall& c : t_.calls) {
      if (c.api == HostApi::HipMalloc) {
        live.push_back(c.arg_ptr);
      } else if (c.api == HostApi::HipFree && !live.empty()) {
        c.arg_ptr = live.front();
        live.pop_front();
      }
    }
  }

  void emit_copy() {
    Op op;
    const uint64_t r = rng_.below(100);
    op.kind = r < 50 ? OpKind::CopyHostToDevice : r < 85 ? OpKind::CopyDeviceToHost : OpKind::CopyDeviceToDevice;
    op.gpu = static_cast<uint16_t>(rng_.below(p_.gpus));
    op.queue = static_cast<uint16_t>(rng_.below(compute_queues()));
    op.peer_gpu = op.gpu;
    if (op.kind == OpKind::CopyDeviceToDevice && p_.gpus > 1 && rng_.permille(300))
      op.peer_gpu = static_cast<uint16_t>((op.gpu + 1 + rng_.below(p_.gpus - 1)) % p_.gpus);
    // 4 KiB .. 16 MiB: copies are frequent but kernels dominate gpu time, as in training jobs.
    const int exponent = static_cast<int>(rng_.between(12, 23));
    op.bytes = (int64_t{1} << exponent) + static_cast<int64_t>(rng_.below(uint64_t{1} << exponent));
    // Bytes per ns: ~24 GB/s over PCIe, ~60 GB/s between peers, ~1 TB/s within one gpu.
    const int64_t bandwidth = op.kind != OpKind::CopyDeviceToDevice ? 24 : op.peer_gpu != op.gpu ? 60 : 1'000;
    int64_t duration = 1'500 + op.bytes / bandwidth;
    if (rng_.permille(2)) duration = 0;

    const bool sync = rng_.permille(250);
    op.call = launch_call(sync ? HostApi::HipMemcpy : HostApi::HipMemcpyAsync, 4'000, 15'000);
    const int64_t start = std::max(queue_free_[queue_slot(op.gpu, op.queue)],
                                   t_.calls[op.call].start + rng_.between(4'000, 20'000));
    op.start = start;
    op.end = start + duration;
    if (sync) {
      // hipMemcpy returns after the copy completed.
      HostCall& c = t_.calls[op.call];
      c.end = std::max(c.end, op.end + rng_.between(2'000, 8'000));
      host_ = c.end;
    } else {
      throttle(op.call, start);
    }
    add_op(op);
  }

  void emit_extra() {
    unsigned total = 0;
    for (const auto& e : kExtraApis) total += e.weight;
    uint64_t r = rng_.below(total);
    const ExtraApi* chosen = &kExtraApis[0];
    for (const auto& e : kExtraApis) {
      if (r < e.weight) {
        chosen = &e;
        break;
      }
      r -= e.weight;
    }
    const bool helper = chosen->may_use_helper && rng_.permille(300);
    const int64_t start = host_ + rng_.between(500, 3'000);
    int64_t end = start + rng_.between(chosen->min_ns, chosen->max_ns);
    const int gpu = static_cast<int>(rng_.below(p_.gpus));
    switch (chosen->api) {
      case HostApi::HipStreamSynchronize:
      case HostApi::HipEventSynchronize:
        // Waits for one queue to drain.
        end = std::max(end, queue_free_[queue_slot(gpu, static_cast<int>(rng_.below(compute_queues())))] +
                                rng_.between(2'000, 8'000));
        break;
      case HostApi::HipDeviceSynchronize:
        for (int q = 0; q < compute_queues(); ++q) end = std::max(end, queue_free_[queue_slot(gpu, q)] + 3'000);
        break;
      default:
        break;
    }
    const uint32_t call = add_call(chosen->api, start, end, helper ? t_.helper_tid : t_.main_tid);
    if (chosen->api == HostApi::HipMalloc || chosen->api == HostApi::HipFree) {
      HostCall& c = t_.calls[call];
      c.arg_ptr = device_pointer(t_.pid, call);
      c.arg_size = chosen->api == HostApi::HipMalloc ? (rng_.between(1, 4096) << 20) : 0;
    }
    if (!helper) host_ = end;
  }

  void open_marker(int64_t op_index) {
    const int message = static_cast<int>(messages_.pick(rng_));
    if (rng_.permille(200)) {
      // roctxMarkA: an instant.
      const uint32_t call = add_call(HostApi::UserMarker, host_, host_, t_.main_tid);
      t_.calls[call].marker = message;
      host_ += rng_.between(200, 800);
      return;
    }
    // roctxRangePushA ... roctxRangePop: ranges nest strictly on their thread.
    int64_t close_at = op_index + rng_.between(1, 40);
    if (!open_.empty()) close_at = std::min(close_at, open_.back().close_at);
    const uint32_t call = add_call(HostApi::UserMarker, host_, host_, t_.main_tid);
    t_.calls[call].marker = message;
    host_ += rng_.between(300, 1'200);
    open_.push_back({close_at, call});
    if (p_.diagnosis && drng_.permille(600)) {
      // A range on the helper thread (an autograd or data-loader thread) spanning the next
      // launches of the main thread: it must never enter their stacks.
      const int64_t start = host_ - drng_.between(0, 2'000);
      const uint32_t helper = add_call(HostApi::UserMarker, start, start + drng_.between(20'000, 400'000), t_.helper_tid);
      t_.calls[helper].marker = static_cast<int>(drng_.below(static_cast<uint64_t>(marker_message_count())));
    }
  }

  // The host is busy elsewhere (Python, data loading) until every queue has drained: the next
  // op's gpu is idle waiting for the host.
  void host_stall() {
    int64_t free_at = host_;
    for (int64_t q : queue_free_) free_at = std::max(free_at, q);
    if (p_.edge_cases && drng_.permille(500)) {
      // A short stall: the next kernel starts a few us after the gpu went idle, launched after.
      host_ = free_at + drng_.between(100, 1'000);
      quick_launch_ = true;
      ++t_.host_stalls;
      return;
    }
    host_ = free_at + drng_.between(20'000, 200'000);
    ++t_.host_stalls;
  }

  void close_markers(int64_t op_index) {
    while (!open_.empty() && open_.back().close_at <= op_index) {
      HostCall& c = t_.calls[open_.back().call];
      c.end = std::max(host_, c.start + 1);
      host_ = c.end + rng_.between(200, 600);
      open_.pop_back();
    }
  }

  const WorkloadParams& p_;
  uint64_t job_key_;
  Rng rng_;
  SkewedPicker kernels_;
  SkewedPicker messages_;
  ProcessTrace t_;
  int64_t t0_ = 0;
  int64_t host_ = 0;
  std::vector<int64_t> queue_free_;
  std::vector<OpenRange> open_;
  std::vector<GraphExecDef> execs_;
  Rng drng_{0};  // --diagnosis decisions only (its own stream, seeded per process)
  bool quick_launch_ = false;  // --diagnosis 2: the next kernel follows a short stall
};

}  // namespace

std::string_view rpd_op_type(OpKind kind) {
  switch (kind) {
    case OpKind::Kernel: return "KernelExecution";
    case OpKind::CopyHostToDevice: return "CopyHostToDevice";
    case OpKind::CopyDeviceToHost: return "CopyDeviceToHost";
    case OpKind::CopyDeviceToDevice: return "CopyDeviceToDevice";
  }
  return "";
}

std::string_view rocpd_copy_name(OpKind kind) {
  switch (kind) {
    case OpKind::Kernel: return "";
    case OpKind::CopyHostToDevice: return "MEMORY_COPY_HOST_TO_DEVICE";
    case OpKind::CopyDeviceToHost: return "MEMORY_COPY_DEVICE_TO_HOST";
    case OpKind::CopyDeviceToDevice: return "MEMORY_COPY_DEVICE_TO_DEVICE";
  }
  return "";
}

ProcessTrace generate_process(const WorkloadParams& params, int rank, int session) {
  return ProcessGenerator(params, rank, session).run();
}

size_t collective_kernel() {
  static const size_t index = [] {
    const auto pool = kernel_pool();
    for (size_t k = 0; k < pool.size(); ++k)
      if (pool[k].name == "ncclDevKernel_AllReduce_Sum_f32_RING_LL") return k;
    return size_t{0};
  }();
  return index;
}

size_t step_collective_kernel(int j) {
  // An all-reduce, an all-gather, a reduce-scatter and another all-reduce, in turn (four families
  // of three, so every family repeats within a step).
  static const std::array<size_t, 4> kernels = [] {
    constexpr std::array<std::string_view, 4> names = {
        "ncclDevKernel_AllReduce_Sum_bf16_RING_LL128", "ncclDevKernel_AllGather_RING_LL",
        "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"};
    std::array<size_t, 4> out{};
    const auto pool = kernel_pool();
    for (size_t n = 0; n < names.size(); ++n)
      for (size_t k = 0; k < pool.size(); ++k)
        if (pool[k].name == names[n]) out[n] = k;
    return out;
  }();
  return kernels[static_cast<size_t>(j) % kernels.size()];
}

int64_t step_collective_duration(const WorkloadParams& p, int step, int j) {
  const int64_t base = kernel_pool()[step_collective_kernel(j)].base_ns;
  const uint64_t h = mix64(job_key_of(p.seed) ^ (0x73746570ULL + static_cast<uint64_t>(step) * 1'000'003ULL +
                                                  static_cast<uint64_t>(j) * 7919ULL));
  return base * static_cast<int64_t>(700 + h % 701) / 1'000;
}

int64_t step_arrival_jitter(const WorkloadParams& p, int rank, int step, int j) {
  if (p.collective_jitter <= 0) return 0;
  const uint64_t h = mix64(job_key_of(p.seed) ^ (0x617272ULL + static_cast<uint64_t>(rank) * 0x9e3779b97f4a7c15ULL +
                                                  static_cast<uint64_t>(step) * 1'000'003ULL + static_cast<uint64_t>(j)));
  return static_cast<int64_t>(h % static_cast<uint64_t>(p.collective_jitter + 1));
}

int64_t step_end_jitter(const WorkloadParams& p, int rank, int step, int j) {
  if (p.collective_jitter <= 0) return 0;
  const uint64_t h = mix64(job_key_of(p.seed) ^ (0x656e64ULL + static_cast<uint64_t>(rank) * 0xbf58476d1ce4e5b9ULL +
                                                  static_cast<uint64_t>(step) * 1'000'003ULL + static_cast<uint64_t>(j)));
  return static_cast<int64_t>(h % static_cast<uint64_t>(2 * p.collective_jitter + 1)) - p.collective_jitter;
}

int64_t step_straggle(const WorkloadParams& p, int rank, int step) {
  const bool straggled = (step + 1) * p.straggler_pct / 100 > step * p.straggler_pct / 100;
  return rank == p.straggler_rank && straggled ? p.straggler_delay : 0;
}

int step_marker(int step) { return kStepMarkerBase + step; }

int64_t step_first_start(const WorkloadParams& p) { return job_base_time(job_key_of(p.seed)) + 1'000'000; }

void apply_clock_offset(ProcessTrace& t, int64_t offset) {
  t.clock_offset += offset;
  t.init_ns += offset;
  t.fini_ns += offset;
  for (Op& op : t.ops) {
    op.start += offset;
    op.end += offset;
  }
  for (HostCall& c : t.calls) {
    c.start += offset;
    c.end += offset;
  }
  for (GraphLaunch& g : t.graphs) {
    g.start += offset;
    g.end += offset;
  }
}

uint64_t graph_exec_handle(const ProcessTrace& t, uint32_t exec) {
  return 0x5c0000000000ULL + (mix64(static_cast<uint64_t>(t.pid) * 31 + exec) & 0xffffff000ULL);
}

uint64_t graph_node_handle(const ProcessTrace& t, uint32_t exec, uint16_t node) {
  return 0x5d0000000000ULL + (mix64(static_cast<uint64_t>(t.pid) * 131 + exec * 64 + node) & 0xffffff0ULL);
}

std::string_view marker_message(int index) {
  if (index >= kStepMarkerBase) {
    static const std::vector<std::string> steps = [] {
      std::vector<std::string> out;
      for (int k = 0; k < kMaxSteps; ++k) out.push_back(fmt::format("ProfilerStep#{}", k));
      return out;
    }();
    return steps.at(static_cast<size_t>(index - kStepMarkerBase));
  }
  return kMarkerMessages.at(static_cast<size_t>(index));
}
int marker_message_count() { return static_cast<int>(kMarkerMessages.size()); }

MarkerKind marker_kind(const ProcessTrace& trace, size_t call_index) {
  const HostCall& c = trace.calls[call_index];
  if (c.end == c.start) return MarkerKind::Mark;
  // About one range in five is a start/stop range (drawn from a hash: the workload's random
  // stream is not touched, so existing workloads stay as they were).
  return mix64(static_cast<uint64_t>(trace.pid) * 0x2545f4914f6cdd1dULL + call_index) % 5 == 0 ? MarkerKind::ProcessRange
                                                                                                  : MarkerKind::ThreadRange;
}

std::string_view roctx_region_name(MarkerKind kind) {
  switch (kind) {
    case MarkerKind::ThreadRange: return "roctxThreadRangeA";
    case MarkerKind::ProcessRange: return "roctxProcessRangeA";
    case MarkerKind::Mark: break;
  }
  return "";
}

LaunchDims launch_dims(const ProcessTrace& trace, size_t op_index) {
  const Op& op = trace.ops[op_index];
  const uint64_t h = mix64(static_cast<uint64_t>(trace.pid) * 0x100000001b3ULL + op_index);
  static constexpr uint32_t kWorkgroups[] = {64, 128, 256, 256, 512, 1024};
  LaunchDims d{};
  d.workgroup_x = kWorkgroups[(h >> 8) % 6];
  d.workgroup_y = 1;
  d.workgroup_z = 1;
  d.grid_x = d.workgroup_x * static_cast<uint32_t>(1 + (h >> 16) % 4096);
  d.grid_y = 1 + static_cast<uint32_t>((h >> 32) % 4 == 0 ? (h >> 40) % 64 : 0);
  d.grid_z = 1;
  d.group_segment = static_cast<uint32_t>(((h >> 48) % 5) * 8192);
  d.private_segment = op.kernel % 7 == 0 ? 256 : 0;
  return d;
}

uint64_t device_pointer(int64_t pid, uint64_t salt) {
  return 0x7f0000000000ULL + (mix64(static_cast<uint64_t>(pid) ^ (salt * 0x9e3779b97f4a7c15ULL)) & 0xfffffff000ULL);
}

uint64_t host_pointer(int64_t pid, uint64_t salt) {
  return 0x7ffc00000000ULL + (mix64(static_cast<uint64_t>(pid) + salt * 0xbf58476d1ce4e5b9ULL) & 0xfffffff0ULL);
}

}  // namespace rocpd_gen
