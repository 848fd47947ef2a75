#include "common/sqlite_util.h"

#include "common/terminal_text.h"
#include "common/temp_clash.h"

#include <fmt/format.h>

#include <cctype>
#include <new>

namespace rocpd {

namespace {
std::string with_context(std::string_view what, const char* msg) {
  return what.empty() ? std::string(msg) : fmt::format("{}: {}", what, msg);
}
}  // namespace

Stmt prepare(sqlite3* db, std::string_view sql, std::string_view what) {
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
  Stmt stmt(raw);
  if (rc != SQLITE_OK) throw Error(with_context(what, sqlite3_errmsg(db)), rc);
  return stmt;
}

void exec(sqlite3* db, const char* sql, std::string_view what) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
  SqlitePtr<char> owned(err);
  if (rc != SQLITE_OK) throw Error(with_context(what, err ? err : sqlite3_errstr(rc)), rc);
}

bool step(sqlite3_stmt* stmt, std::string_view what) {
  int rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // An interrupt ends the whole query with SQLite's own message, whichever statement saw it.
  if (rc == SQLITE_INTERRUPT) throw Error("interrupted", SQLITE_INTERRUPT);
  throw Error(with_context(what, sqlite3_errmsg(sqlite3_db_handle(stmt))), rc);
}

std::string_view column_text(sqlite3_stmt* stmt, int col) {
  auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, col));
  if (!p) return {};
  return {p, static_cast<size_t>(sqlite3_column_bytes(stmt, col))};
}

Value dup_value(const sqlite3_value* v) {
  Value copy(sqlite3_value_dup(v));
  if (!copy) throw std::bad_alloc();
  return copy;
}

std::string quote_id(std::string_view id) {
  std::string out = "\"";
  for (char c : id) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

char* sqlite_strdup(std::string_view msg) {
  return sqlite3_mprintf("%.*s", static_cast<int>(msg.size()), msg.data());
}

std::string error_text(std::string_view msg) { return terminal_text(msg); }

void result_error(sqlite3_context* ctx, std::string_view msg) {
  const std::string text = error_text(msg);
  sqlite3_result_error(ctx, text.data(), static_cast<int>(text.size()));
}

void refuse_temp_clash(sqlite3* db, std::string_view name, std::string_view made_by) {
  Stmt stmt = prepare(db, "SELECT type, sql FROM temp.sqlite_master WHERE name = ?1 COLLATE NOCASE",
                      "rocpd_ext: looking for TEMP name clashes");
  sqlite3_bind_text(stmt.get(), 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  if (!step(stmt.get())) return;
  const std::string type(column_text(stmt.get(), 0));
  const std::string sql(column_text(stmt.get(), 1));
  const std::string ours = "USING " + std::string(name);
  const bool own = type == "table" && sql.rfind("CREATE VIRTUAL TABLE", 0) == 0 && sql.size() >= ours.size() &&
                   sqlite3_stricmp(sql.c_str() + sql.size() - ours.size(), ours.c_str()) == 0;
  if (own) return;  // left by an earlier load of this connection that failed part way
  std::string upper = type;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  throw Error(fmt::format("rocpd_ext: cannot load: temp.{0} already exists (a TEMP {1} of this connection, not the "
                          "extension's); {2} has that name, and the extension's views and internal queries read "
                          "temp.{0}. Drop or rename yours (DROP {3} temp.{0}), then load again",
                          name, type, made_by, upper));
}

}  // namespace rocpd
