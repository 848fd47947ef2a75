// PyTorch profiler (Kineto) Chrome-trace JSON, read through the tables the import writes
// (schema/kineto.sql): kineto_ops -> rocpd_ops / rocpd_kernels / rocpd_copies, kineto_calls ->
// rocpd_apis, kineto_counters -> rocpd_counters. Every column mapping is in docs/formats.md.
#include "formats/kineto/kineto.h"

#include <fmt/format.h>

#include "formats/kineto/kineto_link.h"
#include "formats/probe_util.h"

namespace rocpd::formats {

namespace {

constexpr int kLayoutVersion = 1;

const KinetoDetails& details(const canonical::Member& m) { return static_cast<const KinetoDetails&>(*m.info.details); }

std::string main_pid_sql(const canonical::Member& m) {
  const auto& pid = details(m).main_pid;
  return pid ? std::to_string(*pid) : "NULL";
}

// The columns rocpd_ops, rocpd_kernels and rocpd_copies share.
struct OpColumns {
  int pid, gpu, queue, stream, name, start, end, duration, corr, op_id, graph;
};

void op_columns(canonical::SourceBuilder& b, const canonical::Member& m, const std::string& s, const OpColumns& c) {
  b.join("n", fmt::format("LEFT JOIN {}.kineto_strings AS n ON n.id = o.name_id", s));
  b.col(c.pid, fmt::format("coalesce(o.pid, {})", main_pid_sql(m)));  // NULL: the trace's main process
  b.col(c.gpu, "o.gpu");
  b.col(c.queue, "o.stream");  // a CUDA stream is the queue the GPU runs in order
  b.col(c.stream, "o.stream");
  b.col(c.name, "n.string", {"n"});
  b.src().name_key = {"o.name_id"};
  b.col(c.start, "o.start");
  b.col(c.end, "o.\"end\"");
  b.col(c.duration, canonical::duration_sql("o"));
  b.col(c.corr, "o.correlation");
  b.col(c.op_id, "o.id");
  b.col(c.graph, "NULL");  // Kineto records no graph ids
  b.src().indexed = uint64_t{1} << c.op_id;
}

canonical::SourceSql ops(const canonical::Member& m) {
  const std::string s = quote_id(m.schema);
  canonical::SourceBuilder b(s + ".kineto_ops", "o", canonical::kOpsColumnCount);
  op_columns(b, m, s,
             {canonical::kOpsPid, canonical::kOpsGpu, canonical::kOpsQueue, canonical::kOpsStream, canonical::kOpsName, canonical::kOpsStart, canonical::kOpsEnd, canonical::kOpsDuration, canonical::kOpsCorrelationId,
              canonical::kOpsOpId, canonical::kOpsGraphId});
  b.col(canonical::kOpsKind, "o.kind");
  b.col(canonical::kOpsNode, "0");
  return b.take();
}

// Kineto's grid counts blocks (CUDA's gridDim); rocpd_kernels' grid counts work-items.
canonical::SourceSql kernels(const canonical::Member& m) {
  const std::string s = quote_id(m.schema);
  canonical::SourceBuilder b(s + ".kineto_ops", "o", canonical::kKernColumnCount);
  op_columns(b, m, s,
             {canonical::kKernPid, canonical::kKernGpu, canonical::kKernQueue, canonical::kKernStream, canonical::kKernName, canonical::kKernStart, canonical::kKernEnd, canonical::kKernDuration,
              canonical::kKernCorrelationId, canonical::kKernOpId, canonical::kKernGraphId});
  b.src().where = "o.kind = 'kernel'";
  const char* dims[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i) {
    b.col(canonical::kKernGridX + i, fmt::format("o.grid_{0} * o.block_{0}", dims[i]));
    b.col(canonical::kKernWorkgroupX + i, fmt::format("o.block_{}", dims[i]));
  }
  b.col(canonical::kKernLdsBytes, "o.shared_memory");
  b.col(canonical::kKernScratchBytes, "NULL");
  b.col(canonical::kKernSgpr, "NULL");
  b.col(canonical::kKernVgpr, "o.registers");  // registers per thread: the per-lane (vector) registers
  b.col(canonical::kKernAgpr, "NULL");
  return b.take();
}

// A copy's direction is in its name ("Memcpy HtoD (Host -> Device)"); a peer copy (PtoP) names
// neither GPU of the pair, so both ends stay NULL.
canonical::SourceSql copies(const canonical::Member& m) {
  const std::string s = quote_id(m.schema);
  canonical::SourceBuilder b(s + ".kineto_ops", "o", canonical::kCopyColumnCount);
  op_columns(b, m, s,
             {canonical::kCopyPid, canonical::kCopyGpu, canonical::kCopyQueue, canonical::kCopyStream, canonical::kCopyName, canonical::kCopyStart, canonical::kCopyEnd, canonical::kCopyDuration,
              canonical::kCopyCorrelationId, canonical::kCopyOpId, canonical::kCopyGraphId});
  b.src().where = "o.kind = 'copy'";
  b.col(canonical::kCopyBytes, "o.bytes");
  b.col(canonical::kCopySrcGpu, "CASE WHEN n.string GLOB '*DtoH*' OR n.string GLOB '*DtoD*' THEN o.gpu END", {"n"});
  b.col(canonical::kCopyDstGpu, "CASE WHEN n.string GLOB '*HtoD*' OR n.string GLOB '*DtoD*' THEN o.gpu END", {"n"});
  return b.take();
}

// Rows drawn on a GPU's row (pid = the device) belong to the trace's main process.
const std::string kGpuSide = fmt::format("c.domain IN {}", kineto::kGpuSideDomains);

canonical::SourceSql apis(const canonical::Member& m) {
  const std::string s = quote_id(m.schema);
  canonical::SourceBuilder b(s + ".kineto_calls", "c", canonical::kApisColumnCount);
  b.join("n", fmt::format("LEFT JOIN {}.kineto_strings AS n ON n.id = c.name_id", s));
  b.join("k", fmt::format("LEFT JOIN {}.kineto_strings AS k ON k.id = c.cat_id", s));
  b.col(canonical::kApisPid, fmt::format("CASE WHEN {} THEN {} ELSE c.pid END", kGpuSide, main_pid_sql(m)));
  b.col(canonical::kApisTid, fmt::format("CASE WHEN {} THEN NULL ELSE c.tid END", kGpuSide));
  b.col(canonical::kApisDomain, "c.domain");
  b.col(canonical::kApisCategory, "k.string", {"k"});
  b.col(canonical::kApisName, "n.string", {"n"});
  // A cuda_sync event's args as written, with the calls and stream they name under the keys the
  // critical path reads for every format (docs/formats.md): `call` (the synchronizing runtime
  // call's correlation_id), `event_call` and `event_stream` (the event's record call and stream).
  b.col(canonical::kApisArgs,
        "CASE WHEN c.domain = 'cuda_sync' AND json_valid(c.args) THEN json_set(c.args, '$.call', "
        "json_extract(c.args, '$.correlation'), '$.event_call', json_extract(c.args, "
        "'$.wait_on_cuda_event_record_corr_id'), '$.event_stream', json_extract(c.args, '$.wait_on_stream')) "
        "ELSE c.args END");
  b.src().unpushable |= uint64_t{1} << canonical::kApisArgs;
  b.col(canonical::kApisStart, "c.start");
  b.col(canonical::kApisEnd, "c.\"end\"");
  b.col(canonical::kApisDuration, canonical::duration_sql("c"));
  b.col(canonical::kApisCorrelationId, "c.correlation");
  b.col(canonical::kApisApiId, "c.id");
  b.col(canonical::kApisNode, "0");
  b.src().indexed = uint64_t{1} << canonical::kApisApiId;
  return b.take();
}

canonical::SourceSql counters(const canonical::Member& m) {
  const std::string s = quote_id(m.schema);
  canonical::SourceBuilder b(s + ".kineto_counters", "k", canonical::kCntColumnCount);
  b.join("o", fmt::format("LEFT JOIN {}.kineto_ops AS o ON o.id = k.op", s));
  b.join("n", fmt::format("LEFT JOIN {}.kineto_strings AS n ON n.id = o.name_id", s), {"o"});
  b.col(canonical::kCntPid, fmt::format("coalesce(o.pid, {})", main_pid_sql(m)), {"o"});
  b.col(canonical::kCntGpu, "k.gpu");
  b.col(canonical::kCntOpId, "k.op");
  b.col(canonical::kCntCorrelationId, "o.correlation", {"o"});
  b.col(canonical::kCntName, "n.string", {"o", "n"});
  b.col(canonical::kCntCounter, "k.counter");
  b.col(canonical::kCntValue, "k.value");
  b.col(canonical::kCntUnits, "NULL");
  b.col(canonical::kCntStart, "k.start");
  b.col(canonical::kCntEnd, "k.\"end\"");
  b.col(canonical::kCntId, "k.id");
  b.src().indexed = uint64_t{1} << canonical::kCntId;
  return b.take();
}

// deviceProperties' names by device id (the gpu number of the device's ops). Their other
// properties (numSms, totalGlobalMem, computeMajor, ...) stay in kineto_devices.properties.
std::map<int64_t, std::string> device_names(sqlite3* db, const std::string& schema) {
  std::map<int64_t, std::string> out;
  auto s = prepare(db, fmt::format("SELECT device, name FROM {}.kineto_devices WHERE typeof(device) = 'integer' AND "
                                   "typeof(name) = 'text' ORDER BY id",
                                   quote_id(schema)));
  while (step(s.get())) out.emplace(sqlite3_column_int64(s.get(), 0), std::string(column_text(s.get(), 1)));
  return out;
}

// deviceProperties beyond the name (numSms, totalGlobalMem, computeMajor/Minor, warpSize), under
// the keys rocpd_members.gpu_properties uses; integers only (a hostile trace's text is left out).
std::map<int64_t, std::string> device_properties(sqlite3* db, const std::string& schema) {
  return gpu_property_rows(
      db, fmt::format(
              "SELECT device, json_patch('{{}}', json_object("
              "'compute_units', CASE WHEN json_type(properties, '$.numSms') = 'integer' "
              "THEN json_extract(properties, '$.numSms') END, "
              "'memory_bytes', CASE WHEN json_type(properties, '$.totalGlobalMem') = 'integer' "
              "THEN json_extract(properties, '$.totalGlobalMem') END, "
              "'compute_capability', CASE WHEN json_type(properties, '$.computeMajor') = 'integer' AND "
              "json_type(properties, '$.computeMinor') = 'integer' THEN json_extract(properties, '$.computeMajor') "
              "|| '.' || json_extract(properties, '$.computeMinor') END, "
              "'warp_size', CASE WHEN json_type(properties, '$.warpSize') = 'integer' "
              "THEN json_extract(properties, '$.warpSize') END)) "
              "FROM {}.kineto_devices WHERE typeof(device) = 'integer' AND json_valid(properties) AND "
              "json_type(properties) = 'object' ORDER BY id",
              quote_id(schema)));
}

// What the trace lacks and what reads NULL (or coarser) because of it, one line each
// (rocpd_members.notes; docs/formats.md, "Writers and versions: PyTorch profiler").
template <class Integer>
std::vector<std::string> notes(sqlite3* db, const std::string& meta, const Integer& integer) {
  std::vector<std::string> out;
  auto has = [&](const char* tag) { return metadata_value(db, meta, tag).has_value(); };
  if (!has("distributedInfo")) out.push_back("no distributedInfo (a trace of one process, or PyTorch before 1.11): rank is NULL");
  if (!has("deviceProperties"))
    out.push_back("no deviceProperties (PyTorch before 1.9): gpu_names is NULL, no device properties");
  const auto events = integer("import.events"), fractional = integer("import.fractional_times");
  if (events && *events > 0 && fractional && *fractional == 0)
    out.push_back("times in whole microseconds (PyTorch before 2.3 writes no ns digits): starts and ends to the us, "
                  "durations under 1 us are 0");
  if (const auto repeated = integer("import.duplicate_correlations"); repeated && *repeated > 0)
    out.push_back(fmt::format("{} runtime calls repeat the correlation id of an earlier call: their correlation_id is "
                              "NULL (import.duplicate_correlations)",
                              *repeated));
  if (const auto ranges = metadata_value(db, meta, "import.counter_ranges"); ranges && ranges->rfind("unmatched", 0) == 0)
    out.push_back(fmt::format("cuda_profiler_range events not matched to launches ({}): their counters have no "
                              "correlation_id",
                              *ranges));
  return out;
}

class KinetoAdapter : public FormatAdapter {
 public:
  const char* name() const override { return "kineto"; }

  bool claims(const Catalog& c) const override { return c.count("kineto_metadata") > 0; }

  canonical::FormatInfo probe(sqlite3* db, const std::string& schema, const Catalog& names,
                   const std::string& label) const override {
    const std::string meta = quote_id(schema) + ".kineto_metadata";
    require_tables(names, {"kineto_metadata"}, label, "kineto");
    check_tables(db, schema, label, {{"kineto_metadata", {{"tag", 't'}}}});
    const auto layout = metadata_value(db, meta, "import.layout_version");
    if (!layout)
      throw Error(fmt::format("{}: kineto tables without an import.layout_version in kineto_metadata", label));
    if (*layout != std::to_string(kLayoutVersion))
      throw Error(fmt::format("{}: unsupported kineto layout_version '{}' (supported: {}; written by another "
                              "version of rocpd_import?)",
                              label, *layout, kLayoutVersion));
    require_tables(names, {"kineto_strings", "kineto_ops", "kineto_calls", "kineto_counters"}, label, "kineto");
    std::vector<TableColumns> tables = {
        {"kineto_strings", {{"string", 't'}}},
        {"kineto_ops",
         {{"kind", 't'}, {"name_id", 'n'}, {"pid", 'n'}, {"gpu", 'n'}, {"stream", 'n'}, {"start", 'n'}, {"end", 'n'},
          {"correlation", 'n'}, {"grid_x", 'n'}, {"grid_y", 'n'}, {"grid_z", 'n'}, {"block_x", 'n'},
          {"block_y", 'n'}, {"block_z", 'n'}, {"registers", 'n'}, {"shared_memory", 'n'}, {"bytes", 'n'}}},
        {"kineto_calls",
         {{"domain", 't'}, {"cat_id", 'n'}, {"name_id", 'n'}, {"pid", 'n'}, {"tid", 'n'}, {"start", 'n'},
          {"end", 'n'}, {"correlation", 'n'}, {"args", 't'}}},
        {"kineto_counters", {{"op", 'n'}, {"gpu", 'n'}, {"counter", 't'}, {"start", 'n'}, {"end", 'n'}}}};
    canonical::FormatInfo info;
    info.loose_types = !check_tables(db, schema, label, tables);
    if (auto v = metadata_value(db, meta, "schemaVersion")) {
      info.version_text = *v;
      info.schema_version = std::max(major_version(*v), 0);
    }
    auto d = std::make_shared<KinetoDetails>();
    auto integer = [&](const char* tag) -> std::optional<int64_t> {
      auto stmt = prepare(db, fmt::format("SELECT value FROM {} WHERE tag = ?1 AND typeof(value) = 'integer'", meta));
      sqlite3_bind_text(stmt.get(), 1, tag, -1, SQLITE_STATIC);
      if (!step(stmt.get())) return std::nullopt;
      return sqlite3_column_int64(stmt.get(), 0);
    };
    d->main_pid = integer("import.main_pid");
    info.rank = integer("import.rank");
    if (names.count("kineto_devices")) {
      info.gpu_names = device_names(db, schema);
      info.gpu_properties = device_properties(db, schema);
    }
    info.notes = notes(db, meta, integer);
    info.details = std::move(d);
    return info;
  }

  std::vector<canonical::SourceSql> sources(canonical::TableKind table, const canonical::Member& m, const canonical::Profile*, sqlite3*) const override {
    switch (table) {
      case canonical::TableKind::Ops: return {ops(m)};
      case canonical::TableKind::Apis: return {apis(m)};
      case canonical::TableKind::Kernels: return {kernels(m)};
      case canonical::TableKind::Copies: return {copies(m)};
      case canonical::TableKind::Counters: return {counters(m)};
      case canonical::TableKind::Memory:     // Kineto's memory events ([memory] instants) are not mapped
      case canonical::TableKind::HipEvents:  // nor are CUDA events
        return {};
    }
    return {};
  }
};

}  // namespace

const FormatAdapter& kineto_adapter() {
  static const KinetoAdapter adapter;
  return adapter;
}

}  // namespace rocpd::formats
