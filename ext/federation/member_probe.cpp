#include "federation/member_probe.h"

#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <set>

#include "common/affinity.h"

namespace rocpd::federation {

const char* format_name(Format f) { return f == Format::Rpd ? "rpd" : "rocpd"; }

std::string quote_id(const std::string& id) {
  std::string out = "\"";
  for (char c : id) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

namespace {

std::set<std::string> catalog(sqlite3* db, const std::string& schema) {
  auto stmt = prepare(db, fmt::format("SELECT name FROM {}.sqlite_master WHERE type IN ('table','view')",
                                      quote_id(schema)));
  std::set<std::string> names;
  while (step(stmt.get())) names.emplace(column_text(stmt.get(), 0));
  return names;
}

std::optional<std::string> metadata_value(sqlite3* db, const std::string& table, const char* tag) {
  auto stmt = prepare(db, fmt::format("SELECT value FROM {} WHERE tag = ?1 ORDER BY id LIMIT 1", table));
  sqlite3_bind_text(stmt.get(), 1, tag, -1, SQLITE_STATIC);
  if (!step(stmt.get()) || sqlite3_column_type(stmt.get(), 0) == SQLITE_NULL) return std::nullopt;
  return std::string(column_text(stmt.get(), 0));
}

bool has_column(sqlite3* db, const std::string& schema, const std::string& table, const char* column) {
  auto stmt = prepare(db, "SELECT 1 FROM pragma_table_info(?1, ?2) WHERE name = ?3");
  sqlite3_bind_text(stmt.get(), 1, table.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt.get(), 2, schema.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt.get(), 3, column, -1, SQLITE_STATIC);
  return step(stmt.get());
}

// "3", "3.0.0" -> 3; anything else -> -1.
int major_version(const std::string& text) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || (*end != '\0' && *end != '.') || v < 0 || v > 1000000) return -1;
  return static_cast<int>(v);
}

// The columns the canonical tables read from one member table: 'n' numeric, 't' text.
struct TableColumns {
  std::string table;
  std::vector<std::pair<const char*, char>> columns;
};

// Checks that `t` is a table whose `id` is its INTEGER PRIMARY KEY (every lookup joins on it, and
// a key that could repeat would duplicate rows) and that it has the columns read; returns false
// when a column's declared affinity is not the one the format uses.
bool check_table(sqlite3* db, const std::string& schema, const std::string& label, const TableColumns& t) {
  auto kind = prepare(db, fmt::format("SELECT type FROM {}.sqlite_master WHERE name = ?1", quote_id(schema)));
  sqlite3_bind_text(kind.get(), 1, t.table.c_str(), -1, SQLITE_TRANSIENT);
  if (!step(kind.get())) throw Error(fmt::format("{}: trace lacks table {}", label, t.table));
  if (column_text(kind.get(), 0) != "table")
    throw Error(fmt::format("{}: {} is a {}, not a table", label, t.table, column_text(kind.get(), 0)));
  auto info = prepare(db, "SELECT name, type, pk FROM pragma_table_xinfo(?1, ?2)");
  sqlite3_bind_text(info.get(), 1, t.table.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(info.get(), 2, schema.c_str(), -1, SQLITE_TRANSIENT);
  std::map<std::string, std::string> types;
  int pk_columns = 0;
  bool id_is_rowid = false;
  while (step(info.get())) {
    const std::string name(column_text(info.get(), 0));
    std::string type(column_text(info.get(), 1));
    types[name] = type;
    if (sqlite3_column_int(info.get(), 2) > 0) ++pk_columns;
    for (auto& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (name == "id" && type == "INTEGER" && sqlite3_column_int(info.get(), 2) == 1) id_is_rowid = true;
  }
  if (!id_is_rowid || pk_columns != 1)
    throw Error(fmt::format("{}: table {}: column id is not its INTEGER PRIMARY KEY, so rows cannot be told apart",
                            label, t.table));
  auto without_rowid = prepare(db, fmt::format("SELECT 1 FROM {}.sqlite_master WHERE name = ?1 AND sql LIKE "
                                               "'%WITHOUT%ROWID%'",
                                               quote_id(schema)));
  sqlite3_bind_text(without_rowid.get(), 1, t.table.c_str(), -1, SQLITE_TRANSIENT);
  if (step(without_rowid.get()))
    throw Error(fmt::format("{}: table {} is a WITHOUT ROWID table, which no tracer writes", label, t.table));
  bool exact = true;
  for (const auto& [column, want] : t.columns) {
    auto it = types.find(column);
    if (it == types.end()) throw Error(fmt::format("{}: table {} lacks column {}", label, t.table, column));
    const Affinity a = affinity_of(it->second);
    if (want == 'n' ? !numeric_affinity(a) : a != Affinity::Text) exact = false;
  }
  return exact;
}

bool check_tables(sqlite3* db, const std::string& schema, const std::string& label,
                  const std::vector<TableColumns>& tables) {
  bool exact = true;
  for (const auto& t : tables) exact = check_table(db, schema, label, t) && exact;
  return exact;
}

void require_tables(const std::set<std::string>& names, const std::vector<std::string>& needed,
                    const std::string& label, const char* what) {
  for (const auto& t : needed)
    if (!names.count(t)) throw Error(fmt::format("{}: {} trace lacks table {}", label, what, t));
}

FormatInfo probe_rpd(sqlite3* db, const std::string& schema, const std::string& label,
                     const std::set<std::string>& names) {
  FormatInfo info;
  info.format = Format::Rpd;
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
  info.has_ustring = names.count("rocpd_ustring") > 0;
  info.has_api_ops = names.count("rocpd_api_ops") > 0;
  info.has_api_domain = has_column(db, schema, "rocpd_api", "domain_id") &&
                        has_column(db, schema, "rocpd_api", "category_id");
  if (info.schema_version == 3 && !info.has_ustring)
    throw Error(fmt::format("{}: rpd schema_version 3 trace lacks table rocpd_ustring", label));
  std::vector<TableColumns> tables = {
      {"rocpd_op", {{"gpuId", 'n'}, {"queueId", 'n'}, {"start", 'n'}, {"end", 'n'}, {"description_id", 'n'},
                    {"opType_id", 'n'}}},
      {"rocpd_api", {{"pid", 'n'}, {"tid", 'n'}, {"start", 'n'}, {"end", 'n'}, {"apiName_id", 'n'}, {"args_id", 'n'}}},
      {"rocpd_string", {{"string", 't'}}}};
  if (info.has_api_domain) tables[1].columns.insert(tables[1].columns.end(), {{"domain_id", 'n'}, {"category_id", 'n'}});
  if (info.has_ustring) tables.push_back({"rocpd_ustring", {{"string", 't'}}});
  if (info.has_api_ops) tables.push_back({"rocpd_api_ops", {{"api_id", 'n'}, {"op_id", 'n'}}});
  info.loose_types = !check_tables(db, schema, label, tables);
  if (auto host = metadata_value(db, meta, "hostname")) info.hostname = *host;
  return info;
}

FormatInfo probe_rocpd(sqlite3* db, const std::string& schema, const std::string& label,
                       const std::set<std::string>& names, const std::vector<std::string>& metadata_tables) {
  if (metadata_tables.size() > 1)
    throw Error(fmt::format("{}: rocpd file holds {} processes (tables {} and {}); only one per file is supported",
                            label, metadata_tables.size(), metadata_tables[0], metadata_tables[1]));
  FormatInfo info;
  info.format = Format::Rocpd;
  info.table_suffix = metadata_tables[0].substr(std::string("rocpd_metadata").size());
  const std::string meta = quote_id(schema) + "." + quote_id(metadata_tables[0]);
  auto version = metadata_value(db, meta, "schema_version");
  if (!version) throw Error(fmt::format("{}: table {} has no schema_version", label, metadata_tables[0]));
  info.version_text = *version;
  info.schema_version = major_version(*version);
  if (info.schema_version != 3)
    throw Error(fmt::format("{}: unsupported rocpd schema_version '{}' (supported: 3)", label, *version));
  std::vector<std::string> needed;
  for (const char* t : {"rocpd_string", "rocpd_info_agent", "rocpd_info_kernel_symbol", "rocpd_event",
                        "rocpd_region", "rocpd_kernel_dispatch", "rocpd_memory_copy"})
    needed.push_back(t + info.table_suffix);
  require_tables(names, needed, label, "rocpd");
  info.has_marker_samples =
      names.count("rocpd_sample" + info.table_suffix) && names.count("rocpd_track" + info.table_suffix);
  const std::string& u = info.table_suffix;
  std::vector<TableColumns> tables = {
      {"rocpd_string" + u, {{"string", 't'}}},
      {"rocpd_info_agent" + u, {{"type", 't'}, {"type_index", 'n'}}},
      {"rocpd_info_kernel_symbol" + u, {{"kernel_name", 't'}}},
      {"rocpd_event" + u, {{"stack_id", 'n'}, {"category_id", 'n'}}},
      {"rocpd_region" + u, {{"pid", 'n'}, {"tid", 'n'}, {"start", 'n'}, {"end", 'n'}, {"name_id", 'n'}, {"event_id", 'n'}}},
      {"rocpd_kernel_dispatch" + u,
       {{"pid", 'n'}, {"agent_id", 'n'}, {"kernel_id", 'n'}, {"queue_id", 'n'}, {"stream_id", 'n'}, {"start", 'n'},
        {"end", 'n'}, {"event_id", 'n'}}},
      {"rocpd_memory_copy" + u,
       {{"pid", 'n'}, {"name_id", 'n'}, {"dst_agent_id", 'n'}, {"src_agent_id", 'n'}, {"queue_id", 'n'},
        {"stream_id", 'n'}, {"start", 'n'}, {"end", 'n'}, {"event_id", 'n'}}}};
  if (info.has_marker_samples) {
    tables.push_back({"rocpd_sample" + u, {{"track_id", 'n'}, {"event_id", 'n'}, {"timestamp", 'n'}}});
    tables.push_back({"rocpd_track" + u, {{"pid", 'n'}, {"tid", 'n'}, {"name_id", 'n'}}});
  }
  info.loose_types = !check_tables(db, schema, label, tables);
  if (auto uuid = metadata_value(db, meta, "guid")) info.uuid = *uuid;
  else if (auto u = metadata_value(db, meta, "uuid")) info.uuid = *u;
  const std::string node = "rocpd_info_node" + info.table_suffix;
  if (names.count(node)) {
    auto stmt = prepare(db, fmt::format("SELECT hostname FROM {}.{} WHERE hostname IS NOT NULL ORDER BY id LIMIT 1",
                                        quote_id(schema), quote_id(node)));
    if (step(stmt.get())) info.hostname = std::string(column_text(stmt.get(), 0));
  }
  return info;
}

}  // namespace

std::optional<FormatInfo> probe_format(sqlite3* db, const std::string& schema, const std::string& label) {
  std::set<std::string> names;
  try {
    names = catalog(db, schema);
  } catch (const Error& e) {
    throw Error(fmt::format("{}: not a readable SQLite database ({})", label, e.what()), e.code());
  }
  std::vector<std::string> rocpd_meta;
  for (const auto& n : names)
    if (n.size() > 15 && n.compare(0, 15, "rocpd_metadata_") == 0) rocpd_meta.push_back(n);
  try {
    if (!rocpd_meta.empty()) return probe_rocpd(db, schema, label, names, rocpd_meta);
    if (names.count("rocpd_op") || names.count("rocpd_metadata")) return probe_rpd(db, schema, label, names);
  } catch (const Error& e) {
    if (e.code() == SQLITE_ERROR) throw;
    throw Error(fmt::format("{}: {}", label, e.what()), e.code());
  }
  return std::nullopt;
}

}  // namespace rocpd::federation
