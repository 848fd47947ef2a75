#include "nsys_model.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "json_text.h"
#include "kernel_pool.h"
#include "random.h"

namespace rocpd_gen {
namespace {

template <typename... T>
void append_to(std::string& out, fmt::format_string<T...> format, T&&... args) {
  fmt::format_to(std::back_inserter(out), format, std::forward<T>(args)...);
}

// Per-name totals, sorted as truth.json sorts them (largest total first, then name, then kind).
class Totals {
 public:
  void add(const std::string& name, const std::string& kind, int64_t d) {
    auto [it, inserted] = map_.try_emplace({name, kind});
    NameTotals& t = it->second;
    if (inserted) {
      t.name = name;
      t.kind = kind;
      t.min_ns = t.max_ns = d;
    }
    ++t.calls;
    t.total_ns += d;
    t.min_ns = std::min(t.min_ns, d);
    t.max_ns = std::max(t.max_ns, d);
  }
  void add(const NameTotals& n) {
    auto [it, inserted] = map_.try_emplace({n.name, n.kind}, n);
    if (inserted) return;
    NameTotals& t = it->second;
    t.calls += n.calls;
    t.total_ns += n.total_ns;
    t.min_ns = std::min(t.min_ns, n.min_ns);
    t.max_ns = std::max(t.max_ns, n.max_ns);
  }
  std::vector<NameTotals> sorted() const {
    std::vector<NameTotals> out;
    for (const auto& [k, v] : map_) out.push_back(v);
    std::stable_sort(out.begin(), out.end(), [](const NameTotals& a, const NameTotals& b) {
      if (a.total_ns != b.total_ns) return a.total_ns > b.total_ns;
      if (a.name != b.name) return a.name < b.name;
      return a.kind < b.kind;
    });
    return out;
  }

 private:
  std::map<std::pair<std::string, std::string>, NameTotals> map_;
};

std::string copy_name(OpKind kind) { return std::string(rpd_op_type(kind)); }

}  // namespace

CudaCall cuda_call(HostApi api) {
  switch (api) {
    case HostApi::HipLaunchKernel: return {"cudaLaunchKernel_v7000", 0};
    case HostApi::HipModuleLaunchKernel: return {"cuLaunchKernel", 1};
    // A five-digit version suffix: nsys stats leaves it on the name.
    case HostApi::HipExtModuleLaunchKernel: return {"cudaLaunchKernelExC_v11060", 0};
    case HostApi::HipMemcpyAsync: return {"cudaMemcpyAsync_v3020", 0};
    case HostApi::HipMemcpy: return {"cudaMemcpy_v3020", 0};
    case HostApi::HipStreamSynchronize: return {"cudaStreamSynchronize_v3020", 0};
    case HostApi::HipDeviceSynchronize: return {"cudaDeviceSynchronize_v3020", 0};
    case HostApi::HipEventRecord: return {"cudaEventRecord_v3020", 0};
    case HostApi::HipEventSynchronize: return {"cudaEventSynchronize_v3020", 0};
    case HostApi::HipStreamWaitEvent: return {"cudaStreamWaitEvent_v3020", 0};
    case HostApi::HipGetDevice: return {"cudaGetDevice_v3020", 0};
    case HostApi::HipSetDevice: return {"cudaSetDevice_v3020", 0};
    case HostApi::HipMalloc: return {"cudaMalloc_v3020", 0};
    case HostApi::HipFree: return {"cudaFree_v3020", 0};
    case HostApi::HipGetLastError: return {"cudaGetLastError_v3020", 0};
    case HostApi::HipPointerGetAttributes: return {"cuPointerGetAttributes", 1};
    case HostApi::HipGraphLaunch: return {"cudaGraphLaunch_v10000", 0};
    case HostApi::UserMarker: break;
  }
  return {"", 0};
}

std::string_view cuda_display_name(std::string_view recorded) {
  // nsys stats: CASE substr(name, -6, 2) WHEN '_v' THEN substr(name, 1, length(name) - 6).
  if (recorded.size() >= 6 && recorded.substr(recorded.size() - 6, 2) == "_v")
    return recorded.substr(0, recorded.size() - 6);
  return recorded;
}

int64_t global_pid(int64_t pid) { return (int64_t{1} << 48) | (pid << 24); }
int64_t global_tid(int64_t pid, uint32_t tid) { return global_pid(pid) | (tid & 0xFFFFFF); }
int64_t cuda_stream(int queue) { return 7 + 8 * static_cast<int64_t>(queue); }
int64_t registers_per_thread(size_t kernel) { return 16 + static_cast<int64_t>(mix64(kernel * 977 + 5) % 15) * 8; }

std::vector<Memset> nsys_memsets(const ProcessTrace& t, int count) {
  std::vector<Memset> out;
  if (t.ops.empty()) return out;
  for (int j = 0; j < count; ++j) {
    const uint64_t h = mix64(static_cast<uint64_t>(t.pid) * 0x51ed27ULL + static_cast<uint64_t>(j));
    const Op& after = t.ops[h % t.ops.size()];
    Memset m;
    m.gpu = after.gpu;
    m.queue = after.queue;
    m.start = after.end + 40 + static_cast<int64_t>((h >> 20) % 400);
    m.end = m.start + 800 + static_cast<int64_t>((h >> 32) % 6000);
    m.call_start = m.start - 9'000 - static_cast<int64_t>((h >> 12) % 3000);
    m.call_end = m.call_start + 2'500 + static_cast<int64_t>((h >> 40) % 1500);
    m.bytes = 4096 * static_cast<int64_t>(1 + (h >> 48) % 512);
    m.mem_kind = (h >> 8) % 4 == 0 ? 4 : 2;
    out.push_back(m);
  }
  return out;
}

bool nvtx_registered(const ProcessTrace& t, size_t call_index) {
  return mix64(static_cast<uint64_t>(t.pid) * 0x9e37ULL + call_index) % 3 == 0;
}

int nsys_sync_type(HostApi api) {
  switch (api) {
    case HostApi::HipEventSynchronize: return 1;
    case HostApi::HipStreamWaitEvent: return 2;
    case HostApi::HipStreamSynchronize: return 3;
    case HostApi::HipDeviceSynchronize: return 4;
    default: return 0;
  }
}

std::string_view nsys_sync_name(int sync_type) {
  switch (sync_type) {
    case 1: return "Event Sync";
    case 2: return "Stream Wait Event";
    case 3: return "Stream Sync";
    case 4: return "Context Sync";
    default: return "Unknown Sync";
  }
}

void nsys_truth(FileTruth& t, std::span<const ProcessTrace> traces, int memsets) {
  const auto pool = kernel_pool();
  Totals apis, ops, syncs;
  for (const NameTotals& n : t.top) ops.add(n);
  t.apis = t.apis_sum_ns = 0;
  int64_t domains[2] = {0, 0};
  int64_t push_pop = 0, start_end = 0, marks = 0, registered = 0, launches = 0, total_memsets = 0;
  std::map<int, std::vector<std::pair<int64_t, int64_t>>> intervals;
  std::map<int, GpuTruth> gpus;
  auto gpu_op = [&](int gpu, int64_t start, int64_t end) {
    auto [it, inserted] = gpus.try_emplace(gpu);
    GpuTruth& g = it->second;
    if (inserted) {
      g.gpu = gpu;
      g.first_ns = start;
      g.last_ns = end;
    }
    ++g.ops;
    g.sum_ns += end - start;
    g.first_ns = std::min(g.first_ns, start);
    g.last_ns = std::max(g.last_ns, end);
    intervals[gpu].emplace_back(start, end);
  };
  std::map<std::tuple<std::string, int64_t, int64_t>, std::pair<int64_t, int64_t>> copies;  // count, bytes
  int64_t sums[10] = {};
  std::map<std::string, std::string> demangled;
  std::map<int64_t, std::set<int64_t>> correlation_pids;
  for (const ProcessTrace& p : traces) {
    for (size_t i = 0; i < p.calls.size(); ++i) {
      const HostCall& c = p.calls[i];
      if (c.api == HostApi::UserMarker) {
        const MarkerKind k = marker_kind(p, i);
        ++(k == MarkerKind::Mark ? marks : k == MarkerKind::ThreadRange ? push_pop : start_end);
        if (nvtx_registered(p, i)) ++registered;
        continue;
      }
      if (const int type = nsys_sync_type(c.api)) syncs.add(std::string(nsys_sync_name(type)), "", c.end - c.start);
      const CudaCall cc = cuda_call(c.api);
      ++domains[cc.event_class];
      ++t.apis;
      t.apis_sum_ns += c.end - c.start;
      apis.add(std::string(cuda_display_name(cc.name)), "", c.end - c.start);
      correlation_pids[static_cast<int64_t>(i) + 1].insert(p.pid);
    }
    for (size_t i = 0; i < p.ops.size(); ++i) {
      const Op& op = p.ops[i];
      gpu_op(op.gpu, op.start, op.end);
      ++launches;
      if (op.kind != OpKind::Kernel) {
        const bool src = op.kind != OpKind::CopyHostToDevice, dst = op.kind != OpKind::CopyDeviceToHost;
        const int64_t src_gpu = src ? (op.kind == OpKind::CopyDeviceToDevice ? op.peer_gpu : op.gpu) : -1;
        auto& [n, bytes] = copies[{copy_name(op.kind), src_gpu, dst ? op.gpu : -1}];
        ++n;
        bytes += op.bytes;
        continue;
      }
      const KernelInfo& k = pool[static_cast<size_t>(op.kernel)];
      if (k.display() != k.name) demangled[std::string(k.name)] = std::string(k.display());
      const LaunchDims d = launch_dims(p, i);
      const int64_t values[10] = {d.grid_x, d.grid_y, d.grid_z, d.workgroup_x, d.workgroup_y, d.workgroup_z,
                                  d.group_segment, d.private_segment,
                                  registers_per_thread(static_cast<size_t>(op.kernel)), op.graph ? 1 : 0};
      for (int v = 0; v < 10; ++v) sums[v] += values[v];
    }
    const std::vector<Memset> sets = nsys_memsets(p, memsets);
    for (size_t j = 0; j < sets.size(); ++j) {
      const Memset& m = sets[j];
      ++total_memsets;
      ++launches;
      ++domains[0];
      ++t.apis;
      ++t.ops;
      t.apis_sum_ns += m.call_end - m.call_start;
      t.ops_sum_ns += m.end - m.start;
      apis.add("cudaMemsetAsync", "", m.call_end - m.call_start);
      ops.add("FillBuffer", "fill", m.end - m.start);
      gpu_op(m.gpu, m.start, m.end);
      t.first_ns = std::min({t.first_ns, m.call_start, m.start});
      t.last_ns = std::max({t.last_ns, m.call_end, m.end});
      correlation_pids[static_cast<int64_t>(p.calls.size() + 1 + j)].insert(p.pid);
    }
  }
  t.api_top = apis.sorted();
  t.top = ops.sorted();
  t.gpus.clear();
  for (auto& [gpu, g] : gpus) {
    const UnionLength u = interval_union(intervals[gpu]);
    g.busy_ns = u.length;
    g.busy_intervals = u.components;
    t.gpus.push_back(g);
  }

  int64_t shared = 0;
  for (const auto& [id, pids] : correlation_pids) shared += pids.size() > 1;
  const int64_t processes = static_cast<int64_t>(traces.size());
  std::string kernels;
  static constexpr const char* kKeys[10] = {"grid_x",    "grid_y",        "grid_z", "workgroup_x", "workgroup_y",
                                            "workgroup_z", "lds_bytes", "scratch_bytes", "vgpr", "graph_kernels"};
  for (int v = 0; v < 10; ++v) append_to(kernels, "{}\"{}\":{}", v ? "," : "", kKeys[v], sums[v]);
  std::string copy_rows;
  for (const auto& [key, value] : copies) {
    auto gpu = [](int64_t g) { return g < 0 ? std::string("null") : std::to_string(g); };
    append_to(copy_rows, "{}{{\"name\":{},\"src_gpu\":{},\"dst_gpu\":{},\"count\":{},\"bytes\":{}}}",
              copy_rows.empty() ? "" : ",", json_string(std::get<0>(key)), gpu(std::get<1>(key)),
              gpu(std::get<2>(key)), value.first, value.second);
  }
  std::string names;
  for (const auto& [name, d] : demangled)
    append_to(names, "{}{}:{}", names.empty() ? "" : ",", json_string(name), json_string(d));
  std::string streams;
  for (int q = 0; q < (traces.empty() ? 0 : traces.front().queues); ++q)
    append_to(streams, "{}\"{}\":{}", q ? "," : "", q, cuda_stream(q));
  t.extra.emplace_back("nsys_processes", std::to_string(processes));
  t.extra.emplace_back("nsys_memsets", std::to_string(total_memsets));
  t.extra.emplace_back("nsys_api_domains", fmt::format("{{\"cuda\":{},\"cuda_driver\":{}}}", domains[0], domains[1]));
  // Two registration rows per process (a domain and a category) are no marker calls.
  t.extra.emplace_back("nsys_nvtx",
                       fmt::format("{{\"push_pop\":{},\"start_end\":{},\"marks\":{},\"registered\":{},\"inline\":{},"
                                   "\"other_rows\":{}}}",
                                   push_pop, start_end, marks, registered, push_pop + start_end + marks - registered,
                                   2 * processes));
  std::string sync_rows;
  for (const NameTotals& n : syncs.sorted())
    append_to(sync_rows, "{}{}:[{},{}]", sync_rows.empty() ? "" : ",", json_string(n.name), n.calls, n.total_ns);
  // Synchronization records ('cuda_sync' calls of rocpd_apis): name -> [count, total ns].
  t.extra.emplace_back("nsys_sync", "{" + sync_rows + "}");
  t.extra.emplace_back("nsys_launch_pairs", std::to_string(launches));
  t.extra.emplace_back("nsys_shared_correlation_ids", std::to_string(shared));
  t.extra.emplace_back("nsys_kernels", "{" + kernels + "}");
  t.extra.emplace_back("nsys_copies", "[" + copy_rows + "]");
  t.extra.emplace_back("nsys_demangled", "{" + names + "}");
  t.extra.emplace_back("nsys_streams", "{" + streams + "}");
}

}  // namespace rocpd_gen
