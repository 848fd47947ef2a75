#include "output.h"
#include "text_clean.h"

namespace rocpd_cli {

std::string html_escape(std::string_view text) {
  std::string valid = valid_utf8(text), out;
  out.reserve(valid.size());
  for (char c : valid) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t': case '\n': case '\r': out += c; break;
      default:
        // Control characters are not allowed in an HTML document's text.
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) out += "\xEF\xBF\xBD";
        else out += c;
    }
  }
  return out;
}

namespace {
class HtmlTableWriter : public SizedWriter {
 public:
  using SizedWriter::SizedWriter;

 protected:
  void start(const std::vector<std::string>& columns, const std::vector<std::vector<Cell>>& sample) override {
    right_.assign(columns.size(), false);
    out_ << "<table>\n<thead><tr>";
    for (size_t i = 0; i < columns.size(); ++i) {
      right_[i] = numeric_column(sample, i);
      out_ << (right_[i] ? "<th class=\"n\">" : "<th>") << html_escape(columns[i]) << "</th>";
    }
    out_ << "</tr></thead>\n<tbody>\n";
  }
  void emit(const std::vector<Cell>& cells) override {
    out_ << "<tr>";
    for (size_t i = 0; i < cells.size(); ++i)
      out_ << (right_[i] ? "<td class=\"n\">" : "<td>") << html_escape(cells[i].text) << "</td>";
    out_ << "</tr>\n";
  }
  void finish() override { out_ << "</tbody>\n</table>\n"; }

 private:
  std::vector<bool> right_;
};
}  // namespace

std::unique_ptr<RowSink> make_html_table_writer(std::ostream& out, std::string separator) {
  return std::make_unique<HtmlTableWriter>(out, std::move(separator));
}

}  // namespace rocpd_cli
