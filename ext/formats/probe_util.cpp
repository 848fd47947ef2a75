#include "formats/probe_util.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <map>

#include "common/affinity.h"

namespace rocpd::federation {

Catalog read_catalog(sqlite3* db, const std::string& schema) {
  auto stmt = prepare(db, fmt::format("SELECT name FROM {}.sqlite_master WHERE type IN ('table','view')",
                                      quote_id(schema)));
  Catalog names;
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

int major_version(const std::string& text) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || (*end != '\0' && *end != '.') || v < 0 || v > 1000000) return -1;
  return static_cast<int>(v);
}

namespace {

bool check_table(sqlite3* db, const std::string& schema, const std::string& label, const TableColumns& t) {
  auto kind = prepare(db, fmt::format("SELECT type, sql FROM {}.sqlite_master WHERE name = ?1", quote_id(schema)));
  sqlite3_bind_text(kind.get(), 1, t.table.c_str(), -1, SQLITE_TRANSIENT);
  if (!step(kind.get())) throw Error(fmt::format("{}: trace lacks table {}", label, t.table));
  if (column_text(kind.get(), 0) != "table")
    throw Error(fmt::format("{}: {} is a {}, not a table", label, t.table, column_text(kind.get(), 0)));
  std::string ddl(column_text(kind.get(), 1));
  for (auto& c : ddl) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const size_t without = ddl.rfind("WITHOUT");
  if (without != std::string::npos && ddl.find("ROWID", without) != std::string::npos)
    throw Error(fmt::format("{}: table {} is a WITHOUT ROWID table, which no tracer writes", label, t.table));
  auto info = prepare(db, "SELECT name, type, pk FROM pragma_table_xinfo(?1, ?2)");
  sqlite3_bind_text(info.get(), 1, t.table.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(info.get(), 2, schema.c_str(), -1, SQLITE_TRANSIENT);
  std::map<std::string, std::string> types;
  int pk_columns = 0;
  bool key_ok = false;
  const std::string key = t.key ? t.key : "";
  while (step(info.get())) {
    const std::string name(column_text(info.get(), 0));
    std::string type(column_text(info.get(), 1));
    types[name] = type;
    if (sqlite3_column_int(info.get(), 2) > 0) ++pk_columns;
    for (auto& c : type) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (t.key && name == key && sqlite3_column_int(info.get(), 2) == 1 && (key != "id" || type == "INTEGER"))
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
  bool exact = true;
  for (const auto& t : tables) exact = check_table(db, schema, label, t) && exact;
  return exact;
}

void require_tables(const Catalog& names, const std::vector<std::string>& needed, const std::string& label,
                    const char* what) {
  for (const auto& t : needed)
    if (!names.count(t)) throw Error(fmt::format("{}: {} trace lacks table {}", label, what, t));
}

}  // namespace rocpd::federation
