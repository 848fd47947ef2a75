// rpd (rocmProfileData), schema 2 and 3: rocpd_op / rocpd_api / rocpd_string (+ rocpd_ustring in
// v3), ops linked to their issuing call through rocpd_api_ops. Several processes may append to
// one file, each as a "session" whose ids are offset by session << 32 (schema/rpd_v3.sql).
#include <fmt/format.h>

#include "formats/rpd.h"
#include "formats/probe_util.h"

namespace rocpd::federation {

namespace {

const RpdDetails& details(const Member& m) { return static_cast<const RpdDetails&>(*m.info.details); }

std::string pid_expr(const Member& m, const Profile* p) {
  if (p && p->session_pid_exact && !p->session_pid.empty()) {
    if (p->session_pid.size() == 1) return std::to_string(p->session_pid.begin()->second);
    std::string e = "CASE (o.id >> 32)";
    for (auto [session, pid] : p->session_pid) e += fmt::format(" WHEN {} THEN {}", session, pid);
    return e + " END";
  }
  if (!details(m).has_api_ops) return "NULL";
  return fmt::format("(SELECT a.pid FROM {}.rocpd_api AS a WHERE a.id = ao.api_id)", quote_id(m.schema));
}

// opType -> canonical kind. Kinds are tested on the op type's string id, never by joining the
// string per row: with the member's connection, the ids are listed literally; without it,
// uncorrelated IN subqueries (evaluated once per query) stand in.
std::map<std::string, std::string> kind_id_lists(const std::string& schema, sqlite3* db) {
  static const std::vector<std::pair<const char*, const char*>> kinds = {
      {"kernel", "string IN ('KernelExecution', 'Task')"},
      {"copy", "string LIKE 'Copy%'"},
      {"barrier", "string LIKE 'Barrier%'"},
      {"fill", "string = 'FillBuffer'"}};
  std::map<std::string, std::string> lists;
  for (const auto& [kind, where] : kinds) {
    const std::string select = fmt::format("SELECT id FROM {}.rocpd_string WHERE {}", schema, where);
    if (!db) {
      lists[kind] = "(" + select + ")";
      continue;
    }
    auto stmt = prepare(db, select);
    std::vector<int64_t> ids;
    while (step(stmt.get())) ids.push_back(sqlite3_column_int64(stmt.get(), 0));
    lists[kind] = fmt::format("({})", fmt::join(ids, ", "));
  }
  return lists;
}

void set_kind(SourceBuilder& b, const std::map<std::string, std::string>& lists) {
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
  b.col(kOpsKind, expr + " ELSE 'other' END");
  b.src().predicate_column = kOpsKind;
}

SourceSql ops(const Member& m, const Profile* p, sqlite3* db) {
  const std::string s = quote_id(m.schema);
  SourceBuilder b(s + ".rocpd_op", "o", kOpsColumnCount);
  b.join("t", fmt::format("LEFT JOIN {}.rocpd_string AS t ON t.id = o.opType_id", s));
  b.join("d", fmt::format("LEFT JOIN {}.rocpd_string AS d ON d.id = o.description_id", s));
  const bool link = details(m).has_api_ops;
  // One issuing call per op even when the link table lists several (the first by id).
  if (link)
    b.join("ao", fmt::format("LEFT JOIN (SELECT op_id, min(api_id) AS api_id FROM {}.rocpd_api_ops GROUP BY op_id) "
                             "AS ao ON ao.op_id = o.id",
                             s));
  const std::string pid = pid_expr(m, p);
  if (pid.find("ao.") != std::string::npos) b.col(kOpsPid, pid, {"ao"});
  else b.col(kOpsPid, pid);
  b.col(kOpsGpu, "o.gpuId");
  b.col(kOpsQueue, "o.queueId");
  b.col(kOpsStream, "NULL");
  set_kind(b, kind_id_lists(s, db));
  // Copies and barriers have an empty description: they are named by their op type. A
  // description id that names no string gives NULL.
  b.col(kOpsName, "CASE WHEN d.string <> '' THEN d.string WHEN d.string = '' THEN t.string END", {"t", "d"});
  b.col(kOpsStart, "o.start");
  b.col(kOpsEnd, "o.\"end\"");
  b.col(kOpsDuration, duration_sql("o"));
  if (link) b.col(kOpsCorrelationId, "ao.api_id", {"ao"});
  else b.col(kOpsCorrelationId, "NULL");
  b.col(kOpsOpId, "o.id");
  // op_id is the primary key, but a lookup that needs the API link materialises the link table:
  // the cursor's lookup index serves those better (federated_table.cpp).
  b.src().indexed = link ? 0 : uint64_t{1} << kOpsOpId;
  return b.take();
}

// API domain from the API name when the format records none: HIP and HSA calls are
// recognisable by prefix; roctx markers are apiName 'UserMarker'.
constexpr const char* kDomainFromName =
    "WHEN an.string LIKE 'hip%' THEN 'hip' WHEN an.string LIKE 'hsa%' THEN 'hsa' "
    "WHEN an.string LIKE 'rccl%' OR an.string LIKE 'nccl%' THEN 'rccl' ELSE NULL END";

SourceSql apis(const Member& m) {
  const std::string s = quote_id(m.schema);
  const RpdDetails& d = details(m);
  SourceBuilder b(s + ".rocpd_api", "a", kApisColumnCount);
  b.join("an", fmt::format("LEFT JOIN {}.rocpd_string AS an ON an.id = a.apiName_id", s));
  b.join("ar", fmt::format("LEFT JOIN {}.{} AS ar ON ar.id = a.args_id", s,
                           d.has_ustring ? "rocpd_ustring" : "rocpd_string"));
  if (d.has_api_domain) {
    b.join("dm", fmt::format("LEFT JOIN {}.rocpd_string AS dm ON dm.id = a.domain_id", s));
    b.join("ct", fmt::format("LEFT JOIN {}.rocpd_string AS ct ON ct.id = a.category_id", s));
    b.col(kApisDomain,
          std::string("CASE WHEN an.string = 'UserMarker' OR lower(dm.string) IN ('roctx', 'marker') THEN 'marker' "
                      "WHEN dm.string <> '' THEN lower(dm.string) ") +
              kDomainFromName,
          {"an", "dm"});
    b.col(kApisCategory, "ct.string", {"ct"});
  } else {
    b.col(kApisDomain, std::string("CASE WHEN an.string = 'UserMarker' THEN 'marker' ") + kDomainFromName, {"an"});
    b.col(kApisCategory, "NULL");
  }
  b.col(kApisPid, "a.pid");
  b.col(kApisTid, "a.tid");
  // A roctx marker's name is its message (rpd keeps it in the arguments).
  b.col(kApisName, "CASE WHEN an.string = 'UserMarker' THEN ar.string ELSE an.string END", {"an", "ar"});
  b.col(kApisArgs, "ar.string", {"ar"});
  b.col(kApisStart, "a.start");
  b.col(kApisEnd, "a.\"end\"");
  b.col(kApisDuration, duration_sql("a"));
  b.col(kApisCorrelationId, "a.id");
  b.col(kApisApiId, "a.id");
  b.src().indexed = (uint64_t{1} << kApisCorrelationId) | (uint64_t{1} << kApisApiId);
  return b.take();
}

class RpdAdapter : public FormatAdapter {
 public:
  const char* name() const override { return "rpd"; }

  bool claims(const Catalog& c) const override { return c.count("rocpd_op") || c.count("rocpd_metadata"); }

  FormatInfo probe(sqlite3* db, const std::string& schema, const Catalog& names,
                   const std::string& label) const override {
    FormatInfo info;
    auto d = std::make_shared<RpdDetails>();
    if (!names.count("rocpd_metadata"))
      throw Error(fmt::format("{}: rpd trace without rocpd_metadata (cannot tell its schema_version)", label));
    const std::string meta = quote_id(schema) + ".rocpd_metadata";
    auto version = metadata_value(db, meta, "schema_version");
    if (!version) throw Error(fmt::format("{}: rpd trace without a schema_version in rocpd_metadata", label));
    info.version_text = *version;
    info.schema_version = major_version(*version);
    if (info.schema_version != 2 && info.schema_version != 3)
      throw Error(fmt::format("{}: unsupported rpd schema_version '{}' (supported: 2, 3)", label, *version));
    require_tables(names, {"rocpd_op", "rocpd_api", "rocpd_string"}, label, "rpd");
    d->has_ustring = names.count("rocpd_ustring") > 0;
    d->has_api_ops = names.count("rocpd_api_ops") > 0;
    d->has_api_domain =
        has_column(db, schema, "rocpd_api", "domain_id") && has_column(db, schema, "rocpd_api", "category_id");
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
    info.loose_types = !check_tables(db, schema, label, tables);
    if (auto host = metadata_value(db, meta, "hostname")) info.hostname = *host;
    info.details = std::move(d);
    return info;
  }

  std::vector<SourceSql> sources(TableKind table, const Member& m, const Profile* profile,
                                 sqlite3* db) const override {
    switch (table) {
      case TableKind::Ops: return {ops(m, profile, db)};
      case TableKind::Apis: return {apis(m)};
    }
    return {};
  }

  bool needs_profile(TableKind table, uint64_t used) const override {
    return table == TableKind::Ops && (used & (uint64_t{1} << kOpsPid));
  }
  bool session_ids() const override { return true; }
  bool cheap_op_pid() const override { return false; }
};

}  // namespace

const FormatAdapter& rpd_adapter() {
  static const RpdAdapter adapter;
  return adapter;
}

}  // namespace rocpd::federation
