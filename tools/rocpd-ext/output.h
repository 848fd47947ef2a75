// The output formats of every command: one streaming writer per format (a RowSink), each printing
// any number of result sets in a row, and the helpers they share.
#pragma once
#include <sqlite3.h>

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "result_set.h"

namespace rocpd_cli {

enum class Format { Table, Csv, Json, Markdown, Html };
std::optional<Format> parse_format(std::string_view name);

// table, md and html size their columns (and choose which are numeric) from a result set's first
// rows, then print the rest as they come, so that an answer of any length is never held.
inline constexpr std::size_t kSizingRows = 1000;

// Every writer prints a result set's header once its first row or its end arrives (a statement
// that fails before its first row prints nothing), and `separator` before every set but the first.
//   table: aligned columns under a header line, numbers right-aligned, NULL empty, one line per
//          row, control characters shown as escapes (text_table.cpp)
//   md:    a GitHub-flavoured Markdown table; | \ < > & escaped (markdown_table.cpp)
//   csv:   RFC 4180: a header row, then one line per row; NULL an empty field (csv_table.cpp)
//   json:  one array of row objects per set (json_table.cpp)
//   html:  one <table> per set (html_table.cpp); the page around it is html_report.cpp's
// Text is printed as valid UTF-8 in every format (text_clean.h). `db` encodes json (json_quote).
std::unique_ptr<RowSink> make_writer(Format format, std::ostream& out, sqlite3* db, std::string separator = "");

// The whole of one result set in one format (summary sections, tests of the writers).
void write_table(std::ostream& out, const ResultSet& rs);
void write_markdown(std::ostream& out, const ResultSet& rs);
void write_csv(std::ostream& out, const ResultSet& rs);
void write_html_table(std::ostream& out, const ResultSet& rs);

// JSON through SQLite's own json_quote(), so text and reals are encoded as SQLite encodes them
// (json_table.cpp). NULL is null, blobs are hex strings; text is made valid UTF-8 first.
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

// HTML (html_table.cpp): escaped text (valid UTF-8, control characters as U+FFFD).
std::string html_escape(std::string_view text);

// Whether every non-NULL cell of column `i` of `rows` is a number (such columns are right-aligned).
bool numeric_column(const std::vector<std::vector<Cell>>& rows, size_t i);

// The writers of table, md and html: a set's first kSizingRows rows are held until they fix the
// columns (start), then every row is printed as it comes (emit).
class SizedWriter : public RowSink {
 public:
  SizedWriter(std::ostream& out, std::string separator) : out_(out), separator_(std::move(separator)) {}
  void begin(const std::vector<std::string>& columns) override;
  void row(const std::vector<Cell>& cells) override;
  void end() override;

 protected:
  virtual void start(const std::vector<std::string>& columns, const std::vector<std::vector<Cell>>& sample) = 0;
  virtual void emit(const std::vector<Cell>& cells) = 0;
  virtual void finish() {}
  std::ostream& out_;

 private:
  void flush_sample();
  std::string separator_;
  std::vector<std::string> columns_;
  std::vector<std::vector<Cell>> sample_;
  bool started_ = false;
  std::size_t sets_ = 0;
};

}  // namespace rocpd_cli
