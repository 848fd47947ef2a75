// One in-memory SQLite connection with the extension loaded and the user's members opened: what
// every command runs its SQL on. The connection writes no file (docs/cli.md, "Nothing is
// written"): it is opened read-only, so ATTACH opens existing databases read-only, and the
// authorizer refuses VACUUM INTO and the functions that write files, unless the session is made
// with allow_write (query --allow-write) or names the writer it needs (export).
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "result_set.h"

namespace rocpd_cli {

// An error to print (one line on stderr) before exiting with `exit_code`.
class CliError : public std::runtime_error {
 public:
  explicit CliError(const std::string& msg, int exit_code = 1) : std::runtime_error(msg), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// A bound parameter of Session::run (NULL by default).
struct Param {
  enum class Kind { Null, Integer, Text } kind = Kind::Null;
  std::int64_t integer = 0;
  std::string text;
  Param() = default;
  explicit Param(std::int64_t v) : kind(Kind::Integer), integer(v) {}
  explicit Param(std::string v) : kind(Kind::Text), text(std::move(v)) {}
};

class Session {
 public:
  // Opens ":memory:" and loads the library found by find_library() (library_path.h). With
  // `allow_write` the connection is opened read-write and nothing is refused.
  explicit Session(bool allow_write = false);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // The one function that writes a file this session may call (export: rocpd_export_trace).
  void allow_writer(const std::string& function) { writers_.insert(function); }  // lower case
  // rocpd_open(path) for each path (a file, a directory or a glob); its results are not printed.
  // `run`: rocpd_open(path, run), the members' run label (compare).
  void open_members(const std::vector<std::string>& paths, const std::string& run = "");
  // Every statement of `sql`; the rows of those that return columns go to `sink` as they come.
  // A statement that reads the canonical or analysis tables while no member is open prints a
  // notice on stderr (once): they answer like empty tables then. With `pushdown`, a query without
  // parameters runs as rocpd_sql_rewrite rewrites it (docs/pushdown.md): same columns and rows.
  void run_script(const std::string& sql, RowSink& sink, bool pushdown = false);
  // The same, collected: one result set per statement that returns columns, in order.
  std::vector<ResultSet> run_script(const std::string& sql);
  // One statement with parameters; its rows.
  ResultSet run(const std::string& sql, const std::vector<Param>& params = {});
  // One statement with parameters; `row` sees each row as it is stepped (nothing is kept).
  void each(const std::string& sql, const std::vector<Param>& params,
            const std::function<void(const std::vector<Cell>&)>& row);
  // The first column of the first row (NULL when there is no row).
  Cell scalar(const std::string& sql, const std::vector<Param>& params = {});
  // Writes a progress line to stderr about once a second during long statements (rocpd_progress).
  void set_progress(bool on);

  sqlite3* handle() const { return db_; }
  // Throws CliError("interrupted", 128 + signal) once a signal was seen (interrupt_on_sigint).
  void check_interrupted() const;

 private:
  static int authorize(void* self, int action, const char* a1, const char* a2, const char* schema, const char* view);
  sqlite3_stmt* prepare(const char* sql, const char** tail);
  // `s` as rocpd_sql_rewrite rewrites it, prepared; nullptr when it runs as typed.
  sqlite3_stmt* pushed_down(sqlite3_stmt* s);
  [[noreturn]] void fail(const std::string& what = "");
  // Whether `name` is an open member (rocpd_members.db); false when that cannot be read.
  bool is_member(const std::string& name);
  void step_all(sqlite3_stmt* s, RowSink& sink);
  void bind(sqlite3_stmt* s, const std::vector<Param>& params);

  sqlite3* db_ = nullptr;
  bool allow_write_ = false;
  std::set<std::string> writers_;
  bool preparing_ = false;         // inside sqlite3_prepare of a statement of ours or the user's
  bool read_federation_ = false;   // the statement being prepared reads a canonical/analysis table
  bool noticed_empty_ = false;
  std::string refused_;            // why the authorizer refused the last statement
};

// SIGINT (Ctrl-C), SIGTERM and SIGHUP stop the statement running on `session`'s connection, as
// Ctrl-C does in the sqlite3 shell, and every command ends with exit status 128 + the signal (130
// for SIGINT). Called with nullptr first thing in main (a signal
// before the connection exists is remembered), then with the session.
void interrupt_on_sigint(Session* session);

// The table, view or function name of `names` nearest to `wrong` (case-insensitive edit
// distance, a missing "rocpd_" prefix free), or "" when none is near enough to be a typo.
std::string nearest_name(const std::string& wrong, const std::vector<std::string>& names);

}  // namespace rocpd_cli
