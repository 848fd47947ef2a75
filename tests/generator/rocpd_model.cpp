#include "rocpd_model.h"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include "json_text.h"
#include "kernel_pool.h"
#include "random.h"

namespace rocpd_gen {
namespace {

constexpr std::array<CounterInfo, 8> kCounters = {{
    {"SQ_WAVES", "SQ", "Count number of waves sent to SQs.", 8, true},
    {"SQ_INSTS_VALU", "SQ", "Number of VALU instructions issued.", 8, true},
    {"SQ_INSTS_SALU", "SQ", "Number of SALU instructions issued.", 8, false},
    {"GRBM_GUI_ACTIVE", "GRBM", "The GUI is Active", 1, false},
    {"SQ_BUSY_CYCLES", "SQ", "Clock cycles while SQ is reporting that it is busy.", 8, false},
    {"TCC_HIT_sum", "TCC", "Number of cache hits. Sum over TCC instances.", 1, false},
    {"TCC_MISS_sum", "TCC", "Number of cache misses. Sum over TCC instances.", 1, false},
    {"FETCH_SIZE", "TCC", "The total kilobytes fetched from the video memory.", 1, false},
}};

size_t slot(const ProcessTrace& t, int gpu, int queue) { return static_cast<size_t>(gpu) * t.queues + queue; }

int64_t waves(const ProcessTrace& t, size_t op_index) {
  const LaunchDims d = launch_dims(t, op_index);
  const int64_t items = int64_t{d.grid_x} * d.grid_y * d.grid_z;
  return (items + 63) / 64;
}

}  // namespace

KernelResources kernel_resources(size_t k) {
  const uint64_t h = mix64(k * 7919 + 13);
  return {static_cast<int64_t>(16 + (h % 32) * 8),
          static_cast<int64_t>((h >> 8) % 5 * 8192),
          k % 7 == 0 ? 256 : 0,
          static_cast<int64_t>(16 + (h >> 16) % 96),
          static_cast<int64_t>(8 + (h >> 24) % 248),
          static_cast<int64_t>((h >> 32) % 2 ? 0 : (h >> 40) % 128)};
}

int64_t dispatch_group_segment(const ProcessTrace& t, size_t op_index, const RocpdFeatures& f) {
  const int64_t dynamic = launch_dims(t, op_index).group_segment;
  if (!f.versioned()) return dynamic;
  return dynamic + kernel_resources(static_cast<size_t>(t.ops[op_index].kernel)).group_segment;
}

std::vector<HipEventBarrier> hip_event_barriers(const ProcessTrace& t) {
  std::vector<HipEventBarrier> out;
  std::vector<int64_t> last_end(static_cast<size_t>(t.gpus) * t.queues, 0);
  size_t next_op = 0;
  for (size_t i = 0; i < t.calls.size(); ++i) {
    // Ops are in issue order, so the ops issued before call i are a prefix.
    for (; next_op < t.ops.size() && t.ops[next_op].call < i; ++next_op) {
      const Op& op = t.ops[next_op];
      int64_t& e = last_end[slot(t, op.gpu, op.queue)];
      e = std::max(e, op.end);
    }
    const HostCall& c = t.calls[i];
    if (c.api != HostApi::HipEventRecord && c.api != HostApi::HipStreamWaitEvent) continue;
    const uint64_t h = mix64(static_cast<uint64_t>(t.pid) * 0x51ed27ULL + i);
    HipEventBarrier b;
    b.call = static_cast<uint32_t>(i);
    b.wait = c.api == HostApi::HipStreamWaitEvent;
    b.gpu = static_cast<uint16_t>(h % t.gpus);
    b.queue = static_cast<uint16_t>((h >> 8) % t.queues);
    b.source_queue = b.queue;
    if (b.wait && t.queues > 1) b.source_queue = static_cast<uint16_t>((b.queue + 1 + (h >> 16) % (t.queues - 1)) % t.queues);
    // One event object per (gpu, queue) it is recorded on: a WAIT names the event of its source.
    b.handle = 0x7e0000000000ULL + ((mix64(static_cast<uint64_t>(t.pid) ^ (slot(t, b.gpu, b.source_queue) + 1)) & 0xffffffULL) << 4);
    // The barrier packet runs once the work queued before it is done.
    b.start = std::max(c.start + 2'000 + static_cast<int64_t>((h >> 24) % 6'000), last_end[slot(t, b.gpu, b.queue)]);
    b.end = b.start + 1'000 + static_cast<int64_t>((h >> 40) % 2'000);
    if (b.wait) b.end = std::max(b.end, last_end[slot(t, b.gpu, b.source_queue)]);
    out.push_back(b);
  }
  return out;
}

std::vector<ScratchAlloc> scratch_allocations(const ProcessTrace& t) {
  std::vector<ScratchAlloc> out;
  std::vector<bool> seen(static_cast<size_t>(t.gpus) * t.queues, false);
  for (size_t i = 0; i < t.ops.size(); ++i) {
    const Op& op = t.ops[i];
    if (op.kind != OpKind::Kernel || launch_dims(t, i).private_segment == 0) continue;
    if (seen[slot(t, op.gpu, op.queue)]) continue;
    seen[slot(t, op.gpu, op.queue)] = true;
    const HostCall& c = t.calls[op.call];
    const int64_t span = c.end - c.start;
    out.push_back({static_cast<uint32_t>(i), c.start + span / 4, c.start + span * 3 / 4,
                   int64_t{launch_dims(t, i).private_segment} * 64 * 4096});
  }
  return out;
}

std::span<const CounterInfo> counter_catalog() { return kCounters; }

int64_t counter_id(int counter) { return 100 + counter; }

int64_t counter_value(const ProcessTrace& t, size_t op_index, int counter, int dimension) {
  const CounterInfo& info = kCounters.at(static_cast<size_t>(counter));
  const Op& op = t.ops[op_index];
  const uint64_t h = mix64(static_cast<uint64_t>(t.pid) * 0x9e37ULL + op_index * 131 + static_cast<uint64_t>(counter));
  const int64_t w = waves(t, op_index);
  const int64_t cycles = (op.end - op.start) * 21 / 10;  // 2.1 GHz
  int64_t total = 0;
  switch (counter) {
    case 0: total = w; break;
    case 1: total = w * static_cast<int64_t>(100 + h % 400); break;
    case 2: total = w * static_cast<int64_t>(20 + h % 50); break;
    case 3: total = cycles; break;
    case 4: total = cycles * 8 * static_cast<int64_t>(60 + h % 40) / 100; break;
    case 5: total = w * static_cast<int64_t>(30 + h % 90); break;
    case 6: total = w * static_cast<int64_t>(2 + h % 20); break;
    default: total = w * static_cast<int64_t>(1 + h % 16); break;
  }
  // Per-XCC rows: an even split, the remainder on the first ones.
  const int64_t n = info.dimensions;
  return total / n + (dimension < total % n ? 1 : 0);
}

int64_t rpd_counter_value(const ProcessTrace& t, size_t op_index, int counter) {
  int64_t total = 0;
  for (int d = 0; d < kCounters.at(static_cast<size_t>(counter)).dimensions; ++d) total += counter_value(t, op_index, counter, d);
  return total;
}

std::vector<std::pair<std::string, std::string>> rpd_counter_truth(std::span<const ProcessTrace> processes, int counters) {
  int64_t rows = 0;
  std::vector<int64_t> sums(static_cast<size_t>(counters), 0);
  for (const ProcessTrace& t : processes)
    for (size_t i = 0; i < t.ops.size(); ++i) {
      if (t.ops[i].kind != OpKind::Kernel) continue;
      for (int c = 0; c < counters; ++c) {
        ++rows;
        sums[static_cast<size_t>(c)] += rpd_counter_value(t, i, c);
      }
    }
  std::string json = "{";
  for (int c = 0; c < counters; ++c)
    json += fmt::format("{}{}:{}", c ? "," : "", json_string(kCounters[static_cast<size_t>(c)].name), sums[static_cast<size_t>(c)]);
  return {{"counters", std::to_string(rows)}, {"counter_sums", json + "}"}};
}

std::vector<SpmSample> spm_samples(const ProcessTrace& t) {
  std::vector<SpmSample> out;
  int dispatches = 0;
  for (size_t i = 0; i < t.ops.size() && dispatches < 2; ++i) {
    const Op& op = t.ops[i];
    if (op.kind != OpKind::Kernel || op.end <= op.start) continue;
    ++dispatches;
    for (int k = 0; k < 4; ++k) out.push_back({static_cast<uint32_t>(i), op.start + (op.end - op.start) * k / 4});
  }
  return out;
}

int spm_counter_count(const RocpdFeatures& f) { return f.spm() ? std::min(2, f.counters) : 0; }

int64_t spm_value(const ProcessTrace& t, size_t sample_index, int counter, int position) {
  return static_cast<int64_t>(mix64(static_cast<uint64_t>(t.pid) + sample_index * 977 + static_cast<uint64_t>(counter) * 31 +
                                    static_cast<uint64_t>(position)) % 5'000);
}

std::vector<std::pair<std::string, std::string>> rocpd_truth(std::span<const ProcessTrace> processes,
                                                             const RocpdFeatures& f) {
  std::vector<std::pair<std::string, std::string>> out;
  auto add = [&](std::string key, int64_t value) { out.emplace_back(std::move(key), std::to_string(value)); };
  if (!f.version.empty()) out.emplace_back("rocpd_version", json_string(f.version));
  if (f.versioned()) {
    int64_t sgpr = 0, vgpr = 0, agpr = 0, lds = 0, scratch = 0;
    int64_t graph_launches = 0, graph_ops = 0, graph_kernels = 0, hip_events = 0;
    int64_t allocs = 0, alloc_bytes = 0, frees = 0, scratch_allocs = 0;
    for (const ProcessTrace& t : processes) {
      for (size_t i = 0; i < t.ops.size(); ++i) {
        const Op& op = t.ops[i];
        if (op.graph) ++graph_ops;
        if (op.kind != OpKind::Kernel) continue;
        const KernelResources r = kernel_resources(static_cast<size_t>(op.kernel));
        sgpr += r.sgpr;
        vgpr += r.arch_vgpr;
        agpr += r.accum_vgpr;
        lds += dispatch_group_segment(t, i, f);
        scratch += launch_dims(t, i).private_segment;
        if (op.graph) ++graph_kernels;
      }
      graph_launches += static_cast<int64_t>(t.graphs.size());
      hip_events += static_cast<int64_t>(hip_event_barriers(t).size());
      for (const HostCall& c : t.calls) {
        if (c.api == HostApi::HipMalloc) {
          ++allocs;
          alloc_bytes += static_cast<int64_t>(c.arg_size);
        } else if (c.api == HostApi::HipFree) {
          ++frees;
        }
      }
      scratch_allocs += static_cast<int64_t>(scratch_allocations(t).size());
    }
    add("kernel_sgpr_sum", sgpr);
    add("kernel_arch_vgpr_sum", vgpr);
    add("kernel_accum_vgpr_sum", agpr);
    add("kernel_lds_sum", lds);
    add("kernel_scratch_sum", scratch);
    if (f.graphs()) {
      add("graph_launches", graph_launches);
      add("graph_ops", graph_ops);
      add("graph_kernels", graph_kernels);
    }
    if (f.hip_events()) add("hip_events", hip_events);
    add("memory_allocs", allocs);
    add("memory_alloc_bytes", alloc_bytes);
    add("memory_frees", frees);
    add("scratch_allocs", scratch_allocs);
  }
  if (f.counters > 0) {
    int64_t rows = 0;
    std::vector<int64_t> sums(static_cast<size_t>(f.counters), 0);
    int64_t samples = 0, values = 0;
    for (const ProcessTrace& t : processes) {
      for (size_t i = 0; i < t.ops.size(); ++i) {
        if (t.ops[i].kind != OpKind::Kernel) continue;
        for (int c = 0; c < f.counters; ++c)
          for (int d = 0; d < kCounters[static_cast<size_t>(c)].dimensions; ++d) {
            ++rows;
            sums[static_cast<size_t>(c)] += counter_value(t, i, c, d);
          }
      }
      if (f.spm()) {
        const auto s = spm_samples(t);
        samples += static_cast<int64_t>(s.size());
        values += static_cast<int64_t>(s.size()) * spm_counter_count(f) * kSpmPositions;
      }
    }
    add("counters", rows);
    std::string json = "{";
    for (int c = 0; c < f.counters; ++c)
      json += fmt::format("{}{}:{}", c ? "," : "", json_string(kCounters[static_cast<size_t>(c)].name), sums[static_cast<size_t>(c)]);
    out.emplace_back("counter_sums", json + "}");
    if (f.spm()) {
      add("spm_samples", samples);
      add("spm_values", values);
    }
  }
  return out;
}

}  // namespace rocpd_gen
