// The output formats of every command: one writer per format, each printing result sets.
#pragma once
#include <sqlite3.h>

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "result_set.h"

namespace rocpd_cli {

enum class Format { Table, Csv, Json, Markdown, Html };
std::optional<Format> parse_format(std::string_view name);

// Aligned columns under a header line, numbers right-aligned, NULL empty (text_table.cpp).
void write_table(std::ostream& out, const ResultSet& rs);
// A GitHub-flavoured Markdown table (markdown_table.cpp).
void write_markdown(std::ostream& out, const ResultSet& rs);
// RFC 4180 CSV: a header row, then one line per row; NULL is an empty field (csv_table.cpp).
void write_csv(std::ostream& out, const ResultSet& rs);

// JSON through SQLite's own json_quote(), so text and reals are encoded as SQLite encodes them
// (json_table.cpp). NULL is null, blobs are hex strings.
class JsonWriter {
 public:
  explicit JsonWriter(sqlite3* db);
  ~JsonWriter();
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  std::string quote(std::string_view text);
  std::string value(const Cell& c);
  // {"column": value, ...} for one row.
  std::string object(const std::vector<std::string>& columns, const std::vector<Cell>& row);
  // [ one object per row ], one row per line.
  void array(std::ostream& out, const ResultSet& rs);

 private:
  sqlite3* db_;
  sqlite3_stmt* quote_ = nullptr;
};

// HTML (html_table.cpp): escaped text, and a <table> of a result set.
std::string html_escape(std::string_view text);
void write_html_table(std::ostream& out, const ResultSet& rs);

// Whether every non-NULL cell of column `i` is a number (such columns are right-aligned).
bool numeric_column(const ResultSet& rs, size_t i);

}  // namespace rocpd_cli
