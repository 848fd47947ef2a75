#include "diagnosis/sql_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "common/vtab_util.h"
#include "analysis/sql_args.h"

namespace rocpd::diagnosis {
namespace {

size_t count_columns(const std::string& list) {
  return list.empty() ? 0 : static_cast<size_t>(std::count(list.begin(), list.end(), ',')) + 1;
}

struct Table : sqlite3_vtab {
  sqlite3* conn = nullptr;
  const SqlTableDef* def = nullptr;
  size_t visible = 0, hidden = 0;  // visible columns; hidden ones after the arguments
};

struct Cursor : sqlite3_vtab_cursor {
  Stmt stmt;
  std::vector<int64_t> args;
  bool eof = true;
  Table& table() const { return *static_cast<Table*>(pVtab); }
};

int connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    const auto* def = static_cast<const SqlTableDef*>(aux);
    std::string decl = "CREATE TABLE x(" + def->columns;
    for (const SqlTableArg& a : def->args) decl += fmt::format(", {} INTEGER HIDDEN", a.name);
    if (!def->hidden.empty()) {
      // "a INTEGER, b TEXT" -> "a INTEGER HIDDEN, b TEXT HIDDEN"
      std::string list = def->hidden + ",";
      for (size_t at = 0; (at = list.find(',', at)) != std::string::npos; at += 8) list.insert(at, " HIDDEN");
      list.pop_back();
      decl += ", " + list;
    }
    decl += ")";
    if (int rc = sqlite3_declare_vtab(db, decl.c_str()); rc != SQLITE_OK) throw Error(sqlite3_errmsg(db), rc);
    // It reads the members' files through the federation, as the tables it queries.
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    auto table = std::make_unique<Table>();
    *static_cast<sqlite3_vtab*>(table.get()) = {};
    table->conn = db;
    table->def = def;
    table->visible = count_columns(def->columns);
    table->hidden = count_columns(def->hidden);
    *out = table.release();
    return SQLITE_OK;
  });
}

// idxStr: one code per xFilter argument, 'a' + k for argument k, 'D' for db =.
int best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  return guard(vtab, [&] {
    const Table& t = *static_cast<Table*>(vtab);
    std::string codes;
    bool by_db = false;
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      if (c.op != SQLITE_INDEX_CONSTRAINT_EQ || c.iColumn < 0) continue;
      const auto col = static_cast<size_t>(c.iColumn);
      if (col >= t.visible && col < t.visible + t.def->args.size()) {
        // A plan without an argument of the table-valued call would change its meaning.
        if (!c.usable) return SQLITE_CONSTRAINT;
        codes.push_back(static_cast<char>('a' + (col - t.visible)));
        info->aConstraintUsage[i].argvIndex = static_cast<int>(codes.size());
        info->aConstraintUsage[i].omit = 1;
      } else if (c.iColumn == t.def->db_column && c.usable && !by_db) {
        const char* coll = sqlite3_vtab_collation(info, i);
        if (coll && sqlite3_stricmp(coll, "BINARY") != 0) continue;
        by_db = true;
        codes.push_back('D');
        info->aConstraintUsage[i].argvIndex = static_cast<int>(codes.size());
      }
    }
    info->estimatedCost = by_db ? 5e6 : 1e8;
    info->estimatedRows = by_db ? 50000 : 1000000;
    info->idxStr = sqlite_strdup(codes);
    if (!info->idxStr) throw std::bad_alloc();
    info->needToFreeIdxStr = 1;
    return SQLITE_OK;
  });
}

void advance(Cursor& c) { c.eof = !step(c.stmt.get(), c.table().def->name); }

int filter(sqlite3_vtab_cursor* cur, int, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    const SqlTableDef& def = *c->table().def;
    const std::string codes = idx_str ? idx_str : "";
    if (codes.size() != static_cast<size_t>(argc)) throw Error(fmt::format("{}: inconsistent query plan", def.name));
    c->args.clear();
    for (const SqlTableArg& a : def.args) c->args.push_back(a.default_value);
    std::optional<std::string> db;
    std::vector<bool> given(def.args.size(), false);
    bool nothing = false;
    for (int i = 0; i < argc; ++i) {
      const char code = codes[static_cast<size_t>(i)];
      if (code == 'D') {
        // Only text is pushed down; SQLite compares other values itself (and re-checks text).
        const int type = sqlite3_value_type(argv[i]);
        if (type == SQLITE_NULL) nothing = true;
        if (type != SQLITE_TEXT) continue;
        std::string text(reinterpret_cast<const char*>(sqlite3_value_text(argv[i])),
                         static_cast<size_t>(sqlite3_value_bytes(argv[i])));
        if (db && *db != text) nothing = true;
        db = std::move(text);
        continue;
      }
      const auto k = static_cast<size_t>(code - 'a');
      const SqlTableArg& a = def.args.at(k);
      const auto value = analysis::int64_arg(argv[i], def.name, a.name);
      if (!value) continue;  // NULL: the default
      if (*value < a.min_value)
        throw Error(fmt::format("{}: {} must be >= {}, got {}", def.name, a.name, a.min_value, *value));
      // Two different values for one argument (WHERE x = 1 AND x = 2): no row has both.
      if (given[k] && c->args[k] != *value) nothing = true;
      given[k] = true;
      c->args[k] = *value;
    }
    c->stmt = prepare(c->table().conn, def.query(db.has_value()), def.name);
    for (size_t k = 0; k < c->args.size(); ++k) sqlite3_bind_int64(c->stmt.get(), static_cast<int>(k + 1), c->args[k]);
    if (db)
      sqlite3_bind_text(c->stmt.get(), static_cast<int>(c->args.size() + 1), db->data(), static_cast<int>(db->size()),
                        SQLITE_TRANSIENT);
    if (nothing) {
      c->stmt.reset();
      c->eof = true;
      return SQLITE_OK;
    }
    advance(*c);
    return SQLITE_OK;
  });
}

int next(sqlite3_vtab_cursor* cur) {
  auto* c = static_cast<Cursor*>(cur);
  return guard(cur->pVtab, [&] {
    advance(*c);
    return SQLITE_OK;
  });
}

int eof(sqlite3_vtab_cursor* cur) { return static_cast<Cursor*>(cur)->eof; }

int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = static_cast<Cursor*>(cur);
  const size_t visible = c->table().visible;
  const auto i = static_cast<size_t>(col);
  const size_t args = c->args.size();
  if (i < visible) sqlite3_result_value(ctx, sqlite3_column_value(c->stmt.get(), col));
  else if (i < visible + args) sqlite3_result_int64(ctx, c->args[i - visible]);
  else sqlite3_result_value(ctx, sqlite3_column_value(c->stmt.get(), static_cast<int>(i - args)));
  return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  auto* c = static_cast<Cursor*>(cur);
  *out = sqlite3_column_int64(c->stmt.get(), static_cast<int>(c->table().visible + c->table().hidden));
  return SQLITE_OK;
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.xConnect = connect;  // no xCreate: eponymous-only
  m.xBestIndex = best_index;
  m.xDisconnect = vtab_disconnect<Table>;
  m.xOpen = vtab_open<Cursor>;
  m.xClose = vtab_close<Cursor>;
  m.xFilter = filter;
  m.xNext = next;
  m.xEof = eof;
  m.xColumn = column;
  m.xRowid = rowid;
  return m;
}
const sqlite3_module kModule = make_module();

}  // namespace

void register_sql_table(sqlite3* db, const SqlTableDef& def) {
  int rc = sqlite3_create_module(db, def.name, &kModule, const_cast<SqlTableDef*>(&def));
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_ext: registering {}: {}", def.name, sqlite3_errmsg(db)), rc);
}

}  // namespace rocpd::diagnosis
