// Nsight Systems SQLite exports (`nsys export --type sqlite`) of every export schema since 2021
// (schema/nsys.sql, docs/formats.md "Nsight Systems exports"). One report may hold several
// processes; its event tables exist only when it holds such events, and each schema generation
// has its own columns (nsys_probe.cpp records which): every expression below reads a column only
// when the file has it, NULL otherwise.
//   ops:  CUPTI_ACTIVITY_KIND_KERNEL (kind 'kernel'), _MEMCPY ('copy'), _MEMSET ('fill')
//   apis: CUPTI_ACTIVITY_KIND_RUNTIME (CUDA runtime 'cuda' and driver 'cuda_driver' calls),
//         CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (host waits, 'cuda_sync'), NVTX_EVENTS push/pop and
//         start/end ranges and marks ('marker')
// Names are ids into StringIds, processes and threads are packed into serialized GlobalIds, and the
// tables have no keys: every row is numbered by its rowid. Correlation ids repeat across the
// processes of one report, so the canonical correlation_id is (pid << 32) | correlationId: unique
// within the member, equal for a kernel and its launch exactly when nsys's own reports pair them.
#include "formats/nsys/nsys.h"

#include <fmt/format.h>

#include "formats/nsys/nsys_probe.h"

namespace rocpd::formats {

namespace {

const NsysDetails& details(const canonical::Member& m) { return static_cast<const NsysDetails&>(*m.info.details); }

std::string table(const canonical::Member& m, const char* name) { return quote_id(m.schema) + "." + name; }

// The columns of one event table under its alias: `c("start")` is `k.start`, or NULL when the
// file's table has no such column.
class Cols {
 public:
  Cols(const canonical::Member& m, const char* table, const char* alias) : d_(details(m)), table_(table), alias_(alias) {}
  bool has(const char* column) const { return d_.has(table_, column); }
  std::string operator()(const char* column) const {
    return has(column) ? fmt::format("{}.\"{}\"", alias_, column) : std::string("NULL");
  }
  std::string duration() const { return has("start") && has("end") ? canonical::duration_sql(alias_) : "NULL"; }

 private:
  const NsysDetails& d_;
  const char* table_;
  const char* alias_;
};

// A GlobalId column decoded only when it holds a number: text or a blob (which compare above
// every number) reads NULL instead of a number SQLite would make of it.
// PID = (globalId >> 24) & 0xFFFFFF; TID = globalId & 0xFFFFFF (nsys's serialized GlobalId).
std::string pid_of(const std::string& gid) {
  if (gid == "NULL") return gid;
  return fmt::format("CASE WHEN {0} <= 9223372036854775807 THEN ({0} >> 24) & 16777215 END", gid);
}
std::string tid_of(const std::string& gid) {
  if (gid == "NULL") return gid;
  return fmt::format("CASE WHEN {0} <= 9223372036854775807 THEN {0} & 16777215 END", gid);
}
// The member-wide correlation id: the process's pid above bit 32, CUPTI's 32-bit correlation id
// below. NULL when either part is missing or out of range (a hostile file's text or 2^40).
std::string correlation(const std::string& corr, const std::string& gid) {
  if (corr == "NULL" || gid == "NULL") return "NULL";
  return fmt::format(
      "CASE WHEN {0} BETWEEN 0 AND 4294967295 AND {0} = CAST({0} AS INTEGER) AND {1} <= 9223372036854775807 "
      "THEN ((({1} >> 24) & 16777215) << 32) | {0} END",
      corr, gid);
}

// The columns every GPU activity source shares (rocpd_ops, rocpd_kernels, rocpd_copies).
struct OpColumns {
  int pid, gpu, queue, stream, start, end, duration, corr, op_id, graph;
};

void op_columns(canonical::SourceBuilder& b, const Cols& x, const char* a, const OpColumns& c) {
  b.src().rowid = std::string(a) + ".rowid";
  b.col(c.pid, pid_of(x("globalPid")));
  b.col(c.gpu, x("deviceId"));
  b.col(c.queue, "NULL");  // CUDA exposes streams, not hardware queues
  b.col(c.stream, x("streamId"));
  b.col(c.start, x("start"));
  b.col(c.end, x("end"));
  b.col(c.duration, x.duration());
  b.col(c.corr, correlation(x("correlationId"), x("globalPid")));
  b.col(c.op_id, std::string(a) + ".rowid");
  b.col(c.graph, "NULL");
  b.src().indexed = uint64_t{1} << c.op_id;
}

// Kernels: named by their mangled name where nsys recorded one (since 2022), else by the
// demangled one, else (a file with neither) by the base name.
void kernel_columns(canonical::SourceBuilder& b, const canonical::Member& m, const OpColumns& c, int name) {
  const Cols k(m, kNsysKernel, "k");
  op_columns(b, k, "k", c);
  std::vector<std::pair<const char*, const char*>> names;  // (column, join alias)
  if (details(m).strings) {
    if (k.has("mangledName")) names.emplace_back("mangledName", "mn");
    if (k.has("demangledName")) names.emplace_back("demangledName", "dn");
    if (names.empty() && k.has("shortName")) names.emplace_back("shortName", "sn");
  }
  std::vector<std::string> parts;
  uint32_t joins = 0;
  for (const auto& [column, alias] : names) {
    b.join(alias, fmt::format("LEFT JOIN {} AS {} ON {}.id = k.{}", table(m, "StringIds"), alias, alias, column));
    joins |= b.mask({alias});
    parts.push_back(std::string(alias) == "mn" ? "NULLIF(mn.value, '')" : std::string(alias) + ".value");
    b.src().name_key.push_back(std::string("k.") + column);
  }
  if (parts.empty()) b.col(name, "NULL");
  else if (parts.size() == 1) b.col(name, parts[0], joins);
  else b.col(name, "coalesce(" + fmt::format("{}", fmt::join(parts, ", ")) + ")", joins);
  // 0 (or NULL) = not launched from a graph.
  b.col(c.graph, k.has("graphId") ? "NULLIF(k.graphId, 0)" : "NULL");
  // Expressions that return a stored value without its column's affinity: compared inside the
  // member, a number stored as text would not match as SQLite matches the returned value.
  b.src().unpushable |= (uint64_t{1} << name) | (uint64_t{1} << c.graph);
}

constexpr OpColumns kOps{canonical::kOpsPid, canonical::kOpsGpu,    canonical::kOpsQueue,         canonical::kOpsStream, canonical::kOpsStart,
                         canonical::kOpsEnd, canonical::kOpsDuration, canonical::kOpsCorrelationId, canonical::kOpsOpId,   canonical::kOpsGraphId};

canonical::SourceSql kernel_ops(const canonical::Member& m) {
  canonical::SourceBuilder b(table(m, kNsysKernel), "k", canonical::kOpsColumnCount);
  kernel_columns(b, m, kOps, canonical::kOpsName);
  // nsys's own demangled name (not ours of the mangled one: docs/formats.md).
  // Without one, demangled is ours of the name, as for the other formats (left to the core).
  if (details(m).strings && Cols(m, kNsysKernel, "k").has("demangledName")) b.col(canonical::kOpsDemangled, "dn.value", {"dn"});
  b.col(canonical::kOpsKind, "'kernel'");
  b.col(canonical::kOpsNode, "0");
  return b.take();
}

// Launch geometry and resources. nsys records the grid in blocks; rocpd_kernels.grid_* holds
// work-items (rocprofv3's convention): gridX * blockX. Shared memory (static + dynamic) is the LDS,
// local memory per thread the scratch per work-item, registers per thread the vgpr count.
canonical::SourceSql kernel_details(const canonical::Member& m) {
  canonical::SourceBuilder b(table(m, kNsysKernel), "k", canonical::kKernColumnCount);
  kernel_columns(b, m,
                 {canonical::kKernPid, canonical::kKernGpu, canonical::kKernQueue, canonical::kKernStream, canonical::kKernStart, canonical::kKernEnd, canonical::kKernDuration, canonical::kKernCorrelationId,
                  canonical::kKernOpId, canonical::kKernGraphId},
                 canonical::kKernName);
  const Cols k(m, kNsysKernel, "k");
  const char* dims[3][2] = {{"gridX", "blockX"}, {"gridY", "blockY"}, {"gridZ", "blockZ"}};
  for (int i = 0; i < 3; ++i) {
    b.col(canonical::kKernGridX + i, fmt::format("{} * {}", k(dims[i][0]), k(dims[i][1])));
    b.col(canonical::kKernWorkgroupX + i, k(dims[i][1]));
  }
  b.col(canonical::kKernLdsBytes, fmt::format("{} + {}", k("staticSharedMemory"), k("dynamicSharedMemory")));
  b.col(canonical::kKernScratchBytes, k("localMemoryPerThread"));
  b.col(canonical::kKernSgpr, "NULL");
  b.col(canonical::kKernVgpr, k("registersPerThread"));
  b.col(canonical::kKernAgpr, "NULL");
  return b.take();
}

// Copies are named as rpd names its copy ops (so summaries agree across formats); the kinds rpd
// has no name for as nsys stats names them ('[CUDA memcpy Array-to-Device]').
void copy_name(canonical::SourceBuilder& b, const canonical::Member& m, int name) {
  if (!Cols(m, kNsysMemcpy, "m").has("copyKind")) {
    b.col(name, "NULL");
    return;
  }
  std::string other = "'[CUDA memcpy ' || m.copyKind || ']'";
  if (details(m).memcpy_kinds) {
    b.join("ck", fmt::format("LEFT JOIN {} AS ck ON ck.id = m.copyKind", table(m, "ENUM_CUDA_MEMCPY_OPER")));
    other = "'[CUDA memcpy ' || coalesce(ck.label, m.copyKind) || ']'";
  }
  b.col(name,
        "CASE m.copyKind WHEN 1 THEN 'CopyHostToDevice' WHEN 2 THEN 'CopyDeviceToHost' "
        "WHEN 8 THEN 'CopyDeviceToDevice' WHEN 9 THEN 'CopyHostToHost' WHEN 10 THEN 'CopyPeerToPeer' ELSE " +
            other + " END",
        details(m).memcpy_kinds ? b.mask({"ck"}) : 0);
  b.src().name_key = {"m.copyKind"};
}

canonical::SourceSql copy_ops(const canonical::Member& m) {
  canonical::SourceBuilder b(table(m, kNsysMemcpy), "m", canonical::kOpsColumnCount);
  op_columns(b, Cols(m, kNsysMemcpy, "m"), "m", kOps);
  copy_name(b, m, canonical::kOpsName);
  b.col(canonical::kOpsKind, "'copy'");
  b.col(canonical::kOpsNode, "0");
  return b.take();
}

// The device at each end of a copy, from its kind (CUpti_ActivityMemcpyKind: arrays are device
// memory): the recorded source or destination device, else the device that ran it. Without a
// copyKind, from the memory kinds of its ends (ENUM_CUDA_MEM_KIND: 2 device, 3 array, 5 device
// static).
canonical::SourceSql copy_details(const canonical::Member& m) {
  canonical::SourceBuilder b(table(m, kNsysMemcpy), "m", canonical::kCopyColumnCount);
  const Cols x(m, kNsysMemcpy, "m");
  op_columns(b, x, "m",
             {canonical::kCopyPid, canonical::kCopyGpu, canonical::kCopyQueue, canonical::kCopyStream, canonical::kCopyStart, canonical::kCopyEnd, canonical::kCopyDuration, canonical::kCopyCorrelationId,
              canonical::kCopyOpId, canonical::kCopyGraphId});
  copy_name(b, m, canonical::kCopyName);
  b.col(canonical::kCopyBytes, x("bytes"));
  const std::string src = x.has("srcDeviceId") ? "coalesce(m.srcDeviceId, " + x("deviceId") + ")" : x("deviceId");
  const std::string dst = x.has("dstDeviceId") ? "coalesce(m.dstDeviceId, " + x("deviceId") + ")" : x("deviceId");
  std::string src_on, dst_on;
  if (x.has("copyKind")) {
    src_on = "m.copyKind IN (2, 4, 5, 6, 7, 8, 10, 12, 13)";
    dst_on = "m.copyKind IN (1, 3, 5, 6, 7, 8, 10, 11, 13)";
  } else {
    src_on = x.has("srcKind") ? "m.srcKind IN (2, 3, 5)" : "0";
    dst_on = x.has("dstKind") ? "m.dstKind IN (2, 3, 5)" : "0";
  }
  b.col(canonical::kCopySrcGpu, fmt::format("CASE WHEN {} THEN {} END", src_on, src));
  b.col(canonical::kCopyDstGpu, fmt::format("CASE WHEN {} THEN {} END", dst_on, dst));
  b.src().unpushable |= (uint64_t{1} << canonical::kCopySrcGpu) | (uint64_t{1} << canonical::kCopyDstGpu);  // as kernel names
  return b.take();
}

canonical::SourceSql memset_ops(const canonical::Member& m) {
  canonical::SourceBuilder b(table(m, kNsysMemset), "f", canonical::kOpsColumnCount);
  op_columns(b, Cols(m, kNsysMemset, "f"), "f", kOps);
  b.col(canonical::kOpsName, "'FillBuffer'");  // rpd's name of a fill op
  b.col(canonical::kOpsKind, "'fill'");
  b.col(canonical::kOpsNode, "0");
  return b.take();
}

// CUDA runtime and driver calls. Names as nsys stats shows them: a six-character version suffix
// ('_v7000', '_v3020') is cut, longer ones ('_v11060') stay, exactly as its reports do.
canonical::SourceSql runtime_calls(const canonical::Member& m) {
  const NsysDetails& d = details(m);
  const Cols r(m, kNsysRuntime, "r");
  canonical::SourceBuilder b(table(m, kNsysRuntime), "r", canonical::kApisColumnCount);
  b.src().rowid = "r.rowid";
  const bool named = d.strings && r.has("nameId");
  if (named) b.join("s", fmt::format("LEFT JOIN {} AS s ON s.id = r.nameId", table(m, "StringIds")));
  if (r.has("eventClass")) {
    std::string other = "NULL";
    uint32_t other_joins = 0;
    if (d.event_classes) {
      b.join("ec", fmt::format("LEFT JOIN {} AS ec ON ec.id = r.eventClass", table(m, "ENUM_NSYS_EVENT_CLASS")));
      other = "lower(replace(ec.name, 'TRACE_PROCESS_EVENT_', ''))";
      other_joins = b.mask({"ec"});
      b.col(canonical::kApisCategory, "ec.label", {"ec"});
    } else {
      b.col(canonical::kApisCategory, "CASE r.eventClass WHEN 0 THEN 'CUDA runtime' WHEN 1 THEN 'CUDA driver' END");
    }
    b.col(canonical::kApisDomain, "CASE r.eventClass WHEN 0 THEN 'cuda' WHEN 1 THEN 'cuda_driver' ELSE " + other + " END",
          other_joins);
    b.src().predicate_column = canonical::kApisDomain;
    b.src().predicates = {{"cuda", "r.eventClass = 0"}, {"cuda_driver", "r.eventClass = 1"}, {"marker", "0"},
                          {"cuda_sync", "0"}};
  } else if (named) {
    // No event class (a file without the column): the name tells runtime from driver calls.
    b.col(canonical::kApisDomain, "CASE WHEN s.value GLOB 'cuda*' THEN 'cuda' WHEN s.value GLOB 'cu[A-Z]*' THEN 'cuda_driver' END",
          {"s"});
    b.col(canonical::kApisCategory, "NULL");
  } else {
    b.col(canonical::kApisDomain, "NULL");
    b.col(canonical::kApisCategory, "NULL");
  }
  b.col(canonical::kApisPid, pid_of(r("globalTid")));
  b.col(canonical::kApisTid, tid_of(r("globalTid")));
  if (named) {
    b.col(canonical::kApisName,
          "CASE substr(s.value, -6, 2) WHEN '_v' THEN substr(s.value, 1, length(s.value) - 6) ELSE s.value END",
          {"s"});
    b.src().unpushable |= uint64_t{1} << canonical::kApisName;  // as kernel names
  } else {
    b.col(canonical::kApisName, "NULL");
  }
  b.col(canonical::kApisArgs, "NULL");
  b.col(canonical::kApisStart, r("start"));
  b.col(canonical::kApisEnd, r("end"));
  b.col(canonical::kApisDuration, r.duration());
  b.col(canonical::kApisCorrelationId, correlation(r("correlationId"), r("globalTid")));
  b.col(canonical::kApisApiId, "r.rowid");
  b.col(canonical::kApisNode, "0");
  b.src().indexed = uint64_t{1} << canonical::kApisApiId;
  return b.take();
}

// CUPTI's synchronization records: the host waiting for a stream, an event or the context
// (cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize) or a stream made to wait
// for an event. Calls of domain 'cuda_sync' named as PyTorch's profiler names the same records
// ('Stream Sync', ...), so traces of both agree. The record has no thread (tid NULL); its
// correlation id is the synchronizing call's, kept in args with the device, stream and event, so
// correlation_id stays the call's own.
canonical::SourceSql sync_calls(const canonical::Member& m) {
  const Cols y(m, kNsysSync, "y");
  canonical::SourceBuilder b(table(m, kNsysSync), "y", canonical::kApisColumnCount);
  b.src().rowid = "y.rowid";
  b.col(canonical::kApisPid, pid_of(y("globalPid")));
  b.col(canonical::kApisTid, "NULL");
  b.col(canonical::kApisDomain, "'cuda_sync'");
  b.col(canonical::kApisCategory, "'CUDA synchronization'");
  b.col(canonical::kApisName, y.has("syncType") ? "CASE y.syncType WHEN 1 THEN 'Event Sync' WHEN 2 THEN 'Stream Wait Event' "
                                       "WHEN 3 THEN 'Stream Sync' WHEN 4 THEN 'Context Sync' ELSE 'Unknown Sync' END"
                                     : "NULL");
  std::vector<std::string> args;
  for (const auto& [key, column] : {std::pair{"device", "deviceId"}, std::pair{"stream", "streamId"},
                                    std::pair{"correlation", "correlationId"}, std::pair{"event", "eventId"}})
    if (y.has(column)) args.push_back(fmt::format("'{}', y.\"{}\"", key, column));
  // The synchronizing call as rocpd_apis names it (its correlation_id), for the critical path.
  if (y.has("correlationId") && y.has("globalPid"))
    args.push_back(fmt::format("'call', {}", correlation(y("correlationId"), y("globalPid"))));
  b.col(canonical::kApisArgs, args.empty() ? "NULL" : fmt::format("json_object({})", fmt::join(args, ", ")));
  b.src().unpushable |= uint64_t{1} << canonical::kApisArgs;  // json_object of values of any type
  b.col(canonical::kApisStart, y("start"));
  b.col(canonical::kApisEnd, y("end"));
  b.col(canonical::kApisDuration, y.duration());
  b.col(canonical::kApisCorrelationId, "NULL");
  b.col(canonical::kApisApiId, "y.rowid");
  b.col(canonical::kApisNode, "0");
  b.src().indexed = uint64_t{1} << canonical::kApisApiId;
  return b.take();
}

// NVTX push/pop (59) and start/end (60) ranges, or (`marks`) marks (34): a mark is an instant, its
// end is its start. The other NVTX rows (domain and category registrations) are no calls. Two
// sources, so that both ends stay plain columns (an expression choosing between them would compare
// without the columns' affinity inside the member: time constraints could not be pushed).
canonical::SourceSql nvtx_events(const canonical::Member& m, bool marks) {
  const Cols n(m, kNsysNvtx, "n");
  canonical::SourceBuilder b(table(m, kNsysNvtx), "n", canonical::kApisColumnCount);
  b.src().rowid = "n.rowid";
  b.src().where = marks ? "n.eventType = 34" : "n.eventType IN (59, 60)";
  b.col(canonical::kApisPid, pid_of(n("globalTid")));
  b.col(canonical::kApisTid, tid_of(n("globalTid")));
  b.col(canonical::kApisDomain, "'marker'");
  b.col(canonical::kApisCategory, marks ? "'NvtxMark'" : "CASE n.eventType WHEN 59 THEN 'NvtxPushPopRange' ELSE 'NvtxStartEndRange' END");
  if (details(m).strings && n.has("textId")) {
    b.join("t", fmt::format("LEFT JOIN {} AS t ON t.id = n.textId", table(m, "StringIds")));
    b.col(canonical::kApisName, n.has("text") ? "coalesce(n.text, t.value)" : "t.value", {"t"});
    b.src().unpushable |= uint64_t{1} << canonical::kApisName;
  } else {
    b.col(canonical::kApisName, n("text"));
  }
  b.col(canonical::kApisArgs, "NULL");
  b.col(canonical::kApisStart, n("start"));
  b.col(canonical::kApisEnd, marks ? n("start") : n("end"));
  b.col(canonical::kApisDuration, marks ? (n.has("start") ? "max(n.start - n.start, 0)" : "NULL") : n.duration());
  b.col(canonical::kApisCorrelationId, "NULL");
  b.col(canonical::kApisApiId, "n.rowid");
  b.col(canonical::kApisNode, "0");
  b.src().indexed = uint64_t{1} << canonical::kApisApiId;
  return b.take();
}

class NsysAdapter : public FormatAdapter {
 public:
  const char* name() const override { return "nsys"; }

  bool claims(const Catalog& c) const override { return nsys_claims(c); }

  canonical::FormatInfo probe(sqlite3* db, const std::string& schema, const Catalog& names,
                   const std::string& label) const override {
    return probe_nsys(db, schema, names, label);
  }

  std::vector<canonical::SourceSql> sources(canonical::TableKind table, const canonical::Member& m, const canonical::Profile*, sqlite3*) const override {
    const NsysDetails& d = details(m);
    std::vector<canonical::SourceSql> out;
    switch (table) {
      case canonical::TableKind::Ops:
        if (d.has(kNsysKernel)) out.push_back(kernel_ops(m));
        if (d.has(kNsysMemcpy)) out.push_back(copy_ops(m));
        if (d.has(kNsysMemset)) out.push_back(memset_ops(m));
        break;
      case canonical::TableKind::Apis:
        if (d.has(kNsysRuntime)) out.push_back(runtime_calls(m));
        if (d.has(kNsysNvtx, "eventType")) {
          out.push_back(nvtx_events(m, false));
          out.push_back(nvtx_events(m, true));
        }
        if (d.has(kNsysSync)) out.push_back(sync_calls(m));
        break;
      case canonical::TableKind::Kernels:
        if (d.has(kNsysKernel)) out.push_back(kernel_details(m));
        break;
      case canonical::TableKind::Copies:
        if (d.has(kNsysMemcpy)) out.push_back(copy_details(m));
        break;
      case canonical::TableKind::Memory:     // CUDA memory usage events are not read (docs/formats.md)
      case canonical::TableKind::Counters:   // nsys exports no per-kernel counters
      case canonical::TableKind::HipEvents:  // CUDA events are API calls here
        break;
    }
    return out;
  }
};

}  // namespace

const FormatAdapter& nsys_adapter() {
  static const NsysAdapter adapter;
  return adapter;
}

}  // namespace rocpd::formats
