#include <algorithm>

#include "output.h"

namespace rocpd_cli {

namespace {
// Display width of UTF-8 text: its code points (continuation bytes do not count).
size_t width(std::string_view s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

// Table cells are one line each.
std::string one_line(const std::string& s) {
  std::string t = s;
  std::replace(t.begin(), t.end(), '\n', ' ');
  std::replace(t.begin(), t.end(), '\r', ' ');
  return t;
}

void pad(std::ostream& out, size_t n) {
  for (size_t i = 0; i < n; ++i) out << ' ';
}
}  // namespace

std::optional<Format> parse_format(std::string_view name) {
  if (name == "table") return Format::Table;
  if (name == "csv") return Format::Csv;
  if (name == "json") return Format::Json;
  if (name == "md") return Format::Markdown;
  if (name == "html") return Format::Html;
  return std::nullopt;
}

bool numeric_column(const ResultSet& rs, size_t i) {
  bool any = false;
  for (const auto& row : rs.rows) {
    if (row[i].type == Cell::Type::Null) continue;
    if (!row[i].is_number()) return false;
    any = true;
  }
  return any;
}

void write_table(std::ostream& out, const ResultSet& rs) {
  size_t n = rs.columns.size();
  std::vector<size_t> w(n);
  std::vector<bool> right(n);
  for (size_t i = 0; i < n; ++i) {
    w[i] = width(rs.columns[i]);
    for (const auto& row : rs.rows) w[i] = std::max(w[i], width(one_line(row[i].text)));
    right[i] = numeric_column(rs, i);
  }
  auto line = [&](auto cell_text) {
    std::string text;
    for (size_t i = 0; i < n; ++i) {
      std::string t = cell_text(i);
      size_t fill = w[i] - width(t);
      bool last = i + 1 == n;
      if (i) out << "  ";
      if (right[i]) pad(out, fill);
      out << t;
      if (!right[i] && !last) pad(out, fill);
    }
    out << '\n';
  };
  line([&](size_t i) { return rs.columns[i]; });
  line([&](size_t i) { return std::string(w[i], '-'); });
  for (const auto& row : rs.rows) line([&](size_t i) { return one_line(row[i].text); });
}

}  // namespace rocpd_cli
