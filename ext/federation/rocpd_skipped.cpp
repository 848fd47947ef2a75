// rocpd_skipped: what the last rocpd_open call passed over in a directory or glob, and why
// (SQLite files holding no trace, symbolic link loops, FIFOs, entries that cannot be read, other
// names of members' files), then the attached schemas that are other names of members' files.
// rowid: the row's position, in the order rocpd_open met the files.
// A hand-written sqlite3_module (federation core): its rows are the registry's record of the last
// rocpd_open, not rows computed from members.
#include "federation/rocpd_skipped.h"

#include <fmt/format.h>

#include <array>
#include <string>
#include <vector>

#include "common/vtab_util.h"

namespace rocpd::federation {

namespace {


struct SkippedVtab : sqlite3_vtab {
  std::shared_ptr<members::Registry> registry;
};

struct SkippedCursor : sqlite3_vtab_cursor {
  // pattern, path, reason; a copy: a rocpd_open during the scan does not move it
  std::vector<std::array<std::string, 3>> rows;
  size_t pos = 0;
};

int x_connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    const int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(pattern TEXT, path TEXT, reason TEXT)");
    if (rc != SQLITE_OK) return rc;
    auto* v = new SkippedVtab{};
    v->registry = *static_cast<std::shared_ptr<members::Registry>*>(aux);
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    *out = v;
    return SQLITE_OK;
  });
}

int x_best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  info->estimatedCost = 10;
  return SQLITE_OK;
}

int x_filter(sqlite3_vtab_cursor* c, int, const char*, int, sqlite3_value**) {
  auto* cur = static_cast<SkippedCursor*>(c);
  return guard(c->pVtab, [&] {
    members::Registry& registry = *static_cast<SkippedVtab*>(c->pVtab)->registry;
    registry.members();  // which attached schemas are other names of members' files, now
    cur->rows.clear();
    for (const auto& f : registry.last_skipped.files)
      cur->rows.push_back({registry.last_skipped.pattern, f.path, f.reason});
    for (auto& s : registry.skipped_schemas())
      cur->rows.push_back({fmt::format("ATTACH ... AS {}", s.schema), std::move(s.file.path), std::move(s.file.reason)});
    cur->pos = 0;
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* c) {
  ++static_cast<SkippedCursor*>(c)->pos;
  return SQLITE_OK;
}

int x_eof(sqlite3_vtab_cursor* c) {
  auto* cur = static_cast<SkippedCursor*>(c);
  return cur->pos >= cur->rows.size();
}

int x_column(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int col) {
  auto* cur = static_cast<SkippedCursor*>(c);
  const std::string& s = cur->rows[cur->pos][static_cast<size_t>(col)];
  sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* c, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(static_cast<SkippedCursor*>(c)->pos);
  return SQLITE_OK;
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.xConnect = x_connect;  // eponymous only
  m.xBestIndex = x_best_index;
  m.xDisconnect = vtab_disconnect<SkippedVtab>;
  m.xOpen = vtab_open<SkippedCursor>;
  m.xClose = vtab_close<SkippedCursor>;
  m.xFilter = x_filter;
  m.xNext = x_next;
  m.xEof = x_eof;
  m.xColumn = x_column;
  m.xRowid = x_rowid;
  return m;
}

const sqlite3_module kModule = make_module();

}  // namespace

int register_rocpd_skipped(sqlite3* db, const std::shared_ptr<members::Registry>& registry) {
  return sqlite3_create_module_v2(db, "rocpd_skipped", &kModule, new std::shared_ptr<members::Registry>(registry),
                                  [](void* p) { delete static_cast<std::shared_ptr<members::Registry>*>(p); });
}

}  // namespace rocpd::federation
