#include "write_rpd.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

#include "db.h"
#include "kernel_pool.h"
#include "random.h"
#include "rocpd_model.h"
#include "schema_text.h"

namespace rocpd_gen {
namespace {

// rpd's interned strings: one id per distinct text within a session, '' first (id 1).
class InternedStrings {
 public:
  InternedStrings(Stmt& insert, int64_t offset) : insert_(insert), offset_(offset) { id(""); }
  int64_t id(std::string_view text) {
    auto it = ids_.find(text);
    if (it != ids_.end()) return it->second;
    const int64_t new_id = offset_ + static_cast<int64_t>(ids_.size()) + 1;
    insert_.run(new_id, text);
    ids_.emplace(std::string(text), new_id);
    return new_id;
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  Stmt& insert_;
  int64_t offset_;
  std::unordered_map<std::string, int64_t, Hash, std::equal_to<>> ids_;
};

// rpd v3's rocpd_ustring: a new row per use (arguments and messages are not deduplicated); the
// empty string is id 1 and shared.
class UniqueStrings {
 public:
  UniqueStrings(BatchInsert& insert, int64_t offset) : insert_(insert), offset_(offset) { insert_.add(offset_ + 1, ""); }
  int64_t create(std::string_view text) {
    if (text.empty()) return offset_ + 1;
    const int64_t id = offset_ + ++count_ + 1;
    insert_.add(id, text);
    return id;
  }

 private:
  BatchInsert& insert_;
  int64_t offset_;
  int64_t count_ = 0;
};

// hipMemcpyKind values as recorded in rocpd_copyapi.kind.
int copy_kind(OpKind kind) {
  switch (kind) {
    case OpKind::CopyHostToDevice: return 1;
    case OpKind::CopyDeviceToHost: return 2;
    case OpKind::CopyDeviceToDevice: return 3;
    case OpKind::Kernel: break;
  }
  return 0;
}

std::string stream_handle(const ProcessTrace& t, int gpu, int queue) {
  return fmt::format("{:#x}", 0x5600'0000'0000ULL + (mix64(static_cast<uint64_t>(t.pid) * 131 + gpu * 16 + queue) & 0xffff'fff0ULL));
}

std::string call_args(const HostCall& c) {
  switch (c.api) {
    case HostApi::HipMalloc: return fmt::format("ptr={:#x} | size={:#x}", c.arg_ptr, c.arg_size);
    case HostApi::HipFree: return fmt::format("ptr={:#x}", c.arg_ptr);
    case HostApi::UserMarker: return std::string(marker_message(c.marker));
    default: return {};
  }
}

// Multi-node encoding of rpd_multinode.md (gpu_stride 1000, pid_stride 10000000): a node's pids and
// tids become node * pid_stride + value, its gpu and queue ids node * gpu_stride + value.
constexpr int64_t kGpuStride = 1'000;
constexpr int64_t kPidStride = 10'000'000;

// Post-processed counters (rpd_multinode.md): one rocpd_counter row per (kernel op, counter), the
// value summed over the counter's dimensions (rpd has none), the name interned in rocpd_string.
void write_counters(Db& db, const ProcessTrace& t, int64_t offset, InternedStrings& strings, int counters) {
  BatchInsert insert(db, "INSERT INTO rocpd_counter (id, value, op_id, name_id) VALUES (?, ?, ?, ?)");
  const auto catalog = counter_catalog();
  int64_t id = offset;
  for (size_t i = 0; i < t.ops.size(); ++i) {
    if (t.ops[i].kind != OpKind::Kernel) continue;
    for (int c = 0; c < counters; ++c)
      insert.add(++id, static_cast<double>(rpd_counter_value(t, i, c)), offset + static_cast<int64_t>(i) + 1,
                 strings.id(catalog[static_cast<size_t>(c)].name));
  }
  insert.finish();
}

void write_session(Db& db, int version, const ProcessTrace& t, int64_t offset, int encode_node, int counters) {
  const int64_t node = encode_node > 0 ? encode_node : 0;
  const int64_t pid = node * kPidStride + t.pid;
  Stmt string_insert(db, "INSERT INTO rocpd_string (id, string) VALUES (?, ?)");
  InternedStrings strings(string_insert, offset);
  std::optional<BatchInsert> ustring_insert;
  std::optional<UniqueStrings> ustrings;
  if (version == 3) {
    ustring_insert.emplace(db, "INSERT INTO rocpd_ustring (id, string) VALUES (?, ?)");
    ustrings.emplace(*ustring_insert, offset);
  }

  {
    BatchInsert api_insert(db, version == 2
                            ? "INSERT INTO rocpd_api (id, pid, tid, start, end, apiName_id, args_id) "
                              "VALUES (?, ?, ?, ?, ?, ?, ?)"
                            : "INSERT INTO rocpd_api (id, pid, tid, start, end, apiName_id, category_id, "
                              "domain_id, args_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    const int64_t empty_id = strings.id("");
    const int64_t hip_domain = version == 3 ? strings.id("hip") : 0;
    const int64_t marker_domain = version == 3 ? strings.id("UserMarker") : 0;
    for (size_t i = 0; i < t.calls.size(); ++i) {
      const HostCall& c = t.calls[i];
      const int64_t id = offset + static_cast<int64_t>(i) + 1;
      const int64_t name_id = strings.id(host_api_name(c.api));
      const std::string args = call_args(c);
      if (version == 2) {
        api_insert.add(id, pid, c.tid, c.start, c.end, name_id, strings.id(args));
      } else {
        // The tracer leaves category empty; the domain is 'hip' or, for roctx, 'UserMarker'.
        api_insert.add(id, pid, node * kPidStride + c.tid, c.start, c.end, name_id, empty_id,
                       c.api == HostApi::UserMarker ? marker_domain : hip_domain, ustrings->create(args));
      }
    }
    api_insert.finish();
  }

  const auto pool = kernel_pool();
  {
    BatchInsert op_insert(db, version == 2
                           ? "INSERT INTO rocpd_op (id, gpuId, queueId, sequenceId, completionSignal, start, end, "
                             "description_id, opType_id) VALUES (?, ?, ?, 0, '', ?, ?, ?, ?)"
                           : "INSERT INTO rocpd_op (id, gpuId, queueId, sequenceId, start, end, description_id, "
                             "opType_id) VALUES (?, ?, ?, 0, ?, ?, ?, ?)");
    BatchInsert link_insert(db, "INSERT INTO rocpd_api_ops (api_id, op_id) VALUES (?, ?)");
    BatchInsert kernel_insert(db, version == 2
                               ? "INSERT INTO rocpd_kernelapi (api_ptr_id, stream, gridX, gridY, gridZ, workgroupX, "
                                 "workgroupY, workgroupZ, groupSegmentSize, privateSegmentSize, kernelArgAddress, "
                                 "aquireFence, releaseFence, codeObject_id, kernelName_id) "
                                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', '', '', '', ?)"
                               : "INSERT INTO rocpd_kernelapi (api_ptr_id, stream, gridX, gridY, gridZ, workgroupX, "
                                 "workgroupY, workgroupZ, groupSegmentSize, privateSegmentSize, kernelName_id) "
                                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    BatchInsert copy_insert(db,
                     "INSERT INTO rocpd_copyapi (api_ptr_id, stream, size, width, height, kind, dst, src, dstDevice, "
                     "srcDevice, sync, pinned) VALUES (?, ?, ?, '', '', ?, ?, ?, ?, ?, ?, 0)");
    for (size_t i = 0; i < t.ops.size(); ++i) {
      const Op& op = t.ops[i];
      const int64_t op_id = offset + static_cast<int64_t>(i) + 1;
      const int64_t api_id = offset + static_cast<int64_t>(op.call) + 1;
      const int64_t description =
          op.kind == OpKind::Kernel ? strings.id(pool[static_cast<size_t>(op.kernel)].name) : strings.id("");
      op_insert.add(op_id, node * kGpuStride + op.gpu, node * kGpuStride + op.queue, op.start, op.end, description,
                    strings.id(rpd_op_type(op.kind)));
      link_insert.add(api_id, op_id);
      const std::string stream = stream_handle(t, op.gpu, op.queue);
      if (op.graph) {
        // hipGraphLaunch: one rocpd_kernelapi row for the call, every size 0; its ops (all linked
        // to the call) have no subclass rows of their own.
        if (t.graphs[op.graph - 1].first_op == i)
          kernel_insert.add(api_id, stream, 0, 0, 0, 0, 0, 0, 0, 0, strings.id(""));
      } else if (op.kind == OpKind::Kernel) {
        const LaunchDims d = launch_dims(t, i);
        kernel_insert.add(api_id, stream, d.grid_x, d.grid_y, d.grid_z, d.workgroup_x, d.workgroup_y, d.workgroup_z,
                          d.group_segment, d.private_segment, description);
      } else {
        const bool to_device = op.kind != OpKind::CopyDeviceToHost;
        const bool from_device = op.kind != OpKind::CopyHostToDevice;
        const uint64_t dst = to_device ? device_pointer(t.pid, i * 2) : host_pointer(t.pid, i * 2);
        const uint64_t src = from_device ? device_pointer(t.pid, i * 2 + 1) : host_pointer(t.pid, i * 2 + 1);
        const int dst_device = to_device ? op.gpu : 0;
        const int src_device = op.kind == OpKind::CopyDeviceToDevice ? op.peer_gpu : from_device ? op.gpu : 0;
        const bool sync = t.calls[op.call].api == HostApi::HipMemcpy;
        copy_insert.add(api_id, sync ? std::string("0x0") : stream, op.bytes, copy_kind(op.kind),
                        fmt::format("{:#x}", dst), fmt::format("{:#x}", src), dst_device, src_device, sync ? 1 : 0);
      }
    }
    op_insert.finish();
    link_insert.finish();
    kernel_insert.finish();
    copy_insert.finish();
  }

  if (ustring_insert) ustring_insert->finish();
  if (counters > 0 && version == 3) write_counters(db, t, offset, strings, counters);

  // A few sampled clock changes per gpu, as the SMI logger records them (not part of the truth).
  Stmt monitor_insert(db, "INSERT INTO rocpd_monitor (deviceType, deviceId, monitorType, start, end, value) "
                          "VALUES ('gpu', ?, 'sclk', ?, ?, ?)");
  static constexpr std::string_view kClocks[] = {"800", "1700", "2100", "1300"};
  const int64_t span = (t.fini_ns - t.init_ns) / 8;
  for (int gpu = 0; gpu < t.gpus; ++gpu)
    for (int k = 0; k < 8; ++k)
      monitor_insert.run(gpu, t.init_ns + k * span, t.init_ns + (k + 1) * span, kClocks[(gpu + k) % 4]);
}

}  // namespace

void write_rpd(const std::filesystem::path& path, int schema_version, std::span<const ProcessTrace> sessions,
               bool encode_nodes, int counters) {
  if (schema_version != 2 && schema_version != 3)
    throw std::invalid_argument(fmt::format("rpd schema version {} is not supported", schema_version));
  Db db(path);
  db.exec(schema_version == 2 ? kRpdV2Schema : kRpdV3Schema);
  db.exec("BEGIN");
  Stmt meta(db, "INSERT INTO rocpd_metadata (tag, value) VALUES ('session_count', ?)");
  meta.run(std::to_string(sessions.size()));
  for (size_t s = 0; s < sessions.size(); ++s)
    write_session(db, schema_version, sessions[s], static_cast<int64_t>(s) << 32,
                  encode_nodes && schema_version == 3 ? sessions[s].node : -1, counters);
  db.exec("COMMIT");
}

}  // namespace rocpd_gen
