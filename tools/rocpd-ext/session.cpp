#include "session.h"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <csignal>
#include <iostream>

#include "common/text_table.h"
#include "library_path.h"

namespace rocpd_cli {

namespace {
struct Finalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using Stmt = std::unique_ptr<sqlite3_stmt, Finalizer>;

std::atomic<sqlite3*> g_interruptible{nullptr};
std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{SIGINT};

// SIGTERM and SIGHUP (a scheduler's kill, a closed terminal) stop the statement as SIGINT does, so
// that what it was writing (a converted JSON trace, an export's temporary file) is removed.
extern "C" void on_sigint(int sig) {
  g_signal = sig;
  g_interrupted = true;
  if (sqlite3* db = g_interruptible.load()) sqlite3_interrupt(db);
}

// 128 + the signal, as shells report a command a signal ended (130 for SIGINT).
int exit_interrupted() { return 128 + g_signal.load(); }

// The functions of the extension that write a file the user names.
bool writes_files(const char* function) {
  static const char* const kWriters[] = {"rocpd_export_trace", "rocpd_export_split", "rocpd_import",
                                         "rocpd_compress"};
  return function && std::any_of(std::begin(kWriters), std::end(kWriters),
                                 [&](const char* w) { return sqlite3_stricmp(w, function) == 0; });
}

// Tables and views that read the members (the canonical tables, the analysis tables and views):
// they answer like empty tables while no member is open. rocpd_members, rocpd_skipped and the
// run labels describe the federation itself.
bool reads_members(const char* table) {
  if (!table || sqlite3_strnicmp(table, "rocpd_", 6) != 0) return false;
  static const char* const kOwn[] = {"rocpd_members", "rocpd_skipped", "rocpd_run_labels", "rocpd_runs"};
  return std::none_of(std::begin(kOwn), std::end(kOwn), [&](const char* t) { return sqlite3_stricmp(t, table) == 0; });
}

bool is_existing_file(const char* name) {
  struct stat st {};
  return name && ::stat(name, &st) == 0;
}

Cell cell_of(sqlite3_stmt* s, int i) {
  Cell c;
  switch (sqlite3_column_type(s, i)) {
    case SQLITE_INTEGER:
      c.type = Cell::Type::Integer;
      c.integer = sqlite3_column_int64(s, i);
      break;
    case SQLITE_FLOAT:
      c.type = Cell::Type::Real;
      c.real = sqlite3_column_double(s, i);
      break;
    case SQLITE_TEXT: c.type = Cell::Type::Text; break;
    case SQLITE_BLOB: c.type = Cell::Type::Blob; break;
    default: break;
  }
  const int type = sqlite3_column_type(s, i);
  const void* data = type == SQLITE_BLOB ? sqlite3_column_blob(s, i) : sqlite3_column_text(s, i);
  c.text = rocpd::cell_text(type, data, sqlite3_column_bytes(s, i));
  return c;
}

class Collector : public RowSink {
 public:
  std::vector<ResultSet> sets;
  void begin(const std::vector<std::string>& columns) override { sets.push_back({"", "", columns, {}, ""}); }
  void row(const std::vector<Cell>& cells) override { sets.back().rows.push_back(cells); }
  void end() override {}
};

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1] ? 1 : 0)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

std::string nearest_name(const std::string& wrong, const std::vector<std::string>& names) {
  std::string w = lower(wrong);
  std::string best;
  size_t best_d = SIZE_MAX;
  for (const auto& name : names) {
    std::string n = lower(name);
    if (n == w) continue;
    size_t d = edit_distance(w, n);
    if (n.starts_with("rocpd_") && !w.starts_with("rocpd_")) d = std::min(d, edit_distance(w, n.substr(6)));
    if (d < best_d || (d == best_d && name < best)) best_d = d, best = name;
  }
  // A typo: at most a quarter of the name wrong (one edit at least allowed).
  return best_d <= std::max<size_t>(1, w.size() / 4) ? best : "";
}

Session::Session(bool allow_write) : allow_write_(allow_write) {
  // Read-only: ATTACH takes the connection's open flags, so an attached file is read-only too and
  // a name that does not exist is never created. TEMP tables and views stay writable.
  int flags = allow_write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  if (sqlite3_open_v2(":memory:", &db_, flags, nullptr) != SQLITE_OK) {
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
  sqlite3_set_authorizer(db_, &Session::authorize, this);
}

Session::~Session() {
  if (g_interruptible.load() == db_) g_interruptible = nullptr;
  sqlite3_close_v2(db_);
}

int Session::authorize(void* self, int action, const char* a1, const char* a2, const char*, const char*) {
  auto* s = static_cast<Session*>(self);
  if (action == SQLITE_READ && s->preparing_ && reads_members(a1)) s->read_federation_ = true;
  if (s->allow_write_) return SQLITE_OK;
  if (action == SQLITE_FUNCTION && writes_files(a2) && !s->writers_.count(lower(a2))) {
    s->refused_ = std::string(a2) + "() writes a file, and this connection writes none (docs/cli.md); use " +
                  (lower(a2).starts_with("rocpd_export_") ? "rocpd-ext export, or " : "") +
                  "rocpd-ext query --allow-write to call it";
    return SQLITE_DENY;
  }
  if (action == SQLITE_ATTACH) {
    // An ATTACH authorized while a statement runs is VACUUM INTO's target, which SQLite opens for
    // writing whatever the connection's flags.
    if (!s->preparing_) {
      s->refused_ = std::string("VACUUM INTO '") + (a1 ? a1 : "") +
                    "' writes a file, and this connection writes none (docs/cli.md); use rocpd-ext query --allow-write";
      return SQLITE_DENY;
    }
    if (a1 && *a1 && std::string_view(a1) != ":memory:" && !std::string_view(a1).starts_with("file:") &&
        !is_existing_file(a1)) {
      s->refused_ = std::string("ATTACH '") + a1 +
                    "': no such file (the connection is read-only: ATTACH opens existing databases, read-only)";
      return SQLITE_DENY;
    }
  }
  return SQLITE_OK;
}

sqlite3_stmt* Session::prepare(const char* sql, const char** tail) {
  sqlite3_stmt* raw = nullptr;
  refused_.clear();
  read_federation_ = false;
  preparing_ = true;
  int rc = sqlite3_prepare_v2(db_, sql, -1, &raw, tail);
  preparing_ = false;
  if (rc != SQLITE_OK) fail();
  return raw;
}

bool Session::is_member(const std::string& name) {
  sqlite3_stmt* raw = nullptr;
  preparing_ = true;
  int rc = sqlite3_prepare_v2(db_, "SELECT 1 FROM rocpd_members WHERE db = ?1", -1, &raw, nullptr);
  preparing_ = false;
  Stmt s(raw);
  if (rc != SQLITE_OK) return false;
  sqlite3_bind_text(s.get(), 1, name.data(), static_cast<int>(name.size()), SQLITE_TRANSIENT);
  return sqlite3_step(s.get()) == SQLITE_ROW;
}

void Session::fail(const std::string& what) {
  if (g_interrupted) throw CliError("interrupted", exit_interrupted());
  if (!refused_.empty()) throw CliError(refused_);
  std::string msg = sqlite3_errmsg(db_);
  int code = sqlite3_errcode(db_) & 0xff;
  if (code == SQLITE_READONLY)
    msg += " (this connection writes no file, docs/cli.md: scratch tables go in TEMP, e.g. CREATE TEMP TABLE; "
           "rocpd-ext query --allow-write lifts this)";
  for (const char* kind : {"no such table: ", "no such function: "}) {
    if (!msg.starts_with(kind)) continue;
    std::string wrong = msg.substr(std::string(kind).size());
    if (auto dot = wrong.find('.'); dot != std::string::npos) {
      // <member>.<table>: members are not attached schemas; their own tables are read through
      // rocpd_union's named form (docs/federation.md), which this names.
      std::string schema = wrong.substr(0, dot), table = wrong.substr(dot + 1);
      if (std::string_view(kind) == "no such table: " && is_member(schema))
        throw CliError(what + msg + " (" + schema + " is a member, not an attached schema: read a member's own table "
                       "through rocpd_union's named form, e.g. CREATE VIRTUAL TABLE temp." + table +
                       "_all USING rocpd_union(" + table + "); SELECT * FROM temp." + table + "_all WHERE db = '" +
                       schema + "'; docs/cli.md)");
      wrong = table;
    }
    std::vector<std::string> names;
    const char* list = std::string(kind) == "no such table: "
                           ? "SELECT name FROM sqlite_temp_schema WHERE type IN ('table', 'view') "
                             "UNION SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') "
                             "UNION SELECT name FROM pragma_module_list WHERE name LIKE 'rocpd%'"
                           : "SELECT DISTINCT name FROM pragma_function_list";
    sqlite3_stmt* raw = nullptr;
    preparing_ = true;
    int rc = sqlite3_prepare_v2(db_, list, -1, &raw, nullptr);
    preparing_ = false;
    Stmt s(raw);
    while (rc == SQLITE_OK && sqlite3_step(s.get()) == SQLITE_ROW)
      names.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s.get(), 0)));
    if (std::string near = nearest_name(wrong, names); !near.empty()) msg += " (did you mean " + near + "?)";
  }
  throw CliError(what + msg);
}

void Session::step_all(sqlite3_stmt* s, RowSink& sink) {
  int n = sqlite3_column_count(s);
  std::vector<std::string> columns;
  for (int i = 0; i < n; ++i) columns.emplace_back(sqlite3_column_name(s, i));
  if (n) sink.begin(columns);
  std::vector<Cell> row(static_cast<size_t>(n));
  for (;;) {
    int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) fail();
    for (int i = 0; i < n; ++i) row[static_cast<size_t>(i)] = cell_of(s, i);
    if (n) sink.row(row);
  }
  if (n) sink.end();
}

void Session::open_members(const std::vector<std::string>& paths, const std::string& run_label) {
  for (const auto& p : paths) {
    if (run_label.empty()) run("SELECT rocpd_open(?1)", {Param(p)});
    else run("SELECT rocpd_open(?1, ?2)", {Param(p), Param(run_label)});
  }
}

void Session::set_progress(bool on) { run("SELECT rocpd_progress(?1)", {Param(std::int64_t{on ? 1 : 0})}); }

void Session::run_script(const std::string& sql, RowSink& sink, bool pushdown) {
  const char* tail = sql.c_str();
  while (tail && *tail) {
    check_interrupted();
    Stmt s(prepare(tail, &tail));
    if (!s) continue;  // whitespace or a comment
    bool reads = read_federation_;
    if (pushdown) {
      if (Stmt rewritten(pushed_down(s.get())); rewritten) s = std::move(rewritten);
    }
    step_all(s.get(), sink);
    if (reads && !noticed_empty_ && scalar("SELECT count(*) FROM rocpd_members").integer == 0) {
      noticed_empty_ = true;
      std::cerr << "rocpd-ext: notice: no trace is open, so rocpd_ops and the other tables over the members "
                   "answer with no rows; name the traces before the SQL (rocpd-ext query PATH... SQL) or call "
                   "rocpd_open in it\n";
    }
  }
}

sqlite3_stmt* Session::pushed_down(sqlite3_stmt* s) {
  // Parameters stay unbound in a script (NULL), which the rewrite cannot carry over; EXPLAIN shows
  // the plan of what was typed; statements without rows have nothing to push down.
  if (sqlite3_bind_parameter_count(s) > 0 || sqlite3_stmt_isexplain(s) || sqlite3_column_count(s) == 0 ||
      !sqlite3_stmt_readonly(s))
    return nullptr;
  std::string typed = sqlite3_sql(s);
  while (!typed.empty() && (typed.back() == ';' || std::isspace(static_cast<unsigned char>(typed.back()))))
    typed.pop_back();
  const Cell answer = scalar("SELECT rocpd_sql_rewrite(?1)", {Param(typed)});
  if (answer.type != Cell::Type::Text || answer.text == typed) return nullptr;
  return prepare(answer.text.c_str(), nullptr);
}

void Session::check_interrupted() const {
  if (g_interrupted) throw CliError("interrupted", exit_interrupted());
}

std::vector<ResultSet> Session::run_script(const std::string& sql) {
  Collector c;
  run_script(sql, c);
  return std::move(c.sets);
}

ResultSet Session::run(const std::string& sql, const std::vector<Param>& params) {
  check_interrupted();
  Stmt s(prepare(sql.c_str(), nullptr));
  bind(s.get(), params);
  Collector c;
  step_all(s.get(), c);
  if (c.sets.empty()) return {};
  return std::move(c.sets.front());
}

void Session::bind(sqlite3_stmt* s, const std::vector<Param>& params) {
  for (size_t i = 0; i < params.size(); ++i) {
    int k = static_cast<int>(i) + 1, rc = SQLITE_OK;
    const Param& p = params[i];
    if (p.kind == Param::Kind::Integer) rc = sqlite3_bind_int64(s, k, p.integer);
    else if (p.kind == Param::Kind::Text)
      rc = sqlite3_bind_text(s, k, p.text.data(), static_cast<int>(p.text.size()), SQLITE_TRANSIENT);
    else rc = sqlite3_bind_null(s, k);
    if (rc != SQLITE_OK) fail();
  }
}

void Session::each(const std::string& sql, const std::vector<Param>& params,
                   const std::function<void(const std::vector<Cell>&)>& row) {
  check_interrupted();
  Stmt s(prepare(sql.c_str(), nullptr));
  bind(s.get(), params);
  struct Forward : RowSink {
    const std::function<void(const std::vector<Cell>&)>& f;
    explicit Forward(const std::function<void(const std::vector<Cell>&)>& fn) : f(fn) {}
    void begin(const std::vector<std::string>&) override {}
    void row(const std::vector<Cell>& cells) override { f(cells); }
    void end() override {}
  } sink(row);
  step_all(s.get(), sink);
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
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
  sqlite3* db = session ? session->handle() : nullptr;
  g_interruptible = db;
  if (!db) return;
  // SQLite forgets an interrupt that arrives between statements (the first statement to start
  // clears it): the progress handler also stops the statement once the signal was seen.
  sqlite3_progress_handler(db, 1000, [](void*) { return g_interrupted.load() ? 1 : 0; }, nullptr);
  if (g_interrupted) sqlite3_interrupt(db);
}

}  // namespace rocpd_cli
