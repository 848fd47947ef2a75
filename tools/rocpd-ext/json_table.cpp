#include "output.h"
#include "session.h"

namespace rocpd_cli {

JsonWriter::JsonWriter(sqlite3* db) : db_(db) {
  if (sqlite3_prepare_v2(db_, "SELECT json_quote(?1)", -1, &quote_, nullptr) != SQLITE_OK)
    throw CliError(std::string("json_quote: ") + sqlite3_errmsg(db_));
}

JsonWriter::~JsonWriter() { sqlite3_finalize(quote_); }

std::string JsonWriter::quote(std::string_view text) {
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
      return c.text;
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

}  // namespace rocpd_cli
