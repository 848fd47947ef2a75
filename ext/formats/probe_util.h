// What the adapters' probes share: reading a schema's catalog and metadata, parsing versions,
// and checking the tables a format reads (docs/guarantees.md: keys that cannot repeat, columns
// present, declared types).
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "formats/adapter.h"

namespace rocpd::formats {

Catalog read_catalog(sqlite3* db, const std::string& schema);
// The tags of one metadata table, read with one prepared statement (a probe reads several: one
// statement each would parse as often). `table` is qualified and quoted ("main"."rocpd_metadata").
class MetadataTable {
 public:
  MetadataTable(sqlite3* db, const std::string& table);
  // The first row's value (by id); nullopt when the tag is absent or NULL.
  std::optional<std::string> value(const char* tag);

 private:
  Stmt stmt_;
};
std::optional<std::string> metadata_value(sqlite3* db, const std::string& table, const char* tag);
// The column names of `table` in `schema` (empty when there is no such table).
std::set<std::string> column_names(sqlite3* db, const std::string& schema, const std::string& table);
// FormatInfo::gpu_properties from a query of (gpu number, JSON object text) rows: the first row of
// a gpu number wins, and an empty object (nothing recorded) is left out.
std::map<int64_t, std::string> gpu_property_rows(sqlite3* db, const std::string& sql);
// "3", "3.0.0", "4.1" -> 3, 3, 4; anything else -> -1.
int major_version(const std::string& text);

// The columns the canonical tables read from one member table: 'n' numeric, 't' text.
struct TableColumns {
  std::string table;
  std::vector<std::pair<const char*, char>> columns;
  // The column lookups join on: the table's only PRIMARY KEY column (for "id", its INTEGER
  // PRIMARY KEY; rpd's subclass tables key on api_ptr_id). nullptr: an event table nothing joins
  // on (nsys), whose rowids number its rows: no column may then be named rowid.
  const char* key = "id";
};

// Each table must be a table (not a view, not WITHOUT ROWID) whose key is its PRIMARY KEY
// (every lookup joins on it; a key that could repeat would duplicate rows) and hold the columns
// read; errors name `label`, the table and the column. Returns false when some column's declared
// affinity is not the one the format uses (FormatInfo::loose_types).
bool check_tables(sqlite3* db, const std::string& schema, const std::string& label,
                  const std::vector<TableColumns>& tables);

void require_tables(const Catalog& names, const std::vector<std::string>& needed, const std::string& label,
                    const char* what);

}  // namespace rocpd::formats
