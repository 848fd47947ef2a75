// rocprofv3's rocpd files, schema 3.x (schema/rocpd_v3.sql): one process per file, every table
// named rocpd_<name>_<uuid>; kernel dispatches and memory copies are the ops, regions (and the
// instant marks kept as samples on marker tracks) the API calls.
#include <fmt/format.h>

#include "formats/rocpd3.h"
#include "formats/probe_util.h"

namespace rocpd::federation {

namespace {

const RocpdDetails& details(const Member& m) { return static_cast<const RocpdDetails&>(*m.info.details); }

std::string table(const Member& m, const char* name) {
  return quote_id(m.schema) + "." + quote_id(name + details(m).suffix);
}

// rocprofv3 keeps the internal correlation id (the one linking an API call to the dispatch or
// copy it issued) in rocpd_event.stack_id; rocpd_event.correlation_id holds the external id
// (a user-supplied value, usually 0).
SourceSql kernels(const Member& m) {
  SourceBuilder b(table(m, "rocpd_kernel_dispatch"), "k", kOpsColumnCount);
  b.join("a", fmt::format("LEFT JOIN {} AS a ON a.id = k.agent_id", table(m, "rocpd_info_agent")));
  b.join("ks", fmt::format("LEFT JOIN {} AS ks ON ks.id = k.kernel_id", table(m, "rocpd_info_kernel_symbol")));
  b.join("e", fmt::format("LEFT JOIN {} AS e ON e.id = k.event_id", table(m, "rocpd_event")));
  b.col(kOpsPid, "k.pid");
  b.col(kOpsGpu, "a.type_index", {"a"});
  b.col(kOpsQueue, "k.queue_id");
  b.col(kOpsStream, "k.stream_id");
  b.col(kOpsKind, "'kernel'");
  b.col(kOpsName, "ks.kernel_name", {"ks"});
  b.col(kOpsStart, "k.start");
  b.col(kOpsEnd, "k.\"end\"");
  b.col(kOpsDuration, duration_sql("k"));
  b.col(kOpsCorrelationId, "e.stack_id", {"e"});
  b.col(kOpsOpId, "k.id");
  b.src().indexed = uint64_t{1} << kOpsOpId;
  return b.take();
}

SourceSql copies(const Member& m) {
  SourceBuilder b(table(m, "rocpd_memory_copy"), "c", kOpsColumnCount);
  b.join("n", fmt::format("LEFT JOIN {} AS n ON n.id = c.name_id", table(m, "rocpd_string")));
  b.join("da", fmt::format("LEFT JOIN {} AS da ON da.id = c.dst_agent_id", table(m, "rocpd_info_agent")));
  b.join("sa", fmt::format("LEFT JOIN {} AS sa ON sa.id = c.src_agent_id", table(m, "rocpd_info_agent")));
  b.join("e", fmt::format("LEFT JOIN {} AS e ON e.id = c.event_id", table(m, "rocpd_event")));
  b.col(kOpsPid, "c.pid");
  // The GPU a copy occupies: the destination GPU, else the source GPU (device-to-host).
  b.col(kOpsGpu,
        "COALESCE(CASE WHEN da.type = 'GPU' THEN da.type_index END, CASE WHEN sa.type = 'GPU' THEN sa.type_index END)",
        {"da", "sa"});
  b.col(kOpsQueue, "c.queue_id");
  b.col(kOpsStream, "c.stream_id");
  b.col(kOpsKind, "'copy'");
  // rocprofv3 copy names spelled as rpd op types, so summaries agree across formats.
  b.col(kOpsName,
        "CASE n.string WHEN 'MEMORY_COPY_HOST_TO_DEVICE' THEN 'CopyHostToDevice' "
        "WHEN 'MEMORY_COPY_DEVICE_TO_HOST' THEN 'CopyDeviceToHost' "
        "WHEN 'MEMORY_COPY_DEVICE_TO_DEVICE' THEN 'CopyDeviceToDevice' "
        "WHEN 'MEMORY_COPY_HOST_TO_HOST' THEN 'CopyHostToHost' "
        "WHEN 'MEMORY_COPY_PEER_TO_PEER' THEN 'CopyPeerToPeer' ELSE n.string END",
        {"n"});
  b.col(kOpsStart, "c.start");
  b.col(kOpsEnd, "c.\"end\"");
  b.col(kOpsDuration, duration_sql("c"));
  b.col(kOpsCorrelationId, "e.stack_id", {"e"});
  b.col(kOpsOpId, "c.id");
  b.src().indexed = uint64_t{1} << kOpsOpId;
  return b.take();
}

SourceSql regions(const Member& m) {
  SourceBuilder b(table(m, "rocpd_region"), "r", kApisColumnCount);
  b.join("n", fmt::format("LEFT JOIN {} AS n ON n.id = r.name_id", table(m, "rocpd_string")));
  b.join("e", fmt::format("LEFT JOIN {} AS e ON e.id = r.event_id", table(m, "rocpd_event")));
  b.join("ct", fmt::format("LEFT JOIN {} AS ct ON ct.id = e.category_id", table(m, "rocpd_string")), {"e"});
  b.col(kApisPid, "r.pid");
  b.col(kApisTid, "r.tid");
  // rocprofv3 categories: HIP_RUNTIME_API[_EXT], HIP_COMPILER_API, HSA_*_API, MARKER_*_API, RCCL_API...
  b.col(kApisDomain,
        "CASE WHEN ct.string LIKE 'HIP%' THEN 'hip' WHEN ct.string LIKE 'HSA%' THEN 'hsa' "
        "WHEN ct.string LIKE 'MARKER%' THEN 'marker' WHEN ct.string LIKE 'RCCL%' THEN 'rccl' "
        "ELSE lower(ct.string) END",
        {"e", "ct"});
  b.col(kApisCategory, "ct.string", {"e", "ct"});
  b.col(kApisName, "n.string", {"n"});
  // rocprofv3 keeps arguments as rows of rocpd_arg; use rocpd_union('rocpd_arg') to read them.
  b.col(kApisArgs, "NULL");
  b.col(kApisStart, "r.start");
  b.col(kApisEnd, "r.\"end\"");
  b.col(kApisDuration, duration_sql("r"));
  b.col(kApisCorrelationId, "e.stack_id", {"e"});
  b.col(kApisApiId, "r.id");
  b.src().indexed = uint64_t{1} << kApisApiId;
  return b.take();
}

// Instant roctx marks: rocprofv3 writes them as samples on a track (its `sample_regions` view),
// the message in the event's extdata, else the track's name.
SourceSql marks(const Member& m) {
  SourceBuilder b(table(m, "rocpd_sample"), "sm", kApisColumnCount);
  // Only the event and its category decide which samples are marks (the source's WHERE, always
  // joined); every other join is LEFT, so the rows never depend on the columns selected.
  b.join("tr", fmt::format("LEFT JOIN {} AS tr ON tr.id = sm.track_id", table(m, "rocpd_track")));
  b.join("e", fmt::format("JOIN {} AS e ON e.id = sm.event_id", table(m, "rocpd_event")));
  b.join("ct", fmt::format("JOIN {} AS ct ON ct.id = e.category_id", table(m, "rocpd_string")), {"e"});
  b.join("tn", fmt::format("LEFT JOIN {} AS tn ON tn.id = tr.name_id", table(m, "rocpd_string")), {"tr"});
  b.src().where = "ct.string LIKE 'MARKER%'";
  b.src().where_joins = b.mask({"e", "ct"});
  b.col(kApisPid, "tr.pid", {"tr"});
  b.col(kApisTid, "tr.tid", {"tr"});
  b.col(kApisDomain, "'marker'");
  b.col(kApisCategory, "ct.string", {"e", "ct"});
  b.col(kApisName, "COALESCE(json_extract(e.extdata, '$.message'), tn.string)", {"e", "tr", "tn"});
  b.col(kApisArgs, "NULL");
  b.col(kApisStart, "sm.timestamp");
  b.col(kApisEnd, "sm.timestamp");
  b.col(kApisDuration, "0");
  b.col(kApisCorrelationId, "e.stack_id", {"e"});
  b.col(kApisApiId, "sm.id");
  b.src().indexed = uint64_t{1} << kApisApiId;
  // A message in JSON may be a number: comparing it inside the member would not be the
  // comparison of the text SQLite sees.
  b.src().unpushable = uint64_t{1} << kApisName;
  return b.take();
}

std::vector<std::string> metadata_tables(const Catalog& c) {
  std::vector<std::string> out;
  for (const auto& n : c)
    if (n.size() > 15 && n.compare(0, 15, "rocpd_metadata_") == 0) out.push_back(n);
  return out;
}

class Rocpd3Adapter : public FormatAdapter {
 public:
  const char* name() const override { return "rocpd"; }

  bool claims(const Catalog& c) const override { return !metadata_tables(c).empty(); }

  FormatInfo probe(sqlite3* db, const std::string& schema, const Catalog& names,
                   const std::string& label) const override {
    const auto meta_tables = metadata_tables(names);
    if (meta_tables.size() > 1)
      throw Error(fmt::format("{}: rocpd file holds {} processes (tables {} and {}); only one per file is supported",
                              label, meta_tables.size(), meta_tables[0], meta_tables[1]));
    FormatInfo info;
    auto d = std::make_shared<RocpdDetails>();
    d->suffix = meta_tables[0].substr(std::string("rocpd_metadata").size());
    const std::string meta = quote_id(schema) + "." + quote_id(meta_tables[0]);
    auto version = metadata_value(db, meta, "schema_version");
    if (!version) throw Error(fmt::format("{}: table {} has no schema_version", label, meta_tables[0]));
    info.version_text = *version;
    info.schema_version = major_version(*version);
    if (info.schema_version != 3)
      throw Error(fmt::format("{}: unsupported rocpd schema_version '{}' (supported: 3)", label, *version));
    const std::string& u = d->suffix;
    std::vector<std::string> needed;
    for (const char* t : {"rocpd_string", "rocpd_info_agent", "rocpd_info_kernel_symbol", "rocpd_event",
                          "rocpd_region", "rocpd_kernel_dispatch", "rocpd_memory_copy"})
      needed.push_back(t + u);
    require_tables(names, needed, label, "rocpd");
    d->has_marker_samples = names.count("rocpd_sample" + u) && names.count("rocpd_track" + u);
    std::vector<TableColumns> tables = {
        {"rocpd_string" + u, {{"string", 't'}}},
        {"rocpd_info_agent" + u, {{"type", 't'}, {"type_index", 'n'}}},
        {"rocpd_info_kernel_symbol" + u, {{"kernel_name", 't'}}},
        {"rocpd_event" + u, {{"stack_id", 'n'}, {"category_id", 'n'}}},
        {"rocpd_region" + u,
         {{"pid", 'n'}, {"tid", 'n'}, {"start", 'n'}, {"end", 'n'}, {"name_id", 'n'}, {"event_id", 'n'}}},
        {"rocpd_kernel_dispatch" + u,
         {{"pid", 'n'}, {"agent_id", 'n'}, {"kernel_id", 'n'}, {"queue_id", 'n'}, {"stream_id", 'n'}, {"start", 'n'},
          {"end", 'n'}, {"event_id", 'n'}}},
        {"rocpd_memory_copy" + u,
         {{"pid", 'n'}, {"name_id", 'n'}, {"dst_agent_id", 'n'}, {"src_agent_id", 'n'}, {"queue_id", 'n'},
          {"stream_id", 'n'}, {"start", 'n'}, {"end", 'n'}, {"event_id", 'n'}}}};
    if (d->has_marker_samples) {
      tables.push_back({"rocpd_sample" + u, {{"track_id", 'n'}, {"event_id", 'n'}, {"timestamp", 'n'}}});
      tables.push_back({"rocpd_track" + u, {{"pid", 'n'}, {"tid", 'n'}, {"name_id", 'n'}}});
    }
    info.loose_types = !check_tables(db, schema, label, tables);
    if (auto uuid = metadata_value(db, meta, "guid")) info.uuid = *uuid;
    else if (auto uu = metadata_value(db, meta, "uuid")) info.uuid = *uu;
    const std::string node = "rocpd_info_node" + u;
    if (names.count(node)) {
      auto stmt = prepare(db, fmt::format("SELECT hostname FROM {}.{} WHERE hostname IS NOT NULL ORDER BY id LIMIT 1",
                                          quote_id(schema), quote_id(node)));
      if (step(stmt.get())) info.hostname = std::string(column_text(stmt.get(), 0));
    }
    info.details = std::move(d);
    return info;
  }

  std::vector<SourceSql> sources(TableKind t, const Member& m, const Profile*, sqlite3*) const override {
    switch (t) {
      case TableKind::Ops: return {kernels(m), copies(m)};
      case TableKind::Apis:
        if (!details(m).has_marker_samples) return {regions(m)};
        return {regions(m), marks(m)};
    }
    return {};
  }
};

}  // namespace

const FormatAdapter& rocpd3_adapter() {
  static const Rocpd3Adapter adapter;
  return adapter;
}

}  // namespace rocpd::federation
