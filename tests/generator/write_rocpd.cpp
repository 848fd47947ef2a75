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
#include "rocpd_schema.h"

namespace rocpd_gen {
namespace {

constexpr int kCpuAgents = 2;  // agents are numbered CPUs first, as the ROCm runtime does

// Event categories: the rocprofiler-sdk buffer tracing kind names.
constexpr std::string_view kHipCategory = "HIP_RUNTIME_API_EXT";
constexpr std::string_view kMarkerCategory = "MARKER_CORE_RANGE_API";
constexpr std::string_view kDispatchCategory = "KERNEL_DISPATCH";
constexpr std::string_view kCopyCategory = "MEMORY_COPY";
constexpr std::string_view kGraphCategory = "HIP_GRAPH";
constexpr std::string_view kHipEventCategory = "HIP_EVENT";
constexpr std::string_view kAllocationCategory = "MEMORY_ALLOCATION";
constexpr std::string_view kScratchCategory = "SCRATCH_MEMORY";

int64_t gpu_agent(int gpu) { return kCpuAgents + gpu; }
int64_t queue_id(const ProcessTrace& t, int gpu, int queue) { return 1 + gpu * t.queues + queue; }

class RocpdWriter {
 public:
  RocpdWriter(Db& db, const ProcessTrace& t, const RocpdIdentity& identity, const RocpdFeatures& features)
      : db_(db), t_(t), suffix_(identity.table_suffix), f_(features) {
    const uint64_t host_hash = mix64(std::hash<std::string>{}(t.hostname) ^ 0x6e6f6465ULL);
    node_hash_ = static_cast<int64_t>(host_hash % static_cast<uint64_t>(INT64_MAX));
    nid_ = node_hash_ % 4294967295LL;
  }

  void write() {
    write_info();
    write_regions();
    write_gpu_work();
    if (f_.graphs()) write_graph_launches();
    if (f_.hip_events()) write_hip_events();
    if (f_.versioned()) write_allocations();
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
    if (f_.counters > 0) write_counter_info();
    // 3.0.0 writers leave storage_type NULL; 3.0.1 fills it (the original layout always did).
    Stmt code_object(db_, sql(f_.patch == 0 ? "INSERT INTO rocpd_info_code_object_<uuid> (id, nid, pid, agent_id, uri, "
                                              "load_base, load_size, load_delta, storage_type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)"
                                            : "INSERT INTO rocpd_info_code_object_<uuid> (id, nid, pid, agent_id, uri, "
                                              "load_base, load_size, load_delta, storage_type) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'FILE')"));
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
        // rocprofv3 stores the code-object symbol, which ends in ".kd" (the kernel descriptor);
        // display_name is the formatted name without it.
        const std::string name = f_.versioned() ? fmt::format("{}.kd", pool[k].name) : std::string(pool[k].name);
        symbol.run(kernel_symbol_id(gpu, k), nid_, t_.pid, gpu + 1, name, pool[k].display(),
                   base + 0x1000 + static_cast<int64_t>(k) * 0x400, r.kernarg_size, r.group_segment, r.private_segment,
                   r.sgpr, r.arch_vgpr, r.accum_vgpr);
      }
    }
  }

  // One description per counter (the first GPU agent's; the SDK records each counter id once).
  void write_counter_info() {
    const std::string columns = "id, nid, pid, agent_id, target_arch, name, symbol, description, component, value_type, "
                                "block, expression, is_constant, is_derived, extdata";
    Stmt pmc(db_, sql(f_.patch >= 3 ? "INSERT INTO rocpd_info_pmc_<uuid> (" + columns +
                                          ", spm_support) VALUES (?, ?, ?, ?, 'GPU', ?, ?, ?, 'rocm', 'ABS', ?, ?, 0, ?, ?, ?)"
                                    : "INSERT INTO rocpd_info_pmc_<uuid> (" + columns +
                                          ") VALUES (?, ?, ?, ?, 'GPU', ?, ?, ?, 'rocm', 'ABS', ?, ?, 0, ?, ?)"));
    const auto catalog = counter_catalog();
    for (int c = 0; c < f_.counters; ++c) {
      const CounterInfo& info = catalog[static_cast<size_t>(c)];
      const bool derived = info.dimensions == 1 && info.block == "TCC";
      const std::string expression = derived ? fmt::format("reduce({},sum)", std::string(info.name).substr(0, info.name.size() - 4)) : "";
      const std::string extdata = fmt::format("{{\"agent\":{}}}", gpu_agent(0));
      if (f_.patch >= 3)
        pmc.run(counter_id(c), nid_, t_.pid, gpu_agent(0), info.name, info.name, info.description, info.block, expression,
                derived ? 1 : 0, extdata, c < spm_counter_count(f_) ? 1 : 0);
      else
        pmc.run(counter_id(c), nid_, t_.pid, gpu_agent(0), info.name, info.name, info.description, info.block, expression,
                derived ? 1 : 0, extdata);
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
    auto& tracks = tracks_;
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
  // graph_exec_id / graph_node_id of an op (0 when not launched from a graph).
  std::pair<int64_t, int64_t> graph_ids(const Op& op) const {
    if (!op.graph) return {0, 0};
    const uint32_t exec = t_.graphs[op.graph - 1].exec;
    return {static_cast<int64_t>(graph_exec_handle(t_, exec)), static_cast<int64_t>(graph_node_handle(t_, exec, op.graph_node))};
  }

  void write_gpu_work() {
    const std::string graph_columns = f_.graphs() ? "graph_exec_id, graph_node_id, " : "";
    const std::string graph_values = f_.graphs() ? "?, ?, " : "";
    BatchInsert dispatch(db_, sql("INSERT INTO rocpd_kernel_dispatch_<uuid> (id, nid, pid, tid, agent_id, kernel_id, "
                           "dispatch_id, queue_id, stream_id, start, end, private_segment_size, group_segment_size, "
                           "workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, "
                           "grid_size_z, " + graph_columns + "region_name_id, event_id) "
                           "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, " + graph_values + "?, ?)"));
    const int64_t empty = string_id("");
    int64_t dispatch_id = 0;
    dispatch_events_.assign(t_.ops.size(), 0);
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      const Op& op = t_.ops[i];
      if (op.kind != OpKind::Kernel) continue;
      const int64_t corr = static_cast<int64_t>(op.call) + 1;
      const int64_t event = new_event(kDispatchCategory, corr, corr, corr, "{}");
      dispatch_events_[i] = event;
      const LaunchDims d = launch_dims(t_, i);
      const int64_t queue = queue_id(t_, op.gpu, op.queue);
      const int64_t lds = dispatch_group_segment(t_, i, f_);
      ++dispatch_id;
      if (f_.graphs()) {
        const auto [exec, node] = graph_ids(op);
        dispatch.add(dispatch_id, nid_, t_.pid, t_.calls[op.call].tid, gpu_agent(op.gpu),
                     kernel_symbol_id(op.gpu, static_cast<size_t>(op.kernel)), dispatch_id, queue, queue, op.start,
                     op.end, d.private_segment, lds, d.workgroup_x, d.workgroup_y, d.workgroup_z, d.grid_x, d.grid_y,
                     d.grid_z, exec, node, empty, event);
      } else {
        dispatch.add(dispatch_id, nid_, t_.pid, t_.calls[op.call].tid, gpu_agent(op.gpu),
                     kernel_symbol_id(op.gpu, static_cast<size_t>(op.kernel)), dispatch_id, queue, queue, op.start,
                     op.end, d.private_segment, lds, d.workgroup_x, d.workgroup_y, d.workgroup_z, d.grid_x, d.grid_y,
                     d.grid_z, empty, event);
      }
    }
    dispatch.finish();
    if (f_.counters > 0) write_counters();

    BatchInsert copy(db_, sql("INSERT INTO rocpd_memory_copy_<uuid> (id, nid, pid, tid, start, end, name_id, dst_agent_id, "
                       "dst_address, src_agent_id, src_address, size, queue_id, stream_id, " + graph_columns +
                       "region_name_id, event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, " + graph_values + "NULL, ?)"));
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
      const int64_t stream = t_.calls[op.call].api == HostApi::HipMemcpy ? 0 : queue_id(t_, op.gpu, op.queue);
      if (f_.graphs()) {
        const auto [exec, node] = graph_ids(op);
        copy.add(copy_id, nid_, t_.pid, t_.calls[op.call].tid, op.start, op.end, string_id(rocpd_copy_name(op.kind)),
                 dst_agent, dst, src_agent, src, op.bytes, stream, exec, node, event);
      } else {
        copy.add(copy_id, nid_, t_.pid, t_.calls[op.call].tid, op.start, op.end, string_id(rocpd_copy_name(op.kind)),
                 dst_agent, dst, src_agent, src, op.bytes, stream, event);
      }
    }
    copy.finish();
  }

  // Per-dispatch counters: one row per (dispatch, counter, dimension), event = the dispatch's.
  // SPM (3.0.3+): samples on an 'SPM' track, one row per (sample, counter, position).
  void write_counters() {
    BatchInsert pmc(db_, sql("INSERT INTO rocpd_pmc_event_<uuid> (id, event_id, pmc_id, value) VALUES (?, ?, ?, ?)"));
    const auto catalog = counter_catalog();
    int64_t id = 0;
    for (size_t i = 0; i < t_.ops.size(); ++i) {
      if (t_.ops[i].kind != OpKind::Kernel) continue;
      for (int c = 0; c < f_.counters; ++c)
        for (int d = 0; d < catalog[static_cast<size_t>(c)].dimensions; ++d)
          pmc.add(++id, dispatch_events_[i], counter_id(c), static_cast<double>(counter_value(t_, i, c, d)));
    }
    pmc.finish();
    if (!f_.spm()) return;
    const auto samples = spm_samples(t_);
    Stmt track(db_, sql("INSERT INTO rocpd_track_<uuid> (id, nid, pid, tid, name_id) VALUES (?, ?, ?, ?, ?)"));
    Stmt sample(db_, sql("INSERT INTO rocpd_sample_<uuid> (id, track_id, timestamp, event_id) VALUES (?, ?, ?, ?)"));
    const std::string position_columns = f_.patch >= 5 ? ", shader_array, wgp" : "";
    const std::string position_values = f_.patch >= 5 ? ", 0, ?" : "";
    BatchInsert spm(db_, sql("INSERT INTO rocpd_pmc_event_<uuid> (id, event_id, sample_id, pmc_id, value, xcc, "
                             "shader_engine, instance" + position_columns + ") VALUES (?, ?, ?, ?, ?, ?, ?, 0" +
                             position_values + ")"));
    std::unordered_map<uint32_t, int64_t> spm_tracks;
    // Sample ids follow the correlation ids (which name the marker samples).
    int64_t sample_id = static_cast<int64_t>(t_.calls.size());
    for (size_t s = 0; s < samples.size(); ++s) {
      const Op& op = t_.ops[samples[s].op];
      const uint32_t tid = t_.calls[op.call].tid;
      auto [it, inserted] = spm_tracks.try_emplace(tid, static_cast<int64_t>(tracks_.size() + spm_tracks.size()) + 1);
      if (inserted) track.run(it->second, nid_, t_.pid, tid, string_id("SPM"));
      const int64_t event = dispatch_events_[samples[s].op];
      sample.run(++sample_id, it->second, samples[s].timestamp, event);
      for (int c = 0; c < spm_counter_count(f_); ++c)
        for (int p = 0; p < kSpmPositions; ++p) {
          if (f_.patch >= 5)
            spm.add(++id, event, sample_id, counter_id(c), static_cast<double>(spm_value(t_, s, c, p)), p / 2, p % 2, p);
          else
            spm.add(++id, event, sample_id, counter_id(c), static_cast<double>(spm_value(t_, s, c, p)), p / 2, p % 2);
        }
    }
    spm.finish();
  }

  // 3.0.2: one row per hipGraphLaunch; its event shares the launch call's correlation id.
  void write_graph_launches() {
    Stmt launch(db_, sql("INSERT INTO rocpd_graph_launch_<uuid> (id, nid, pid, tid, agent_id, queue_id, start, end, "
                         "graph_exec_id, kernel_dispatch_count, event_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    for (size_t g = 0; g < t_.graphs.size(); ++g) {
      const GraphLaunch& gl = t_.graphs[g];
      const int64_t corr = static_cast<int64_t>(gl.call) + 1;
      const int64_t event = new_event(kGraphCategory, corr, corr, corr, "{}");
      launch.run(static_cast<int64_t>(g) + 1, nid_, t_.pid, t_.calls[gl.call].tid, gpu_agent(gl.gpu),
                 queue_id(t_, gl.gpu, gl.queue), gl.start, gl.end, static_cast<int64_t>(graph_exec_handle(t_, gl.exec)),
                 static_cast<int64_t>(gl.kernel_count), event);
    }
  }

  // 3.0.4: the GPU barriers of hipEventRecord / hipStreamWaitEvent (not GPU work).
  void write_hip_events() {
    BatchInsert row(db_, sql("INSERT INTO rocpd_hip_event_<uuid> (id, nid, pid, tid, agent_id, queue_id, source_queue_id, "
                             "stream_id, hip_event_handle, start, end, name_id, event_id) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    const auto barriers = hip_event_barriers(t_);
    for (size_t b = 0; b < barriers.size(); ++b) {
      const HipEventBarrier& x = barriers[b];
      const int64_t corr = static_cast<int64_t>(x.call) + 1;
      const int64_t event = new_event(kHipEventCategory, corr, corr, corr, "{}");
      const int64_t queue = queue_id(t_, x.gpu, x.queue);
      row.add(static_cast<int64_t>(b) + 1, nid_, t_.pid, t_.calls[x.call].tid, gpu_agent(x.gpu), queue,
              queue_id(t_, x.gpu, x.source_queue), queue, static_cast<int64_t>(x.handle), x.start, x.end,
              string_id(x.wait ? "HIP_EVENT_WAIT" : "HIP_EVENT_RECORD"), event);
    }
    row.finish();
  }

  // hipMalloc / hipFree as MEMORY_ALLOCATION records (REAL), then the SCRATCH_MEMORY records. The
  // writer leaves the ids to SQLite; a FREE of a known address carries its agent and size 0.
  void write_allocations() {
    BatchInsert row(db_, sql("INSERT INTO rocpd_memory_allocate_<uuid> (nid, pid, tid, agent_id, type, level, start, end, "
                             "address, size, queue_id, stream_id, event_id, extdata) "
                             "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    std::unordered_map<uint64_t, int64_t> live;  // address -> agent
    for (size_t i = 0; i < t_.calls.size(); ++i) {
      const HostCall& c = t_.calls[i];
      if (c.api != HostApi::HipMalloc && c.api != HostApi::HipFree) continue;
      const int64_t corr = static_cast<int64_t>(i) + 1;
      const int64_t event = new_event(kAllocationCategory, corr, 0, corr, "{}");
      const int64_t span = c.end - c.start;
      const int64_t start = c.start + span / 5, end = c.end - span / 5;
      if (c.api == HostApi::HipMalloc) {
        const int64_t agent = gpu_agent(static_cast<int>(mix64(static_cast<uint64_t>(t_.pid) + i) % t_.gpus));
        live[c.arg_ptr] = agent;
        row.add(nid_, t_.pid, c.tid, agent, "ALLOC", "REAL", start, end, c.arg_ptr, c.arg_size, 0, 0, event, "{}");
      } else if (auto it = live.find(c.arg_ptr); it != live.end()) {
        row.add(nid_, t_.pid, c.tid, it->second, "FREE", "REAL", start, end, c.arg_ptr, 0, 0, 0, event, "{}");
        live.erase(it);
      } else {
        row.add(nid_, t_.pid, c.tid, nullptr, "FREE", "REAL", start, end, c.arg_ptr, 0, 0, 0, event, "{}");
      }
    }
    for (const ScratchAlloc& s : scratch_allocations(t_)) {
      const Op& op = t_.ops[s.op];
      const int64_t corr = static_cast<int64_t>(op.call) + 1;
      const int64_t event = new_event(kScratchCategory, corr, 0, corr, "{}");
      row.add(nid_, t_.pid, t_.calls[op.call].tid, gpu_agent(op.gpu), "ALLOC", "SCRATCH", s.start, s.end, 0, s.size,
              queue_id(t_, op.gpu, op.queue), 0, event, "{\"flags\":\"0\"}");
    }
    row.finish();
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
  RocpdFeatures f_;
  std::unordered_map<uint32_t, int64_t> tracks_;  // marker tracks by tid
  std::vector<int64_t> dispatch_events_;          // event id of each kernel op's dispatch
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

void write_rocpd(const std::filesystem::path& path, std::span<const ProcessTrace> processes,
                 std::span<const RocpdIdentity> identities, const RocpdFeatures& features) {
  Db db(path);
  const std::string schema = rocpd_schema_template(features);
  if (processes.size() == 1) {
    db.exec(fill_placeholders(schema, identities[0].table_suffix, identities[0].guid));
    db.exec("BEGIN");
    RocpdWriter(db, processes[0], identities[0], features).write();
    db.exec("COMMIT");
    return;
  }
  // rocpd merge (schema/rocpd_merged.md): every process's tables and metadata rows under its own
  // suffix, base views as UNION ALL in process order, data and summary views once.
  const SchemaParts parts = split_schema(schema);
  for (size_t i = 0; i < processes.size(); ++i)
    db.exec(fill_placeholders(parts.tables, identities[i].table_suffix, identities[i].guid));
  db.exec("BEGIN");
  for (size_t i = 0; i < processes.size(); ++i) RocpdWriter(db, processes[i], identities[i], features).write();
  db.exec("COMMIT");
  std::string views;
  for (const std::string& name : parts.base_views) {
    views += fmt::format("CREATE VIEW IF NOT EXISTS \"{}\" AS", name);
    for (size_t i = 0; i < processes.size(); ++i)
      views += fmt::format("{} SELECT * FROM \"{}_{}\"", i ? " UNION ALL" : "", name, identities[i].table_suffix);
    views += ";\n";
  }
  db.exec(views + parts.data_views);
}

}  // namespace rocpd_gen
