// What a statement returned, copied out of SQLite so that every output format reads the same
// values: the rows of one result set with their column names and SQLite's own types.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rocpd_cli {

struct Cell {
  enum class Type { Null, Integer, Real, Text, Blob };
  Type type = Type::Null;
  std::int64_t integer = 0;
  double real = 0;
  // SQLite's text of the value: integers and reals as sqlite3_column_text prints them (reals with
  // 15 significant digits, as the sqlite3 shell), blobs as lowercase hex.
  std::string text;

  bool is_number() const { return type == Type::Integer || type == Type::Real; }
};

struct ResultSet {
  std::string name;   // section name in summaries ("kernels"), empty for a query's result
  std::string title;  // the heading the table, Markdown and HTML formats print
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

}  // namespace rocpd_cli
