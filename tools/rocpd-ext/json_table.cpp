#include "output.h"
#include "session.h"
#include "text_clean.h"

namespace rocpd_cli {

JsonWriter::JsonWriter(sqlite3* db) : db_(db) {
  if (sqlite3_prepare_v2(db_, "SELECT json_quote(?1)", -1, &quote_, nullptr) != SQLITE_OK)
    throw CliError(std::string("json_quote: ") + sqlite3_errmsg(db_));
}

JsonWriter::~JsonWriter() { sqlite3_finalize(quote_); }

std::string JsonWriter::quote(std::string_view raw) {
  std::string text = valid_utf8(raw);  // JSON is UTF-8 (RFC 8259); json_quote passes bytes through
  sqlite3_reset(quote_);
  sqlite3_bind_text(quote_, 1, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(quote_) != SQLITE_ROW) throw CliError(std::string("json_quote: ") + sqlite3_errmsg(db_));
  std::string out(reinterpret_cast<const char*>(sqlite3_column_text(quote_, 0)),
                  static_cast<size_t>(sqlite3_column_bytes(quote_, 0)));
  sqlite3_reset(quote_);
  return out;
}

std::string JsonWriter::value(const Cell& c) {
  switch (c.type) {
    case Cell::Type::Null:
      return "null";
    case Cell::Type::Integer:
      return std::to_string(c.integer);
    case Cell::Type::Real: {
      sqlite3_reset(quote_);
      sqlite3_bind_double(quote_, 1, c.real);
      if (sqlite3_step(quote_) != SQLITE_ROW) throw CliError(std::string("json_quote: ") + sqlite3_errmsg(db_));
      std::string out(reinterpret_cast<const char*>(sqlite3_column_text(quote_, 0)));
      sqlite3_reset(quote_);
      return out;
    }
    case Cell::Type::Text:
    case Cell::Type::Blob:
      return quote(c.text);
  }
  return "null";
}

std::string JsonWriter::object(const std::vector<std::string>& columns, const std::vector<Cell>& row) {
  std::string out = "{";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i) out += ", ";
    out += quote(columns[i]) + ": " + value(row[i]);
  }
  return out + "}";
}

void JsonWriter::array(std::ostream& out, const ResultSet& rs) {
  out << '[';
  for (size_t r = 0; r < rs.rows.size(); ++r) out << (r ? ",\n " : "\n ") << object(rs.columns, rs.rows[r]);
  out << (rs.rows.empty() ? "]" : "\n]");
}

namespace {
// One array per set, as `sqlite3 -json` prints them; rows written as they come, the opening
// bracket waiting for the first row or the end.
class JsonRows : public RowSink {
 public:
  JsonRows(std::ostream& out, sqlite3* db, std::string separator)
      : out_(out), json_(db), separator_(std::move(separator)) {}
  void begin(const std::vector<std::string>& columns) override {
    columns_ = columns;
    rows_ = 0;
    started_ = false;
  }
  void row(const std::vector<Cell>& cells) override {
    start();
    out_ << (rows_++ ? ",\n " : "\n ") << json_.object(columns_, cells);
  }
  void end() override {
    start();
    out_ << (rows_ ? "\n]\n" : "]\n");
  }

 private:
  void start() {
    if (started_) return;
    started_ = true;
    if (sets_++) out_ << separator_;
    out_ << '[';
  }
  std::ostream& out_;
  JsonWriter json_;
  std::string separator_;
  std::vector<std::string> columns_;
  size_t rows_ = 0, sets_ = 0;
  bool started_ = false;
};
}  // namespace

std::unique_ptr<RowSink> make_json_writer(std::ostream& out, sqlite3* db, std::string separator) {
  return std::make_unique<JsonRows>(out, db, std::move(separator));
}

}  // namespace rocpd_cli
