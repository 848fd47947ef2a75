// Run labels (docs/diagnosis.md, "Comparing runs"): rocpd_open(pattern, run) opens like
// rocpd_open(pattern) and labels the members it added; rocpd_set_run(db, run) labels (or, with a
// NULL run, unlabels) any member. Labels live in temp.rocpd_run_labels (sql/views/62_rocpd_runs.sql),
// keyed by member name and path, so a name reused by another file after rocpd_close never
// inherits a label. Both touch files or connection state: SQLITE_DIRECTONLY.
#include <fmt/format.h>

#include <optional>
#include <set>
#include <string>
#include <utility>

#include "common/sqlite_util.h"
#include "diagnosis/register.h"

namespace rocpd::diagnosis {
namespace {

using MemberKey = std::pair<std::string, std::string>;  // db, path ("" for none)

std::set<MemberKey> members(sqlite3* db) {
  Stmt s = prepare(db, "SELECT db, coalesce(path, '') FROM temp.rocpd_members", "reading rocpd_members");
  std::set<MemberKey> out;
  while (step(s.get(), "reading rocpd_members"))
    out.emplace(std::string(column_text(s.get(), 0)), std::string(column_text(s.get(), 1)));
  return out;
}

std::string text_arg(sqlite3_value* v, const char* fn, const char* what) {
  if (sqlite3_value_type(v) != SQLITE_TEXT)
    throw Error(fmt::format("{}: {} must be text", fn, what));
  return std::string(reinterpret_cast<const char*>(sqlite3_value_text(v)), static_cast<size_t>(sqlite3_value_bytes(v)));
}

void label(sqlite3* db, const MemberKey& m, const std::string* run) {
  Stmt s = prepare(db, run ? "INSERT OR REPLACE INTO temp.rocpd_run_labels (db, path, run) VALUES (?1, nullif(?2, ''), ?3)"
                           : "DELETE FROM temp.rocpd_run_labels WHERE db = ?1",
                   "writing temp.rocpd_run_labels");
  sqlite3_bind_text(s.get(), 1, m.first.data(), static_cast<int>(m.first.size()), SQLITE_TRANSIENT);
  if (run) {
    sqlite3_bind_text(s.get(), 2, m.second.data(), static_cast<int>(m.second.size()), SQLITE_TRANSIENT);
    sqlite3_bind_text(s.get(), 3, run->data(), static_cast<int>(run->size()), SQLITE_TRANSIENT);
  }
  step(s.get(), "writing temp.rocpd_run_labels");
}

void open_labelled(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    sqlite3* db = sqlite3_context_db_handle(ctx);
    const std::string run = text_arg(argv[1], "rocpd_open", "the run label (argument 2)");
    if (run.empty()) throw Error("rocpd_open: the run label (argument 2) must not be empty");
    const auto before = members(db);
    Stmt s = prepare(db, "SELECT rocpd_open(?1)");
    sqlite3_bind_value(s.get(), 1, argv[0]);
    if (!step(s.get())) throw Error("rocpd_open: no result");
    const int64_t added = sqlite3_column_int64(s.get(), 0);
    s.reset();
    for (const MemberKey& m : members(db))
      if (!before.contains(m)) label(db, m, &run);
    sqlite3_result_int64(ctx, added);
  });
}

void set_run(sqlite3_context* ctx, int, sqlite3_value** argv) {
  guard(ctx, [&] {
    sqlite3* db = sqlite3_context_db_handle(ctx);
    const std::string name = text_arg(argv[0], "rocpd_set_run", "db (argument 1)");
    std::optional<std::string> run;
    if (sqlite3_value_type(argv[1]) != SQLITE_NULL) {
      run = text_arg(argv[1], "rocpd_set_run", "the run label (argument 2)");
      if (run->empty()) throw Error("rocpd_set_run: the run label (argument 2) must not be empty");
    }
    for (const MemberKey& m : members(db))
      if (m.first == name) {
        label(db, m, run ? &*run : nullptr);
        sqlite3_result_int(ctx, 1);
        return;
      }
    throw Error(fmt::format("rocpd_set_run: no member is named '{}'", name));
  });
}

}  // namespace

void register_runs(sqlite3* db) {
  for (auto [name, fn] : {std::pair{"rocpd_open", &open_labelled}, std::pair{"rocpd_set_run", &set_run}}) {
    const int rc = sqlite3_create_function_v2(db, name, 2, kFileFunction, nullptr, fn, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", name, sqlite3_errmsg(db)), rc);
  }
}

}  // namespace rocpd::diagnosis
