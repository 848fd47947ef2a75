// rocpd_query(sql): the rows of one SELECT, answered as rocpd_sql and `rocpd-ext query` answer it
// (through the GROUP BY rewrite when its shape allows), as one text value: an aligned table, the
// layout of the CLI's table format (common/text_table.h), so that the sqlite3 shell's default list
// mode prints it readably (docs/pushdown.md). At most kMaxRows rows are shown; the rest are counted.
// Direct-only: it runs SQL that reads files, which a view or trigger of an untrusted database has
// no business making it do. The statement runs on the caller's connection, so sqlite3_interrupt
// stops it as it stops the caller.
#include "pushdown/register.h"

#include <fmt/format.h>

#include <algorithm>
#include <new>
#include <string>
#include <vector>

#include "common/terminal_text.h"
#include "common/text_table.h"
#include "pushdown/group_rewrite.h"
#include "pushdown/one_select.h"
#include "pushdown/sql_tokens.h"

namespace rocpd::pushdown {

namespace {

// The answer is one value, held whole and printed at once: a page to read, not a data transfer
// (rocpd_sql tables and LIMIT/OFFSET give every row).
constexpr size_t kMaxRows = 1000;
// Wider cells are cut ("..."), so that a table of kernel names (Tensile's run to hundreds of
// characters) stays one screen wide; numbers are never that wide.
constexpr size_t kMaxCellWidth = 60;
constexpr const char* kUsage = "SELECT rocpd_query('SELECT ...') (one query, quotes doubled)";
constexpr Caller kCaller{"rocpd_query", "rocpd_query", kUsage};

std::string rows_text(size_t n) { return n == 1 ? "1 row" : fmt::format("{} rows", n); }

// Why a query over the members' tables has no rows, when it is that no trace is open: such a query
// names one of the extension's tables (rocpd_ops, rocpd_union(...), ...); the views refuse to
// answer without members by themselves.
bool needs_members_none_open(sqlite3* db, std::string_view sql) {
  const auto tokens = tokenize(sql);
  if (std::none_of(tokens.begin(), tokens.end(),
                   [](const Token& t) { return t.is_name() && t.ident().rfind("rocpd_", 0) == 0; }))
    return false;
  Stmt stmt = prepare(db, "SELECT 1 FROM temp.rocpd_members LIMIT 1", "rocpd_query");
  return !step(stmt.get(), "rocpd_query");
}

// The statement's rows as shown: the first kMaxRows as cell texts, the rest counted.
struct Shown {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> right;
  size_t total = 0;
};

Shown read_rows(sqlite3* db, sqlite3_stmt* s) {
  Shown out;
  const int n = sqlite3_column_count(s);
  for (int i = 0; i < n; ++i) {
    const char* name = sqlite3_column_name(s, i);
    if (!name) throw std::bad_alloc();
    out.header.push_back(cut_to_width(terminal_text(name), kMaxCellWidth));
  }
  std::vector<Alignment> alignment(static_cast<size_t>(n));
  for (;;) {
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) break;
    if (rc == SQLITE_INTERRUPT) throw Error("interrupted", SQLITE_INTERRUPT);
    if (rc != SQLITE_ROW) {
      std::string msg = sqlite3_errmsg(db);
      if (msg.rfind("rocpd_query: ", 0) != 0) msg = "rocpd_query: " + msg;
      throw Error(msg, rc);
    }
    if (++out.total > kMaxRows) continue;  // counted, not shown
    std::vector<std::string> texts(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      const int type = sqlite3_column_type(s, i);
      const void* data = type == SQLITE_BLOB ? sqlite3_column_blob(s, i) : sqlite3_column_text(s, i);
      alignment[static_cast<size_t>(i)].add(type);
      texts[static_cast<size_t>(i)] =
          cut_to_width(terminal_text(cell_text(type, data, sqlite3_column_bytes(s, i))), kMaxCellWidth);
    }
    out.rows.push_back(std::move(texts));
  }
  for (const Alignment& a : alignment) out.right.push_back(a.right());
  return out;
}

void rocpd_query_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    sqlite3* db = sqlite3_context_db_handle(ctx);
    const std::string typed(sql_argument(argv[0], "rocpd_query"));
    Stmt stmt = prepare_one_select(db, typed, kCaller);
    if (const Rewrite rewrite = rewrite_group_query(db, typed); rewrite.pushed)
      stmt = prepare(db, rewrite.sql, "rocpd_query");
    Shown shown = read_rows(db, stmt.get());
    stmt.reset();
    const TextTable table(shown.header, shown.rows, std::move(shown.right));
    std::string out;
    table.head(out);
    for (const auto& row : shown.rows) table.line(out, row);
    if (shown.total > kMaxRows)
      out += fmt::format("({} of {} rows shown: rocpd_query shows the first {}; LIMIT and OFFSET show the others, "
                         "a rocpd_sql table has them all)",
                         kMaxRows, shown.total, kMaxRows);
    else if (shown.total == 0 && needs_members_none_open(db, typed))
      out += "(0 rows; no trace is open, so rocpd_ops and the other tables over the members have none: "
             "rocpd_open('path') or ATTACH first)";
    else
      out += fmt::format("({})", rows_text(shown.total));
    sqlite3_result_text64(ctx, out.data(), out.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  });
}

}  // namespace

void register_rocpd_query(sqlite3* db) {
  if (sqlite3_create_function_v2(db, "rocpd_query", 1, kFileFunction, nullptr, rocpd_query_fn, nullptr, nullptr,
                                 nullptr) != SQLITE_OK)
    throw Error("cannot register rocpd_query");
}

}  // namespace rocpd::pushdown
