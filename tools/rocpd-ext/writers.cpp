// What the writers of every format share: the format names, the held first rows of table, md and
// html, and the choice of a writer.
#include <sstream>

#include "common/text_table.h"
#include "output.h"

namespace rocpd_cli {

std::unique_ptr<RowSink> make_table_writer(std::ostream& out, std::string separator);
std::unique_ptr<RowSink> make_markdown_writer(std::ostream& out, std::string separator);
std::unique_ptr<RowSink> make_csv_writer(std::ostream& out, std::string separator);
std::unique_ptr<RowSink> make_json_writer(std::ostream& out, sqlite3* db, std::string separator);
std::unique_ptr<RowSink> make_html_table_writer(std::ostream& out, std::string separator);

std::optional<Format> parse_format(std::string_view name) {
  if (name == "table") return Format::Table;
  if (name == "csv") return Format::Csv;
  if (name == "json") return Format::Json;
  if (name == "md") return Format::Markdown;
  if (name == "html") return Format::Html;
  return std::nullopt;
}

bool numeric_column(const std::vector<std::vector<Cell>>& rows, size_t i) {
  rocpd::Alignment a;
  for (const auto& row : rows)
    a.add(row[i].is_number() ? SQLITE_INTEGER : row[i].type == Cell::Type::Null ? SQLITE_NULL : SQLITE_TEXT);
  return a.right();
}

std::unique_ptr<RowSink> make_writer(Format format, std::ostream& out, sqlite3* db, std::string separator) {
  switch (format) {
    case Format::Table: return make_table_writer(out, std::move(separator));
    case Format::Markdown: return make_markdown_writer(out, std::move(separator));
    case Format::Csv: return make_csv_writer(out, std::move(separator));
    case Format::Json: return make_json_writer(out, db, std::move(separator));
    case Format::Html: return make_html_table_writer(out, std::move(separator));
  }
  return nullptr;
}

void write_table(std::ostream& out, const ResultSet& rs) { write_set(*make_table_writer(out, ""), rs); }
void write_markdown(std::ostream& out, const ResultSet& rs) { write_set(*make_markdown_writer(out, ""), rs); }
void write_csv(std::ostream& out, const ResultSet& rs) { write_set(*make_csv_writer(out, ""), rs); }
void write_html_table(std::ostream& out, const ResultSet& rs) { write_set(*make_html_table_writer(out, ""), rs); }

void SizedWriter::begin(const std::vector<std::string>& columns) {
  columns_ = columns;
  sample_.clear();
  started_ = false;
}

void SizedWriter::row(const std::vector<Cell>& cells) {
  if (started_) {
    emit(cells);
    return;
  }
  sample_.push_back(cells);
  if (sample_.size() >= kSizingRows) flush_sample();
}

void SizedWriter::end() {
  flush_sample();
  finish();
}

void SizedWriter::flush_sample() {
  if (started_) return;
  started_ = true;
  if (sets_++) out_ << separator_;
  start(columns_, sample_);
  for (const auto& r : sample_) emit(r);
  sample_.clear();
  sample_.shrink_to_fit();
}

}  // namespace rocpd_cli
