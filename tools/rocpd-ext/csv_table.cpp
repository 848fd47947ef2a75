#include "output.h"

namespace rocpd_cli {

namespace {
void field(std::ostream& out, const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) {
    out << s;
    return;
  }
  out << '"';
  for (char c : s) {
    if (c == '"') out << '"';
    out << c;
  }
  out << '"';
}
}  // namespace

void write_csv(std::ostream& out, const ResultSet& rs) {
  for (size_t i = 0; i < rs.columns.size(); ++i) {
    if (i) out << ',';
    field(out, rs.columns[i]);
  }
  out << '\n';
  for (const auto& row : rs.rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      if (i) out << ',';
      field(out, row[i].text);  // NULL: empty text
    }
    out << '\n';
  }
}

}  // namespace rocpd_cli
