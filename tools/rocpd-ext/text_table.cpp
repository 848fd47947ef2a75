#include <optional>

#include "common/text_table.h"
#include "output.h"
#include "text_clean.h"

namespace rocpd_cli {

namespace {
// The shared layout (common/text_table.h), its widths fixed by the first rows.
class TableWriter : public SizedWriter {
 public:
  using SizedWriter::SizedWriter;

 protected:
  void start(const std::vector<std::string>& columns, const std::vector<std::vector<Cell>>& sample) override {
    const size_t n = columns.size();
    std::vector<std::string> header(n);
    std::vector<bool> right(n);
    for (size_t i = 0; i < n; ++i) {
      header[i] = terminal_text(columns[i]);
      right[i] = numeric_column(sample, i);
    }
    std::vector<std::vector<std::string>> texts;
    texts.reserve(sample.size());
    for (const auto& row : sample) texts.push_back(shown(row));
    table_.emplace(header, texts, std::move(right));
    std::string out;
    table_->head(out);
    out_ << out;
  }

  void emit(const std::vector<Cell>& cells) override {
    std::string out;
    table_->line(out, shown(cells));
    out_ << out;
  }

 private:
  static std::vector<std::string> shown(const std::vector<Cell>& cells) {
    std::vector<std::string> texts(cells.size());
    for (size_t i = 0; i < cells.size(); ++i) texts[i] = terminal_text(cells[i].text);
    return texts;
  }

  std::optional<rocpd::TextTable> table_;
};
}  // namespace

std::unique_ptr<RowSink> make_table_writer(std::ostream& out, std::string separator) {
  return std::make_unique<TableWriter>(out, std::move(separator));
}

}  // namespace rocpd_cli
