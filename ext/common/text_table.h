// Rows as an aligned text table, the one layout of the rocpd-ext command's table format and of
// rocpd_query (docs/pushdown.md): a header line, a rule of dashes under it, one line per row; two
// spaces between columns; numeric columns right-aligned; a left-aligned last column never padded
// (no trailing blanks). Texts are given as shown, escaped for a terminal (terminal_text.h).
#pragma once
#include <sqlite3.h>  // the type codes only

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rocpd {

// Display width of valid UTF-8 text: its code points (continuation bytes do not count).
std::size_t display_width(std::string_view s);

// `shown` (valid UTF-8) when at most `max_width` code points wide, else its first max_width - 3
// code points and "..." (max_width >= 3).
std::string cut_to_width(std::string shown, std::size_t max_width);

// A value's text as a table shows it, from what SQLite returns for it (sqlite3_column_type, then
// sqlite3_column_blob for a blob, else sqlite3_column_text, then sqlite3_column_bytes; this file makes
// no SQLite call, so that the extension and the CLI share it): integers and reals as SQLite prints
// them (reals with 15 significant digits, as the sqlite3 shell), text as its bytes, blobs as
// lowercase hex, NULL empty.
std::string cell_text(int sqlite_type, const void* data, int bytes);

// A column is right-aligned when some cell is a number and every other cell is NULL.
class Alignment {
 public:
  void add(int sqlite_type) {
    if (sqlite_type == SQLITE_INTEGER || sqlite_type == SQLITE_FLOAT) number_ = true;
    else if (sqlite_type != SQLITE_NULL) other_ = true;
  }
  bool right() const { return number_ && !other_; }

 private:
  bool number_ = false, other_ = false;
};

class TextTable {
 public:
  // Column widths fit `header` and every row of `sample` (the rows held before printing); a later,
  // wider cell widens its own line only. `right`: per column, from Alignment.
  TextTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& sample,
            std::vector<bool> right);
  // Appends the header line and the rule, each ending in '\n'.
  void head(std::string& out) const;
  // Appends one row's line, ending in '\n'.
  void line(std::string& out, const std::vector<std::string>& texts) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::size_t> width_;
  std::vector<bool> right_;
};

}  // namespace rocpd
