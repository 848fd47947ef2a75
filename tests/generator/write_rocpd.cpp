#include "write_rocpd.h"

#include <algorithm>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "db.h"
#include "json_text.h"
#include "kernel_pool.h"
#include "random.h"
#include "schema_text.h"

namespace rocpd_gen {
namespace {

constexpr int kCpuAgents = 2;  // agents are numbered CPUs first, as the ROCm runtime does

// Event categories: the rocprofiler-sdk buffer tracing kind names.
constexpr std::string_view kHipCategory = "HIP_RUNTIME_API_EXT";
constexpr std::string_view kMarkerCategory = "MARKER_CORE_RANGE_API";
constexpr std::string_view kDispatchCategory = "KERNEL_DISPATCH";
constexpr std::string_view kCopyCategory = "MEMORY_COPY";

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

int64_t gpu_agent(int gpu) { return kCpuAgents + gpu; }
int64_t queue_id(const ProcessTrace& t, int gpu, int queue) { return 1 + gpu * t.queues + queue; }

class RocpdWriter {
 public:
  RocpdWriter(Db& db, const ProcessTrace& t, const RocpdIdentity& identity)
      : db_(db), t_(t), suffix_(identity.table_suffix) {
    const uint64_t host_hash = mix64(std::hash<std::string>{}(t.hostname) ^ 0x6e6f6465ULL);
    node_hash_ = static_cast<int64_t>(host_hash % static_cast<uint64_t>(INT64_MAX));
    nid_ = node_hash_ % 4294967295LL;
  }

  void write() {
    write_info();
    write_regions();
    write_gpu_work();
    if (events_) events_->finish();
  }

 private:
  // Statement texts name tables rocpd_<name>_<uuid>; <uuid> is replaced by the table suffix.
  std::string sql(std::string_view text) const { return replace_all(std::string(text), "<uuid>", suffix_); }

  int64_t string_id(std::string_view text) {
    if (!strings_) strings_.emplace(db_, sql("INSERT INTO rocpd_string_<uuid> (id, string) VALUES (?, ?)"));
    auto it = string_ids_.find(std::string(text));
    if (it != string_ids_.end()) return it->second;
    const int64_t id = static_cast<int64_t>(string_ids_.size()) + 1;
    strings_->run(id, text);
    string_ids_.emplace(std::string(text), id);
    return id;
  }

  int64_t new_event(std::string_view category, int64_t stack_id, int64_t parent_stack_id, int64_t correlation_id,
                    std::string_view extdata) {
    if (!events_)
      events_.emplace(db_, sql("INSERT INTO rocpd_event_<uuid> (id, category_id, stack_id, parent_stack_id, "
                               "correlation_id, extdata) VALUES (?, ?, ?, ?, ?, ?)"));
    const int64_t id = ++event_count_;
    events_->add(id, string_id(category), stack_id, parent_stack_id, correlation_id, extdata);
    return id;
  }

  void write_info() {
    string_id("");
    Stmt node(db_, sql("INSERT INTO rocpd_info_node_<uuid> (id, hash, machine_id, system_name, hostname, release, "
                       "version, hardware_name, domain_name) VALUES (?, ?, ?, 'Linux', ?, '6.8.0-45-generic', "
                       "'#45-Ubuntu SMP PREEMPT_DYNAMIC', 'x86_64', '(none)')"));
    node.run(nid_, node_hash_, fmt::format("{:016x}{:016x}", mix64(node_hash_), mix64(node_hash_ + 1)), t_.hostname);

    Stmt process(db_, sql("INSERT INTO rocpd_info_process_<uuid> (id, nid, ppid, pid, init, fini, start, end, command, "
                          "environment, extdata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}')"));
    const std::string environment =
        fmt::format("{{\"RANK\":\"{}\",\"LOCAL_RANK\":\"{}\",\"HIP_VISIBLE_DEVICES\":\"{}\"}}", t_.rank,
                    t_.rank % 2, gpu_list());
    process.run(t_.pid, nid_, t_.ppid, t_.pid, t_.init_ns, t_.fini_ns, t_.init_ns, t_.fini_ns,
                fmt::format("python3 train.py --rank {}", t_.rank), environment);

    std::set<uint32_t> tids;
    for (const HostCall& c : t_.calls) tids.insert(c.tid);
    tids.insert(t_.main_tid);
    Stmt thread(db_, sql("INSERT INTO rocpd_info_thread_<uuid> (id, nid, ppid, pid, tid, name, start, end) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
    for (uint32_t tid : tids)
      thread.run(tid, nid_, t_.ppid, t_.pid, tid, tid == t_.main_tid ? "python3" : "pt_autograd_0", t_.init_ns,
                 t_.fini_ns);

    Stmt agent(db_, sql("INSERT INTO rocpd_info_agent_<uuid> (id, nid, pid, type, absolute_index, logical_index, "
                        "type_index, uuid, name, model_name, vendor_name, product_name, user_name) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (int cpu = 0; cpu < kCpuAgents; ++cpu)
      agent.run(cpu, nid_, t_.pid, "CPU", cpu, cpu, cpu, 0, "AMD EPYC 9654 96-Core Processor", "", "CPU",
                "AMD EPYC 9654 96-Core Processor", "AMD EPYC 9654 96-Core Processor");
    for (int gpu = 0; gpu < t_.gpus; ++gpu) {
      const int64_t id = gpu_agent(gpu);
      agent.run(id, nid_, t_.pid, "GPU", id, id, gpu, static_cast<int64_t>(mix64(node_hash_ + gpu) >> 2), "gfx942",
                "ip discovery", "AMD", "AMD Instinct MI300X", "AMD Instinct MI300X");
    }

    // Handle 0 is the default queue/stream the writer always registers first.
    Stmt queue(db_, sql("INSERT INTO rocpd_info_queue_<uuid> (id, nid, pid, name) VALUES (?, ?, ?, ?)"));
    Stmt stream(db_, sql("INSERT INTO rocpd_info_stream_<uuid> (id, nid, pid, name) VALUES (?, ?, ?, ?)"));
    queue.run(0, nid_, t_.pid, "Default Queue");
    stream.run(0, nid_, t_.pid, "Default Stream");
    for (int gpu = 0; gpu < t_.gpus; ++gpu)
      for (int q = 0; q < t_.queues; ++q) {
        const int64_t id = queue_id(t_, gpu, q);
        queue.run(id, nid_, t_.pid, fmt::format("Queue {}", id - 1));
        stream.run(id, nid_, t_.pid, fmt::format("Stream {}", id - 1));
      }

    // One code object per gpu holding every kernel of the pool: each kernel has one symbol per gpu.
    Stmt code_object(db_, sql("INSERT INTO rocpd_info_code_object_<uuid> (id, nid, pid, agent_id, uri, load_base, "
                              "load_size, load_delta, storage_type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'FILE')"));
    Stmt symbol(db_, sql("INSERT INTO rocpd_info_kernel_symbol_<uuid> (id, nid, pid, code_object_id, kernel_name, "
                         "display_name, kernel_object, kernarg_segment_size, kernarg_segment_alignment, "
                         "group_segment_size, private_segment_size, sgpr_count, arch_vgpr_count, "
                         "accum_vgpr_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 8, ?, ?, ?, ?, ?)"));
    const auto pool = kernel_pool();
    for (int gpu = 0; gpu < t_.gpus; ++gpu) {
      const int64_t base = 0x7f3e00000000LL + gpu * 0x10000000LL;
      code_object.run(gpu + 1, nid_, t_.pid, gpu_agent(gpu),
                      "file:///opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_hip.so#offset=28672&size=412110848",
                      base, 412110848, base);
      for (size_t k = 0; k < pool.size(); ++k) {
        const uint64_t h = mix64(k * 7919 + 13);
        symbol.run(kernel_symbol_id(gpu, k), nid_, t_.pid, gpu + 1, pool[k].name, pool[k].display(),
                   base + 0x1000 + static_cast<int64_t>(k) * 0x400, static_cast<int64_t>(16 + (h % 32) * 8),
                   static_cast<int64_t>((h >> 8) % 5 * 8192), k % 7 == 0 ? 256 : 0,
                   static_cast<int64_t>(16 + (h >> 16) % 96), static_cast<int64_t>(8 + (h >> 24) % 248),
                   static_cast<int64_t>((h >> 32) % 2 ? 0 : (h >> 40) % 128));
      }
    }
  }

  int64_t kernel_symbol_id(int gpu, size_t kernel) const {
    return 1 + static_cast<int64_t>(gpu) * static_cast<int64_t>(kernel_pool().size()) + static_cast<int64_t>(kernel);
  }

  std::string gpu_list() const {
    std::string out;
    for (int gpu = 0; gpu < t_.gpus; ++gpu) out += fmt::format("{}{}", gpu ? "," : "", gpu);
    return out;
  }

  // API calls and marker ranges become regions, instant marks become samples on a per-thread
  // track. The region id is the call's correlation id.
  void write_regions() {
    BatchInsert region(db_, sql("INSERT INTO rocpd_region_<uuid> (id, nid, pid, tid, start, end, name_id, event_id) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
    BatchInsert sample(db_, sql("INSERT INTO rocpd_sample_<uuid> (id, track_id, timestamp, event_id) VALUES (?, ?, ?, ?)"));
    Stmt track(db_, sql("INSERT INTO rocpd_track_<uuid> (id, nid, pid, tid, name_id) VALUES (?, ?, ?, ?, ?)"));
    // Call arguments as rocprofv3 records them (one row per argument); only for the calls whose
    // arguments the workload models.
    BatchInsert arg(db_, sql("INSERT INTO rocpd_arg_<uuid> (event_id, position, type, name, value) VALUES (?, ?, ?, ?, ?)"));
    std::unordered_map<uint32_t, int64_t> tracks;
    for (size_t i = 0; i < t_.calls.size(); ++i) {
      const HostCall& c = t_.calls[i];
      const int64_t corr = static_cast<int64_t>(i) + 1;
      if (c.api != HostApi::UserMarker) {
        const int64_t event = new_event(kHipCategory, corr, 0, corr, "{}");
        region.add(corr, nid_, t_.pid, c.tid, c.start, c.end, string_id(host_api_name(c.api)), event);
        if (c.api == HostApi::HipMalloc) {
          arg.add(event, 0, "void**", "ptr", fmt::format("{:#x}", c.arg_ptr));
          arg.add(event, 1, "unsigned long", "size", std::to_string(c.arg_size));
        } else if (c.api == HostApi::HipFree) {
          arg.add(event, 0, "void*", "ptr", fmt::format("{:#x}", c.arg_ptr));
        }
        continue;
      }
      const std::string_view message = marker_message(c.marker);
      const int64_t event =
          new_event(kMarkerCategory, corr, 0, corr, fmt::format("{{\"message\":{}}}", json_string(message)));
      arg.add(event, 0, "const char*", "message", message);
      if (c.end > c.start) {
        // rocprofv3 names a roctx range region after the roctx operation, not the message: the
        // message is only in the event's extdata (and the argument row).
        region.add(corr, nid_, t_.pid, c.tid, c.start, c.end, string_id(roctx_region_name(marker_kind(t_, i))), event);
        continue;
      }
      auto [it, inserted] = tracks.try_emplace(c.tid, static_cast<int64_t>(tracks.size()) + 1);
      if (inserted) track.run(it->second, nid_, t_.pid, c.tid, string_id(kMarkerCategory));
      sample.add(corr, it->second, c.start, event);
    }
    region.finish();
    sample.finish();
    arg.finish();
  }

  // Dispatches first, then copies, as rocprofv3 writes them; each with its own event carrying the
  // correlation id of the call that issued it.
  void write_gpu_work() {
    BatchInsert dispatch(db_, sql("INSERT INTO rocpd_kernel_dispatch_<uuid> (id, nid, pid, tid, agent_id, kernel_id, "
                           "dispatch_id, queue_id, stream_id, start, end, private_segment_size, group_segment_size, "
                           "workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, "
                           "grid_size_z, region_name_id, event_id) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    const int64_t empty = string_id("");
    int64_t dispatch_id = 0;
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const Op& op = t_.ops[i];
      if (op.kind != OpKind::Kernel) continue;
      const int64_t corr = static_cast<int64_t>(op.call) + 1;
      const int64_t event = new_event(kDispatchCategory, corr, corr, corr, "{}");
      const LaunchDims d = launch_dims(t_, i);
      const int64_t queue = queue_id(t_, op.gpu, op.queue);
      ++dispatch_id;
      dispatch.add(dispatch_id, nid_, t_.pid, t_.calls[op.call].tid, gpu_agent(op.gpu),
                   kernel_symbol_id(op.gpu, static_cast<size_t>(op.kernel)), dispatch_id, queue, queue, op.start,
                   op.end, d.private_segment, d.group_segment, d.workgroup_x, d.workgroup_y, d.workgroup_z,
                   d.grid_x, d.grid_y, d.grid_z, empty, event);
    }
    dispatch.finish();

    BatchInsert copy(db_, sql("INSERT INTO rocpd_memory_copy_<uuid> (id, nid, pid, tid, start, end, name_id, dst_agent_id, "
                       "dst_address, src_agent_id, src_address, size, queue_id, stream_id, region_name_id, event_id) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, NULL, ?)"));
    int64_t copy_id = 0;
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const Op& op = t_.ops[i];
      if (op.kind == OpKind::Kernel) continue;
      const int64_t corr = static_cast<int64_t>(op.call) + 1;
      const int64_t event = new_event(kCopyCategory, corr, corr, corr, "{}");
      const bool to_device = op.kind != OpKind::CopyDeviceToHost;
      const bool from_device = op.kind != OpKind::CopyHostToDevice;
      const int64_t dst_agent = to_device ? gpu_agent(op.gpu) : 0;
      const int64_t src_agent = op.kind == OpKind::CopyDeviceToDevice ? gpu_agent(op.peer_gpu)
                                : from_device                         ? gpu_agent(op.gpu)
                                                                      : 0;
      const uint64_t dst = to_device ? device_pointer(t_.pid, i * 2) : host_pointer(t_.pid, i * 2);
      const uint64_t src = from_device ? device_pointer(t_.pid, i * 2 + 1) : host_pointer(t_.pid, i * 2 + 1);
      ++copy_id;
      copy.add(copy_id, nid_, t_.pid, t_.calls[op.call].tid, op.start, op.end, string_id(rocpd_copy_name(op.kind)),
               dst_agent, dst, src_agent, src, op.bytes, t_.calls[op.call].api == HostApi::HipMemcpy ? 0 : queue_id(t_, op.gpu, op.queue),
               event);
    }
    copy.finish();
  }

  Db& db_;
  const ProcessTrace& t_;
  std::string suffix_;
  int64_t node_hash_ = 0;
  int64_t nid_ = 0;
  std::optional<Stmt> strings_;
  std::unordered_map<std::string, int64_t> string_ids_;
  std::optional<BatchInsert> events_;
  int64_t event_count_ = 0;
};

}  // namespace

RocpdIdentity rocpd_identity(uint64_t seed, const ProcessTrace& trace) {
  // UUIDv7: 48-bit Unix milliseconds (a fixed 2025 date shifted by seed and rank), version 7,
  // variant 10, random bits from the seed.
  const uint64_t key = mix64(seed ^ 0x75756964ULL) ^ mix64(static_cast<uint64_t>(trace.rank) * 0x9e3779b97f4a7c15ULL + trace.session);
  const uint64_t ms = 1'750'000'000'000ULL + mix64(seed) % 10'000'000'000ULL + static_cast<uint64_t>(trace.rank) * 37;
  const uint64_t r1 = mix64(key);
  const uint64_t r2 = mix64(key + 1);
  RocpdIdentity id;
  id.guid = fmt::format("{:08x}-{:04x}-7{:03x}-{:04x}-{:012x}", (ms >> 16) & 0xffffffffULL, ms & 0xffffULL,
                        r1 & 0xfffULL, 0x8000ULL | ((r1 >> 12) & 0x3fffULL), r2 & 0xffffffffffffULL);
  id.table_suffix = replace_all(id.guid, "-", "_");
  return id;
}

void write_rocpd(const std::filesystem::path& path, const ProcessTrace& trace, const RocpdIdentity& identity) {
  Db db(path);
  db.exec(replace_all(replace_all(std::string(kRocpdV3Schema), "{{uuid}}", identity.table_suffix), "{{guid}}",
                      identity.guid));
  db.exec("BEGIN");
  RocpdWriter(db, trace, identity).write();
  db.exec("COMMIT");
}

}  // namespace rocpd_gen
