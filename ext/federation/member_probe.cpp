#include "federation/member_probe.h"

#include <fmt/format.h>

#include <cstdlib>
#include <set>

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
