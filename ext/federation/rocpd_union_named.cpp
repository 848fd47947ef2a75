// The named form: CREATE VIRTUAL TABLE temp.x USING rocpd_union(<table or view>). Columns are
// `db` then the object's own columns as the first member holding it declares them; members
// without the object are skipped, columns a member lacks read as NULL.
//
// Plan: idxNum bit 0 = `db =` selects members; idxStr lists the pushed constraints as
// "<column index><op>,..." (op as in SQL), bound in order as the member query's parameters.
#include <fmt/format.h>

#include "common/vtab_util.h"

#include "federation/member_probe.h"
#include "federation/member_sql.h"
#include "federation/rocpd_union.h"

namespace rocpd::federation {

namespace {

struct NamedVtab : UnionVtab {
  std::string object;
  std::vector<std::string> columns;  // the object's columns (vtab column i + 1)
};

struct NamedCursor : sqlite3_vtab_cursor {
  std::vector<MemberPtr> members;
  size_t next = 0;
  MemberPtr member;
  Registry::Lease lease;
  Stmt stmt;
  int64_t rowid = 0;
  bool eof = true;
  std::vector<std::pair<int, unsigned char>> constraints;  // (object column, op)
  std::vector<sqlite3_value*> values;
  ~NamedCursor() { clear_values(); }
  void clear_values() {
    for (auto* v : values) sqlite3_value_free(v);
    values.clear();
  }
};

// Columns of `object` in a member, or nullopt when the member has no such table or view.
std::optional<std::vector<std::pair<std::string, std::string>>> object_columns(sqlite3* db, const std::string& schema,
                                                                              const std::string& object) {
  auto exists = prepare(db, fmt::format("SELECT 1 FROM {}.sqlite_master WHERE type IN ('table', 'view') AND name = ?1",
                                        quote_id(schema)));
  sqlite3_bind_text(exists.get(), 1, object.c_str(), -1, SQLITE_TRANSIENT);
  if (!step(exists.get())) return std::nullopt;
  auto stmt = prepare(db, fmt::format("SELECT * FROM {}.{}", quote_id(schema), quote_id(object)));
  std::vector<std::pair<std::string, std::string>> cols;
  for (int i = 0; i < sqlite3_column_count(stmt.get()); ++i) {
    const char* decl = sqlite3_column_decltype(stmt.get(), i);
    cols.emplace_back(sqlite3_column_name(stmt.get(), i), decl ? decl : "");
  }
  return cols;
}

std::string member_query(const NamedVtab& v, sqlite3* db, const Member& m,
                         const std::vector<std::pair<int, unsigned char>>& constraints) {
  const auto have = object_columns(db, m.schema, v.object);
  if (!have) return {};
  auto has = [&](const std::string& c) {
    for (const auto& [name, decl] : *have)
      if (name == c) return true;
    return false;
  };
  std::string sql = "SELECT ";
  for (size_t i = 0; i < v.columns.size(); ++i) {
    if (i) sql += ", ";
    sql += has(v.columns[i]) ? quote_id(v.columns[i]) : "NULL";
  }
  sql += fmt::format(" FROM {}.{}", quote_id(m.schema), quote_id(v.object));
  int param = 0;
  for (const auto& [col, op] : constraints) {
    sql += param == 0 ? " WHERE " : " AND ";
    // A column this member lacks is NULL, which no pushed comparison matches.
    const std::string lhs = has(v.columns[col]) ? quote_id(v.columns[col]) : "NULL";
    sql += fmt::format("{} {} ?{}", lhs, constraint_sql_op(op), ++param);
  }
  return sql;
}

void advance(NamedCursor* cur, NamedVtab* v) {
  for (;;) {
    if (cur->stmt) {
      const int rc = sqlite3_step(cur->stmt.get());
      if (rc == SQLITE_ROW) {
        ++cur->rowid;
        return;
      }
      if (rc != SQLITE_DONE)
        throw Error(fmt::format("rocpd_union({}): member {}: {}", v->object, cur->member->alias,
                                sqlite3_errmsg(cur->lease.db())),
                    rc);
      cur->stmt.reset();
    }
    if (cur->next >= cur->members.size()) {
      cur->lease = Registry::Lease();
      cur->eof = true;
      return;
    }
    cur->member = cur->members[cur->next++];
    cur->lease = v->registry->acquire(cur->member);
    const std::string sql = member_query(*v, cur->lease.db(), *cur->member, cur->constraints);
    if (sql.empty()) continue;  // this member has no such object
    cur->stmt = prepare(cur->lease.db(), sql, fmt::format("rocpd_union({}): member {}", v->object, cur->member->alias));
    for (size_t i = 0; i < cur->values.size(); ++i)
      sqlite3_bind_value(cur->stmt.get(), static_cast<int>(i + 1), cur->values[i]);
  }
}

int x_best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  int argv = 0;
  std::string cons;
  double cost = 1e7;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || c.iColumn < 0) continue;
    const char* op = constraint_sql_op(c.op);
    if (!op) continue;
    if (c.iColumn == 0) {
      if (c.op != SQLITE_INDEX_CONSTRAINT_EQ || (info->idxNum & 1)) continue;
      info->idxNum |= 1;
      cost /= 100;
      info->aConstraintUsage[i].omit = 1;
    } else {
      cost /= 2;
    }
    info->aConstraintUsage[i].argvIndex = ++argv;
    if (!cons.empty()) cons += ',';
    cons += fmt::format("{}{}", c.iColumn, op);
  }
  info->idxStr = sqlite3_mprintf("%s", cons.c_str());
  info->needToFreeIdxStr = 1;
  info->estimatedCost = cost;
  return SQLITE_OK;
}

int x_filter(sqlite3_vtab_cursor* c, int, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* cur = static_cast<NamedCursor*>(c);
  auto* v = static_cast<NamedVtab*>(c->pVtab);
  return guard(c->pVtab, [&] {
    cur->stmt.reset();
    cur->lease = Registry::Lease();
    cur->clear_values();
    cur->constraints.clear();
    std::string db_filter;
    bool one_db = false;
    std::string_view s = idx_str ? idx_str : "";
    for (int i = 0; i < argc; ++i) {
      const size_t comma = s.find(',');
      std::string_view item = s.substr(0, comma);
      s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
      size_t n = 0;
      while (n < item.size() && item[n] >= '0' && item[n] <= '9') ++n;
      const int col = std::stoi(std::string(item.substr(0, n)));
      const std::string op(item.substr(n));
      if (col == 0) {
        one_db = true;
        const auto* t = sqlite3_value_text(argv[i]);
        db_filter = t ? reinterpret_cast<const char*>(t) : std::string("\x01null");
        continue;
      }
      const unsigned char o = constraint_op_from_sql(op);
      if (o == 0) throw Error("rocpd_union: malformed plan string");
      cur->constraints.emplace_back(col - 1, o);
      sqlite3_value* copy = sqlite3_value_dup(argv[i]);
      if (!copy) throw std::bad_alloc();
      cur->values.push_back(copy);
    }
    cur->members.clear();
    for (auto& m : v->registry->members())
      if (!one_db || m->alias == db_filter) cur->members.push_back(m);
    cur->next = 0;
    cur->rowid = 0;
    cur->eof = false;
    advance(cur, v);
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* c) {
  auto* cur = static_cast<NamedCursor*>(c);
  return guard(c->pVtab, [&] {
    advance(cur, static_cast<NamedVtab*>(c->pVtab));
    return SQLITE_OK;
  });
}

int x_eof(sqlite3_vtab_cursor* c) { return static_cast<NamedCursor*>(c)->eof; }

int x_column(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int col) {
  auto* cur = static_cast<NamedCursor*>(c);
  if (col == 0) {
    sqlite3_result_text(ctx, cur->member->alias.c_str(), -1, SQLITE_TRANSIENT);
  } else {
    sqlite3_result_value(ctx, sqlite3_column_value(cur->stmt.get(), col - 1));
  }
  return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* c, sqlite3_int64* rowid) {
  *rowid = static_cast<NamedCursor*>(c)->rowid;
  return SQLITE_OK;
}

sqlite3_module make_methods() {
  sqlite3_module m{};
  m.xBestIndex = x_best_index;
  m.xDisconnect = vtab_disconnect<NamedVtab>;
  m.xOpen = vtab_open<NamedCursor>;
  m.xClose = vtab_close<NamedCursor>;
  m.xFilter = x_filter;
  m.xNext = x_next;
  m.xEof = x_eof;
  m.xColumn = x_column;
  m.xRowid = x_rowid;
  return m;
}

}  // namespace

const sqlite3_module kUnionNamedMethods = make_methods();

int union_named_connect(sqlite3* db, const std::shared_ptr<Registry>& reg, const std::string& object,
                        sqlite3_vtab** out) {
  if (object.empty())
    throw Error("rocpd_union: name a table or view: CREATE VIRTUAL TABLE temp.kernels_all USING rocpd_union(kernels)");
  std::optional<std::vector<std::pair<std::string, std::string>>> cols;
  for (const auto& m : reg->members()) {
    auto lease = reg->acquire(m);
    if ((cols = object_columns(lease.db(), m->schema, object))) break;
  }
  if (!cols) throw Error(fmt::format("rocpd_union({}): no member has a table or view named {}", object, object));
  auto v = std::make_unique<NamedVtab>();
  v->registry = reg;
  v->named = true;
  v->object = object;
  std::string ddl = "CREATE TABLE x(db TEXT";
  for (const auto& [name, decl] : *cols) {
    v->columns.push_back(name);
    // A column of the object named like our leading one is renamed, not dropped.
    ddl += fmt::format(", {} {}", quote_id(name == "db" ? "db_" + object : name), decl);
  }
  ddl += ")";
  const int rc = sqlite3_declare_vtab(db, ddl.c_str());
  if (rc != SQLITE_OK) return rc;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *out = v.release();
  return SQLITE_OK;
}

}  // namespace rocpd::federation
