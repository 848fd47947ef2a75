#include "write_rocprofsys.h"

#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "db.h"
#include "kernel_pool.h"
#include "random.h"
#include "rocpd_model.h"
#include "rocpd_schema.h"
#include "schema_text.h"

namespace rocpd_gen {
namespace {

constexpr int kCpuAgents = 2;

class RocprofsysWriter {
 public:
  RocprofsysWriter(Db& db, const ProcessTrace& t, std::string upid) : db_(db), t_(t), upid_(std::move(upid)) {
    const uint64_t host_hash = mix64(std::hash<std::string>{}(t.hostname) ^ 0x6e6f6465ULL);
    node_hash_ = static_cast<int64_t>(host_hash % static_cast<uint64_t>(INT64_MAX));
    nid_ = node_hash_ % 4294967295LL;
    features_.patch = 0;
  }

  void write() {
    string_id("");
    write_info();
    write_calls();
    write_gpu_work();
    write_allocations();
    write_metrics();
    events_->finish();
  }

 private:
  std::string sql(std::string_view text) const { return replace_all(std::string(text), "<uuid>", upid_); }

  int64_t string_id(std::string_view text) {
    if (!strings_) strings_.emplace(db_, sql("INSERT INTO rocpd_string_<uuid> (id, guid, string) VALUES (?, ?, ?)"));
    auto it = string_ids_.find(std::string(text));
    if (it != string_ids_.end()) return it->second;
    const int64_t id = static_cast<int64_t>(string_ids_.size()) + 1;
    strings_->run(id, upid_, text);
    string_ids_.emplace(std::string(text), id);
    return id;
  }

  // correlation_id is always 0; stack_id = the SDK internal correlation id, parent = its ancestor.
  int64_t new_event(std::string_view category, int64_t stack_id) {
    if (!events_)
      events_.emplace(db_, sql("INSERT INTO rocpd_event_<uuid> (id, guid, category_id, stack_id, parent_stack_id, "
                               "correlation_id) VALUES (?, ?, ?, ?, 0, 0)"));
    const int64_t id = ++event_count_;
    events_->add(id, upid_, string_id(category), stack_id);
    return id;
  }

  // Agent rowids 1.. in agent order (CPUs first); absolute_index 0..; logical_index = node id.
  static int64_t agent_row(int64_t node_index) { return node_index + 1; }
  static int64_t gpu_row(int gpu) { return agent_row(kCpuAgents + gpu); }
  // Queue and stream ids are the SDK handles (pointer-like values).
  int64_t queue_handle(int gpu, int queue) const {
    return 0x55d000000000LL + static_cast<int64_t>(mix64(static_cast<uint64_t>(t_.pid) * 97 + gpu * 16 + queue) & 0xfffff00ULL);
  }
  int64_t stream_handle(int gpu, int queue) const {
    return 0x55e000000000LL + static_cast<int64_t>(mix64(static_cast<uint64_t>(t_.pid) * 89 + gpu * 16 + queue) & 0xfffff00ULL);
  }

  void write_info() {
    Stmt node(db_, sql("INSERT INTO rocpd_info_node_<uuid> (id, guid, hash, machine_id, system_name, hostname, release, "
                       "version, hardware_name, domain_name) VALUES (?, ?, ?, ?, 'Linux', ?, '6.8.0-45-generic', "
                       "'#45-Ubuntu SMP PREEMPT_DYNAMIC', 'x86_64', '(none)')"));
    node.run(nid_, upid_, node_hash_, fmt::format("{:016x}{:016x}", mix64(node_hash_), mix64(node_hash_ + 1)), t_.hostname);
    // init/fini/start/end are 0, environment '{}' (as the tool writes them).
    Stmt process(db_, sql("INSERT INTO rocpd_info_process_<uuid> (id, guid, nid, ppid, pid, init, fini, start, end, command, "
                          "environment, extdata) VALUES (?, ?, ?, ?, ?, 0, 0, 0, 0, ?, '{}', '{}')"));
    process.run(t_.pid, upid_, nid_, t_.ppid, t_.pid, fmt::format("python3 train.py --rank {}", t_.rank));
    std::set<uint32_t> tids;
    for (const HostCall& c : t_.calls) tids.insert(c.tid);
    tids.insert(t_.main_tid);
    Stmt thread(db_, sql("INSERT INTO rocpd_info_thread_<uuid> (id, guid, nid, ppid, pid, tid, name, start, end) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (uint32_t tid : tids) {
      const int64_t row = static_cast<int64_t>(thread_rows_.size()) + 1;
      thread_rows_[tid] = row;
      thread.run(row, upid_, nid_, t_.ppid, t_.pid, tid, fmt::format("Thread {}", tid), t_.init_ns, t_.fini_ns);
    }
    Stmt agent(db_, sql("INSERT INTO rocpd_info_agent_<uuid> (id, guid, nid, pid, type, absolute_index, logical_index, "
                        "type_index, uuid, name, model_name, vendor_name, product_name, user_name) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (int cpu = 0; cpu < kCpuAgents; ++cpu)
      agent.run(agent_row(cpu), upid_, nid_, t_.pid, "CPU", cpu, cpu, cpu, 0, "AMD EPYC 9654 96-Core Processor", "", "CPU",
                "AMD EPYC 9654 96-Core Processor", "AMD EPYC 9654 96-Core Processor");
    for (int gpu = 0; gpu < t_.gpus; ++gpu)
      agent.run(gpu_row(gpu), upid_, nid_, t_.pid, "GPU", kCpuAgents + gpu, kCpuAgents + gpu, gpu,
                static_cast<int64_t>(mix64(node_hash_ + gpu) >> 2), "gfx942", "ip discovery", "AMD", "AMD Instinct MI300X",
                "AMD Instinct MI300X");
    Stmt queue(db_, sql("INSERT INTO rocpd_info_queue_<uuid> (id, guid, nid, pid, name) VALUES (?, ?, ?, ?, ?)"));
    Stmt stream(db_, sql("INSERT INTO rocpd_info_stream_<uuid> (id, guid, nid, pid, name) VALUES (?, ?, ?, ?, ?)"));
    stream.run(0, upid_, nid_, t_.pid, "Stream 0");
    for (int gpu = 0; gpu < t_.gpus; ++gpu)
      for (int q = 0; q < t_.queues; ++q) {
        queue.run(queue_handle(gpu, q), upid_, nid_, t_.pid, fmt::format("Queue {}", queue_handle(gpu, q)));
        stream.run(stream_handle(gpu, q), upid_, nid_, t_.pid, fmt::format("Stream {}", stream_handle(gpu, q)));
      }
    Stmt code_object(db_, sql("INSERT INTO rocpd_info_code_object_<uuid> (id, guid, nid, pid, agent_id, uri, load_base, "
                              "load_size, load_delta, storage_type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'FILE')"));
    Stmt symbol(db_, sql("INSERT INTO rocpd_info_kernel_symbol_<uuid> (id, guid, nid, pid, code_object_id, kernel_name, "
                         "display_name, kernel_object, kernarg_segment_size, kernarg_segment_alignment, "
                         "group_segment_size, private_segment_size, sgpr_count, arch_vgpr_count, "
                         "accum_vgpr_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 8, ?, ?, ?, ?, ?)"));
    const auto pool = kernel_pool();
    for (int gpu = 0; gpu < t_.gpus; ++gpu) {
      const int64_t base = 0x7f3e00000000LL + gpu * 0x10000000LL;
      code_object.run(gpu + 1, upid_, nid_, t_.pid, gpu_row(gpu),
                      "file:///opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_hip.so#offset=28672&size=412110848",
                      base, 412110848, base);
      for (size_t k = 0; k < pool.size(); ++k) {
        const KernelResources r = kernel_resources(k);
        symbol.run(symbol_id(gpu, k), upid_, nid_, t_.pid, gpu + 1, fmt::format("{}.kd", pool[k].name), pool[k].display(),
                   base + 0x1000 + static_cast<int64_t>(k) * 0x400, r.kernarg_size, r.group_segment, r.private_segment,
                   r.sgpr, r.arch_vgpr, r.accum_vgpr);
      }
    }
  }

  int64_t symbol_id(int gpu, size_t k) const {
    return 1 + static_cast<int64_t>(gpu) * static_cast<int64_t>(kernel_pool().size()) + static_cast<int64_t>(k);
  }

  static std::string_view roctx_operation(MarkerKind kind) {
    switch (kind) {
      case MarkerKind::ThreadRange: return "roctxRangePushA";
      case MarkerKind::ProcessRange: return "roctxRangeStartA";
      case MarkerKind::Mark: break;
    }
    return "roctxMarkA";
  }

  // Every call is a region (rowid ids), roctx ranges included; roctx regions carry the operation
  // name, the message is a 'message' argument. Instant marks are samples (event category
  // rocm_marker_api) on a marker track per thread, after the metric tracks and samples.
  void write_calls() {
    BatchInsert region(db_, sql("INSERT INTO rocpd_region_<uuid> (id, guid, nid, pid, tid, start, end, name_id, event_id) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    BatchInsert arg(db_, sql("INSERT INTO rocpd_arg_<uuid> (guid, event_id, position, type, name, value) "
                             "VALUES (?, ?, ?, ?, ?, ?)"));
    BatchInsert sample(db_, sql("INSERT INTO rocpd_sample_<uuid> (id, guid, track_id, timestamp, event_id) "
                                "VALUES (?, ?, ?, ?, ?)"));
    Stmt track(db_, sql("INSERT INTO rocpd_track_<uuid> (id, guid, nid, pid, tid, name_id) VALUES (?, ?, ?, ?, ?, ?)"));
    std::map<uint32_t, int64_t> marker_tracks;
    int64_t mark_samples = static_cast<int64_t>(t_.gpus) * kRocprofsysMetricSamplesPerGpu;
    for (size_t i = 0; i < t_.calls.size(); ++i) {
      const HostCall& c = t_.calls[i];
      const int64_t corr = static_cast<int64_t>(i) + 1;
      const bool marker = c.api == HostApi::UserMarker;
      const int64_t event = new_event(marker ? "rocm_marker_api" : "rocm_hip_api", corr);
      const std::string_view name = marker ? roctx_operation(marker_kind(t_, i)) : host_api_name(c.api);
      if (marker && c.end == c.start) {
        auto [it, added] = marker_tracks.try_emplace(c.tid, t_.gpus + 1 + static_cast<int64_t>(marker_tracks.size()));
        if (added) track.run(it->second, upid_, nid_, t_.pid, thread_rows_.at(c.tid), string_id("rocm_marker_api"));
        sample.add(++mark_samples, upid_, it->second, c.start, event);
      } else {
        region.add(corr, upid_, nid_, t_.pid, thread_rows_.at(c.tid), c.start, c.end, string_id(name), event);
      }
      if (marker) {
        arg.add(upid_, event, 0, "const char*", "message", marker_message(c.marker));
      } else if (c.api == HostApi::HipMalloc) {
        arg.add(upid_, event, 0, "void**", "ptr", fmt::format("{:#x}", c.arg_ptr));
        arg.add(upid_, event, 1, "unsigned long", "size", std::to_string(c.arg_size));
      } else if (c.api == HostApi::HipFree) {
        arg.add(upid_, event, 0, "void*", "ptr", fmt::format("{:#x}", c.arg_ptr));
      }
    }
    region.finish();
    sample.finish();
    arg.finish();
  }

  void write_gpu_work() {
    BatchInsert dispatch(db_, sql("INSERT INTO rocpd_kernel_dispatch_<uuid> (id, guid, nid, pid, tid, agent_id, kernel_id, "
                                  "dispatch_id, queue_id, stream_id, start, end, private_segment_size, group_segment_size, "
                                  "workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, "
                                  "grid_size_z, region_name_id, event_id) "
                                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    const auto pool = kernel_pool();
    int64_t row = 0;
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const Op& op = t_.ops[i];
      if (op.kind != OpKind::Kernel) continue;
      const int64_t event = new_event("rocm_kernel_dispatch", static_cast<int64_t>(op.call) + 1);
      const LaunchDims d = launch_dims(t_, i);
      ++row;
      // dispatch_id: the SDK's, counted per process from 1 (the row id is separate, a rowid).
      dispatch.add(row, upid_, nid_, t_.pid, thread_rows_.at(t_.calls[op.call].tid), gpu_row(op.gpu),
                   symbol_id(op.gpu, static_cast<size_t>(op.kernel)), row, queue_handle(op.gpu, op.queue),
                   stream_handle(op.gpu, op.queue), op.start, op.end, d.private_segment,
                   dispatch_group_segment(t_, i, features_), d.workgroup_x, d.workgroup_y, d.workgroup_z, d.grid_x,
                   d.grid_y, d.grid_z, string_id(pool[static_cast<size_t>(op.kernel)].display()), event);
    }
    dispatch.finish();
    BatchInsert copy(db_, sql("INSERT INTO rocpd_memory_copy_<uuid> (id, guid, nid, pid, tid, start, end, name_id, "
                              "dst_agent_id, dst_address, src_agent_id, src_address, size, queue_id, stream_id, "
                              "region_name_id, event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)"));
    row = 0;
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const Op& op = t_.ops[i];
      if (op.kind == OpKind::Kernel) continue;
      const int64_t event = new_event("rocm_memory_copy", static_cast<int64_t>(op.call) + 1);
      const bool to_device = op.kind != OpKind::CopyDeviceToHost;
      const bool from_device = op.kind != OpKind::CopyHostToDevice;
      const int64_t dst_agent = to_device ? gpu_row(op.gpu) : agent_row(0);
      const int64_t src_agent = op.kind == OpKind::CopyDeviceToDevice ? gpu_row(op.peer_gpu)
                                : from_device                         ? gpu_row(op.gpu)
                                                                      : agent_row(0);
      const uint64_t dst = to_device ? device_pointer(t_.pid, i * 2) : host_pointer(t_.pid, i * 2);
      const uint64_t src = from_device ? device_pointer(t_.pid, i * 2 + 1) : host_pointer(t_.pid, i * 2 + 1);
      const int64_t stream = t_.calls[op.call].api == HostApi::HipMemcpy ? 0 : stream_handle(op.gpu, op.queue);
      const int64_t name = string_id(rocpd_copy_name(op.kind));
      copy.add(++row, upid_, nid_, t_.pid, thread_rows_.at(t_.calls[op.call].tid), op.start, op.end, name, dst_agent, dst,
               src_agent, src, op.bytes, stream, name, event);
    }
    copy.finish();
  }

  void write_allocations() {
    BatchInsert row(db_, sql("INSERT INTO rocpd_memory_allocate_<uuid> (guid, nid, pid, tid, agent_id, type, level, start, "
                             "end, address, size, queue_id, stream_id, event_id, extdata) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?)"));
    std::unordered_map<uint64_t, int64_t> live;
    for (size_t i = 0; i < t_.calls.size(); ++i) {
      const HostCall& c = t_.calls[i];
      if (c.api != HostApi::HipMalloc && c.api != HostApi::HipFree) continue;
      const int64_t event = new_event("rocm_memory_allocate", static_cast<int64_t>(i) + 1);
      const int64_t span = c.end - c.start;
      const int64_t start = c.start + span / 5, end = c.end - span / 5;
      const int64_t tid = thread_rows_.at(c.tid);
      if (c.api == HostApi::HipMalloc) {
        const int64_t agent = gpu_row(static_cast<int>(mix64(static_cast<uint64_t>(t_.pid) + i) % t_.gpus));
        live[c.arg_ptr] = agent;
        row.add(upid_, nid_, t_.pid, tid, agent, "ALLOC", "REAL", start, end, c.arg_ptr, c.arg_size, event, "{}");
      } else if (auto it = live.find(c.arg_ptr); it != live.end()) {
        row.add(upid_, nid_, t_.pid, tid, it->second, "FREE", "REAL", start, end, c.arg_ptr, 0, event, "{}");
        live.erase(it);
      } else {
        row.add(upid_, nid_, t_.pid, tid, nullptr, "FREE", "REAL", start, end, c.arg_ptr, 0, event, "{}");
      }
    }
    for (const ScratchAlloc& s : scratch_allocations(t_)) {
      const Op& op = t_.ops[s.op];
      const int64_t event = new_event("rocm_memory_allocate", static_cast<int64_t>(op.call) + 1);
      row.add(upid_, nid_, t_.pid, thread_rows_.at(t_.calls[op.call].tid), gpu_row(op.gpu), "ALLOC", "SCRATCH", s.start,
              s.end, 0, s.size, event, "{\"flags\":\"0\"}");
    }
    row.finish();
  }

  // Sampled device metrics: per GPU a 'device_busy_gfx' track (thread-less) with samples over the
  // process lifetime, each with its own event (category = the track name) and one
  // rocpd_pmc_event value (a time series, not dispatch counters).
  void write_metrics() {
    Stmt pmc(db_, sql("INSERT INTO rocpd_info_pmc_<uuid> (id, guid, nid, pid, agent_id, target_arch, name, symbol, "
                      "description, component, units, value_type, block, is_constant, is_derived) "
                      "VALUES (?, ?, ?, ?, ?, 'GPU', 'device_busy_gfx', 'device_busy_gfx', 'GFX busy', 'amd-smi', '%', "
                      "'ABS', 'device', 0, 0)"));
    Stmt track(db_, sql("INSERT INTO rocpd_track_<uuid> (id, guid, nid, pid, tid, name_id, extdata) "
                        "VALUES (?, ?, ?, ?, NULL, ?, ?)"));
    Stmt sample(db_, sql("INSERT INTO rocpd_sample_<uuid> (id, guid, track_id, timestamp, event_id) VALUES (?, ?, ?, ?, ?)"));
    Stmt value(db_, sql("INSERT INTO rocpd_pmc_event_<uuid> (id, guid, event_id, pmc_id, value) VALUES (?, ?, ?, ?, ?)"));
    const int64_t span = (t_.fini_ns - t_.init_ns) / kRocprofsysMetricSamplesPerGpu;
    int64_t id = 0;
    for (int gpu = 0; gpu < t_.gpus; ++gpu) {
      pmc.run(gpu + 1, upid_, nid_, t_.pid, gpu_row(gpu));
      track.run(gpu + 1, upid_, nid_, t_.pid, string_id("device_busy_gfx"), fmt::format("{{\"agent_id\":{}}}", gpu_row(gpu)));
      for (int k = 0; k < kRocprofsysMetricSamplesPerGpu; ++k) {
        const int64_t event = new_event("device_busy_gfx", 0);
        ++id;
        sample.run(id, upid_, gpu + 1, t_.init_ns + k * span, event);
        value.run(id, upid_, event, gpu + 1, static_cast<double>(mix64(static_cast<uint64_t>(t_.pid) + id) % 101));
      }
    }
  }

  Db& db_;
  const ProcessTrace& t_;
  std::string upid_;
  RocpdFeatures features_;
  int64_t node_hash_ = 0;
  int64_t nid_ = 0;
  std::optional<Stmt> strings_;
  std::unordered_map<std::string, int64_t> string_ids_;
  std::map<uint32_t, int64_t> thread_rows_;
  std::optional<BatchInsert> events_;
  int64_t event_count_ = 0;
};

}  // namespace

std::string rocprofsys_upid(const ProcessTrace& t) {
  const uint64_t h = mix64(std::hash<std::string>{}(t.hostname)) ^ static_cast<uint64_t>(t.pid) * 0x9e3779b97f4a7c15ULL;
  return fmt::format("{:016x}{:016x}", mix64(h), mix64(h ^ static_cast<uint64_t>(t.ppid)));
}

void write_rocprofsys(const std::filesystem::path& path, const ProcessTrace& trace) {
  const std::string upid = rocprofsys_upid(trace);
  Db db(path);
  db.exec(fill_placeholders(std::string(kRocprofsysSchema), upid, upid));
  db.exec("BEGIN");
  RocprofsysWriter(db, trace, upid).write();
  db.exec("COMMIT");
}

}  // namespace rocpd_gen
