#include <algorithm>

#include "output.h"
#include "text_clean.h"

namespace rocpd_cli {

namespace {
void pad(std::ostream& out, size_t n) {
  for (size_t i = 0; i < n; ++i) out << ' ';
}

// Aligned columns sized by the first rows; a later, wider cell widens its own line only.
class TableWriter : public SizedWriter {
 public:
  using SizedWriter::SizedWriter;

 protected:
  void start(const std::vector<std::string>& columns, const std::vector<std::vector<Cell>>& sample) override {
    size_t n = columns.size();
    width_.assign(n, 0);
    right_.assign(n, false);
    for (size_t i = 0; i < n; ++i) {
      width_[i] = display_width(terminal_text(columns[i]));
      for (const auto& row : sample) width_[i] = std::max(width_[i], display_width(terminal_text(row[i].text)));
      right_[i] = numeric_column(sample, i);
    }
    std::vector<std::string> header(n), rule(n);
    for (size_t i = 0; i < n; ++i) {
      header[i] = terminal_text(columns[i]);
      rule[i] = std::string(width_[i], '-');
    }
    line(header);
    line(rule);
  }

  void emit(const std::vector<Cell>& cells) override {
    std::vector<std::string> texts(cells.size());
    for (size_t i = 0; i < cells.size(); ++i) texts[i] = terminal_text(cells[i].text);
    line(texts);
  }

 private:
  void line(const std::vector<std::string>& texts) {
    for (size_t i = 0; i < texts.size(); ++i) {
      size_t w = display_width(texts[i]), fill = w < width_[i] ? width_[i] - w : 0;
      bool last = i + 1 == texts.size();
      if (i) out_ << "  ";
      if (right_[i]) pad(out_, fill);
      out_ << texts[i];
      if (!right_[i] && !last) pad(out_, fill);
    }
    out_ << '\n';
  }

  std::vector<size_t> width_;
  std::vector<bool> right_;
};
}  // namespace

std::unique_ptr<RowSink> make_table_writer(std::ostream& out, std::string separator) {
  return std::make_unique<TableWriter>(out, std::move(separator));
}

}  // namespace rocpd_cli
