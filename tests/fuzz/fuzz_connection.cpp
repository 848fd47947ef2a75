#include "fuzz_connection.h"

#include <cstdio>

#include "real_sqlite_api.h"

extern "C" int sqlite3_rocpdext_init(sqlite3* db, char** err, const sqlite3_api_routines* api);

namespace rocpd::fuzz {
namespace {

// The extension is registered on the connections we choose (not on the member connections the
// federation opens itself) with the API table SQLite's loaders hand it.
const sqlite3_api_routines* api_table() {
  const sqlite3_api_routines* table = real_sqlite_api();
  fuzz_check(table != nullptr, "no SQLite API table captured");
  return table;
}

void bind(sqlite3_stmt* stmt, int index, const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) {
    sqlite3_bind_int64(stmt, index, *i);
  } else if (const auto* d = std::get_if<double>(&v)) {
    sqlite3_bind_double(stmt, index, *d);
  } else if (const auto* t = std::get_if<std::string>(&v)) {
    sqlite3_bind_text64(stmt, index, t->data(), t->size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  } else if (const auto* b = std::get_if<Blob>(&v)) {
    sqlite3_bind_blob64(stmt, index, b->bytes.data(), b->bytes.size(), SQLITE_TRANSIENT);
  } else {
    sqlite3_bind_null(stmt, index);
  }
}

int execute(sqlite3* db, std::string_view sql, const std::vector<Value>& args, std::vector<Value>* first) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) return rc;
  for (std::size_t i = 0; i < args.size(); ++i) bind(stmt, static_cast<int>(i + 1), args[i]);
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const int n = sqlite3_column_count(stmt);
    for (int c = 0; c < n; ++c) {
      Value v = column_value(stmt, c);  // reads every result, as a client would
      if (first) first->push_back(std::move(v));
    }
    first = nullptr;
  }
  sqlite3_finalize(stmt);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

}  // namespace

Value column_value(sqlite3_stmt* stmt, int i) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_INTEGER:
      return sqlite3_column_int64(stmt, i);
    case SQLITE_FLOAT:
      return sqlite3_column_double(stmt, i);
    case SQLITE_TEXT: {
      const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
      return std::string(p ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(stmt, i)));
    }
    case SQLITE_BLOB: {
      const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt, i));
      return Blob{std::string(p ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(stmt, i)))};
    }
    default:
      return std::monostate{};
  }
}

Connection::Connection() {
  const sqlite3_api_routines* api = api_table();
  fuzz_check(sqlite3_open(":memory:", &db_) == SQLITE_OK, "cannot open :memory:");
  char* err = nullptr;
  const int rc = sqlite3_rocpdext_init(db_, &err, api);
  if (rc != SQLITE_OK) std::fprintf(stderr, "extension init: %s\n", err ? err : "?");
  sqlite3_free(err);
  fuzz_check(rc == SQLITE_OK, "the extension did not register");
}

Connection::~Connection() { sqlite3_close_v2(db_); }

int Connection::run(std::string_view sql, const std::vector<Value>& args) {
  return execute(db_, sql, args, nullptr);
}

std::vector<Value> Connection::first_row(std::string_view sql, const std::vector<Value>& args) {
  std::vector<Value> row;
  if (execute(db_, sql, args, &row) != SQLITE_OK) row.clear();
  return row;
}

}  // namespace rocpd::fuzz
