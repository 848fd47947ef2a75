#include "output.h"
#include "text_clean.h"

namespace rocpd_cli {

namespace {
// A cell of a Markdown table: one line; the backslash and the pipe escaped (GFM splits cells at
// an unescaped pipe, and `\|` left alone would read as an escaped backslash then a pipe), and
// < > & as entities, so a name holding HTML shows as text.
std::string md_cell(const std::string& s) {
  std::string t;
  for (char c : terminal_text(s)) {
    switch (c) {
      case '|': t += "\\|"; break;
      case '\\': t += "\\\\"; break;
      case '<': t += "&lt;"; break;
      case '>': t += "&gt;"; break;
      case '&': t += "&amp;"; break;
      default: t += c;
    }
  }
  return t;
}

class MarkdownWriter : public SizedWriter {
 public:
  using SizedWriter::SizedWriter;

 protected:
  void start(const std::vector<std::string>& columns, const std::vector<std::vector<Cell>>& sample) override {
    out_ << '|';
    for (const auto& c : columns) out_ << ' ' << md_cell(c) << " |";
    out_ << "\n|";
    for (size_t i = 0; i < columns.size(); ++i) out_ << (numeric_column(sample, i) ? "---:|" : "---|");
    out_ << '\n';
  }
  void emit(const std::vector<Cell>& cells) override {
    out_ << '|';
    for (const auto& c : cells) out_ << ' ' << md_cell(c.text) << " |";
    out_ << '\n';
  }
};
}  // namespace

std::unique_ptr<RowSink> make_markdown_writer(std::ostream& out, std::string separator) {
  return std::make_unique<MarkdownWriter>(out, std::move(separator));
}

}  // namespace rocpd_cli
