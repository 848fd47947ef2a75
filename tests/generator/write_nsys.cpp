#include "write_nsys.h"

#include <algorithm>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "db.h"
#include "kernel_pool.h"
#include "nsys_generations.h"
#include "nsys_model.h"
#include "random.h"
#include "schema_text.h"

namespace rocpd_gen {
namespace {

// StringIds: one id per distinct text, numbered from 1 in first use.
class StringIds {
 public:
  explicit StringIds(Db& db) : insert_(db, "INSERT INTO StringIds (id, value) VALUES (?, ?)") {}
  int64_t id(std::string_view text) {
    auto it = ids_.find(std::string(text));
    if (it != ids_.end()) return it->second;
    const int64_t id = static_cast<int64_t>(ids_.size()) + 1;
    ids_.emplace(std::string(text), id);
    insert_.add(id, text);
    return id;
  }
  void finish() { insert_.finish(); }

 private:
  BatchInsert insert_;
  std::unordered_map<std::string, int64_t> ids_;
};

// (process, row) pairs of one table in a shuffled but reproducible order.
using Rows = std::vector<std::pair<size_t, size_t>>;
void shuffle(Rows& rows, uint64_t salt) {
  std::sort(rows.begin(), rows.end(), [salt](const auto& a, const auto& b) {
    const uint64_t ka = mix64(salt ^ (a.first << 40) ^ a.second), kb = mix64(salt ^ (b.first << 40) ^ b.second);
    return ka != kb ? ka < kb : a < b;
  });
}

// nsys's base name of a kernel (its shortName): the function name without scope, templates and
// parameters. Only written, never read back.
std::string short_name(std::string_view display) {
  std::string_view s = display;
  if (s.starts_with("void ")) s.remove_prefix(5);
  s = s.substr(0, std::min(s.find('<'), s.find('(')));
  const size_t scope = s.rfind("::");
  if (scope != std::string_view::npos) s.remove_prefix(scope + 2);
  return std::string(s.empty() ? display : s);
}

int64_t context_id(size_t process, int gpu) { return 1 + static_cast<int64_t>(process) * 64 + gpu; }

void write_runtime(Db& db, StringIds& strings, const std::vector<ProcessTrace>& traces,
                   const std::vector<std::vector<Memset>>& memsets, uint64_t salt) {
  Rows rows;
  for (size_t p = 0; p < traces.size(); ++p) {
    for (size_t i = 0; i < traces[p].calls.size(); ++i)
      if (traces[p].calls[i].api != HostApi::UserMarker) rows.emplace_back(p, i);
    for (size_t j = 0; j < memsets[p].size(); ++j) rows.emplace_back(p, traces[p].calls.size() + j);
  }
  shuffle(rows, salt);
  BatchInsert insert(db, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME (start, end, eventClass, globalTid, correlationId, "
                         "nameId, returnValue, callchainId) VALUES (?, ?, ?, ?, ?, ?, 0, NULL)");
  for (const auto& [p, i] : rows) {
    const ProcessTrace& t = traces[p];
    if (i < t.calls.size()) {
      const HostCall& c = t.calls[i];
      const CudaCall cc = cuda_call(c.api);
      insert.add(c.start, c.end, cc.event_class, global_tid(t.pid, c.tid), static_cast<int64_t>(i) + 1,
                 strings.id(cc.name));
    } else {
      const Memset& m = memsets[p][i - t.calls.size()];
      insert.add(m.call_start, m.call_end, 0, global_tid(t.pid, t.main_tid), static_cast<int64_t>(i) + 1,
                 strings.id("cudaMemsetAsync_v3020"));
    }
  }
  insert.finish();
}

// NVTX: marks (34), push/pop ranges (59), start/end ranges (60); the text inline or registered
// (textId). Each process also registers a domain (75) and a category (33): rows that are no calls.
void write_nvtx(Db& db, StringIds& strings, const std::vector<ProcessTrace>& traces, uint64_t salt) {
  Rows rows;
  for (size_t p = 0; p < traces.size(); ++p) {
    for (size_t i = 0; i < traces[p].calls.size(); ++i)
      if (traces[p].calls[i].api == HostApi::UserMarker) rows.emplace_back(p, i);
    rows.emplace_back(p, traces[p].calls.size());
    rows.emplace_back(p, traces[p].calls.size() + 1);
  }
  shuffle(rows, salt);
  // end 0, text '' and textId 0 stand for NULL.
  BatchInsert insert(db, "INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, category, text, globalTid, "
                         "endGlobalTid, textId, domainId) VALUES (?, NULLIF(?, 0), ?, NULLIF(?, 0), NULLIF(?, 0), "
                         "NULLIF(?, ''), ?, NULLIF(?, 0), NULLIF(?, 0), ?)");
  std::vector<int64_t> range_ids(traces.size(), 0);
  for (const auto& [p, i] : rows) {
    const ProcessTrace& t = traces[p];
    const int64_t tid = global_tid(t.pid, t.main_tid);
    if (i == t.calls.size()) {
      insert.add(t.init_ns, 0, 75, 0, 0, "rocpd_gen", tid, 0, 0, 1);
      continue;
    }
    if (i == t.calls.size() + 1) {
      insert.add(t.init_ns + 1, 0, 33, 0, 1, "generator", tid, 0, 0, 0);
      continue;
    }
    const HostCall& c = t.calls[i];
    const MarkerKind kind = marker_kind(t, i);
    const int type = kind == MarkerKind::Mark ? 34 : kind == MarkerKind::ThreadRange ? 59 : 60;
    const int64_t call_tid = global_tid(t.pid, c.tid);
    const std::string_view message = marker_message(c.marker);
    const bool registered = nvtx_registered(t, i);
    insert.add(c.start, kind == MarkerKind::Mark ? 0 : c.end, type, type == 60 ? ++range_ids[p] : 0, 0,
               registered ? std::string_view() : message, call_tid, type == 60 ? call_tid : 0,
               registered ? strings.id(message) : 0, 0);
  }
  insert.finish();
}

void write_kernels(Db& db, StringIds& strings, const std::vector<ProcessTrace>& traces, uint64_t salt) {
  const auto pool = kernel_pool();
  Rows rows;
  for (size_t p = 0; p < traces.size(); ++p)
    for (size_t i = 0; i < traces[p].ops.size(); ++i)
      if (traces[p].ops[i].kind == OpKind::Kernel) rows.emplace_back(p, i);
  shuffle(rows, salt);
  // mangledName 0 and graphId 0 stand for NULL.
  BatchInsert insert(db,
                     "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, greenContextId, streamId, "
                     "correlationId, globalPid, demangledName, shortName, mangledName, launchType, cacheConfig, "
                     "registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, staticSharedMemory, "
                     "dynamicSharedMemory, localMemoryPerThread, localMemoryTotal, gridId, sharedMemoryExecuted, "
                     "graphNodeId, graphId, tensorSizeMinusOneElements) VALUES (?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, "
                     "NULLIF(?, 0), 1, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, NULLIF(?, 0), '[]')");
  int64_t grid_id = 0;
  for (const auto& [p, i] : rows) {
    const ProcessTrace& t = traces[p];
    const Op& op = t.ops[i];
    const KernelInfo& k = pool[static_cast<size_t>(op.kernel)];
    const LaunchDims d = launch_dims(t, i);
    // Already-demangled names (what rpd tracers store) have no mangled form on record.
    const int64_t mangled = k.family == KernelFamily::Demangled ? 0 : strings.id(k.name);
    const int64_t static_shared = std::min<int64_t>(d.group_segment, 4096);
    const int64_t threads = int64_t{d.grid_x} * d.grid_y * d.grid_z;
    insert.add(op.start, op.end, op.gpu, context_id(p, op.gpu), cuda_stream(op.queue), static_cast<int64_t>(op.call) + 1,
               global_pid(t.pid), strings.id(k.display()), strings.id(short_name(k.display())), mangled,
               registers_per_thread(static_cast<size_t>(op.kernel)), d.grid_x / d.workgroup_x,
               d.grid_y / d.workgroup_y, d.grid_z / d.workgroup_z, d.workgroup_x, d.workgroup_y, d.workgroup_z,
               static_shared, d.group_segment - static_shared, d.private_segment, d.private_segment * threads,
               ++grid_id, d.group_segment, op.graph ? static_cast<int64_t>(t.graphs[op.graph - 1].exec) + 1 : 0);
  }
  insert.finish();
}

// Copies: host-to-device from pinned or pageable memory, device-to-host, device-to-device (the
// two devices recorded when they differ).
void write_memcpy(Db& db, const std::vector<ProcessTrace>& traces, uint64_t salt) {
  Rows rows;
  for (size_t p = 0; p < traces.size(); ++p)
    for (size_t i = 0; i < traces[p].ops.size(); ++i)
      if (traces[p].ops[i].kind != OpKind::Kernel) rows.emplace_back(p, i);
  shuffle(rows, salt);
  // -1 stands for NULL.
  BatchInsert insert(db, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY (start, end, deviceId, contextId, streamId, "
                         "correlationId, globalPid, bytes, copyKind, srcKind, dstKind, srcDeviceId, dstDeviceId, "
                         "copyCount) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULLIF(?, -1), NULLIF(?, -1), 1)");
  for (const auto& [p, i] : rows) {
    const ProcessTrace& t = traces[p];
    const Op& op = t.ops[i];
    const int host_kind = mix64(static_cast<uint64_t>(t.pid) + i) % 3 == 0 ? 0 : 1;  // pageable or pinned
    int copy_kind = 8, src_kind = 2, dst_kind = 2;
    int64_t src_device = -1, dst_device = -1;
    if (op.kind == OpKind::CopyHostToDevice) {
      copy_kind = 1;
      src_kind = host_kind;
    } else if (op.kind == OpKind::CopyDeviceToHost) {
      copy_kind = 2;
      dst_kind = host_kind;
    } else if (op.peer_gpu != op.gpu) {
      src_device = op.peer_gpu;
      dst_device = op.gpu;
    }
    insert.add(op.start, op.end, op.gpu, context_id(p, op.gpu), cuda_stream(op.queue), static_cast<int64_t>(op.call) + 1,
               global_pid(t.pid), op.bytes, copy_kind, src_kind, dst_kind, src_device, dst_device);
  }
  insert.finish();
}

void write_memset(Db& db, const std::vector<ProcessTrace>& traces, const std::vector<std::vector<Memset>>& memsets,
                  uint64_t salt) {
  Rows rows;
  for (size_t p = 0; p < traces.size(); ++p)
    for (size_t j = 0; j < memsets[p].size(); ++j) rows.emplace_back(p, j);
  shuffle(rows, salt);
  BatchInsert insert(db, "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET (start, end, deviceId, contextId, streamId, "
                         "correlationId, globalPid, value, bytes, memKind) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?)");
  for (const auto& [p, j] : rows) {
    const ProcessTrace& t = traces[p];
    const Memset& m = memsets[p][j];
    insert.add(m.start, m.end, m.gpu, context_id(p, m.gpu), cuda_stream(m.queue),
               static_cast<int64_t>(t.calls.size() + j) + 1, global_pid(t.pid), m.bytes, m.mem_kind);
  }
  insert.finish();
}

// CUPTI's synchronization record of every synchronizing call (nsys_sync_type): the call's times
// and correlation id; streams and events of gpu 0 (a stream wait's stream: the queue the call names,
// HostCall::wait_queue, else queue 0).
void write_sync(Db& db, const std::vector<ProcessTrace>& traces, uint64_t salt) {
  Rows rows;
  for (size_t p = 0; p < traces.size(); ++p)
    for (size_t i = 0; i < traces[p].calls.size(); ++i)
      if (nsys_sync_type(traces[p].calls[i].api)) rows.emplace_back(p, i);
  shuffle(rows, salt);
  // 0 stands for NULL (stream and event of the context-wide kinds).
  BatchInsert insert(db, "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start, end, deviceId, contextId, streamId, "
                         "correlationId, globalPid, deprecatedSyncType, syncType, eventId) VALUES (?, ?, 0, ?, "
                         "NULLIF(?, 0), ?, ?, ?, ?, NULLIF(?, 0))");
  for (const auto& [p, i] : rows) {
    const ProcessTrace& t = traces[p];
    const HostCall& c = t.calls[i];
    const int type = nsys_sync_type(c.api);
    const int queue = type == 2 && c.wait_queue >= 0 ? c.wait_queue : 0;  // the stream made to wait
    insert.add(c.start, c.end, context_id(p, 0), type == 2 || type == 3 ? cuda_stream(queue) : 0,
               static_cast<int64_t>(i) + 1, global_pid(t.pid), type, type, type <= 2 ? static_cast<int64_t>(i) + 1 : 0);
  }
  insert.finish();
}

// The GPUs the processes ran on, numbered as deviceId numbers them.
void write_gpus(Db& db, const std::vector<ProcessTrace>& traces) {
  int gpus = 0;
  for (const ProcessTrace& t : traces)
    for (const Op& op : t.ops) gpus = std::max(gpus, static_cast<int>(op.gpu) + 1);
  Stmt gpu(db, "INSERT INTO TARGET_INFO_GPU (vmId, id, name, busLocation, totalMemory, smCount, chipName, cuDevice, "
               "computeMajor, computeMinor) VALUES (281474976710656, ?, 'NVIDIA H100 80GB HBM3', ?, 85045559296, 132, "
               "'GH100', ?, 9, 0)");
  for (int g = 0; g < gpus; ++g) gpu.run(g, fmt::format("0000:{:02x}:00.0", 0x18 + g), g);
}

// The session start: the earliest process start (systemClockNs of the 3.25 layout).
int64_t session_start(const std::vector<ProcessTrace>& traces) {
  int64_t start = traces.front().init_ns;
  for (const ProcessTrace& t : traces) start = std::min(start, t.init_ns);
  return start;
}

void write_target(Db& db, const std::vector<ProcessTrace>& traces) {
  const ProcessTrace& first = traces.front();
  Stmt env(db, "INSERT INTO TARGET_INFO_SYSTEM_ENV (globalVid, devStateName, name, nameEnum, value) "
               "VALUES (281474976710656, 'Local (CLI)', ?, ?, ?)");
  env.run("CpuArchitecture", 3, "x86_64");
  env.run("Hostname", 619, first.hostname);
  env.run("OsDescription", 605, "Debian GNU/Linux 12");
  const int64_t start = session_start(traces);
  Stmt session(db, "INSERT INTO TARGET_INFO_SESSION_START_TIME (utcEpochNs, utcTime, localTime, systemClockNs) "
                   "VALUES (?, '2026-05-24T13:40:14', '2026-05-24T13:40:14', ?)");
  session.run(int64_t{1'779'630'014'975'716'426}, start);
  Stmt process(db, "INSERT INTO PROCESSES (globalPid, pid, name) VALUES (?, ?, ?)");
  process.run(global_pid(1), 1, "dumb-init");  // a process without events
  for (const ProcessTrace& t : traces) process.run(global_pid(t.pid), t.pid, "python3");
}

}  // namespace

void write_nsys(const std::filesystem::path& path, const std::vector<ProcessTrace>& traces, int memsets, int year) {
  Db db(path);
  db.exec(kNsysSchema);
  db.exec("BEGIN");
  std::vector<std::vector<Memset>> sets;
  uint64_t salt = 0x6e737973ULL;
  for (const ProcessTrace& t : traces) {
    sets.push_back(nsys_memsets(t, memsets));
    salt = mix64(salt ^ static_cast<uint64_t>(t.pid));
  }
  StringIds strings(db);
  write_runtime(db, strings, traces, sets, salt + 1);
  write_nvtx(db, strings, traces, salt + 2);
  write_kernels(db, strings, traces, salt + 3);
  write_memcpy(db, traces, salt + 4);
  write_memset(db, traces, sets, salt + 5);
  write_sync(db, traces, salt + 6);
  write_target(db, traces);
  write_gpus(db, traces);
  strings.finish();
  write_nsys_generation(db, year, session_start(traces));
  db.exec("COMMIT");
}

}  // namespace rocpd_gen
