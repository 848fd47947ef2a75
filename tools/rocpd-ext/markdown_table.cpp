#include "output.h"

namespace rocpd_cli {

namespace {
// A cell of a Markdown table: one line, its pipes escaped.
std::string md_cell(const std::string& s) {
  std::string t;
  for (char c : s) {
    if (c == '|') t += "\\|";
    else if (c == '\n' || c == '\r') t += ' ';
    else t += c;
  }
  return t;
}
}  // namespace

void write_markdown(std::ostream& out, const ResultSet& rs) {
  out << '|';
  for (const auto& c : rs.columns) out << ' ' << md_cell(c) << " |";
  out << "\n|";
  for (size_t i = 0; i < rs.columns.size(); ++i) out << (numeric_column(rs, i) ? "---:|" : "---|");
  out << '\n';
  for (const auto& row : rs.rows) {
    out << '|';
    for (const auto& c : row) out << ' ' << md_cell(c.text) << " |";
    out << '\n';
  }
}

}  // namespace rocpd_cli
