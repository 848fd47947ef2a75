#include "federation/rocpd_union.h"

#include <fmt/format.h>

namespace rocpd::federation {

namespace {

const sqlite3_module& methods_of(sqlite3_vtab* v) {
  return static_cast<UnionVtab*>(v)->named ? kUnionNamedMethods : kUnionSummaryMethods;
}

std::string unquote(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  size_t b = 0;
  while (b < s.size() && (s[b] == ' ' || s[b] == '\t')) ++b;
  s = s.substr(b);
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"' || s.front() == '`' || s.front() == '[')) {
    const char close = s.front() == '[' ? ']' : s.front();
    if (s.back() == close) {
      std::string out;
      for (size_t i = 1; i + 1 < s.size(); ++i) {
        out += s[i];
        if (s[i] == close && i + 2 < s.size() && s[i + 1] == close) ++i;
      }
      return out;
    }
  }
  return s;
}

// argc == 3: eponymous use (the bare, table-valued form); otherwise CREATE VIRTUAL TABLE.
int x_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    const auto& reg = *static_cast<std::shared_ptr<members::Registry>*>(aux);
    if (argc <= 3) return union_summary_connect(db, reg, out);
    if (argc > 4)
      throw Error("rocpd_union: the named form takes one table or view name: "
                  "CREATE VIRTUAL TABLE temp.x USING rocpd_union(kernels)");
    return union_named_connect(db, reg, argv[1], argv[2], unquote(argv[3]), out);
  });
}

int x_best_index(sqlite3_vtab* v, sqlite3_index_info* i) { return methods_of(v).xBestIndex(v, i); }
int x_disconnect(sqlite3_vtab* v) { return methods_of(v).xDisconnect(v); }
int x_open(sqlite3_vtab* v, sqlite3_vtab_cursor** c) { return methods_of(v).xOpen(v, c); }
int x_close(sqlite3_vtab_cursor* c) { return methods_of(c->pVtab).xClose(c); }
int x_filter(sqlite3_vtab_cursor* c, int n, const char* s, int argc, sqlite3_value** argv) {
  return methods_of(c->pVtab).xFilter(c, n, s, argc, argv);
}
int x_next(sqlite3_vtab_cursor* c) { return methods_of(c->pVtab).xNext(c); }
int x_eof(sqlite3_vtab_cursor* c) { return methods_of(c->pVtab).xEof(c); }
int x_column(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int i) { return methods_of(c->pVtab).xColumn(c, ctx, i); }
int x_rowid(sqlite3_vtab_cursor* c, sqlite3_int64* r) { return methods_of(c->pVtab).xRowid(c, r); }

sqlite3_module make_module() {
  sqlite3_module m{};
  m.xCreate = x_connect;  // same as xConnect: eponymous (bare form) and CREATE VIRTUAL TABLE both work
  m.xConnect = x_connect;
  m.xBestIndex = x_best_index;
  m.xDisconnect = x_disconnect;
  m.xDestroy = x_disconnect;
  m.xOpen = x_open;
  m.xClose = x_close;
  m.xFilter = x_filter;
  m.xNext = x_next;
  m.xEof = x_eof;
  m.xColumn = x_column;
  m.xRowid = x_rowid;
  return m;
}

const sqlite3_module kModule = make_module();

}  // namespace

int register_rocpd_union(sqlite3* db, const std::shared_ptr<members::Registry>& registry) {
  return sqlite3_create_module_v2(db, "rocpd_union", &kModule, new std::shared_ptr<members::Registry>(registry),
                                  [](void* p) { delete static_cast<std::shared_ptr<members::Registry>*>(p); });
}

}  // namespace rocpd::federation
