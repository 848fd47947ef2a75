#include "output.h"
#include "text_clean.h"

namespace rocpd_cli {

namespace {
void field(std::ostream& out, const std::string& raw) {
  std::string s = valid_utf8(raw);
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

void record(std::ostream& out, const std::vector<std::string>& fields) {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i) out << ',';
    field(out, fields[i]);
  }
  out << '\n';
}

// Rows are written as they come; the header waits for the first row or the end.
class CsvWriter : public RowSink {
 public:
  CsvWriter(std::ostream& out, std::string separator) : out_(out), separator_(std::move(separator)) {}
  void begin(const std::vector<std::string>& columns) override {
    columns_ = columns;
    started_ = false;
  }
  void row(const std::vector<Cell>& cells) override {
    start();
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i) out_ << ',';
      field(out_, cells[i].text);  // NULL: empty text
    }
    out_ << '\n';
  }
  void end() override { start(); }

 private:
  void start() {
    if (started_) return;
    started_ = true;
    if (sets_++) out_ << separator_;
    record(out_, columns_);
  }
  std::ostream& out_;
  std::string separator_;
  std::vector<std::string> columns_;
  bool started_ = false;
  size_t sets_ = 0;
};
}  // namespace

std::unique_ptr<RowSink> make_csv_writer(std::ostream& out, std::string separator) {
  return std::make_unique<CsvWriter>(out, std::move(separator));
}

}  // namespace rocpd_cli
