#include "write_rocpd4.h"

#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "db.h"
#include "json_text.h"
#include "kernel_pool.h"
#include "random.h"
#include "rocpd_model.h"
#include "rocpd_schema.h"
#include "schema_text.h"

namespace rocpd_gen {
namespace {

constexpr int kCpuAgents = 2;
int64_t gpu_agent(int gpu) { return kCpuAgents + gpu; }
int64_t queue_id(const ProcessTrace& t, int gpu, int queue) { return 1 + gpu * t.queues + queue; }

// The perfetto-style category names of the 4.x writer.
constexpr std::string_view kHipApi = "hip_api";
constexpr std::string_view kMarkerApi = "marker_api";
constexpr std::string_view kDispatch = "kernel_dispatch";
constexpr std::string_view kCopy = "memory_copy";
constexpr std::string_view kAllocation = "memory_allocation";
constexpr std::string_view kScratch = "scratch_memory";

class Rocpd4Writer {
 public:
  Rocpd4Writer(Db& db, const ProcessTrace& t, const RocpdIdentity& identity) : db_(db), t_(t), suffix_(identity.table_suffix) {
    const uint64_t host_hash = mix64(std::hash<std::string>{}(t.hostname) ^ 0x6e6f6465ULL);
    node_hash_ = static_cast<int64_t>(host_hash % static_cast<uint64_t>(INT64_MAX));
    nid_ = node_hash_ % 4294967295LL;
    features_.patch = 0;  // the versioned row semantics of 3.0.x (.kd names, static + dynamic LDS)
  }

  void write() {
    string_id("");
    write_info();
    write_calls();
    write_gpu_work();
    write_allocations();
    events_->finish();
  }

 private:
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

  int64_t category_id(std::string_view name) {
    if (!categories_) categories_.emplace(db_, sql("INSERT INTO rocpd_info_category_<uuid> (id, name) VALUES (?, ?)"));
    auto it = category_ids_.find(std::string(name));
    if (it != category_ids_.end()) return it->second;
    const int64_t id = static_cast<int64_t>(category_ids_.size()) + 1;
    categories_->run(id, name);
    category_ids_.emplace(std::string(name), id);
    return id;
  }

  int64_t new_event(std::string_view category, int64_t stack_id, int64_t parent_stack_id, int64_t correlation_id,
                    std::string_view extdata) {
    const int64_t category_row = category_id(category);
    if (!events_)
      events_.emplace(db_, sql("INSERT INTO rocpd_event_<uuid> (id, category_id, stack_id, parent_stack_id, "
                               "correlation_id, extdata) VALUES (?, ?, ?, ?, ?, ?)"));
    const int64_t id = ++event_count_;
    events_->add(id, category_row, stack_id, parent_stack_id, correlation_id, extdata);
    return id;
  }

  // One track per distinct (tid, agent, queue, stream, name); 0 stands for NULL.
  int64_t track(uint32_t tid, int64_t agent, int64_t queue, int64_t stream, int64_t name_id) {
    if (!tracks_)
      tracks_.emplace(db_, sql("INSERT INTO rocpd_track_<uuid> (id, nid, ppid, pid, tid, agent_id, queue_id, stream_id, "
                               "name_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    const auto key = std::make_tuple(tid, agent, queue, stream, name_id);
    auto it = track_ids_.find(key);
    if (it != track_ids_.end()) return it->second;
    const int64_t id = static_cast<int64_t>(track_ids_.size()) + 1;
    auto value = [](int64_t v) -> std::optional<int64_t> { return v < 0 ? std::nullopt : std::optional<int64_t>(v); };
    tracks_->run(id, nid_, t_.ppid, t_.pid, static_cast<int64_t>(tid), value(agent), value(queue), value(stream), value(name_id));
    track_ids_.emplace(key, id);
    return id;
  }

  void write_info() {
    Stmt node(db_, sql("INSERT INTO rocpd_info_node_<uuid> (id, hash, machine_id, system_name, hostname, release, "
                       "version, hardware_name, domain_name) VALUES (?, ?, ?, 'Linux', ?, '6.8.0-45-generic', "
                       "'#45-Ubuntu SMP PREEMPT_DYNAMIC', 'x86_64', '(none)')"));
    node.run(nid_, node_hash_, fmt::format("{:016x}{:016x}", mix64(node_hash_), mix64(node_hash_ + 1)), t_.hostname);
    Stmt process(db_, sql("INSERT INTO rocpd_info_process_<uuid> (id, nid, ppid, pid, init, fini, start, end, command, "
                          "environment, extdata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '{}')"));
    process.run(t_.pid, nid_, t_.ppid, t_.pid, t_.init_ns, t_.fini_ns, t_.init_ns, t_.fini_ns,
                fmt::format("python3 train.py --rank {}", t_.rank), fmt::format("{{\"RANK\":\"{}\"}}", t_.rank));
    std::set<uint32_t> tids;
    for (const HostCall& c : t_.calls) tids.insert(c.tid);
    tids.insert(t_.main_tid);
    Stmt thread(db_, sql("INSERT INTO rocpd_info_thread_<uuid> (id, nid, ppid, pid, tid, name, start, end) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
    for (uint32_t tid : tids)
      thread.run(tid, nid_, t_.ppid, t_.pid, tid, tid == t_.main_tid ? "python3" : "pt_autograd_0", t_.init_ns, t_.fini_ns);

    // name = the product name, generic_name = the SDK agent name.
    Stmt agent(db_, sql("INSERT INTO rocpd_info_agent_<uuid> (id, nid, pid, type, absolute_index, logical_index, "
                        "type_index, uuid, name, generic_name, model_name, vendor_name, product_name) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (int cpu = 0; cpu < kCpuAgents; ++cpu)
      agent.run(cpu, nid_, t_.pid, "CPU", cpu, cpu, cpu, 0, "AMD EPYC 9654 96-Core Processor",
                "AMD EPYC 9654 96-Core Processor", "", "CPU", "AMD EPYC 9654 96-Core Processor");
    for (int gpu = 0; gpu < t_.gpus; ++gpu) {
      const int64_t id = gpu_agent(gpu);
      agent.run(id, nid_, t_.pid, "GPU", id, id, gpu, static_cast<int64_t>(mix64(node_hash_ + gpu) >> 2),
                "AMD Instinct MI300X", "gfx942", "ip discovery", "AMD", "AMD Instinct MI300X");
    }
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
        const KernelResources r = kernel_resources(k);
        symbol.run(symbol_id(gpu, k), nid_, t_.pid, gpu + 1, fmt::format("{}.kd", pool[k].name), pool[k].display(),
                   base + 0x1000 + static_cast<int64_t>(k) * 0x400, r.kernarg_size, r.group_segment, r.private_segment,
                   r.sgpr, r.arch_vgpr, r.accum_vgpr);
      }
    }
  }

  int64_t symbol_id(int gpu, size_t k) const {
    return 1 + static_cast<int64_t>(gpu) * static_cast<int64_t>(kernel_pool().size()) + static_cast<int64_t>(k);
  }

  // API calls and roctx ranges are regions on their thread's track (id = correlation id); marks
  // are samples named roctxMarkA on the thread's track named after the marker category.
  void write_calls() {
    BatchInsert region(db_, sql("INSERT INTO rocpd_region_<uuid> (id, track_id, name_id, start, end, event_id) "
                                "VALUES (?, ?, ?, ?, ?, ?)"));
    BatchInsert sample(db_, sql("INSERT INTO rocpd_sample_<uuid> (id, track_id, name_id, timestamp, event_id) "
                                "VALUES (?, ?, ?, ?, ?)"));
    BatchInsert arg(db_, sql("INSERT INTO rocpd_arg_<uuid> (event_id, position, type, name, value) VALUES (?, ?, ?, ?, ?)"));
    for (size_t i = 0; i < t_.calls.size(); ++i) {
      const HostCall& c = t_.calls[i];
      const int64_t corr = static_cast<int64_t>(i) + 1;
      if (c.api != HostApi::UserMarker) {
        const int64_t event = new_event(kHipApi, corr, 0, corr, "{}");
        region.add(corr, track(c.tid, -1, -1, -1, -1), string_id(host_api_name(c.api)), c.start, c.end, event);
        if (c.api == HostApi::HipMalloc) {
          arg.add(event, 0, "void**", "ptr", fmt::format("{:#x}", c.arg_ptr));
          arg.add(event, 1, "unsigned long", "size", std::to_string(c.arg_size));
        } else if (c.api == HostApi::HipFree) {
          arg.add(event, 0, "void*", "ptr", fmt::format("{:#x}", c.arg_ptr));
        }
        continue;
      }
      const std::string_view message = marker_message(c.marker);
      const int64_t event = new_event(kMarkerApi, corr, 0, corr, fmt::format("{{\"message\":{}}}", json_string(message)));
      arg.add(event, 0, "const char*", "message", message);
      if (c.end > c.start) {
        region.add(corr, track(c.tid, -1, -1, -1, -1), string_id(roctx_region_name(marker_kind(t_, i))), c.start, c.end,
                   event);
      } else {
        sample.add(corr, track(c.tid, -1, -1, -1, string_id(kMarkerApi)), string_id("roctxMarkA"), c.start, event);
      }
    }
    region.finish();
    sample.finish();
    arg.finish();
  }

  void write_gpu_work() {
    BatchInsert dispatch(db_, sql("INSERT INTO rocpd_kernel_dispatch_<uuid> (id, track_id, kernel_id, dispatch_id, start, "
                                  "end, private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, "
                                  "workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, region_name_id, event_id) "
                                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    const int64_t empty = string_id("");
    int64_t dispatch_id = 0;
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const Op& op = t_.ops[i];
      if (op.kind != OpKind::Kernel) continue;
      const int64_t corr = static_cast<int64_t>(op.call) + 1;
      const int64_t event = new_event(kDispatch, corr, corr, corr, "{}");
      const LaunchDims d = launch_dims(t_, i);
      const int64_t queue = queue_id(t_, op.gpu, op.queue);
      ++dispatch_id;
      dispatch.add(dispatch_id, track(t_.calls[op.call].tid, gpu_agent(op.gpu), queue, queue, -1),
                   symbol_id(op.gpu, static_cast<size_t>(op.kernel)), dispatch_id, op.start, op.end, d.private_segment,
                   dispatch_group_segment(t_, i, features_), d.workgroup_x, d.workgroup_y, d.workgroup_z, d.grid_x,
                   d.grid_y, d.grid_z, empty, event);
    }
    dispatch.finish();
    // Copies: the track holds the destination agent and the stream (no queue).
    BatchInsert copy(db_, sql("INSERT INTO rocpd_memory_copy_<uuid> (id, track_id, start, end, name_id, dst_agent_id, "
                              "dst_address, src_agent_id, src_address, size, region_name_id, event_id) "
                              "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)"));
    int64_t copy_id = 0;
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const Op& op = t_.ops[i];
      if (op.kind == OpKind::Kernel) continue;
      const int64_t corr = static_cast<int64_t>(op.call) + 1;
      const int64_t event = new_event(kCopy, corr, corr, corr, "{}");
      const bool to_device = op.kind != OpKind::CopyDeviceToHost;
      const bool from_device = op.kind != OpKind::CopyHostToDevice;
      const int64_t dst_agent = to_device ? gpu_agent(op.gpu) : 0;
      const int64_t src_agent = op.kind == OpKind::CopyDeviceToDevice ? gpu_agent(op.peer_gpu)
                                : from_device                         ? gpu_agent(op.gpu)
                                                                      : 0;
      const uint64_t dst = to_device ? device_pointer(t_.pid, i * 2) : host_pointer(t_.pid, i * 2);
      const uint64_t src = from_device ? device_pointer(t_.pid, i * 2 + 1) : host_pointer(t_.pid, i * 2 + 1);
      const int64_t stream = t_.calls[op.call].api == HostApi::HipMemcpy ? 0 : queue_id(t_, op.gpu, op.queue);
      copy.add(++copy_id, track(t_.calls[op.call].tid, dst_agent, -1, stream, -1), op.start, op.end,
               string_id(rocpd_copy_name(op.kind)), dst_agent, dst, src_agent, src, op.bytes, event);
    }
    copy.finish();
  }

  // As in 3.0.x, with the SDK operation name in name_id and who/where on the track.
  void write_allocations() {
    BatchInsert row(db_, sql("INSERT INTO rocpd_memory_allocate_<uuid> (track_id, type, level, start, end, name_id, "
                             "address, size, event_id, extdata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    std::unordered_map<uint64_t, int64_t> live;
    for (size_t i = 0; i < t_.calls.size(); ++i) {
      const HostCall& c = t_.calls[i];
      if (c.api != HostApi::HipMalloc && c.api != HostApi::HipFree) continue;
      const int64_t corr = static_cast<int64_t>(i) + 1;
      const int64_t event = new_event(kAllocation, corr, 0, corr, "{}");
      const int64_t span = c.end - c.start;
      const int64_t start = c.start + span / 5, end = c.end - span / 5;
      if (c.api == HostApi::HipMalloc) {
        const int64_t agent = gpu_agent(static_cast<int>(mix64(static_cast<uint64_t>(t_.pid) + i) % t_.gpus));
        live[c.arg_ptr] = agent;
        row.add(track(c.tid, agent, 0, 0, -1), "ALLOC", "REAL", start, end, string_id("MEMORY_ALLOCATION_ALLOCATE"),
                c.arg_ptr, c.arg_size, event, "{}");
      } else {
        const auto it = live.find(c.arg_ptr);
        const int64_t agent = it == live.end() ? -1 : it->second;
        if (it != live.end()) live.erase(it);
        row.add(track(c.tid, agent, 0, 0, -1), "FREE", "REAL", start, end, string_id("MEMORY_ALLOCATION_FREE"), c.arg_ptr, 0,
                event, "{}");
      }
    }
    for (const ScratchAlloc& s : scratch_allocations(t_)) {
      const Op& op = t_.ops[s.op];
      const int64_t corr = static_cast<int64_t>(op.call) + 1;
      const int64_t event = new_event(kScratch, corr, 0, corr, "{}");
      row.add(track(t_.calls[op.call].tid, gpu_agent(op.gpu), queue_id(t_, op.gpu, op.queue), 0, -1), "ALLOC", "SCRATCH",
              s.start, s.end, string_id("SCRATCH_MEMORY_ALLOC"), 0, s.size, event, "{\"flags\":\"0\"}");
    }
    row.finish();
  }

  Db& db_;
  const ProcessTrace& t_;
  std::string suffix_;
  RocpdFeatures features_;
  int64_t node_hash_ = 0;
  int64_t nid_ = 0;
  std::optional<Stmt> strings_, categories_, tracks_;
  std::unordered_map<std::string, int64_t> string_ids_, category_ids_;
  std::map<std::tuple<uint32_t, int64_t, int64_t, int64_t, int64_t>, int64_t> track_ids_;
  std::optional<BatchInsert> events_;
  int64_t event_count_ = 0;
};

}  // namespace

void write_rocpd4(const std::filesystem::path& path, const ProcessTrace& trace, const RocpdIdentity& identity) {
  Db db(path);
  db.exec(fill_placeholders(std::string(kRocpdV4Schema), identity.table_suffix, identity.guid));
  db.exec("BEGIN");
  Rocpd4Writer(db, trace, identity).write();
  db.exec("COMMIT");
}

}  // namespace rocpd_gen
