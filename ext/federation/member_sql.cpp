#include "federation/member_sql.h"

#include <fmt/format.h>

#include "federation/member_probe.h"

namespace rocpd::federation {

namespace {

// Helps declare a source: joins by name, expressions with the joins they use.
struct SourceBuilder {
  SourceSql src;
  std::vector<std::string> join_names;

  explicit SourceBuilder(std::string from, size_t columns) {
    src.from = std::move(from);
    src.expr.assign(columns, "");
    src.expr_joins.assign(columns, 0);
  }
  uint32_t mask(std::initializer_list<const char*> names) const {
    uint32_t m = 0;
    for (const char* n : names)
      for (size_t i = 0; i < join_names.size(); ++i)
        if (join_names[i] == n) m |= 1u << i;
    return m;
  }
  void join(const char* name, std::string clause, std::initializer_list<const char*> deps = {}) {
    if (src.joins.size() >= 32) throw Error("rocpd: too many joins in a member source");
    src.join_deps.push_back(mask(deps));
    src.joins.push_back(std::move(clause));
    join_names.emplace_back(name);
  }
  void col(int c, std::string expr, std::initializer_list<const char*> joins = {}) {
    src.expr[c] = std::move(expr);
    src.expr_joins[c] = mask(joins);
  }
};

// One rule for every duration (docs/federation.md): end - start, and 0 for a reversed op
// (end < start), as every interval function counts it; NULL when a bound is NULL.
std::string duration_of(const char* alias) {
  return fmt::format("max({0}.\"end\" - {0}.start, 0)", alias);
}

std::string rpd_pid_expr(const Member& m, const Profile* p) {
  if (p && p->session_pid_exact && !p->session_pid.empty()) {
    if (p->session_pid.size() == 1) return std::to_string(p->session_pid.begin()->second);
    std::string e = "CASE (o.id >> 32)";
    for (auto [session, pid] : p->session_pid) e += fmt::format(" WHEN {} THEN {}", session, pid);
    return e + " END";
  }
  if (!m.info.has_api_ops) return "NULL";
  return fmt::format("(SELECT a.pid FROM {}.rocpd_api AS a WHERE a.id = ao.api_id)", quote_id(m.schema));
}

// rpd opType -> canonical kind. Kinds are tested on the op type's string id, never by joining
// the string per row: with the member's connection, the ids are listed literally; without it,
// uncorrelated IN subqueries (evaluated once per query) stand in.
struct KindIds {
  std::map<std::string, std::string> lists;  // kind -> "(id, id...)" or "(SELECT id ...)"
};

KindIds rpd_kind_ids(const std::string& schema, sqlite3* db) {
  static const std::vector<std::pair<const char*, const char*>> kinds = {
      {"kernel", "string IN ('KernelExecution', 'Task')"},
      {"copy", "string LIKE 'Copy%'"},
      {"barrier", "string LIKE 'Barrier%'"},
      {"fill", "string = 'FillBuffer'"}};
  KindIds k;
  for (const auto& [kind, where] : kinds) {
    const std::string select = fmt::format("SELECT id FROM {}.rocpd_string WHERE {}", schema, where);
    if (!db) {
      k.lists[kind] = "(" + select + ")";
      continue;
    }
    auto stmt = prepare(db, select);
    std::vector<int64_t> ids;
    while (step(stmt.get())) ids.push_back(sqlite3_column_int64(stmt.get(), 0));
    k.lists[kind] = fmt::format("({})", fmt::join(ids, ", "));
  }
  return k;
}

void set_rpd_kind(SourceBuilder& b, const KindIds& k) {
  std::string expr = "CASE";
  std::vector<std::string> all;
  for (const char* kind : {"kernel", "copy", "barrier", "fill"}) {
    const std::string pred = "o.opType_id IN " + k.lists.at(kind);
    expr += fmt::format(" WHEN {} THEN '{}'", pred, kind);
    b.src.predicates[kind] = pred;
    all.push_back(pred);
  }
  // NULL when opType_id is NULL: coalesce, so that such an op (whose kind reads 'other') matches.
  b.src.predicates["other"] = fmt::format("NOT coalesce({}, 0)", fmt::join(all, " OR "));
  b.col(kOpsKind, expr + " ELSE 'other' END");
  b.src.predicate_column = kOpsKind;
}

SourceSql rpd_ops(const Member& m, const Profile* p, sqlite3* db) {
  const std::string s = quote_id(m.schema);
  SourceBuilder b(s + ".rocpd_op AS o", kOpsColumnCount);
  b.join("t", fmt::format("LEFT JOIN {}.rocpd_string AS t ON t.id = o.opType_id", s));
  b.join("d", fmt::format("LEFT JOIN {}.rocpd_string AS d ON d.id = o.description_id", s));
  // One issuing call per op even when the link table lists several (the first by id).
  if (m.info.has_api_ops)
    b.join("ao", fmt::format("LEFT JOIN (SELECT op_id, min(api_id) AS api_id FROM {}.rocpd_api_ops GROUP BY op_id) "
                             "AS ao ON ao.op_id = o.id",
                             s));
  const bool link = m.info.has_api_ops;
  const std::string pid = rpd_pid_expr(m, p);
  if (pid.find("ao.") != std::string::npos) b.col(kOpsPid, pid, {"ao"});
  else b.col(kOpsPid, pid);
  b.col(kOpsGpu, "o.gpuId");
  b.col(kOpsQueue, "o.queueId");
  b.col(kOpsStream, "NULL");
  set_rpd_kind(b, rpd_kind_ids(s, db));
  // Copies and barriers have an empty description: they are named by their op type. A
  // description id that names no string gives NULL.
  b.col(kOpsName, "CASE WHEN d.string <> '' THEN d.string WHEN d.string = '' THEN t.string END", {"t", "d"});
  b.col(kOpsStart, "o.start");
  b.col(kOpsEnd, "o.\"end\"");
  b.col(kOpsDuration, duration_of("o"));
  if (link) b.col(kOpsCorrelationId, "ao.api_id", {"ao"});
  else b.col(kOpsCorrelationId, "NULL");
  b.col(kOpsOpId, "o.id");
  b.src.rowid = "o.id";
  b.src.indexed = uint64_t{1} << kOpsOpId;
  return b.src;
}

std::string rocpd_table(const Member& m, const char* name) {
  return quote_id(m.schema) + "." + quote_id(name + m.info.table_suffix);
}

// rocprofv3 keeps the internal correlation id (the one linking an API call to the dispatch or
// copy it issued) in rocpd_event.stack_id; rocpd_event.correlation_id holds the external id
// (a user-supplied value, usually 0).
SourceSql rocpd_kernels(const Member& m) {
  SourceBuilder b(rocpd_table(m, "rocpd_kernel_dispatch") + " AS k", kOpsColumnCount);
  b.join("a", fmt::format("LEFT JOIN {} AS a ON a.id = k.agent_id", rocpd_table(m, "rocpd_info_agent")));
  b.join("ks", fmt::format("LEFT JOIN {} AS ks ON ks.id = k.kernel_id", rocpd_table(m, "rocpd_info_kernel_symbol")));
  b.join("e", fmt::format("LEFT JOIN {} AS e ON e.id = k.event_id", rocpd_table(m, "rocpd_event")));
  b.col(kOpsPid, "k.pid");
  b.col(kOpsGpu, "a.type_index", {"a"});
  b.col(kOpsQueue, "k.queue_id");
  b.col(kOpsStream, "k.stream_id");
  b.col(kOpsKind, "'kernel'");
  b.col(kOpsName, "ks.kernel_name", {"ks"});
  b.col(kOpsStart, "k.start");
  b.col(kOpsEnd, "k.\"end\"");
  b.col(kOpsDuration, duration_of("k"));
  b.col(kOpsCorrelationId, "e.stack_id", {"e"});
  b.col(kOpsOpId, "k.id");
  b.src.rowid = "k.id";
  b.src.indexed = uint64_t{1} << kOpsOpId;
  return b.src;
}

SourceSql rocpd_copies(const Member& m) {
  SourceBuilder b(rocpd_table(m, "rocpd_memory_copy") + " AS c", kOpsColumnCount);
  b.join("n", fmt::format("LEFT JOIN {} AS n ON n.id = c.name_id", rocpd_table(m, "rocpd_string")));
  b.join("da", fmt::format("LEFT JOIN {} AS da ON da.id = c.dst_agent_id", rocpd_table(m, "rocpd_info_agent")));
  b.join("sa", fmt::format("LEFT JOIN {} AS sa ON sa.id = c.src_agent_id", rocpd_table(m, "rocpd_info_agent")));
  b.join("e", fmt::format("LEFT JOIN {} AS e ON e.id = c.event_id", rocpd_table(m, "rocpd_event")));
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
  b.col(kOpsDuration, duration_of("c"));
  b.col(kOpsCorrelationId, "e.stack_id", {"e"});
  b.col(kOpsOpId, "c.id");
  b.src.rowid = "c.id";
  b.src.indexed = uint64_t{1} << kOpsOpId;
  return b.src;
}

// API domain from the API name when the format records none: HIP and HSA calls are
// recognisable by prefix; roctx markers are apiName 'UserMarker'.
constexpr const char* kRpdDomainFromName =
    "WHEN an.string LIKE 'hip%' THEN 'hip' WHEN an.string LIKE 'hsa%' THEN 'hsa' "
    "WHEN an.string LIKE 'rccl%' OR an.string LIKE 'nccl%' THEN 'rccl' ELSE NULL END";

SourceSql rpd_apis(const Member& m) {
  const std::string s = quote_id(m.schema);
  SourceBuilder b(s + ".rocpd_api AS a", kApisColumnCount);
  b.join("an", fmt::format("LEFT JOIN {}.rocpd_string AS an ON an.id = a.apiName_id", s));
  b.join("ar", fmt::format("LEFT JOIN {}.{} AS ar ON ar.id = a.args_id", s,
                           m.info.has_ustring ? "rocpd_ustring" : "rocpd_string"));
  if (m.info.has_api_domain) {
    b.join("dm", fmt::format("LEFT JOIN {}.rocpd_string AS dm ON dm.id = a.domain_id", s));
    b.join("ct", fmt::format("LEFT JOIN {}.rocpd_string AS ct ON ct.id = a.category_id", s));
    b.col(kApisDomain,
          std::string("CASE WHEN an.string = 'UserMarker' OR lower(dm.string) IN ('roctx', 'marker') THEN 'marker' "
                      "WHEN dm.string <> '' THEN lower(dm.string) ") +
              kRpdDomainFromName,
          {"an", "dm"});
    b.col(kApisCategory, "ct.string", {"ct"});
  } else {
    b.col(kApisDomain, std::string("CASE WHEN an.string = 'UserMarker' THEN 'marker' ") + kRpdDomainFromName, {"an"});
    b.col(kApisCategory, "NULL");
  }
  b.col(kApisPid, "a.pid");
  b.col(kApisTid, "a.tid");
  // A roctx marker's name is its message (rpd keeps it in the arguments).
  b.col(kApisName, "CASE WHEN an.string = 'UserMarker' THEN ar.string ELSE an.string END", {"an", "ar"});
  b.col(kApisArgs, "ar.string", {"ar"});
  b.col(kApisStart, "a.start");
  b.col(kApisEnd, "a.\"end\"");
  b.col(kApisDuration, duration_of("a"));
  b.col(kApisCorrelationId, "a.id");
  b.col(kApisApiId, "a.id");
  b.src.rowid = "a.id";
  b.src.indexed = (uint64_t{1} << kApisCorrelationId) | (uint64_t{1} << kApisApiId);
  return b.src;
}

SourceSql rocpd_regions(const Member& m) {
  SourceBuilder b(rocpd_table(m, "rocpd_region") + " AS r", kApisColumnCount);
  b.join("n", fmt::format("LEFT JOIN {} AS n ON n.id = r.name_id", rocpd_table(m, "rocpd_string")));
  b.join("e", fmt::format("LEFT JOIN {} AS e ON e.id = r.event_id", rocpd_table(m, "rocpd_event")));
  b.join("ct", fmt::format("LEFT JOIN {} AS ct ON ct.id = e.category_id", rocpd_table(m, "rocpd_string")), {"e"});
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
  b.col(kApisDuration, duration_of("r"));
  b.col(kApisCorrelationId, "e.stack_id", {"e"});
  b.col(kApisApiId, "r.id");
  b.src.rowid = "r.id";
  b.src.indexed = uint64_t{1} << kApisApiId;
  return b.src;
}

// Instant roctx marks: rocprofv3 writes them as samples on a track (its `sample_regions` view),
// the message in the event's extdata, else the track's name.
SourceSql rocpd_marks(const Member& m) {
  SourceBuilder b(rocpd_table(m, "rocpd_sample") + " AS sm", kApisColumnCount);
  // Only the event and its category decide which samples are marks (the source's WHERE, always
  // joined); every other join is LEFT, so the rows never depend on the columns selected.
  b.join("tr", fmt::format("LEFT JOIN {} AS tr ON tr.id = sm.track_id", rocpd_table(m, "rocpd_track")));
  b.join("e", fmt::format("JOIN {} AS e ON e.id = sm.event_id", rocpd_table(m, "rocpd_event")));
  b.join("ct", fmt::format("JOIN {} AS ct ON ct.id = e.category_id", rocpd_table(m, "rocpd_string")), {"e"});
  b.join("tn", fmt::format("LEFT JOIN {} AS tn ON tn.id = tr.name_id", rocpd_table(m, "rocpd_string")), {"tr"});
  b.src.where = "ct.string LIKE 'MARKER%'";
  b.src.where_joins = b.mask({"e", "ct"});
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
  b.src.rowid = "sm.id";
  b.src.indexed = uint64_t{1} << kApisApiId;
  // A message in JSON may be a number: comparing it inside the member would not be the
  // comparison of the text SQLite sees.
  b.src.unpushable = uint64_t{1} << kApisName;
  return b.src;
}

}  // namespace

std::vector<SourceSql> op_sources(const Member& m, const Profile* profile, sqlite3* db) {
  if (m.info.format == Format::Rpd) return {rpd_ops(m, profile, db)};
  return {rocpd_kernels(m), rocpd_copies(m)};
}

std::vector<SourceSql> api_sources(const Member& m) {
  if (m.info.format == Format::Rpd) return {rpd_apis(m)};
  if (!m.info.has_marker_samples) return {rocpd_regions(m)};
  return {rocpd_regions(m), rocpd_marks(m)};
}

std::vector<SourceSql> sources_for(TableKind kind, const Member& m, const Profile* profile, sqlite3* db) {
  return kind == TableKind::Ops ? op_sources(m, profile, db) : api_sources(m);
}

void shape_sources(Member& m) {
  m.op_shapes.clear();
  m.api_shapes.clear();
  for (const auto& s : op_sources(m, nullptr)) m.op_shapes.push_back({s.indexed, s.unpushable});
  for (const auto& s : api_sources(m)) m.api_shapes.push_back({s.indexed, s.unpushable});
}

const char* constraint_sql_op(unsigned char op) {
  switch (op) {
    case SQLITE_INDEX_CONSTRAINT_EQ: return "=";
    case SQLITE_INDEX_CONSTRAINT_GT: return ">";
    case SQLITE_INDEX_CONSTRAINT_GE: return ">=";
    case SQLITE_INDEX_CONSTRAINT_LT: return "<";
    case SQLITE_INDEX_CONSTRAINT_LE: return "<=";
    case SQLITE_INDEX_CONSTRAINT_NE: return "<>";
    case SQLITE_INDEX_CONSTRAINT_LIKE: return "LIKE";
    case SQLITE_INDEX_CONSTRAINT_GLOB: return "GLOB";
    default: return nullptr;
  }
}

unsigned char constraint_op_from_sql(std::string_view sql) {
  for (unsigned char op : {SQLITE_INDEX_CONSTRAINT_EQ, SQLITE_INDEX_CONSTRAINT_GT, SQLITE_INDEX_CONSTRAINT_GE,
                           SQLITE_INDEX_CONSTRAINT_LT, SQLITE_INDEX_CONSTRAINT_LE, SQLITE_INDEX_CONSTRAINT_NE,
                           SQLITE_INDEX_CONSTRAINT_LIKE, SQLITE_INDEX_CONSTRAINT_GLOB})
    if (sql == constraint_sql_op(op)) return op;
  return 0;
}

bool uses_kind(TableKind table, uint64_t used, std::span<const PushedConstraint> pushed) {
  if (table != TableKind::Ops) return false;
  if (used & (uint64_t{1} << kOpsKind)) return true;
  for (const auto& c : pushed)
    if (c.column == kOpsKind) return true;
  return false;
}

namespace {
const char* collate_clause(Collation c) {
  switch (c) {
    case Collation::NoCase: return " COLLATE NOCASE";
    case Collation::RTrim: return " COLLATE RTRIM";
    default: return "";
  }
}
}  // namespace

MemberQuery build_member_query(const SourceSql& src, uint64_t used, std::span<const PushedConstraint> constraints,
                               bool rowid_range) {
  MemberQuery q;
  const size_t ncol = src.expr.size();
  q.select_index.assign(ncol, -1);
  uint32_t joins = 0;
  std::string select = src.rowid;
  int n = 1;
  for (size_t c = 0; c < ncol; ++c) {
    if (!(used & (uint64_t{1} << c)) || src.expr[c].empty()) continue;
    select += ", ";
    select += src.expr[c];
    joins |= src.expr_joins[c];
    q.select_index[c] = n++;
  }
  std::string where = src.where.empty() ? "" : " WHERE (" + src.where + ")";
  joins |= src.where_joins;
  int param = 0;
  for (const auto& con : constraints) {
    ++param;
    if (src.expr[static_cast<size_t>(con.column)].empty()) continue;  // computed outside SQL
    where += where.empty() ? " WHERE " : " AND ";
    if (con.value && con.column == src.predicate_column && con.op == SQLITE_INDEX_CONSTRAINT_EQ &&
        con.collation == Collation::Binary) {
      const auto* text = sqlite3_value_type(con.value) == SQLITE_TEXT ? sqlite3_value_text(con.value) : nullptr;
      auto it = text ? src.predicates.find(reinterpret_cast<const char*>(text)) : src.predicates.end();
      if (it != src.predicates.end()) {
        where += "(" + it->second + ")";
        continue;
      }
    }
    where += fmt::format("{} {} ?{}{}", src.expr[static_cast<size_t>(con.column)], constraint_sql_op(con.op), param,
                         collate_clause(con.collation));
    joins |= src.expr_joins[static_cast<size_t>(con.column)];
  }
  if (rowid_range) {
    q.rowid_param = param + 1;
    where += where.empty() ? " WHERE " : " AND ";
    where += fmt::format("{} BETWEEN ?{} AND ?{}", src.rowid, param + 1, param + 2);
  }
  // Close the join set under dependencies (a join may need an earlier one).
  for (size_t j = src.joins.size(); j-- > 0;)
    if (joins & (1u << j)) joins |= src.join_deps[j];
  std::string sql = "SELECT " + select + " FROM " + src.from;
  for (size_t j = 0; j < src.joins.size(); ++j)
    if (joins & (1u << j)) sql += " " + src.joins[j];
  q.sql = sql + where;
  return q;
}

void bind_constraints(sqlite3_stmt* stmt, std::span<const PushedConstraint> constraints) {
  int param = 0;
  for (const auto& con : constraints) {
    ++param;
    if (con.value) sqlite3_bind_value(stmt, param, con.value);
  }
}

}  // namespace rocpd::federation
