// rocprofv3's rocpd files, schema 3 and 3.0.0 .. 3.0.5 (schema/rocpd_v3.sql, rocpd_v3_0_5.sql) and
// 4.x (schema/rocpd_v4.sql): every table named rocpd_<name>_<uuid>, one process per file, or
// several in a file written by `rocpd merge` (schema/rocpd_merged.md: each process's suffixed
// tables are its sources, the union views are never read). Kernel dispatches and memory copies are
// the ops, regions (and the instant marks kept as samples on marker tracks) the API calls; the
// details tables read the dispatch geometry, allocations, per-dispatch counters and HIP events
// where the version has them. 4.x keeps the same rows but moves who/where (pid, tid, agent,
// queue, stream) onto rocpd_track and categories into rocpd_info_category: `Placement` and
// `Category` below are the only places the two majors differ.
#include <fmt/format.h>

#include <map>
#include <set>

#include "formats/rocpd.h"
#include "formats/probe_util.h"

namespace rocpd::formats {

namespace {

const RocpdDetails& details(const canonical::Member& m) { return static_cast<const RocpdDetails&>(*m.info.details); }

std::string table(const canonical::Member& m, const RocpdProcess& p, const char* name) {
  return quote_id(m.schema) + "." + quote_id(name + p.suffix);
}

// The GPU number of an agent row: its index among the GPUs (NULL for CPUs and NICs).
std::string gpu_of(const char* agent) { return fmt::format("CASE WHEN {0}.type = 'GPU' THEN {0}.type_index END", agent); }

// Where an event's process, thread, agent, queue and stream are: columns of its own row `row`
// (3.x), or of the rocpd_track row it references (4.x), joined as `track` after the joins `deps`
// that `row` itself needs.
class Placement {
 public:
  Placement(canonical::SourceBuilder& b, const canonical::Member& m, const RocpdProcess& p, std::string row, const char* track = "wt",
            uint32_t deps = 0)
      : b_(b), m_(m), p_(p), row_(std::move(row)), track_(track), deps_(deps) {
    if (p.major < 4) return;
    b.join(track, fmt::format("LEFT JOIN {} AS {} ON {}.id = {}.track_id", table(m, p, "rocpd_track"), track, track, row_),
           deps);
    deps_ |= b.mask({track});
  }
  std::string expr(const char* column) const {
    return fmt::format("{}.{}", p_.major < 4 ? row_ : std::string(track_), column);
  }
  uint32_t joins() const { return deps_; }
  void col(int c, const char* column) const { b_.col(c, expr(column), deps_); }
  // Joins `info_table` as `alias` on its id = this event's `column` (agent_id, tid...).
  void join(const char* alias, const char* info_table, const char* column) const {
    b_.join(alias, fmt::format("LEFT JOIN {} AS {} ON {}.id = {}", table(m_, p_, info_table), alias, alias, expr(column)),
            deps_);
  }

 private:
  canonical::SourceBuilder& b_;
  const canonical::Member& m_;
  const RocpdProcess& p_;
  std::string row_;
  const char* track_;
  uint32_t deps_;
};

// An event's category, joined as `ct` after the event `e`: a rocpd_string (3.x) or a
// rocpd_info_category row (4.x). `inner`: only events with a category belong to the source.
struct Category {
  std::string name;  // SQL of the category's name
  Category(canonical::SourceBuilder& b, const canonical::Member& m, const RocpdProcess& p, bool inner = false)
      : name(p.major < 4 ? "ct.string" : "ct.name") {
    b.join("ct",
           fmt::format("{} {} AS ct ON ct.id = e.category_id", inner ? "JOIN" : "LEFT JOIN",
                       table(m, p, p.major < 4 ? "rocpd_string" : "rocpd_info_category")),
           {"e"});
  }
  // API domain from the category. rocprofv3 3.x names categories after the SDK's buffer kinds
  // (HIP_RUNTIME_API_EXT, HSA_CORE_API, MARKER_CORE_RANGE_API, RCCL_API...), 4.x after perfetto's
  // (hip_api, hsa_api, marker_api, rccl_api, rocdecode_api, openmp...), rocprofiler-systems after
  // its own (rocm_hip_api, rocm_marker_api, ...; host-side ones such as python or mpi). LIKE is
  // case-insensitive on the member connection.
  std::string domain() const {
    return fmt::format(
        "CASE WHEN {0} LIKE 'HIP%' OR {0} LIKE 'rocm\\_hip%' ESCAPE '\\' THEN 'hip' "
        "WHEN {0} LIKE 'HSA%' OR {0} LIKE 'rocm\\_hsa%' ESCAPE '\\' THEN 'hsa' "
        "WHEN {1} THEN 'marker' "
        "WHEN {0} LIKE 'RCCL%' OR {0} LIKE 'rocm\\_rccl%' ESCAPE '\\' THEN 'rccl' "
        "WHEN {0} LIKE 'rocm\\_%' ESCAPE '\\' THEN lower(substr({0}, 6)) "
        "WHEN {0} LIKE '%\\_api' ESCAPE '\\' THEN lower(substr({0}, 1, length({0}) - 4)) "
        "ELSE lower({0}) END",
        name, is_marker());
  }
  std::string is_marker() const {
    return fmt::format("({0} LIKE 'MARKER%' OR {0} LIKE 'rocm\\_marker%' ESCAPE '\\')", name);
  }
};

// rocprofv3 keeps the internal correlation id (the one linking an API call to the dispatch or
// copy it issued) in rocpd_event.stack_id; rocpd_event.correlation_id holds the external id
// (a user-supplied value, usually 0).
void dispatch_columns(canonical::SourceBuilder& b, const canonical::Member& m, const RocpdProcess& p, int pid, int gpu, int queue,
                      int stream, int name, int start, int end, int duration, int corr, int op_id, int graph) {
  const Placement at(b, m, p, "k");
  at.join("a", "rocpd_info_agent", "agent_id");
  b.join("ks", fmt::format("LEFT JOIN {} AS ks ON ks.id = k.kernel_id", table(m, p, "rocpd_info_kernel_symbol")));
  b.join("e", fmt::format("LEFT JOIN {} AS e ON e.id = k.event_id", table(m, p, "rocpd_event")));
  at.col(pid, "pid");
  b.col(gpu, "a.type_index", {"a"});
  at.col(queue, "queue_id");
  at.col(stream, "stream_id");
  b.col(name, "ks.kernel_name", {"ks"});
  b.src().name_key = {"k.kernel_id"};
  b.col(start, "k.start");
  b.col(end, "k.\"end\"");
  b.col(duration, canonical::duration_sql("k"));
  b.col(corr, "e.stack_id", {"e"});
  b.col(op_id, "k.id");
  // 0 = not launched from a graph (3.0.2+); files before 3.0.2 know no graphs.
  b.col(graph, p.has_graph_ids ? "NULLIF(k.graph_exec_id, 0)" : "NULL");
  b.src().indexed = uint64_t{1} << op_id;
}

canonical::SourceSql kernels(const canonical::Member& m, const RocpdProcess& p) {
  canonical::SourceBuilder b(table(m, p, "rocpd_kernel_dispatch"), "k", canonical::kOpsColumnCount);
  dispatch_columns(b, m, p, canonical::kOpsPid, canonical::kOpsGpu, canonical::kOpsQueue, canonical::kOpsStream, canonical::kOpsName, canonical::kOpsStart, canonical::kOpsEnd, canonical::kOpsDuration,
                   canonical::kOpsCorrelationId, canonical::kOpsOpId, canonical::kOpsGraphId);
  b.col(canonical::kOpsKind, "'kernel'");
  b.col(canonical::kOpsNode, "0");
  return b.take();
}

// Launch geometry and resources (rocpd_kernels). rocprofv3 records the dispatch packet: grid in
// work-items, LDS = group segment (static + dynamic), scratch = private segment per work-item.
canonical::SourceSql kernel_details(const canonical::Member& m, const RocpdProcess& p) {
  canonical::SourceBuilder b(table(m, p, "rocpd_kernel_dispatch"), "k", canonical::kKernColumnCount);
  dispatch_columns(b, m, p, canonical::kKernPid, canonical::kKernGpu, canonical::kKernQueue, canonical::kKernStream, canonical::kKernName, canonical::kKernStart, canonical::kKernEnd,
                   canonical::kKernDuration, canonical::kKernCorrelationId, canonical::kKernOpId, canonical::kKernGraphId);
  b.col(canonical::kKernGridX, "k.grid_size_x");
  b.col(canonical::kKernGridY, "k.grid_size_y");
  b.col(canonical::kKernGridZ, "k.grid_size_z");
  b.col(canonical::kKernWorkgroupX, "k.workgroup_size_x");
  b.col(canonical::kKernWorkgroupY, "k.workgroup_size_y");
  b.col(canonical::kKernWorkgroupZ, "k.workgroup_size_z");
  if (p.has_dispatch_segments) {
    b.col(canonical::kKernLdsBytes, "k.group_segment_size");
    b.col(canonical::kKernScratchBytes, "k.private_segment_size");
  } else {
    b.col(canonical::kKernLdsBytes, "NULL");
    b.col(canonical::kKernScratchBytes, "NULL");
  }
  if (p.has_symbol_registers) {
    b.col(canonical::kKernSgpr, "ks.sgpr_count", {"ks"});
    b.col(canonical::kKernVgpr, "ks.arch_vgpr_count", {"ks"});
    b.col(canonical::kKernAgpr, "ks.accum_vgpr_count", {"ks"});
  } else {
    b.col(canonical::kKernSgpr, "NULL");
    b.col(canonical::kKernVgpr, "NULL");
    b.col(canonical::kKernAgpr, "NULL");
  }
  return b.take();
}

// rocprofv3 copy names spelled as rpd op types, so summaries agree across formats.
constexpr const char* kCopyNameSql =
    "CASE n.string WHEN 'MEMORY_COPY_HOST_TO_DEVICE' THEN 'CopyHostToDevice' "
    "WHEN 'MEMORY_COPY_DEVICE_TO_HOST' THEN 'CopyDeviceToHost' "
    "WHEN 'MEMORY_COPY_DEVICE_TO_DEVICE' THEN 'CopyDeviceToDevice' "
    "WHEN 'MEMORY_COPY_HOST_TO_HOST' THEN 'CopyHostToHost' "
    "WHEN 'MEMORY_COPY_PEER_TO_PEER' THEN 'CopyPeerToPeer' ELSE n.string END";

void copy_columns(canonical::SourceBuilder& b, const canonical::Member& m, const RocpdProcess& p, int pid, int gpu, int queue, int stream,
                  int name, int start, int end, int duration, int corr, int op_id, int graph) {
  b.join("n", fmt::format("LEFT JOIN {} AS n ON n.id = c.name_id", table(m, p, "rocpd_string")));
  b.join("da", fmt::format("LEFT JOIN {} AS da ON da.id = c.dst_agent_id", table(m, p, "rocpd_info_agent")));
  b.join("sa", fmt::format("LEFT JOIN {} AS sa ON sa.id = c.src_agent_id", table(m, p, "rocpd_info_agent")));
  b.join("e", fmt::format("LEFT JOIN {} AS e ON e.id = c.event_id", table(m, p, "rocpd_event")));
  const Placement at(b, m, p, "c");
  at.col(pid, "pid");
  // The GPU a copy occupies: the destination GPU, else the source GPU (device-to-host).
  b.col(gpu, fmt::format("COALESCE({}, {})", gpu_of("da"), gpu_of("sa")), {"da", "sa"});
  at.col(queue, "queue_id");
  at.col(stream, "stream_id");
  b.col(name, kCopyNameSql, {"n"});
  b.src().name_key = {"c.name_id"};
  b.col(start, "c.start");
  b.col(end, "c.\"end\"");
  b.col(duration, canonical::duration_sql("c"));
  b.col(corr, "e.stack_id", {"e"});
  b.col(op_id, "c.id");
  b.col(graph, p.has_graph_ids ? "NULLIF(c.graph_exec_id, 0)" : "NULL");
  b.src().indexed = uint64_t{1} << op_id;
}

canonical::SourceSql copies(const canonical::Member& m, const RocpdProcess& p) {
  canonical::SourceBuilder b(table(m, p, "rocpd_memory_copy"), "c", canonical::kOpsColumnCount);
  copy_columns(b, m, p, canonical::kOpsPid, canonical::kOpsGpu, canonical::kOpsQueue, canonical::kOpsStream, canonical::kOpsName, canonical::kOpsStart, canonical::kOpsEnd, canonical::kOpsDuration,
               canonical::kOpsCorrelationId, canonical::kOpsOpId, canonical::kOpsGraphId);
  b.col(canonical::kOpsKind, "'copy'");
  b.col(canonical::kOpsNode, "0");
  return b.take();
}

canonical::SourceSql copy_details(const canonical::Member& m, const RocpdProcess& p) {
  canonical::SourceBuilder b(table(m, p, "rocpd_memory_copy"), "c", canonical::kCopyColumnCount);
  copy_columns(b, m, p, canonical::kCopyPid, canonical::kCopyGpu, canonical::kCopyQueue, canonical::kCopyStream, canonical::kCopyName, canonical::kCopyStart, canonical::kCopyEnd, canonical::kCopyDuration,
               canonical::kCopyCorrelationId, canonical::kCopyOpId, canonical::kCopyGraphId);
  b.col(canonical::kCopyBytes, "c.size");
  b.col(canonical::kCopySrcGpu, gpu_of("sa"), {"sa"});
  b.col(canonical::kCopyDstGpu, gpu_of("da"), {"da"});
  return b.take();
}

// A roctx range is named after the roctx call (roctxThreadRangeA / roctxProcessRangeA); the user's
// message is in its event's extdata, which upstream's own views show as the name. CAST: a message
// written as a JSON number reads as the text a TEXT column would store.
constexpr const char* kMarkerName = "CAST(json_extract(e.extdata, '$.message') AS TEXT)";

canonical::SourceSql regions(const canonical::Member& m, const RocpdProcess& p) {
  canonical::SourceBuilder b(table(m, p, "rocpd_region"), "r", canonical::kApisColumnCount);
  b.join("n", fmt::format("LEFT JOIN {} AS n ON n.id = r.name_id", table(m, p, "rocpd_string")));
  b.join("e", fmt::format("LEFT JOIN {} AS e ON e.id = r.event_id", table(m, p, "rocpd_event")));
  const Category cat(b, m, p);
  const Placement at(b, m, p, "r");
  at.col(canonical::kApisPid, "pid");
  if (!p.rocprofsys) at.col(canonical::kApisTid, "tid");
  b.col(canonical::kApisDomain, cat.domain(), {"e", "ct"});
  b.col(canonical::kApisCategory, cat.name, {"e", "ct"});
  if (p.rocprofsys) {
    // rocprofiler-systems: the message is the call's 'message' argument (the first, by id).
    b.join("am", fmt::format("LEFT JOIN (SELECT event_id, value, min(id) FROM {} WHERE name = 'message' "
                             "GROUP BY event_id) AS am ON am.event_id = r.event_id",
                             table(m, p, "rocpd_arg")));
    b.join("th", fmt::format("LEFT JOIN {} AS th ON th.id = r.tid", table(m, p, "rocpd_info_thread")));
    b.col(canonical::kApisTid, "th.tid", {"th"});
    b.col(canonical::kApisName,
          fmt::format("CASE WHEN {} THEN COALESCE({}, CAST(am.value AS TEXT), n.string) ELSE n.string END",
                      cat.is_marker(), kMarkerName),
          {"n", "e", "ct", "am"});
  } else {
    b.col(canonical::kApisName,
          fmt::format("CASE WHEN {} THEN COALESCE({}, n.string) ELSE n.string END", cat.is_marker(), kMarkerName),
          {"n", "e", "ct"});
  }
  // rocprofv3 keeps arguments as rows of rocpd_arg; use rocpd_union('rocpd_arg') to read them.
  b.col(canonical::kApisArgs, "NULL");
  b.col(canonical::kApisStart, "r.start");
  b.col(canonical::kApisEnd, "r.\"end\"");
  b.col(canonical::kApisDuration, canonical::duration_sql("r"));
  b.col(canonical::kApisCorrelationId, "e.stack_id", {"e"});
  b.col(canonical::kApisApiId, "r.id");
  b.col(canonical::kApisNode, "0");
  b.src().indexed = uint64_t{1} << canonical::kApisApiId;
  return b.take();
}

// Instant roctx marks: rocprofv3 writes them as samples on a track (its `sample_regions` view),
// the message in the event's extdata, else the sample's name (4.x) or the track's (3.x). SPM
// samples (3.0.3) sit on the 'SPM' track with dispatch events: the category keeps them out.
canonical::SourceSql marks(const canonical::Member& m, const RocpdProcess& p) {
  canonical::SourceBuilder b(table(m, p, "rocpd_sample"), "sm", canonical::kApisColumnCount);
  // Only the event and its category decide which samples are marks (the source's WHERE, always
  // joined); every other join is LEFT, so the rows never depend on the columns selected.
  b.join("tr", fmt::format("LEFT JOIN {} AS tr ON tr.id = sm.track_id", table(m, p, "rocpd_track")));
  b.join("e", fmt::format("JOIN {} AS e ON e.id = sm.event_id", table(m, p, "rocpd_event")));
  const Category cat(b, m, p, true);
  if (p.major < 4)
    b.join("tn", fmt::format("LEFT JOIN {} AS tn ON tn.id = tr.name_id", table(m, p, "rocpd_string")), {"tr"});
  else
    b.join("tn", fmt::format("LEFT JOIN {} AS tn ON tn.id = sm.name_id", table(m, p, "rocpd_string")));
  // The adapter's own marker test: rocprofv3's MARKER_* and marker_api, rocprofiler-systems'
  // rocm_marker_api (once LIKE 'MARKER%', which dropped the latter's marks).
  b.src().where = cat.is_marker();
  b.src().where_joins = b.mask({"e", "ct"});
  b.col(canonical::kApisPid, "tr.pid", {"tr"});
  b.col(canonical::kApisDomain, "'marker'");
  b.col(canonical::kApisCategory, cat.name, {"e", "ct"});
  if (p.rocprofsys) {
    // rocprofiler-systems: a track's tid is a thread row, the message the event's 'message' argument.
    b.join("th", fmt::format("LEFT JOIN {} AS th ON th.id = tr.tid", table(m, p, "rocpd_info_thread")), {"tr"});
    b.join("am", fmt::format("LEFT JOIN (SELECT event_id, value, min(id) FROM {} WHERE name = 'message' "
                             "GROUP BY event_id) AS am ON am.event_id = sm.event_id",
                             table(m, p, "rocpd_arg")));
    b.col(canonical::kApisTid, "th.tid", {"tr", "th"});
    b.col(canonical::kApisName, fmt::format("COALESCE({}, CAST(am.value AS TEXT), tn.string)", kMarkerName),
          {"e", "tr", "tn", "am"});
  } else {
    b.col(canonical::kApisTid, "tr.tid", {"tr"});
    b.col(canonical::kApisName, fmt::format("COALESCE({}, tn.string)", kMarkerName), {"e", "tr", "tn"});
  }
  b.col(canonical::kApisArgs, "NULL");
  b.col(canonical::kApisStart, "sm.timestamp");
  b.col(canonical::kApisEnd, "sm.timestamp");
  b.col(canonical::kApisDuration, "0");
  b.col(canonical::kApisCorrelationId, "e.stack_id", {"e"});
  b.col(canonical::kApisApiId, "sm.id");
  b.col(canonical::kApisNode, "0");
  b.src().indexed = uint64_t{1} << canonical::kApisApiId;
  return b.take();
}

// Allocations, frees and scratch reservations (rocpd_memory_allocate).
canonical::SourceSql memory(const canonical::Member& m, const RocpdProcess& p) {
  canonical::SourceBuilder b(table(m, p, "rocpd_memory_allocate"), "ma", canonical::kMemColumnCount);
  const Placement at(b, m, p, "ma");
  at.join("a", "rocpd_info_agent", "agent_id");
  b.join("e", fmt::format("LEFT JOIN {} AS e ON e.id = ma.event_id", table(m, p, "rocpd_event")));
  at.col(canonical::kMemPid, "pid");
  if (p.rocprofsys) {
    at.join("th", "rocpd_info_thread", "tid");
    b.col(canonical::kMemTid, "th.tid", {"th"});
  } else {
    at.col(canonical::kMemTid, "tid");
  }
  b.col(canonical::kMemGpu, gpu_of("a"), {"a"});
  b.col(canonical::kMemOperation, "ma.type");
  b.col(canonical::kMemLevel, "ma.level");
  b.col(canonical::kMemAddress, "ma.address");
  b.col(canonical::kMemBytes, "ma.size");
  b.col(canonical::kMemStart, "ma.start");
  b.col(canonical::kMemEnd, "ma.\"end\"");
  b.col(canonical::kMemCorrelationId, "e.stack_id", {"e"});
  b.col(canonical::kMemId, "ma.id");
  b.src().indexed = uint64_t{1} << canonical::kMemId;
  return b.take();
}

// Per-dispatch counter values: one row per value rocprofv3 stored (a dimensioned counter has
// several per dispatch: sum them). SPM rows (3.0.3+, with a sample_id) are not per dispatch.
canonical::SourceSql counters(const canonical::Member& m, const RocpdProcess& p) {
  canonical::SourceBuilder b(table(m, p, "rocpd_pmc_event"), "pe", canonical::kCntColumnCount);
  b.join("pm", fmt::format("LEFT JOIN {} AS pm ON pm.id = pe.pmc_id", table(m, p, "rocpd_info_pmc")));
  // The dispatch of the value's event; event ids are not declared unique in the dispatch table,
  // so the first dispatch per event stands (a row never repeats).
  b.join("ke", fmt::format("LEFT JOIN (SELECT event_id, min(id) AS id FROM {} GROUP BY event_id) AS ke "
                           "ON ke.event_id = pe.event_id",
                           table(m, p, "rocpd_kernel_dispatch")));
  b.join("k", fmt::format("LEFT JOIN {} AS k ON k.id = ke.id", table(m, p, "rocpd_kernel_dispatch")), {"ke"});
  const Placement at(b, m, p, "k", "kt", b.mask({"ke", "k"}));
  at.join("a", "rocpd_info_agent", "agent_id");
  b.join("ks", fmt::format("LEFT JOIN {} AS ks ON ks.id = k.kernel_id", table(m, p, "rocpd_info_kernel_symbol")),
         {"ke", "k"});
  b.join("e", fmt::format("LEFT JOIN {} AS e ON e.id = pe.event_id", table(m, p, "rocpd_event")));
  if (p.has_spm) b.src().where = "pe.sample_id IS NULL";
  at.col(canonical::kCntPid, "pid");
  b.col(canonical::kCntGpu, "a.type_index", {"ke", "k", "a"});
  b.col(canonical::kCntOpId, "k.id", {"ke", "k"});
  b.col(canonical::kCntCorrelationId, "e.stack_id", {"e"});
  b.col(canonical::kCntName, "ks.kernel_name", {"ke", "k", "ks"});
  b.col(canonical::kCntCounter, "pm.name", {"pm"});
  b.col(canonical::kCntValue, "pe.value");
  b.col(canonical::kCntUnits, "pm.units", {"pm"});
  b.col(canonical::kCntStart, "k.start", {"ke", "k"});
  b.col(canonical::kCntEnd, "k.\"end\"", {"ke", "k"});
  b.col(canonical::kCntId, "pe.id");
  b.src().indexed = uint64_t{1} << canonical::kCntId;
  return b.take();
}

// HIP event records and waits (3.0.4+): barrier packets on a queue, not GPU work.
canonical::SourceSql hip_events(const canonical::Member& m, const RocpdProcess& p) {
  canonical::SourceBuilder b(table(m, p, "rocpd_hip_event"), "h", canonical::kHevColumnCount);
  b.join("n", fmt::format("LEFT JOIN {} AS n ON n.id = h.name_id", table(m, p, "rocpd_string")));
  b.join("a", fmt::format("LEFT JOIN {} AS a ON a.id = h.agent_id", table(m, p, "rocpd_info_agent")));
  b.join("e", fmt::format("LEFT JOIN {} AS e ON e.id = h.event_id", table(m, p, "rocpd_event")));
  b.col(canonical::kHevPid, "h.pid");
  b.col(canonical::kHevGpu, gpu_of("a"), {"a"});
  b.col(canonical::kHevQueue, "h.queue_id");
  b.col(canonical::kHevKind,
        "CASE WHEN n.string LIKE '%RECORD%' THEN 'record' WHEN n.string LIKE '%WAIT%' THEN 'wait' END", {"n"});
  b.col(canonical::kHevName, "n.string", {"n"});
  b.col(canonical::kHevStart, "h.start");
  b.col(canonical::kHevEnd, "h.\"end\"");
  b.col(canonical::kHevCorrelationId, "e.stack_id", {"e"});
  b.col(canonical::kHevId, "h.id");
  b.src().indexed = uint64_t{1} << canonical::kHevId;
  return b.take();
}

std::vector<std::string> metadata_tables(const Catalog& c) {
  std::vector<std::string> out;
  for (const auto& n : c)
    if (n.size() > 15 && n.compare(0, 15, "rocpd_metadata_") == 0) out.push_back(n);
  return out;
}

// One process's tables: probed like a single-process file (its own version, its optional columns).
RocpdProcess probe_process(sqlite3* db, const std::string& schema, const Catalog& names, const std::string& meta_table,
                           const std::string& label) {
  RocpdProcess p;
  p.suffix = meta_table.substr(std::string("rocpd_metadata").size());
  const std::string meta = quote_id(schema) + "." + quote_id(meta_table);
  MetadataTable tags(db, meta);
  auto version = tags.value("schema_version");
  if (!version) throw Error(fmt::format("{}: table {} has no schema_version", label, meta_table));
  p.version = *version;
  p.major = major_version(*version);
  if (p.major != 3 && p.major != 4)
    throw Error(fmt::format("{}: unsupported rocpd schema_version '{}' in {} (supported: 3, 3.0.0 .. 3.0.5, 4.x)",
                            label, *version, meta_table));
  const std::string& u = p.suffix;
  // A 4.x variant keeps times as rows of rocpd_timestamp (start_id/end_id): its layout is
  // unverified upstream (schema/rocpd_v4.sql), so it is refused by name rather than misread.
  if (p.major == 4 && names.count("rocpd_timestamp" + u))
    throw Error(fmt::format("{}: rocpd schema_version '{}' with timestamps in table rocpd_timestamp{} is not "
                            "supported (only 4.x files with start/end columns are)",
                            label, *version, u));
  std::vector<std::string> needed;
  for (const char* t : {"rocpd_string", "rocpd_info_agent", "rocpd_info_kernel_symbol", "rocpd_event",
                        "rocpd_region", "rocpd_kernel_dispatch", "rocpd_memory_copy"})
    needed.push_back(t + u);
  if (p.major == 4)
    for (const char* t : {"rocpd_track", "rocpd_info_category", "rocpd_sample"}) needed.push_back(t + u);
  require_tables(names, needed, label, p.major == 4 ? "rocpd 4.x" : "rocpd");
  p.has_marker_samples = names.count("rocpd_sample" + u) && names.count("rocpd_track" + u);
  std::map<std::string, std::set<std::string>> columns;  // read once per table
  auto has = [&](const char* t, const char* c) {
    auto it = columns.find(t);
    if (it == columns.end()) it = columns.emplace(t, column_names(db, schema, t + u)).first;
    return it->second.count(c) > 0;
  };
  p.has_graph_ids = has("rocpd_kernel_dispatch", "graph_exec_id") && has("rocpd_memory_copy", "graph_exec_id");
  p.has_symbol_registers = has("rocpd_info_kernel_symbol", "sgpr_count") &&
                           has("rocpd_info_kernel_symbol", "arch_vgpr_count") &&
                           has("rocpd_info_kernel_symbol", "accum_vgpr_count");
  p.has_dispatch_segments =
      has("rocpd_kernel_dispatch", "group_segment_size") && has("rocpd_kernel_dispatch", "private_segment_size");
  p.has_memory = names.count("rocpd_memory_allocate" + u) > 0;
  p.has_counters = names.count("rocpd_pmc_event" + u) && names.count("rocpd_info_pmc" + u);
  p.has_spm = p.has_counters && has("rocpd_pmc_event", "sample_id");
  // 4.x has no rocpd_hip_event; a table of that name there has unknown columns.
  p.has_hip_events = p.major == 3 && names.count("rocpd_hip_event" + u) > 0;
  p.rocprofsys = p.major == 3 && tags.value("upid").has_value();
  if (p.rocprofsys) require_tables(names, {"rocpd_arg" + u, "rocpd_info_thread" + u}, label, "rocprofiler-systems rocpd");
  return p;
}

// 4.x: the same reads, who/where from rocpd_track, categories from rocpd_info_category.
std::vector<TableColumns> read_columns_4(const RocpdProcess& p) {
  const std::string& u = p.suffix;
  std::vector<TableColumns> t = {
      {"rocpd_string" + u, {{"string", 't'}}},
      {"rocpd_info_agent" + u, {{"type", 't'}, {"type_index", 'n'}}},
      {"rocpd_info_kernel_symbol" + u, {{"kernel_name", 't'}}},
      {"rocpd_info_category" + u, {{"name", 't'}}},
      {"rocpd_event" + u, {{"stack_id", 'n'}, {"category_id", 'n'}}},
      {"rocpd_track" + u,
       {{"pid", 'n'}, {"tid", 'n'}, {"agent_id", 'n'}, {"queue_id", 'n'}, {"stream_id", 'n'}, {"name_id", 'n'}}},
      {"rocpd_region" + u, {{"track_id", 'n'}, {"start", 'n'}, {"end", 'n'}, {"name_id", 'n'}, {"event_id", 'n'}}},
      {"rocpd_sample" + u, {{"track_id", 'n'}, {"name_id", 'n'}, {"event_id", 'n'}, {"timestamp", 'n'}}},
      {"rocpd_kernel_dispatch" + u,
       {{"track_id", 'n'}, {"kernel_id", 'n'}, {"start", 'n'}, {"end", 'n'}, {"event_id", 'n'}, {"grid_size_x", 'n'},
        {"grid_size_y", 'n'}, {"grid_size_z", 'n'}, {"workgroup_size_x", 'n'}, {"workgroup_size_y", 'n'},
        {"workgroup_size_z", 'n'}}},
      {"rocpd_memory_copy" + u,
       {{"track_id", 'n'}, {"name_id", 'n'}, {"dst_agent_id", 'n'}, {"src_agent_id", 'n'}, {"start", 'n'},
        {"end", 'n'}, {"event_id", 'n'}, {"size", 'n'}}}};
  if (p.has_memory)
    t.push_back({"rocpd_memory_allocate" + u,
                 {{"track_id", 'n'}, {"type", 't'}, {"level", 't'}, {"start", 'n'}, {"end", 'n'}, {"address", 'n'},
                  {"size", 'n'}, {"event_id", 'n'}}});
  if (p.has_counters) {
    t.push_back({"rocpd_pmc_event" + u, {{"event_id", 'n'}, {"pmc_id", 'n'}, {"value", 'n'}}});
    t.push_back({"rocpd_info_pmc" + u, {{"name", 't'}, {"units", 't'}}});
  }
  return t;
}

// The tables and columns a process's sources read (checked once per process).
std::vector<TableColumns> read_columns(const RocpdProcess& p) {
  if (p.major == 4) return read_columns_4(p);
  const std::string& u = p.suffix;
  std::vector<TableColumns> t = {
      {"rocpd_string" + u, {{"string", 't'}}},
      {"rocpd_info_agent" + u, {{"type", 't'}, {"type_index", 'n'}}},
      {"rocpd_info_kernel_symbol" + u, {{"kernel_name", 't'}}},
      {"rocpd_event" + u, {{"stack_id", 'n'}, {"category_id", 'n'}}},
      {"rocpd_region" + u,
       {{"pid", 'n'}, {"tid", 'n'}, {"start", 'n'}, {"end", 'n'}, {"name_id", 'n'}, {"event_id", 'n'}}},
      {"rocpd_kernel_dispatch" + u,
       {{"pid", 'n'}, {"agent_id", 'n'}, {"kernel_id", 'n'}, {"queue_id", 'n'}, {"stream_id", 'n'}, {"start", 'n'},
        {"end", 'n'}, {"event_id", 'n'}, {"grid_size_x", 'n'}, {"grid_size_y", 'n'}, {"grid_size_z", 'n'},
        {"workgroup_size_x", 'n'}, {"workgroup_size_y", 'n'}, {"workgroup_size_z", 'n'}}},
      {"rocpd_memory_copy" + u,
       {{"pid", 'n'}, {"name_id", 'n'}, {"dst_agent_id", 'n'}, {"src_agent_id", 'n'}, {"queue_id", 'n'},
        {"stream_id", 'n'}, {"start", 'n'}, {"end", 'n'}, {"event_id", 'n'}, {"size", 'n'}}}};
  if (p.rocprofsys) t.push_back({"rocpd_info_thread" + u, {{"tid", 'n'}}});
  if (p.has_marker_samples) {
    t.push_back({"rocpd_sample" + u, {{"track_id", 'n'}, {"event_id", 'n'}, {"timestamp", 'n'}}});
    t.push_back({"rocpd_track" + u, {{"pid", 'n'}, {"tid", 'n'}, {"name_id", 'n'}}});
  }
  if (p.has_memory)
    t.push_back({"rocpd_memory_allocate" + u,
                 {{"pid", 'n'}, {"tid", 'n'}, {"agent_id", 'n'}, {"type", 't'}, {"level", 't'}, {"start", 'n'},
                  {"end", 'n'}, {"address", 'n'}, {"size", 'n'}, {"event_id", 'n'}}});
  if (p.has_counters) {
    t.push_back({"rocpd_pmc_event" + u, {{"event_id", 'n'}, {"pmc_id", 'n'}, {"value", 'n'}}});
    t.push_back({"rocpd_info_pmc" + u, {{"name", 't'}, {"units", 't'}}});
  }
  if (p.has_hip_events)
    t.push_back({"rocpd_hip_event" + u,
                 {{"pid", 'n'}, {"agent_id", 'n'}, {"queue_id", 'n'}, {"start", 'n'}, {"end", 'n'},
                  {"name_id", 'n'}, {"event_id", 'n'}}});
  return t;
}

class RocpdAdapter : public FormatAdapter {
 public:
  const char* name() const override { return "rocpd"; }

  bool claims(const Catalog& c) const override { return !metadata_tables(c).empty(); }

  canonical::FormatInfo probe(sqlite3* db, const std::string& schema, const Catalog& names,
                   const std::string& label) const override {
    canonical::FormatInfo info;
    auto d = std::make_shared<RocpdDetails>();
    std::vector<TableColumns> tables;
    for (const auto& meta_table : metadata_tables(names)) {
      d->processes.push_back(probe_process(db, schema, names, meta_table, label));
      for (auto& t : read_columns(d->processes.back())) tables.push_back(std::move(t));
    }
    const RocpdProcess& first = d->processes.front();
    info.version_text = first.version;
    info.schema_version = first.major;
    info.loose_types = !check_tables(db, schema, label, tables);
    // One process: its UUID. Several (a merged file): the first's, as rocpd_members shows one.
    const std::string meta = quote_id(schema) + "." + quote_id("rocpd_metadata" + first.suffix);
    MetadataTable tags(db, meta);
    if (auto uuid = tags.value("guid")) info.uuid = *uuid;
    else if (auto uu = tags.value("uuid")) info.uuid = *uu;
    const std::string node = "rocpd_info_node" + first.suffix;
    if (names.count(node)) {
      auto stmt = prepare(db, fmt::format("SELECT hostname FROM {}.{} WHERE hostname IS NOT NULL ORDER BY id LIMIT 1",
                                          quote_id(schema), quote_id(node)));
      if (step(stmt.get())) info.hostname = std::string(column_text(stmt.get(), 0));
    }
    // GPU names by type_index (the gpu number of the ops): the marketing name (product_name,
    // 'AMD Instinct MI300X') when recorded, else the agent name ('gfx942'); a merged file's first
    // process naming a gpu number wins.
    for (const RocpdProcess& p : d->processes) {
      const std::string agents = "rocpd_info_agent" + p.suffix;
      if (!names.count(agents)) continue;
      const auto cols = column_names(db, schema, agents);
      if (!cols.count("type") || !cols.count("type_index") || !cols.count("name") || !cols.count("product_name"))
        continue;
      auto stmt = prepare(db, fmt::format("SELECT type_index, coalesce(nullif(product_name, ''), name) FROM {}.{} "
                                          "WHERE type = 'GPU' AND typeof(type_index) = 'integer' AND "
                                          "typeof(coalesce(nullif(product_name, ''), name)) = 'text' ORDER BY id",
                                          quote_id(schema), quote_id(agents)));
      while (step(stmt.get()))
        info.gpu_names.emplace(sqlite3_column_int64(stmt.get(), 0), std::string(column_text(stmt.get(), 1)));
      // The gfx target (the agent name, without its feature suffix) and the agent's extdata
      // (rocprofv3: cu_count, wave_front_size, max_engine_clk_fcompute in MHz, local_mem_size, and
      // device_id, the PCI device id that tells an MI210 from one die of an MI250).
      const std::string ext = cols.count("extdata") ? "CASE WHEN json_valid(extdata) THEN extdata END" : "NULL";
      auto field = [&](const char* key) {
        return fmt::format("CASE WHEN json_type({0}, '$.{1}') = 'integer' AND json_extract({0}, '$.{1}') > 0 "
                           "THEN json_extract({0}, '$.{1}') END",
                           ext, key);
      };
      for (auto& [gpu, props] : gpu_property_rows(
               db, fmt::format("SELECT type_index, json_patch('{{}}', json_object("
                               "'arch', CASE WHEN typeof(name) = 'text' AND name GLOB 'gfx[0-9]*' THEN "
                               "CASE WHEN instr(name, ':') THEN substr(name, 1, instr(name, ':') - 1) ELSE name END END, "
                               "'compute_units', {}, 'warp_size', {}, 'clock_mhz', {}, 'memory_bytes', {}, "
                               "'pci_device_id', {})) "
                               "FROM {}.{} WHERE type = 'GPU' AND typeof(type_index) = 'integer' ORDER BY id",
                               field("cu_count"), field("wave_front_size"), field("max_engine_clk_fcompute"),
                               field("local_mem_size"), field("device_id"), quote_id(schema), quote_id(agents))))
        info.gpu_properties.emplace(gpu, std::move(props));
    }
    info.details = std::move(d);
    return info;
  }

  std::vector<canonical::SourceSql> sources(canonical::TableKind t, const canonical::Member& m, const canonical::Profile*, sqlite3*) const override {
    std::vector<canonical::SourceSql> out;
    for (const RocpdProcess& p : details(m).processes) {
      switch (t) {
        case canonical::TableKind::Ops:
          out.push_back(kernels(m, p));
          out.push_back(copies(m, p));
          break;
        case canonical::TableKind::Apis:
          out.push_back(regions(m, p));
          if (p.has_marker_samples) out.push_back(marks(m, p));
          break;
        case canonical::TableKind::Kernels: out.push_back(kernel_details(m, p)); break;
        case canonical::TableKind::Copies: out.push_back(copy_details(m, p)); break;
        case canonical::TableKind::Memory:
          if (p.has_memory) out.push_back(memory(m, p));
          break;
        case canonical::TableKind::Counters:
          if (p.has_counters) out.push_back(counters(m, p));
          break;
        case canonical::TableKind::HipEvents:
          if (p.has_hip_events) out.push_back(hip_events(m, p));
          break;
      }
    }
    return out;
  }
};

}  // namespace

const FormatAdapter& rocpd_adapter() {
  static const RocpdAdapter adapter;
  return adapter;
}

}  // namespace rocpd::formats
