// Nsight Systems SQLite exports (`nsys export --type sqlite`), export schema 3.25.x
// (schema/nsys.sql, docs/formats.md "Nsight Systems exports"). One report may hold several
// processes; its event tables exist only when it holds such events:
//   ops:  CUPTI_ACTIVITY_KIND_KERNEL (kind 'kernel'), _MEMCPY ('copy'), _MEMSET ('fill')
//   apis: CUPTI_ACTIVITY_KIND_RUNTIME (CUDA runtime 'cuda' and driver 'cuda_driver' calls),
//         NVTX_EVENTS push/pop and start/end ranges and marks ('marker')
// Names are ids into StringIds, processes and threads are packed into serialized GlobalIds, and the
// tables have no keys: every row is numbered by its rowid. Correlation ids repeat across the
// processes of one report, so the canonical correlation_id is (pid << 32) | correlationId: unique
// within the member, equal for a kernel and its launch exactly when nsys's own reports pair them.
#include "formats/nsys.h"

#include <fmt/format.h>

#include <cstdlib>

#include "formats/probe_util.h"

namespace rocpd::federation {

namespace {

const NsysDetails& details(const Member& m) { return static_cast<const NsysDetails&>(*m.info.details); }

std::string table(const Member& m, const char* name) { return quote_id(m.schema) + "." + name; }

// A GlobalId column decoded only when it holds a number: text or a blob (which compare above
// every number) reads NULL instead of a number SQLite would make of it.
constexpr const char* kNumber = "{0} <= 9223372036854775807";
// PID = (globalId >> 24) & 0xFFFFFF; TID = globalId & 0xFFFFFF (nsys's serialized GlobalId).
std::string pid_of(const std::string& gid) {
  return fmt::format("CASE WHEN {0} <= 9223372036854775807 THEN ({0} >> 24) & 16777215 END", gid);
}
std::string tid_of(const std::string& gid) {
  return fmt::format("CASE WHEN {0} <= 9223372036854775807 THEN {0} & 16777215 END", gid);
}
// The member-wide correlation id: the process's pid above bit 32, CUPTI's 32-bit correlation id
// below. NULL when either part is missing or out of range (a hostile file's text or 2^40).
std::string correlation(const std::string& corr, const std::string& gid) {
  return fmt::format(
      "CASE WHEN {0} BETWEEN 0 AND 4294967295 AND {0} = CAST({0} AS INTEGER) AND {1} <= 9223372036854775807 "
      "THEN ((({1} >> 24) & 16777215) << 32) | {0} END",
      corr, gid);
}

// The columns every GPU activity source shares (rocpd_ops, rocpd_kernels, rocpd_copies).
struct OpColumns {
  int pid, gpu, queue, stream, start, end, duration, corr, op_id, graph;
};

void op_columns(SourceBuilder& b, const char* a, const OpColumns& c) {
  const std::string x = a;
  b.src().rowid = x + ".rowid";
  b.col(c.pid, pid_of(x + ".globalPid"));
  b.col(c.gpu, x + ".deviceId");
  b.col(c.queue, "NULL");  // CUDA exposes streams, not hardware queues
  b.col(c.stream, x + ".streamId");
  b.col(c.start, x + ".start");
  b.col(c.end, x + ".\"end\"");
  b.col(c.duration, duration_sql(a));
  b.col(c.corr, correlation(x + ".correlationId", x + ".globalPid"));
  b.col(c.op_id, x + ".rowid");
  b.col(c.graph, "NULL");
  b.src().indexed = uint64_t{1} << c.op_id;
}

// Kernels: named by their mangled name where nsys recorded one, else by the demangled one.
void kernel_columns(SourceBuilder& b, const Member& m, const OpColumns& c, int name) {
  b.join("mn", fmt::format("LEFT JOIN {} AS mn ON mn.id = k.mangledName", table(m, "StringIds")));
  b.join("dn", fmt::format("LEFT JOIN {} AS dn ON dn.id = k.demangledName", table(m, "StringIds")));
  op_columns(b, "k", c);
  b.col(name, "coalesce(NULLIF(mn.value, ''), dn.value)", {"mn", "dn"});
  b.src().name_key = {"k.mangledName", "k.demangledName"};
  // 0 (or NULL) = not launched from a graph.
  b.col(c.graph, "NULLIF(k.graphId, 0)");
  // Expressions that return a stored value without its column's affinity: compared inside the
  // member, a number stored as text would not match as SQLite matches the returned value.
  b.src().unpushable |= (uint64_t{1} << name) | (uint64_t{1} << c.graph);
}

constexpr OpColumns kOps{kOpsPid, kOpsGpu,    kOpsQueue,         kOpsStream, kOpsStart,
                         kOpsEnd, kOpsDuration, kOpsCorrelationId, kOpsOpId,   kOpsGraphId};

SourceSql kernel_ops(const Member& m) {
  SourceBuilder b(table(m, "CUPTI_ACTIVITY_KIND_KERNEL"), "k", kOpsColumnCount);
  kernel_columns(b, m, kOps, kOpsName);
  // nsys's own demangled name (not ours of the mangled one: docs/formats.md).
  b.col(kOpsDemangled, "dn.value", {"dn"});
  b.col(kOpsKind, "'kernel'");
  b.col(kOpsNode, "0");
  return b.take();
}

// Launch geometry and resources. nsys records the grid in blocks; rocpd_kernels.grid_* holds
// work-items (rocprofv3's convention): gridX * blockX. Shared memory (static + dynamic) is the LDS,
// local memory per thread the scratch per work-item, registers per thread the vgpr count.
SourceSql kernel_details(const Member& m) {
  SourceBuilder b(table(m, "CUPTI_ACTIVITY_KIND_KERNEL"), "k", kKernColumnCount);
  kernel_columns(b, m,
                 {kKernPid, kKernGpu, kKernQueue, kKernStream, kKernStart, kKernEnd, kKernDuration, kKernCorrelationId,
                  kKernOpId, kKernGraphId},
                 kKernName);
  const char* dims[3][2] = {{"gridX", "blockX"}, {"gridY", "blockY"}, {"gridZ", "blockZ"}};
  for (int i = 0; i < 3; ++i) {
    b.col(kKernGridX + i, fmt::format("k.{} * k.{}", dims[i][0], dims[i][1]));
    b.col(kKernWorkgroupX + i, fmt::format("k.{}", dims[i][1]));
  }
  b.col(kKernLdsBytes, "k.staticSharedMemory + k.dynamicSharedMemory");
  b.col(kKernScratchBytes, "k.localMemoryPerThread");
  b.col(kKernSgpr, "NULL");
  b.col(kKernVgpr, "k.registersPerThread");
  b.col(kKernAgpr, "NULL");
  return b.take();
}

// Copies are named as rpd names its copy ops (so summaries agree across formats); the kinds rpd
// has no name for as nsys stats names them ('[CUDA memcpy Array-to-Device]').
void copy_name(SourceBuilder& b, const Member& m, int name) {
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

SourceSql copy_ops(const Member& m) {
  SourceBuilder b(table(m, "CUPTI_ACTIVITY_KIND_MEMCPY"), "m", kOpsColumnCount);
  op_columns(b, "m", kOps);
  copy_name(b, m, kOpsName);
  b.col(kOpsKind, "'copy'");
  b.col(kOpsNode, "0");
  return b.take();
}

// The device at each end of a copy, from its kind (CUpti_ActivityMemcpyKind: arrays are device
// memory): the recorded source or destination device, else the device that ran it.
SourceSql copy_details(const Member& m) {
  SourceBuilder b(table(m, "CUPTI_ACTIVITY_KIND_MEMCPY"), "m", kCopyColumnCount);
  op_columns(b, "m",
             {kCopyPid, kCopyGpu, kCopyQueue, kCopyStream, kCopyStart, kCopyEnd, kCopyDuration, kCopyCorrelationId,
              kCopyOpId, kCopyGraphId});
  copy_name(b, m, kCopyName);
  b.col(kCopyBytes, "m.bytes");
  b.col(kCopySrcGpu,
        "CASE WHEN m.copyKind IN (2, 4, 5, 6, 7, 8, 10, 12, 13) THEN coalesce(m.srcDeviceId, m.deviceId) END");
  b.col(kCopyDstGpu,
        "CASE WHEN m.copyKind IN (1, 3, 5, 6, 7, 8, 10, 11, 13) THEN coalesce(m.dstDeviceId, m.deviceId) END");
  b.src().unpushable |= (uint64_t{1} << kCopySrcGpu) | (uint64_t{1} << kCopyDstGpu);  // as kernel names
  return b.take();
}

SourceSql memset_ops(const Member& m) {
  SourceBuilder b(table(m, "CUPTI_ACTIVITY_KIND_MEMSET"), "f", kOpsColumnCount);
  op_columns(b, "f", kOps);
  b.col(kOpsName, "'FillBuffer'");  // rpd's name of a fill op
  b.col(kOpsKind, "'fill'");
  b.col(kOpsNode, "0");
  return b.take();
}

// CUDA runtime and driver calls. Names as nsys stats shows them: a six-character version suffix
// ('_v7000', '_v3020') is cut, longer ones ('_v11060') stay, exactly as its reports do.
SourceSql runtime_calls(const Member& m) {
  const NsysDetails& d = details(m);
  SourceBuilder b(table(m, "CUPTI_ACTIVITY_KIND_RUNTIME"), "r", kApisColumnCount);
  b.src().rowid = "r.rowid";
  b.join("s", fmt::format("LEFT JOIN {} AS s ON s.id = r.nameId", table(m, "StringIds")));
  std::string other = "NULL";
  uint32_t other_joins = 0;
  if (d.event_classes) {
    b.join("ec", fmt::format("LEFT JOIN {} AS ec ON ec.id = r.eventClass", table(m, "ENUM_NSYS_EVENT_CLASS")));
    other = "lower(replace(ec.name, 'TRACE_PROCESS_EVENT_', ''))";
    other_joins = b.mask({"ec"});
    b.col(kApisCategory, "ec.label", {"ec"});
  } else {
    b.col(kApisCategory, "NULL");
  }
  b.col(kApisDomain, "CASE r.eventClass WHEN 0 THEN 'cuda' WHEN 1 THEN 'cuda_driver' ELSE " + other + " END",
        other_joins);
  b.src().predicate_column = kApisDomain;
  b.src().predicates = {{"cuda", "r.eventClass = 0"}, {"cuda_driver", "r.eventClass = 1"}, {"marker", "0"}};
  b.col(kApisPid, pid_of("r.globalTid"));
  b.col(kApisTid, tid_of("r.globalTid"));
  b.col(kApisName,
        "CASE substr(s.value, -6, 2) WHEN '_v' THEN substr(s.value, 1, length(s.value) - 6) ELSE s.value END", {"s"});
  b.src().unpushable |= uint64_t{1} << kApisName;  // as kernel names
  b.col(kApisArgs, "NULL");
  b.col(kApisStart, "r.start");
  b.col(kApisEnd, "r.\"end\"");
  b.col(kApisDuration, duration_sql("r"));
  b.col(kApisCorrelationId, correlation("r.correlationId", "r.globalTid"));
  b.col(kApisApiId, "r.rowid");
  b.col(kApisNode, "0");
  b.src().indexed = uint64_t{1} << kApisApiId;
  return b.take();
}

// NVTX push/pop (59) and start/end (60) ranges, or (`marks`) marks (34): a mark is an instant, its
// end is its start. The other NVTX rows (domain and category registrations) are no calls. Two
// sources, so that both ends stay plain columns (an expression choosing between them would compare
// without the columns' affinity inside the member: time constraints could not be pushed).
SourceSql nvtx_events(const Member& m, bool marks) {
  SourceBuilder b(table(m, "NVTX_EVENTS"), "n", kApisColumnCount);
  b.src().rowid = "n.rowid";
  b.src().where = marks ? "n.eventType = 34" : "n.eventType IN (59, 60)";
  b.col(kApisPid, pid_of("n.globalTid"));
  b.col(kApisTid, tid_of("n.globalTid"));
  b.col(kApisDomain, "'marker'");
  b.col(kApisCategory, marks ? "'NvtxMark'" : "CASE n.eventType WHEN 59 THEN 'NvtxPushPopRange' ELSE 'NvtxStartEndRange' END");
  if (details(m).strings) {
    b.join("t", fmt::format("LEFT JOIN {} AS t ON t.id = n.textId", table(m, "StringIds")));
    b.col(kApisName, "coalesce(n.text, t.value)", {"t"});
    b.src().unpushable |= uint64_t{1} << kApisName;
  } else {
    b.col(kApisName, "n.text");
  }
  b.col(kApisArgs, "NULL");
  b.col(kApisStart, "n.start");
  b.col(kApisEnd, marks ? "n.start" : "n.\"end\"");
  b.col(kApisDuration, marks ? "max(n.start - n.start, 0)" : duration_sql("n"));
  b.col(kApisCorrelationId, "NULL");
  b.col(kApisApiId, "n.rowid");
  b.col(kApisNode, "0");
  b.src().indexed = uint64_t{1} << kApisApiId;
  return b.take();
}

// The one export schema verified against a real file (docs/formats.md): 3.25, any micro revision
// (nsys's notes: micro revisions only add tables and columns).
constexpr int kMajor = 3, kMinor = 25;

struct Version {
  int major = -1, minor = -1, micro = -1;
};

Version parse_version(const std::string& text) {
  Version v;
  int* parts[3] = {&v.major, &v.minor, &v.micro};
  const char* p = text.c_str();
  for (int i = 0; i < 3; ++i) {
    if (*p < '0' || *p > '9') return {};
    char* end = nullptr;
    const long n = std::strtol(p, &end, 10);
    if (n > 1000000) return {};
    *parts[i] = static_cast<int>(n);
    p = end;
    if (i < 2) {
      if (*p != '.') return {};
      ++p;
    }
  }
  return *p == '\0' ? v : Version{};
}

std::string export_version(sqlite3* db, const std::string& schema, const std::string& label) {
  check_tables(db, schema, label, {{"META_DATA_EXPORT", {{"name", 't'}, {"value", 't'}}, nullptr}});
  auto stmt = prepare(db, fmt::format("SELECT value FROM {}.META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION' "
                                      "ORDER BY rowid LIMIT 1",
                                      quote_id(schema)));
  if (!step(stmt.get()) || sqlite3_column_type(stmt.get(), 0) == SQLITE_NULL)
    throw Error(fmt::format("{}: nsys export without EXPORT_SCHEMA_VERSION in META_DATA_EXPORT (cannot tell its "
                            "schema version)",
                            label));
  return std::string(column_text(stmt.get(), 0));
}

// Two processes of one report that share a pid would share correlation ids: refused by name.
// PROCESSES (when the report has it) lists every process with its full GlobalId.
void check_pids(sqlite3* db, const std::string& schema, const std::string& label) {
  check_tables(db, schema, label, {{"PROCESSES", {{"globalPid", 'n'}}, nullptr}});
  auto stmt = prepare(db, fmt::format("SELECT p, min(g), max(g) FROM (SELECT globalPid AS g, {} AS p FROM "
                                      "{}.PROCESSES WHERE {}) GROUP BY p HAVING min(g) <> max(g) ORDER BY p LIMIT 1",
                                      pid_of("globalPid"), quote_id(schema), fmt::format(kNumber, "globalPid")));
  if (step(stmt.get()))
    throw Error(fmt::format("{}: nsys report holds two processes with pid {} (globalPid {} and {}): their "
                            "correlation ids cannot be told apart",
                            label, sqlite3_column_int64(stmt.get(), 0), sqlite3_column_int64(stmt.get(), 1),
                            sqlite3_column_int64(stmt.get(), 2)));
}

std::string hostname(sqlite3* db, const std::string& schema, const std::string& label) {
  check_tables(db, schema, label, {{"TARGET_INFO_SYSTEM_ENV", {{"name", 't'}, {"value", 't'}}, nullptr}});
  auto stmt = prepare(db, fmt::format("SELECT value FROM {}.TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname' AND "
                                      "value IS NOT NULL ORDER BY rowid LIMIT 1",
                                      quote_id(schema)));
  return step(stmt.get()) ? std::string(column_text(stmt.get(), 0)) : std::string();
}

class NsysAdapter : public FormatAdapter {
 public:
  const char* name() const override { return "nsys"; }

  bool claims(const Catalog& c) const override {
    if (!c.count("META_DATA_EXPORT")) return false;
    for (const char* t : {"StringIds", "NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                          "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_RUNTIME"})
      if (c.count(t)) return true;
    return false;
  }

  FormatInfo probe(sqlite3* db, const std::string& schema, const Catalog& names,
                   const std::string& label) const override {
    FormatInfo info;
    info.version_text = export_version(db, schema, label);
    const Version v = parse_version(info.version_text);
    if (v.major != kMajor || v.minor != kMinor)
      throw Error(fmt::format("{}: unsupported nsys export schema version '{}' (supported: {}.{}.x, written by Nsight "
                              "Systems 2026.2; re-export the report with it)",
                              label, info.version_text, kMajor, kMinor));
    info.schema_version = v.major;
    auto d = std::make_shared<NsysDetails>();
    d->kernels = names.count("CUPTI_ACTIVITY_KIND_KERNEL") > 0;
    d->memcpy = names.count("CUPTI_ACTIVITY_KIND_MEMCPY") > 0;
    d->memset = names.count("CUPTI_ACTIVITY_KIND_MEMSET") > 0;
    d->runtime = names.count("CUPTI_ACTIVITY_KIND_RUNTIME") > 0;
    d->nvtx = names.count("NVTX_EVENTS") > 0;
    d->strings = names.count("StringIds") > 0;
    d->event_classes = names.count("ENUM_NSYS_EVENT_CLASS") > 0;
    d->memcpy_kinds = names.count("ENUM_CUDA_MEMCPY_OPER") > 0;
    // Kernel and call names live in StringIds only.
    for (const auto& [present, what] : {std::pair{d->kernels, "CUPTI_ACTIVITY_KIND_KERNEL"},
                                        std::pair{d->runtime, "CUPTI_ACTIVITY_KIND_RUNTIME"}})
      if (present && !d->strings)
        throw Error(fmt::format("{}: nsys export has table {} but lacks table StringIds (its names)", label, what));
    const std::vector<std::pair<const char*, char>> placement = {
        {"start", 'n'},         {"end", 'n'},       {"deviceId", 'n'}, {"streamId", 'n'},
        {"correlationId", 'n'}, {"globalPid", 'n'}};
    std::vector<TableColumns> tables;
    if (d->strings) tables.push_back({"StringIds", {{"value", 't'}}});
    if (d->event_classes) tables.push_back({"ENUM_NSYS_EVENT_CLASS", {{"name", 't'}, {"label", 't'}}});
    if (d->memcpy_kinds) tables.push_back({"ENUM_CUDA_MEMCPY_OPER", {{"label", 't'}}});
    if (d->kernels) {
      TableColumns t{"CUPTI_ACTIVITY_KIND_KERNEL", placement, nullptr};
      for (const char* c : {"demangledName", "mangledName", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
                            "registersPerThread", "staticSharedMemory", "dynamicSharedMemory", "localMemoryPerThread",
                            "graphId"})
        t.columns.emplace_back(c, 'n');
      tables.push_back(std::move(t));
    }
    if (d->memcpy) {
      TableColumns t{"CUPTI_ACTIVITY_KIND_MEMCPY", placement, nullptr};
      for (const char* c : {"bytes", "copyKind", "srcDeviceId", "dstDeviceId"}) t.columns.emplace_back(c, 'n');
      tables.push_back(std::move(t));
    }
    if (d->memset) {
      TableColumns t{"CUPTI_ACTIVITY_KIND_MEMSET", placement, nullptr};
      t.columns.emplace_back("bytes", 'n');
      tables.push_back(std::move(t));
    }
    if (d->runtime)
      tables.push_back({"CUPTI_ACTIVITY_KIND_RUNTIME",
                        {{"start", 'n'},
                         {"end", 'n'},
                         {"eventClass", 'n'},
                         {"globalTid", 'n'},
                         {"correlationId", 'n'},
                         {"nameId", 'n'}},
                        nullptr});
    if (d->nvtx)
      tables.push_back({"NVTX_EVENTS",
                        {{"start", 'n'}, {"end", 'n'}, {"eventType", 'n'}, {"text", 't'}, {"globalTid", 'n'},
                         {"textId", 'n'}},
                        nullptr});
    info.loose_types = !check_tables(db, schema, label, tables);
    if (names.count("PROCESSES")) check_pids(db, schema, label);
    if (names.count("TARGET_INFO_SYSTEM_ENV")) info.hostname = hostname(db, schema, label);
    info.details = std::move(d);
    return info;
  }

  std::vector<SourceSql> sources(TableKind table, const Member& m, const Profile*, sqlite3*) const override {
    const NsysDetails& d = details(m);
    std::vector<SourceSql> out;
    switch (table) {
      case TableKind::Ops:
        if (d.kernels) out.push_back(kernel_ops(m));
        if (d.memcpy) out.push_back(copy_ops(m));
        if (d.memset) out.push_back(memset_ops(m));
        break;
      case TableKind::Apis:
        if (d.runtime) out.push_back(runtime_calls(m));
        if (d.nvtx) {
          out.push_back(nvtx_events(m, false));
          out.push_back(nvtx_events(m, true));
        }
        break;
      case TableKind::Kernels:
        if (d.kernels) out.push_back(kernel_details(m));
        break;
      case TableKind::Copies:
        if (d.memcpy) out.push_back(copy_details(m));
        break;
      case TableKind::Memory:     // CUDA memory usage events are not read (docs/formats.md)
      case TableKind::Counters:   // nsys exports no per-kernel counters
      case TableKind::HipEvents:  // CUDA events are API calls here
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

}  // namespace rocpd::federation
