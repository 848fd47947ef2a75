// rpd (rocmProfileData), schema 2 and 3: rocpd_op / rocpd_api / rocpd_string (+ rocpd_ustring in
// v3), ops linked to their issuing call through rocpd_api_ops. Several processes may append to
// one file, each as a "session" whose ids are offset by session << 32 (schema/rpd_v3.sql).
#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>

#include "formats/rpd.h"
#include "formats/probe_util.h"

namespace rocpd::formats {

namespace {

const RpdDetails& details(const canonical::Member& m) { return static_cast<const RpdDetails&>(*m.info.details); }

// A value of the multi-node convention without its node part (values below the stride are not
// encoded and stay as they are).
std::string decoded(int64_t stride, const char* column) {
  if (stride <= 0) return column;
  // Only integers are encoded: a hostile file's text or real reads as written (text compares above
  // every number, and % would turn it into a number). The comparison comes first: most values of
  // a single-node file are below the stride, and typeof() is a function call per row.
  return fmt::format("CASE WHEN {0} >= {1} AND typeof({0}) = 'integer' THEN {0} % {1} ELSE {0} END", column, stride);
}
// The node part of such a value (0 when not encoded).
std::string node_of(int64_t stride, const char* column) {
  if (stride <= 0) return "0";
  return fmt::format("CASE WHEN {0} >= {1} AND typeof({0}) = 'integer' THEN {0} / {1} ELSE 0 END", column, stride);
}

constexpr const char* kKernelTypes = "string IN ('KernelExecution', 'Task')";
constexpr const char* kCopyTypes = "string LIKE 'Copy%'";

// The pid of the process that wrote row id `id` (an op's pid is its session's).
std::string pid_expr(const canonical::Member& m, const canonical::Profile* p, const char* id) {
  if (p && p->session_pid_exact && !p->session_pid.empty()) {
    if (p->session_pid.size() == 1) return std::to_string(p->session_pid.begin()->second);
    std::string e = fmt::format("CASE ({} >> 32)", id);
    for (auto [session, pid] : p->session_pid) e += fmt::format(" WHEN {} THEN {}", session, pid);
    return e + " END";
  }
  if (!details(m).has_api_ops) return "NULL";
  return fmt::format("(SELECT {} FROM {}.rocpd_api AS a WHERE a.id = ao.api_id)", decoded(details(m).pid_stride, "a.pid"),
                     quote_id(m.schema));
}

// The ids of the strings `where` selects: a literal list with the member's connection, else an
// uncorrelated subquery (evaluated once per query). Either way the test on a row is no string join.
std::string string_ids(const std::string& schema, const char* where, sqlite3* db) {
  const std::string select = fmt::format("SELECT id FROM {}.rocpd_string WHERE {}", schema, where);
  if (!db) return "(" + select + ")";
  auto stmt = prepare(db, select);
  std::vector<int64_t> ids;
  while (step(stmt.get())) ids.push_back(sqlite3_column_int64(stmt.get(), 0));
  return fmt::format("({})", fmt::join(ids, ", "));
}

// opType -> canonical kind. Kinds are tested on the op type's string id, never by joining the
// string per row (string_ids).
std::map<std::string, std::string> kind_id_lists(const std::string& schema, sqlite3* db) {
  static const std::vector<std::pair<const char*, const char*>> kinds = {
      {"kernel", kKernelTypes},
      {"copy", kCopyTypes},
      {"barrier", "string LIKE 'Barrier%'"},
      {"fill", "string = 'FillBuffer'"}};
  std::map<std::string, std::string> lists;
  for (const auto& [kind, where] : kinds) lists[kind] = string_ids(schema, where, db);
  return lists;
}

void set_kind(canonical::SourceBuilder& b, const std::map<std::string, std::string>& lists) {
  std::string expr = "CASE";
  std::vector<std::string> all;
  for (const char* kind : {"kernel", "copy", "barrier", "fill"}) {
    const std::string pred = "o.opType_id IN " + lists.at(kind);
    expr += fmt::format(" WHEN {} THEN '{}'", pred, kind);
    b.src().predicates[kind] = pred;
    all.push_back(pred);
  }
  // NULL when opType_id is NULL: coalesce, so that such an op (whose kind reads 'other') matches.
  b.src().predicates["other"] = fmt::format("NOT coalesce({}, 0)", fmt::join(all, " OR "));
  b.col(canonical::kOpsKind, expr + " ELSE 'other' END");
  b.src().predicate_column = canonical::kOpsKind;
}

// Joins `ao`, the op's issuing call (one per op even when the link table lists several: the first
// by id), keyed by the op id expression `op_id`, and sets the pid column from it (docs/formats.md).
void issuing_call(canonical::SourceBuilder& b, const canonical::Member& m, const canonical::Profile* p, const char* op_id, int pid_col) {
  if (details(m).has_api_ops)
    b.join("ao", fmt::format("LEFT JOIN (SELECT op_id, min(api_id) AS api_id FROM {}.rocpd_api_ops GROUP BY op_id) "
                             "AS ao ON ao.op_id = {}",
                             quote_id(m.schema), op_id));
  const std::string pid = pid_expr(m, p, op_id);
  if (pid.find("ao.") != std::string::npos) b.col(pid_col, pid, {"ao"});
  else b.col(pid_col, pid);
}

// The columns every op source shares (rocpd_ops, rocpd_kernels, rocpd_copies): indexes of the
// canonical columns in the table being built.
struct OpColumns {
  int pid, gpu, queue, stream, name, start, end, duration, corr, op_id, graph;
};

void op_columns(canonical::SourceBuilder& b, const canonical::Member& m, const canonical::Profile* p, const OpColumns& c) {
  const std::string s = quote_id(m.schema);
  const RpdDetails& d = details(m);
  b.join("t", fmt::format("LEFT JOIN {}.rocpd_string AS t ON t.id = o.opType_id", s));
  b.join("d", fmt::format("LEFT JOIN {}.rocpd_string AS d ON d.id = o.description_id", s));
  const bool link = d.has_api_ops;
  issuing_call(b, m, p, "o.id", c.pid);
  b.col(c.gpu, decoded(d.gpu_stride, "o.gpuId"));
  b.col(c.queue, decoded(d.gpu_stride, "o.queueId"));
  b.col(c.stream, "NULL");
  // Copies and barriers have an empty description: they are named by their op type. A
  // description id that names no string gives NULL.
  b.col(c.name, "CASE WHEN d.string <> '' THEN d.string WHEN d.string = '' THEN t.string END", {"t", "d"});
  b.src().name_key = {"o.description_id", "o.opType_id"};
  b.col(c.start, "o.start");
  b.col(c.end, "o.\"end\"");
  b.col(c.duration, canonical::duration_sql("o"));
  if (link) {
    b.col(c.corr, "ao.api_id", {"ao"});
    b.src().link_column = c.corr;
    b.src().link_sql = fmt::format("SELECT op_id, api_id FROM {}.rocpd_api_ops", s);
    b.src().link_key = "o.id";
  } else {
    b.col(c.corr, "NULL");
  }
  b.col(c.op_id, "o.id");
  b.col(c.graph, "NULL");  // rpd records no graph ids
  // op_id is the primary key, but a lookup that needs the API link materialises the link table:
  // the cursor's lookup index serves those better (federated_table.cpp).
  b.src().indexed = link ? 0 : uint64_t{1} << c.op_id;
  // A decoded value is an expression without the column's affinity: comparing it inside the member
  // would not convert a stored text '1' as SQLite converts the column (docs/guarantees.md).
  if (d.gpu_stride > 0) b.src().unpushable |= (uint64_t{1} << c.gpu) | (uint64_t{1} << c.queue);
  if (d.pid_stride > 0 && !(p && p->session_pid_exact && !p->session_pid.empty()))
    b.src().unpushable |= uint64_t{1} << c.pid;
}

canonical::SourceSql ops(const canonical::Member& m, const canonical::Profile* p, sqlite3* db) {
  const std::string s = quote_id(m.schema);
  canonical::SourceBuilder b(s + ".rocpd_op", "o", canonical::kOpsColumnCount);
  op_columns(b, m, p,
             {canonical::kOpsPid, canonical::kOpsGpu, canonical::kOpsQueue, canonical::kOpsStream, canonical::kOpsName, canonical::kOpsStart, canonical::kOpsEnd, canonical::kOpsDuration, canonical::kOpsCorrelationId,
              canonical::kOpsOpId, canonical::kOpsGraphId});
  set_kind(b, kind_id_lists(s, db));
  b.col(canonical::kOpsNode, node_of(details(m).gpu_stride, "o.gpuId"));
  if (details(m).gpu_stride > 0) b.src().unpushable |= uint64_t{1} << canonical::kOpsNode;
  return b.take();
}

// Kernel ops with the launch parameters of their issuing call (rocpd_kernelapi). The roctracer
// source records the grid in blocks for most launch APIs and in work-items for the module launches
// that take a global size (schema/rpd_multinode.md); rocpd_kernels holds work-items.
canonical::SourceSql kernel_details(const canonical::Member& m, const canonical::Profile* p) {
  const std::string s = quote_id(m.schema);
  const RpdDetails& d = details(m);
  canonical::SourceBuilder b(s + ".rocpd_op", "o", canonical::kKernColumnCount);
  op_columns(b, m, p,
             {canonical::kKernPid, canonical::kKernGpu, canonical::kKernQueue, canonical::kKernStream, canonical::kKernName, canonical::kKernStart, canonical::kKernEnd, canonical::kKernDuration,
              canonical::kKernCorrelationId, canonical::kKernOpId, canonical::kKernGraphId});
  b.src().where = "o.opType_id IN " + string_ids(s, kKernelTypes, nullptr);
  if (d.has_api_ops && d.has_kernelapi) {
    b.join("ka", fmt::format("LEFT JOIN {}.rocpd_kernelapi AS ka ON ka.api_ptr_id = ao.api_id", s), {"ao"});
    b.join("la", fmt::format("LEFT JOIN {}.rocpd_api AS la ON la.id = ao.api_id", s), {"ao"});
    b.join("ln", fmt::format("LEFT JOIN {}.rocpd_string AS ln ON ln.id = la.apiName_id", s), {"ao", "la"});
    const char* dims[3][2] = {{"gridX", "workgroupX"}, {"gridY", "workgroupY"}, {"gridZ", "workgroupZ"}};
    for (int i = 0; i < 3; ++i) {
      b.col(canonical::kKernGridX + i,
            fmt::format("CASE WHEN ln.string IN ('hipExtModuleLaunchKernel', 'hipHccModuleLaunchKernel') "
                        "THEN ka.{0} ELSE ka.{0} * ka.{1} END",
                        dims[i][0], dims[i][1]),
            {"ao", "ka", "la", "ln"});
      b.col(canonical::kKernWorkgroupX + i, fmt::format("ka.{}", dims[i][1]), {"ao", "ka"});
    }
    b.col(canonical::kKernLdsBytes, "ka.groupSegmentSize", {"ao", "ka"});
    b.col(canonical::kKernScratchBytes, "ka.privateSegmentSize", {"ao", "ka"});
  } else {
    for (int c = canonical::kKernGridX; c <= canonical::kKernScratchBytes; ++c) b.col(c, "NULL");
  }
  // rpd records no register counts.
  for (int c : {canonical::kKernSgpr, canonical::kKernVgpr, canonical::kKernAgpr}) b.col(c, "NULL");
  return b.take();
}

// Copy ops with the size of their issuing call (rocpd_copyapi; '' = not recorded). The tracer
// swaps the device columns, and the roctracer source leaves them 0: the GPU at each end comes
// from the op's direction instead (the op runs on the GPU it names).
canonical::SourceSql copy_details(const canonical::Member& m, const canonical::Profile* p) {
  const std::string s = quote_id(m.schema);
  const RpdDetails& d = details(m);
  canonical::SourceBuilder b(s + ".rocpd_op", "o", canonical::kCopyColumnCount);
  op_columns(b, m, p,
             {canonical::kCopyPid, canonical::kCopyGpu, canonical::kCopyQueue, canonical::kCopyStream, canonical::kCopyName, canonical::kCopyStart, canonical::kCopyEnd, canonical::kCopyDuration,
              canonical::kCopyCorrelationId, canonical::kCopyOpId, canonical::kCopyGraphId});
  b.src().where = "o.opType_id IN " + string_ids(s, kCopyTypes, nullptr);
  if (d.has_api_ops && d.has_copyapi) {
    b.join("cp", fmt::format("LEFT JOIN {}.rocpd_copyapi AS cp ON cp.api_ptr_id = ao.api_id", s), {"ao"});
    b.col(canonical::kCopyBytes, "CASE WHEN cp.size <> '' THEN cp.size END", {"ao", "cp"});
  } else {
    b.col(canonical::kCopyBytes, "NULL");
  }
  const std::string gpu = decoded(d.gpu_stride, "o.gpuId");
  b.col(canonical::kCopySrcGpu, fmt::format("CASE WHEN t.string IN ('CopyDeviceToHost', 'CopyDeviceToDevice') THEN {} END", gpu),
        {"t"});
  b.col(canonical::kCopyDstGpu, fmt::format("CASE WHEN t.string IN ('CopyHostToDevice', 'CopyDeviceToDevice') THEN {} END", gpu),
        {"t"});
  return b.take();
}

// Post-processed counters (rocpd_counter: one value per op and counter, when a tool filled it).
canonical::SourceSql counters(const canonical::Member& m, const canonical::Profile* p) {
  const std::string s = quote_id(m.schema);
  const RpdDetails& d = details(m);
  canonical::SourceBuilder b(s + ".rocpd_counter", "c", canonical::kCntColumnCount);
  b.join("o", fmt::format("LEFT JOIN {}.rocpd_op AS o ON o.id = c.op_id", s));
  b.join("d", fmt::format("LEFT JOIN {}.rocpd_string AS d ON d.id = o.description_id", s), {"o"});
  b.join("n", fmt::format("LEFT JOIN {}.rocpd_string AS n ON n.id = c.name_id", s));
  issuing_call(b, m, p, "c.op_id", canonical::kCntPid);
  b.col(canonical::kCntGpu, decoded(d.gpu_stride, "o.gpuId"), {"o"});
  if (d.gpu_stride > 0) b.src().unpushable |= uint64_t{1} << canonical::kCntGpu;
  if (d.pid_stride > 0) b.src().unpushable |= uint64_t{1} << canonical::kCntPid;
  b.col(canonical::kCntOpId, "c.op_id");
  if (d.has_api_ops) b.col(canonical::kCntCorrelationId, "ao.api_id", {"ao"});
  else b.col(canonical::kCntCorrelationId, "NULL");
  b.col(canonical::kCntName, "d.string", {"o", "d"});
  b.col(canonical::kCntCounter, "n.string", {"n"});
  b.col(canonical::kCntValue, "c.value");
  b.col(canonical::kCntUnits, "NULL");
  b.col(canonical::kCntStart, "o.start", {"o"});
  b.col(canonical::kCntEnd, "o.\"end\"", {"o"});
  b.col(canonical::kCntId, "c.id");
  b.src().indexed = uint64_t{1} << canonical::kCntId;
  return b.take();
}

// API domain from the API name when the format records none: HIP and HSA calls are
// recognisable by prefix; roctx markers are apiName 'UserMarker'.
constexpr const char* kDomainFromName =
    "WHEN an.string LIKE 'hip%' THEN 'hip' WHEN an.string LIKE 'hsa%' THEN 'hsa' "
    "WHEN an.string LIKE 'rccl%' OR an.string LIKE 'nccl%' THEN 'rccl' ELSE NULL END";

canonical::SourceSql apis(const canonical::Member& m, sqlite3* db) {
  const std::string s = quote_id(m.schema);
  const RpdDetails& d = details(m);
  canonical::SourceBuilder b(s + ".rocpd_api", "a", canonical::kApisColumnCount);
  b.join("an", fmt::format("LEFT JOIN {}.rocpd_string AS an ON an.id = a.apiName_id", s));
  b.join("ar", fmt::format("LEFT JOIN {}.{} AS ar ON ar.id = a.args_id", s,
                           d.has_ustring ? "rocpd_ustring" : "rocpd_string"));
  if (d.has_api_domain) {
    b.join("dm", fmt::format("LEFT JOIN {}.rocpd_string AS dm ON dm.id = a.domain_id", s));
    b.join("ct", fmt::format("LEFT JOIN {}.rocpd_string AS ct ON ct.id = a.category_id", s));
    b.col(canonical::kApisDomain,
          std::string("CASE WHEN an.string = 'UserMarker' OR lower(dm.string) IN ('roctx', 'marker') THEN 'marker' "
                      "WHEN dm.string <> '' THEN lower(dm.string) ") +
              kDomainFromName,
          {"an", "dm"});
    b.col(canonical::kApisCategory, "ct.string", {"ct"});
  } else {
    b.col(canonical::kApisDomain, std::string("CASE WHEN an.string = 'UserMarker' THEN 'marker' ") + kDomainFromName, {"an"});
    b.col(canonical::kApisCategory, "NULL");
  }
  // domain = 'marker' without a string join per call: tested on the ids of the marker strings (the
  // same test as the CASE above).
  const std::string user_marker = string_ids(s, "string = 'UserMarker'", db);
  std::string marker = "a.apiName_id IN " + user_marker;
  if (d.has_api_domain) marker += " OR a.domain_id IN " + string_ids(s, "lower(string) IN ('roctx', 'marker')", db);
  b.src().predicate_column = canonical::kApisDomain;
  b.src().predicates["marker"] = marker;
  b.col(canonical::kApisPid, decoded(d.pid_stride, "a.pid"));
  b.col(canonical::kApisTid, decoded(d.pid_stride, "a.tid"));
  b.col(canonical::kApisNode, node_of(d.pid_stride, "a.pid"));
  if (d.pid_stride > 0)
    b.src().unpushable |= (uint64_t{1} << canonical::kApisPid) | (uint64_t{1} << canonical::kApisTid) | (uint64_t{1} << canonical::kApisNode);
  // A roctx marker's name is its message (rpd keeps it in the arguments).
  b.col(canonical::kApisName, "CASE WHEN an.string = 'UserMarker' THEN ar.string ELSE an.string END", {"an", "ar"});
  // The name is the API name's string, a marker's its arguments' string (user_marker: the same test
  // as the CASE).
  b.src().name_key = {"a.apiName_id", fmt::format("CASE WHEN a.apiName_id IN {} THEN a.args_id END", user_marker)};
  b.col(canonical::kApisArgs, "ar.string", {"ar"});
  b.col(canonical::kApisStart, "a.start");
  b.col(canonical::kApisEnd, "a.\"end\"");
  b.col(canonical::kApisDuration, canonical::duration_sql("a"));
  b.col(canonical::kApisCorrelationId, "a.id");
  b.col(canonical::kApisApiId, "a.id");
  b.src().indexed = (uint64_t{1} << canonical::kApisCorrelationId) | (uint64_t{1} << canonical::kApisApiId);
  return b.take();
}

// A multi-node stride tag (TEXT in the files); 0 when absent. A tag that is not a positive integer
// is refused: decoding with it would give wrong gpus and pids.
int64_t stride(MetadataTable& meta, const char* tag, const std::string& label) {
  const auto text = meta.value(tag);
  if (!text) return 0;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text->c_str(), &end, 10);
  if (end == text->c_str() || *end != '\0' || errno == ERANGE || v <= 0)
    throw Error(fmt::format("{}: rpd metadata {} is '{}', not a positive integer", label, tag, *text));
  return v;
}

class RpdAdapter : public FormatAdapter {
 public:
  const char* name() const override { return "rpd"; }

  bool claims(const Catalog& c) const override { return c.count("rocpd_op") || c.count("rocpd_metadata"); }

  canonical::FormatInfo probe(sqlite3* db, const std::string& schema, const Catalog& names,
                   const std::string& label) const override {
    canonical::FormatInfo info;
    auto d = std::make_shared<RpdDetails>();
    if (!names.count("rocpd_metadata"))
      throw Error(fmt::format("{}: rpd trace without rocpd_metadata (cannot tell its schema_version)", label));
    const std::string meta = quote_id(schema) + ".rocpd_metadata";
    MetadataTable tags(db, meta);
    auto version = tags.value("schema_version");
    if (!version) throw Error(fmt::format("{}: rpd trace without a schema_version in rocpd_metadata", label));
    info.version_text = *version;
    info.schema_version = major_version(*version);
    if (info.schema_version != 2 && info.schema_version != 3)
      throw Error(fmt::format("{}: unsupported rpd schema_version '{}' (supported: 2, 3)", label, *version));
    require_tables(names, {"rocpd_op", "rocpd_api", "rocpd_string"}, label, "rpd");
    d->has_ustring = names.count("rocpd_ustring") > 0;
    d->has_api_ops = names.count("rocpd_api_ops") > 0;
    const auto api_columns = column_names(db, schema, "rocpd_api");
    d->has_api_domain = api_columns.count("domain_id") && api_columns.count("category_id");
    if (info.schema_version == 3 && !d->has_ustring)
      throw Error(fmt::format("{}: rpd schema_version 3 trace lacks table rocpd_ustring", label));
    std::vector<TableColumns> tables = {
        {"rocpd_op",
         {{"gpuId", 'n'}, {"queueId", 'n'}, {"start", 'n'}, {"end", 'n'}, {"description_id", 'n'}, {"opType_id", 'n'}}},
        {"rocpd_api", {{"pid", 'n'}, {"tid", 'n'}, {"start", 'n'}, {"end", 'n'}, {"apiName_id", 'n'}, {"args_id", 'n'}}},
        {"rocpd_string", {{"string", 't'}}}};
    if (d->has_api_domain)
      tables[1].columns.insert(tables[1].columns.end(), {{"domain_id", 'n'}, {"category_id", 'n'}});
    if (d->has_ustring) tables.push_back({"rocpd_ustring", {{"string", 't'}}});
    if (d->has_api_ops) tables.push_back({"rocpd_api_ops", {{"api_id", 'n'}, {"op_id", 'n'}}});
    d->has_kernelapi = names.count("rocpd_kernelapi") > 0;
    d->has_copyapi = names.count("rocpd_copyapi") > 0;
    d->has_counter = names.count("rocpd_counter") > 0;
    if (d->has_kernelapi)
      tables.push_back({"rocpd_kernelapi",
                        {{"gridX", 'n'}, {"gridY", 'n'}, {"gridZ", 'n'}, {"workgroupX", 'n'}, {"workgroupY", 'n'},
                         {"workgroupZ", 'n'}, {"groupSegmentSize", 'n'}, {"privateSegmentSize", 'n'}},
                        "api_ptr_id"});
    // size is '' when not recorded, in files whose column is declared integer: no type check.
    if (d->has_copyapi) tables.push_back({"rocpd_copyapi", {}, "api_ptr_id"});
    if (d->has_counter) tables.push_back({"rocpd_counter", {{"value", 'n'}, {"op_id", 'n'}, {"name_id", 'n'}}});
    if (info.schema_version == 3) {
      d->gpu_stride = stride(tags, "gpu_stride", label);
      d->pid_stride = stride(tags, "pid_stride", label);
    }
    info.loose_types = !check_tables(db, schema, label, tables);
    if (auto host = tags.value("hostname")) info.hostname = *host;
    info.details = std::move(d);
    return info;
  }

  std::vector<canonical::SourceSql> sources(canonical::TableKind table, const canonical::Member& m, const canonical::Profile* profile,
                                 sqlite3* db) const override {
    switch (table) {
      case canonical::TableKind::Ops: return {ops(m, profile, db)};
      case canonical::TableKind::Apis: return {apis(m, db)};
      case canonical::TableKind::Kernels: return {kernel_details(m, profile)};
      case canonical::TableKind::Copies: return {copy_details(m, profile)};
      case canonical::TableKind::Counters:
        if (details(m).has_counter) return {counters(m, profile)};
        return {};
      case canonical::TableKind::Memory:     // rpd records allocations only as hipMalloc/hipFree calls
      case canonical::TableKind::HipEvents:  // and HIP events only as API calls
        return {};
    }
    return {};
  }

  bool needs_profile(canonical::TableKind table, uint64_t used) const override {
    switch (table) {
      case canonical::TableKind::Ops: return used & (uint64_t{1} << canonical::kOpsPid);
      case canonical::TableKind::Kernels: return used & (uint64_t{1} << canonical::kKernPid);
      case canonical::TableKind::Copies: return used & (uint64_t{1} << canonical::kCopyPid);
      case canonical::TableKind::Counters: return used & (uint64_t{1} << canonical::kCntPid);
      default: return false;
    }
  }
  bool session_ids() const override { return true; }
  bool cheap_op_pid() const override { return false; }
};

}  // namespace

const FormatAdapter& rpd_adapter() {
  static const RpdAdapter adapter;
  return adapter;
}

}  // namespace rocpd::formats
