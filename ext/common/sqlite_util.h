// Shared SQLite plumbing for every capability: RAII handles, error transport, guards that
// stop C++ exceptions at the SQLite callback boundary.
#pragma once
#include <sqlite3ext.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

// Every translation unit of the extension reaches SQLite through the API table that
// sqlite3_rocpdext_init received (defined once in rocpd_ext.cpp).
SQLITE_EXTENSION_INIT3

namespace rocpd {

struct StmtFinalizer {
  void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

struct DbCloser {
  void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;

struct SqliteFreer {
  void operator()(void* p) const noexcept { sqlite3_free(p); }
};
template <class T>
using SqlitePtr = std::unique_ptr<T, SqliteFreer>;

struct ValueFreer {
  void operator()(sqlite3_value* v) const noexcept { sqlite3_value_free(v); }
};
// A protected copy of an SQL value (sqlite3_value_dup), owned.
using Value = std::unique_ptr<sqlite3_value, ValueFreer>;
// Copies `v`; throws std::bad_alloc when SQLite cannot.
Value dup_value(const sqlite3_value* v);

// The one exception type the extension throws; `code` is the SQLite result code to report.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg, int code = SQLITE_ERROR) : std::runtime_error(msg), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

// Prepares `sql` on `db`; throws Error carrying SQLite's message (prefixed by `what`, if given).
Stmt prepare(sqlite3* db, std::string_view sql, std::string_view what = {});
// Runs statements that return no rows; throws Error on failure.
void exec(sqlite3* db, const char* sql, std::string_view what = {});
// Steps once: true for SQLITE_ROW, false for SQLITE_DONE, throws on error.
bool step(sqlite3_stmt* stmt, std::string_view what = {});
// Text column as a string_view (empty for NULL); valid until the next step/finalize.
std::string_view column_text(sqlite3_stmt* stmt, int col);
// Quotes an SQL identifier ("a""b").
std::string quote_id(std::string_view id);
// sqlite3_mprintf'd copy of `msg`, for zErrMsg / pzErrMsg out-parameters.
char* sqlite_strdup(std::string_view msg);
// An error message as SQLite is handed it: escaped as text on a terminal (common/terminal_text.h),
// since messages quote trace values and arguments, and sqlite3 shells print them as they are.
std::string error_text(std::string_view msg);
// sqlite3_result_error with error_text(msg).
void result_error(sqlite3_context* ctx, std::string_view msg);

// Runs `body` for a scalar/aggregate function callback; any exception becomes sqlite3_result_error.
template <class F>
void guard(sqlite3_context* ctx, F&& body) noexcept {
  try {
    body();
  } catch (const Error& e) {
    result_error(ctx, e.what());
    if (e.code() != SQLITE_ERROR) sqlite3_result_error_code(ctx, e.code());
  } catch (const std::bad_alloc&) {
    sqlite3_result_error_nomem(ctx);
  } catch (const std::exception& e) {
    result_error(ctx, e.what());
  } catch (...) {
    sqlite3_result_error(ctx, "rocpd_ext: unknown internal error", -1);
  }
}

// Runs `body` for a virtual-table callback; exceptions become vtab->zErrMsg plus a result code.
template <class F>
int guard(sqlite3_vtab* vtab, F&& body) noexcept {
  try {
    return body();
  } catch (const Error& e) {
    sqlite3_free(vtab->zErrMsg);
    vtab->zErrMsg = sqlite_strdup(error_text(e.what()));
    return e.code();
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (const std::exception& e) {
    sqlite3_free(vtab->zErrMsg);
    vtab->zErrMsg = sqlite_strdup(error_text(e.what()));
    return SQLITE_ERROR;
  } catch (...) {
    return SQLITE_ERROR;
  }
}

// Same for callbacks that report through a char** (xCreate/xConnect, registration).
template <class F>
int guard(char** err, F&& body) noexcept {
  try {
    return body();
  } catch (const Error& e) {
    if (err) *err = sqlite_strdup(error_text(e.what()));
    return e.code();
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (const std::exception& e) {
    if (err) *err = sqlite_strdup(error_text(e.what()));
    return SQLITE_ERROR;
  } catch (...) {
    return SQLITE_ERROR;
  }
}

// Function flags required by DEVELOPERS.md.
inline constexpr int kPureFunction = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
inline constexpr int kFileFunction = SQLITE_UTF8 | SQLITE_DIRECTONLY;

}  // namespace rocpd
