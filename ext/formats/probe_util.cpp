#include "formats/probe_util.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <map>

#include "common/affinity.h"

namespace rocpd::formats {

Catalog read_catalog(sqlite3* db, const std::string& schema) {
  auto stmt = prepare(db, fmt::format("SELECT name FROM {}.sqlite_master WHERE type IN ('table','view')",
                                      quote_id(schema)));
  Catalog names;
  while (step(stmt.get())) names.emplace(column_text(stmt.get(), 0));
  return names;
}

MetadataTable::MetadataTable(sqlite3* db, const std::string& table)
    : stmt_(prepare(db, fmt::format("SELECT value FROM {} WHERE tag = ?1 ORDER BY id LIMIT 1", table))) {}

std::optional<std::string> MetadataTable::value(const char* tag) {
  sqlite3_stmt* stmt = stmt_.get();
  sqlite3_reset(stmt);
  sqlite3_bind_text(stmt, 1, tag, -1, SQLITE_STATIC);
  if (!step(stmt) || sqlite3_column_type(stmt, 0) == SQLITE_NULL) return std::nullopt;
  return std::string(column_text(stmt, 0));
}

std::optional<std::string> metadata_value(sqlite3* db, const std::string& table, const char* tag) {
  return MetadataTable(db, table).value(tag);
}

std::set<std::string> column_names(sqlite3* db, const std::string& schema, const std::string& table) {
  auto stmt = prepare(db, "SELECT name FROM pragma_table_info(?1, ?2)");
  sqlite3_bind_text(stmt.get(), 1, table.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt.get(), 2, schema.c_str(), -1, SQLITE_TRANSIENT);
  std::set<std::string> names;
  while (step(stmt.get())) names.emplace(column_text(stmt.get(), 0));
  return names;
}

std::map<int64_t, std::string> gpu_property_rows(sqlite3* db, const std::string& sql) {
  auto stmt = prepare(db, sql);
  std::map<int64_t, std::string> out;
  while (step(stmt.get())) {
    if (sqlite3_column_type(stmt.get(), 0) != SQLITE_INTEGER || sqlite3_column_type(stmt.get(), 1) != SQLITE_TEXT) continue;
    std::string json(column_text(stmt.get(), 1));
    if (json != "{}") out.emplace(sqlite3_column_int64(stmt.get(), 0), std::move(json));
  }
  return out;
}

int major_version(const std::string& text) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || (*end != '\0' && *end != '.') || v < 0 || v > 1000000) return -1;
  return static_cast<int>(v);
}

namespace {

// The two statements check_table runs for every table, prepared once per check_tables call.
struct TableQueries {
  Stmt kind, info;
};

bool check_table(TableQueries& q, const std::string& schema, const std::string& label, const TableColumns& t) {
  sqlite3_stmt* kind = q.kind.get();
  sqlite3_reset(kind);
  sqlite3_bind_text(kind, 1, t.table.c_str(), -1, SQLITE_TRANSIENT);
  if (!step(kind)) throw Error(fmt::format("{}: trace lacks table {}", label, t.table));
  if (column_text(kind, 0) != "table")
    throw Error(fmt::format("{}: {} is a {}, not a table", label, t.table, column_text(kind, 0)));
  std::string ddl(column_text(kind, 1));
  for (auto& c : ddl) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const size_t without = ddl.rfind("WITHOUT");
  if (without != std::string::npos && ddl.find("ROWID", without) != std::string::npos)
    throw Error(fmt::format("{}: table {} is a WITHOUT ROWID table, which no tracer writes", label, t.table));
  sqlite3_stmt* info = q.info.get();
  sqlite3_reset(info);
  sqlite3_bind_text(info, 1, t.table.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(info, 2, schema.c_str(), -1, SQLITE_TRANSIENT);
  std::map<std::string, std::string> types;
  int pk_columns = 0;
  bool key_ok = false;
  const std::string key = t.key ? t.key : "";
  while (step(info)) {
    const std::string name(column_text(info, 0));
    std::string type(column_text(info, 1));
    types[name] = type;
    if (sqlite3_column_int(info, 2) > 0) ++pk_columns;
    for (auto& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (t.key && name == key && sqlite3_column_int(info, 2) == 1 && (key != "id" || type == "INTEGER"))
      key_ok = true;
    if (!t.key) {
      std::string lower = name;
      for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (lower == "rowid")
        throw Error(fmt::format("{}: table {} declares a column named {}, which hides the rowids that number its rows",
                                label, t.table, name));
    }
  }
  if (t.key && (!key_ok || pk_columns != 1))
    throw Error(fmt::format("{}: table {}: column {} is not its {}PRIMARY KEY, so rows cannot be told apart", label,
                            t.table, key, key == "id" ? "INTEGER " : ""));
  bool exact = true;
  for (const auto& [column, want] : t.columns) {
    auto it = types.find(column);
    if (it == types.end()) throw Error(fmt::format("{}: table {} lacks column {}", label, t.table, column));
    const Affinity a = affinity_of(it->second);
    if (want == 'n' ? !numeric_affinity(a) : a != Affinity::Text) exact = false;
  }
  return exact;
}

}  // namespace

bool check_tables(sqlite3* db, const std::string& schema, const std::string& label,
                  const std::vector<TableColumns>& tables) {
  TableQueries q{prepare(db, fmt::format("SELECT type, sql FROM {}.sqlite_master WHERE name = ?1", quote_id(schema))),
                 prepare(db, "SELECT name, type, pk FROM pragma_table_xinfo(?1, ?2)")};
  bool exact = true;
  for (const auto& t : tables) exact = check_table(q, schema, label, t) && exact;
  return exact;
}

void require_tables(const Catalog& names, const std::vector<std::string>& needed, const std::string& label,
                    const char* what) {
  for (const auto& t : needed)
    if (!names.count(t)) throw Error(fmt::format("{}: {} trace lacks table {}", label, what, t));
}

}  // namespace rocpd::formats
