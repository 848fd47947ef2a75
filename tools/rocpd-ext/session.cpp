#include "session.h"

#include <csignal>

#include <atomic>

#include "library_path.h"

namespace rocpd_cli {

namespace {
struct Finalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, Finalizer>;

std::atomic<sqlite3*> g_interruptible{nullptr};
std::atomic<bool> g_interrupted{false};

extern "C" void on_sigint(int) {
  g_interrupted = true;
  if (sqlite3* db = g_interruptible.load()) sqlite3_interrupt(db);
}

constexpr int kExitInterrupted = 130;

[[noreturn]] void fail(sqlite3* db, const std::string& what = "") {
  if (g_interrupted) throw CliError("interrupted", kExitInterrupted);
  throw CliError(what + sqlite3_errmsg(db));
}

const char kHex[] = "0123456789abcdef";

Cell cell_of(sqlite3_stmt* s, int i) {
  Cell c;
  switch (sqlite3_column_type(s, i)) {
    case SQLITE_INTEGER:
      c.type = Cell::Type::Integer;
      c.integer = sqlite3_column_int64(s, i);
      c.text = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
      break;
    case SQLITE_FLOAT:
      c.type = Cell::Type::Real;
      c.real = sqlite3_column_double(s, i);
      c.text = reinterpret_cast<const char*>(sqlite3_column_text(s, i));
      break;
    case SQLITE_TEXT:
      c.type = Cell::Type::Text;
      c.text.assign(reinterpret_cast<const char*>(sqlite3_column_text(s, i)),
                    static_cast<size_t>(sqlite3_column_bytes(s, i)));
      break;
    case SQLITE_BLOB: {
      c.type = Cell::Type::Blob;
      auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(s, i));
      int n = sqlite3_column_bytes(s, i);
      c.text.reserve(2 * static_cast<size_t>(n));
      for (int k = 0; k < n; ++k) {
        c.text += kHex[p[k] >> 4];
        c.text += kHex[p[k] & 15];
      }
      break;
    }
    default:
      break;
  }
  return c;
}

void bind_all(sqlite3* db, sqlite3_stmt* s, const std::vector<Param>& params) {
  for (size_t i = 0; i < params.size(); ++i) {
    int k = static_cast<int>(i) + 1, rc = SQLITE_OK;
    const Param& p = params[i];
    if (p.kind == Param::Kind::Integer) rc = sqlite3_bind_int64(s, k, p.integer);
    else if (p.kind == Param::Kind::Text) rc = sqlite3_bind_text(s, k, p.text.data(), static_cast<int>(p.text.size()), SQLITE_TRANSIENT);
    else rc = sqlite3_bind_null(s, k);
    if (rc != SQLITE_OK) fail(db);
  }
}

// Steps `s` to its end, passing its rows to `sink` when it has columns.
void step_all(sqlite3* db, sqlite3_stmt* s, RowSink& sink) {
  int n = sqlite3_column_count(s);
  std::vector<std::string> columns;
  for (int i = 0; i < n; ++i) columns.emplace_back(sqlite3_column_name(s, i));
  if (n) sink.begin(columns);
  std::vector<Cell> row(static_cast<size_t>(n));
  for (;;) {
    int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) fail(db);
    for (int i = 0; i < n; ++i) row[static_cast<size_t>(i)] = cell_of(s, i);
    if (n) sink.row(row);
  }
  if (n) sink.end();
}

class Collector : public RowSink {
 public:
  std::vector<ResultSet> sets;
  void begin(const std::vector<std::string>& columns) override { sets.push_back({"", "", columns, {}}); }
  void row(const std::vector<Cell>& cells) override { sets.back().rows.push_back(cells); }
  void end() override {}
};

ResultSet collect(sqlite3* db, sqlite3_stmt* s) {
  Collector c;
  step_all(db, s, c);
  if (c.sets.empty()) return {};
  return std::move(c.sets.front());
}
}  // namespace

Session::Session() {
  if (sqlite3_open(":memory:", &db_) != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw CliError("cannot open an in-memory SQLite database: " + msg);
  }
  std::string lib = find_library();
  // Extension loading through the C API only (the SQL function load_extension stays off).
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, nullptr);
  char* err = nullptr;
  // The entry point is named so that a renamed copy (ROCPD_EXT_LIBRARY) loads too.
  if (sqlite3_load_extension(db_, lib.c_str(), "sqlite3_rocpdext_init", &err) != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    sqlite3_close(db_);
    db_ = nullptr;
    throw CliError("cannot load " + lib + ": " + msg);
  }
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, nullptr);
}

Session::~Session() {
  if (g_interruptible.load() == db_) g_interruptible = nullptr;
  sqlite3_close_v2(db_);
}

void Session::open_members(const std::vector<std::string>& paths) {
  for (const auto& p : paths) run("SELECT rocpd_open(?1)", {Param(p)});
}

void Session::set_progress(bool on) { run("SELECT rocpd_progress(?1)", {Param(std::int64_t{on ? 1 : 0})}); }

void Session::run_script(const std::string& sql, RowSink& sink) {
  const char* tail = sql.c_str();
  while (tail && *tail) {
    check_interrupted();
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db_, tail, -1, &raw, &tail) != SQLITE_OK) fail(db_);
    Stmt s(raw);
    if (!s) continue;  // whitespace or a comment
    step_all(db_, s.get(), sink);
  }
}

void Session::check_interrupted() const {
  if (g_interrupted) throw CliError("interrupted", kExitInterrupted);
}

std::vector<ResultSet> Session::run_script(const std::string& sql) {
  Collector c;
  run_script(sql, c);
  return std::move(c.sets);
}

ResultSet Session::run(const std::string& sql, const std::vector<Param>& params) {
  check_interrupted();
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) fail(db_);
  Stmt s(raw);
  bind_all(db_, s.get(), params);
  return collect(db_, s.get());
}

Cell Session::scalar(const std::string& sql, const std::vector<Param>& params) {
  ResultSet rs = run(sql, params);
  if (rs.rows.empty() || rs.rows[0].empty()) return {};
  return rs.rows[0][0];
}

void interrupt_on_sigint(Session* session) {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sqlite3* db = session ? session->handle() : nullptr;
  g_interruptible = db;
  if (!db) return;
  // SQLite forgets an interrupt that arrives between statements (the first statement to start
  // clears it): the progress handler also stops the statement once the signal was seen.
  sqlite3_progress_handler(db, 1000, [](void*) { return g_interrupted.load() ? 1 : 0; }, nullptr);
  if (g_interrupted) sqlite3_interrupt(db);
}

}  // namespace rocpd_cli
