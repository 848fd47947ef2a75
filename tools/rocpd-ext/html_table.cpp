#include "output.h"

namespace rocpd_cli {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

void write_html_table(std::ostream& out, const ResultSet& rs) {
  std::vector<bool> right(rs.columns.size());
  out << "<table>\n<thead><tr>";
  for (size_t i = 0; i < rs.columns.size(); ++i) {
    right[i] = numeric_column(rs, i);
    out << (right[i] ? "<th class=\"n\">" : "<th>") << html_escape(rs.columns[i]) << "</th>";
  }
  out << "</tr></thead>\n<tbody>\n";
  for (const auto& row : rs.rows) {
    out << "<tr>";
    for (size_t i = 0; i < row.size(); ++i)
      out << (right[i] ? "<td class=\"n\">" : "<td>") << html_escape(row[i].text) << "</td>";
    out << "</tr>\n";
  }
  out << "</tbody>\n</table>\n";
}

}  // namespace rocpd_cli
