// What a statement returned, copied out of SQLite so that every output format reads the same
// values: the rows of one result set with their column names and SQLite's own types; and the
// interface through which rows reach a format as they are stepped.
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
  // 15 significant digits, as the sqlite3 shell), blobs as lowercase hex. The summary's display
  // formatting (display.h) replaces it by the human form and keeps the type.
  std::string text;

  bool is_number() const { return type == Type::Integer || type == Type::Real; }
  double number() const { return type == Type::Real ? real : static_cast<double>(integer); }
};

struct ResultSet {
  std::string name;   // section name in summaries ("kernels"), empty for a query's result
  std::string title;  // the heading the table, Markdown and HTML formats print
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
  std::string note;   // a line printed under the table by the human formats ("10 of 32 rows")
};

// Receives the rows of each result set (a statement that returns columns, a summary section) as
// they come: begin(columns), row(cells) for each row, end().
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void begin(const std::vector<std::string>& columns) = 0;
  virtual void row(const std::vector<Cell>& cells) = 0;
  virtual void end() = 0;
};

// Feeds `rs` to `sink`.
inline void write_set(RowSink& sink, const ResultSet& rs) {
  sink.begin(rs.columns);
  for (const auto& r : rs.rows) sink.row(r);
  sink.end();
}

}  // namespace rocpd_cli
