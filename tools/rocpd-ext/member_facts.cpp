#include "member_facts.h"

#include <fmt/format.h>

namespace rocpd_cli {

namespace {
// rocpd_union over `object`, or no rows when no member holds it.
ResultSet union_rows(Session& session, const std::string& object, const std::string& select) {
  std::string table = "cli_" + object;
  try {
    session.run(fmt::format("CREATE VIRTUAL TABLE IF NOT EXISTS temp.{} USING rocpd_union({})", table, object));
  } catch (const CliError&) {
    return {};  // no member has the object
  }
  return session.run(fmt::format(fmt::runtime(select), "temp." + table));
}
}  // namespace

std::vector<MemberFacts> read_member_facts(Session& session) {
  std::vector<MemberFacts> out;
  std::map<std::string, size_t> index;
  ResultSet members = session.run(
      "SELECT m.db, m.format, m.version, m.uuid, r.run FROM rocpd_members AS m LEFT JOIN rocpd_runs AS r USING (db)"
      " ORDER BY m.db COLLATE rocpd_natural");
  std::set<std::string> formats;
  for (const auto& r : members.rows) {
    index[r[0].text] = out.size();
    out.push_back({r[0].text, r[1].text, r[2].text, r[3].text, r[4].text, {}, "", {}});
    formats.insert(r[1].text);
  }
  auto each = [&](const ResultSet& rs, auto&& f) {
    for (const auto& r : rs.rows)
      if (auto it = index.find(r[0].text); it != index.end() && r[1].type != Cell::Type::Null) f(out[it->second], r);
  };
  // The names the federation itself reads (nsys: TARGET_INFO_GPU), for any format that has them.
  each(session.run("SELECT m.db, g.value FROM rocpd_members AS m, json_each(m.gpu_names) AS g"
                   " WHERE m.gpu_names IS NOT NULL AND json_valid(m.gpu_names)"),
       [](MemberFacts& m, const auto& r) { m.devices.insert(r[1].text); });
  if (formats.count("kineto")) {
    each(union_rows(session, "kineto_devices", "SELECT DISTINCT db, name FROM {}"),
         [](MemberFacts& m, const auto& r) { m.devices.insert(r[1].text); });
    each(union_rows(session, "kineto_metadata",
                    "SELECT db, value, tag FROM {} WHERE tag = 'import.world_size' OR tag LIKE '%version' AND "
                    "tag NOT IN ('schemaVersion', 'import.layout_version')"),
         [](MemberFacts& m, const auto& r) {
           if (r[2].text == "import.world_size") m.world_size = r[1].text;
           else m.versions[r[2].text] = r[1].text;
         });
  }
  if (formats.count("nsys")) {
    each(union_rows(session, "TARGET_INFO_SYSTEM_ENV",
                    "SELECT DISTINCT db, value, name FROM {} WHERE name IN ('NvDriverVersion', 'CudaDriverVersion')"),
         [](MemberFacts& m, const auto& r) {
           m.versions[r[2].text == "NvDriverVersion" ? "nvidia driver" : "cuda driver"] = r[1].text;
         });
    each(union_rows(session, "META_DATA_EXPORT", "SELECT db, value FROM {} WHERE name = 'EXPORT_PRODUCT_VERSION'"),
         [](MemberFacts& m, const auto& r) { m.versions["nsight systems"] = r[1].text; });
  }
  if (formats.count("rocpd")) {
    each(union_rows(session, "rocpd_info_agent",
                    "SELECT DISTINCT db, coalesce(nullif(product_name, ''), name) FROM {} WHERE type = 'GPU'"),
         [](MemberFacts& m, const auto& r) { m.devices.insert(r[1].text); });
  }
  return out;
}

}  // namespace rocpd_cli
