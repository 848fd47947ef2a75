// One in-memory SQLite connection with the extension loaded and the user's members opened: what
// every command runs its SQL on.
#pragma once
#include <sqlite3.h>

#include <cstdint>
#include <memory>
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

// Receives the rows of each statement that returns columns, as they are stepped.
class RowSink {
 public:
  virtual ~RowSink() = default;
  virtual void begin(const std::vector<std::string>& columns) = 0;
  virtual void row(const std::vector<Cell>& cells) = 0;
  virtual void end() = 0;
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
  // Opens ":memory:" and loads the library found by find_library() (library_path.h).
  Session();
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // rocpd_open(path) for each path (a file, a directory or a glob); its results are not printed.
  void open_members(const std::vector<std::string>& paths);
  // Every statement of `sql`; the rows of those that return columns go to `sink` as they come.
  void run_script(const std::string& sql, RowSink& sink);
  // The same, collected: one result set per statement that returns columns, in order.
  std::vector<ResultSet> run_script(const std::string& sql);
  // One statement with parameters; its rows.
  ResultSet run(const std::string& sql, const std::vector<Param>& params = {});
  // The first column of the first row (NULL when there is no row).
  Cell scalar(const std::string& sql, const std::vector<Param>& params = {});
  // Writes a progress line to stderr about once a second during long statements (rocpd_progress).
  void set_progress(bool on);

  sqlite3* handle() const { return db_; }
  // Throws CliError("interrupted", 130) once SIGINT was seen (interrupt_on_sigint).
  void check_interrupted() const;

 private:
  sqlite3* db_ = nullptr;
};

// SIGINT (Ctrl-C) stops the statement running on `session`'s connection, as in the sqlite3 shell,
// and every command ends with exit status 130. Called with nullptr first thing in main (a signal
// before the connection exists is remembered), then with the session.
void interrupt_on_sigint(Session* session);

}  // namespace rocpd_cli
