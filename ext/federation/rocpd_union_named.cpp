// The named form: CREATE VIRTUAL TABLE temp.x USING rocpd_union(<table or view>). Columns are
// `db` then the object's own columns as the first member holding it declares them (each declared
// with the affinity keyword of its declared type, never the text itself); members without the
// object are skipped, columns a member lacks read as NULL.
//
// Plan: idxNum bit 0 = `db =` (BINARY) selects members; idxStr lists the constraints as
// "<column index><op>[/<collation>],..." (op as in SQL), bound in order as the member query's
// parameters. A constraint is compared inside a member only where that member's column has the
// affinity of ours (so the member compares what SQLite would) and the object is a rowid table;
// SQLite re-checks every constraint but `db =`.
//
// Rowids: the member's ordinal above the row's own rowid (tables), or above the row's position
// in the member's whole object (views, WITHOUT ROWID tables: read whole, in their own order).
#include <fmt/format.h>

#include <map>

#include "common/affinity.h"
#include "common/vtab_util.h"
#include "members/interrupt.h"
#include "members/member_probe.h"
#include "members/member_query.h"
#include "members/member_sql.h"
#include "federation/rocpd_union.h"
#include "members/row_ids.h"

namespace rocpd::federation {

namespace {

constexpr int kOwnBits = 63 - members::kOrdinalBits;  // below the member ordinal (row_ids.h)

struct NamedVtab : UnionVtab {
  std::string schema, name;           // the table's own (CREATE VIRTUAL TABLE <schema>.<name>)
  std::string object;
  std::vector<std::string> columns;   // the object's columns (vtab column i + 1)
  std::vector<Affinity> affinity;     // as declared in the vtab
};

// A named union reads attached members on the host connection, so a member object that is itself
// a named union (directly, or through views and other unions) is read from inside our own
// sqlite3_step: a cycle would recurse until the stack overflows. The named unions being read on
// this thread, outermost first: one already among them (the same table, or the same schema and
// name connected anew) closes a cycle. A chain without a cycle is bounded too, as each level is a
// query stepped inside the one above, on this thread's stack.
constexpr size_t kMaxNestedScans = 32;
thread_local std::vector<const NamedVtab*> scans;
// The refusal raised by the innermost scan: the levels above pass it on as it is, rather than
// each wrapping it in its own name and member (the chain is in the message already).
thread_local std::string refusal;

std::string label(const NamedVtab& v) { return v.schema == "main" ? v.name : v.schema + "." + v.name; }

bool same_table(const NamedVtab& a, const NamedVtab& b) {
  return &a == &b || (a.registry == b.registry && a.schema == b.schema && a.name == b.name);
}

class ScanGuard {
 public:
  explicit ScanGuard(NamedVtab& v) {
    for (size_t i = 0; i < scans.size(); ++i) {
      if (!same_table(*scans[i], v)) continue;
      refuse(fmt::format("{} = rocpd_union({}): reading it reads this table again (a rocpd_union that reaches itself "
                         "through members' tables, views or other named unions): refused, a cycle never ends: {}",
                         label(v), v.object, chain(i, v)));
    }
    if (scans.size() >= kMaxNestedScans)
      refuse(fmt::format("{} = rocpd_union({}): named unions nested deeper than {}: {}: refused (each reads the next "
                         "from inside its own query; the bound keeps the thread's stack)",
                         label(v), v.object, kMaxNestedScans, chain(0, v)));
    scans.push_back(&v);
  }
  ~ScanGuard() {
    scans.pop_back();
    if (scans.empty()) refusal.clear();
  }
  ScanGuard(const ScanGuard&) = delete;
  ScanGuard& operator=(const ScanGuard&) = delete;

 private:
  // The tables being read from the one at `from` inward, then v.
  static std::string chain(size_t from, const NamedVtab& v) {
    std::string out;
    for (size_t j = from; j < scans.size(); ++j) out += label(*scans[j]) + " -> ";
    return out + label(v);
  }
  [[noreturn]] static void refuse(std::string message) {
    refusal = message;
    throw Error(std::move(message));
  }
};

// What one member holds under the object's name.
struct ObjectShape {
  bool rowid_table = false;                 // a table with rowids (not a view, not WITHOUT ROWID)
  std::string rowid_name;                   // rowid, _rowid_ or oid: one no column hides
  std::map<std::string, Affinity> columns;  // the member's columns and their declared affinity
};

struct Constraint {
  int column;  // object column (vtab column - 1)
  unsigned char op;
  members::Collation collation;
  Value value;
};

struct NamedCursor : sqlite3_vtab_cursor {
  std::vector<canonical::MemberPtr> members;
  size_t next = 0;
  canonical::MemberPtr member;
  members::Registry::Lease lease;
  Stmt stmt;
  bool by_position = false;  // rowids are positions (the member's object has none)
  int64_t position = 0;
  bool eof = true;
  std::unique_ptr<members::InterruptWatch> watch;
  std::vector<Constraint> constraints;
};

std::optional<ObjectShape> object_shape(sqlite3* db, const std::string& schema, const std::string& object) {
  auto kind = prepare(db, fmt::format("SELECT type, sql FROM {}.sqlite_master WHERE type IN ('table', 'view') AND "
                                      "name = ?1",
                                      quote_id(schema)));
  sqlite3_bind_text(kind.get(), 1, object.c_str(), -1, SQLITE_TRANSIENT);
  if (!step(kind.get())) return std::nullopt;
  ObjectShape shape;
  std::string sql(column_text(kind.get(), 1));
  for (auto& c : sql) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  shape.rowid_table = column_text(kind.get(), 0) == "table" && sql.find("WITHOUT") == std::string::npos;
  auto info = prepare(db, "SELECT name, type FROM pragma_table_info(?1, ?2)");
  sqlite3_bind_text(info.get(), 1, object.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(info.get(), 2, schema.c_str(), -1, SQLITE_TRANSIENT);
  while (step(info.get())) shape.columns[std::string(column_text(info.get(), 0))] = affinity_of(column_text(info.get(), 1));
  for (const char* name : {"rowid", "_rowid_", "oid"}) {
    bool hidden = false;
    for (const auto& [column, a] : shape.columns) hidden = hidden || sqlite3_stricmp(column.c_str(), name) == 0;
    if (!hidden) {
      shape.rowid_name = name;
      break;
    }
  }
  if (shape.rowid_name.empty()) shape.rowid_table = false;  // columns hide every rowid alias
  return shape;
}

// Whether comparing `c` inside a member whose column has affinity `theirs` keeps every row that
// SQLite's comparison on our column (affinity `ours`) keeps.
bool pushable(const Constraint& c, Affinity ours, Affinity theirs) {
  if (ours != theirs) return false;
  const int type = sqlite3_value_type(c.value.get());
  if (c.op == SQLITE_INDEX_CONSTRAINT_LIKE || c.op == SQLITE_INDEX_CONSTRAINT_GLOB) return false;
  if (ours == Affinity::Blob) return type != SQLITE_NULL;
  if (numeric_affinity(ours)) return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
  return type == SQLITE_TEXT;
}

const char* collate_clause(members::Collation c) {
  return c == members::Collation::NoCase ? " COLLATE NOCASE" : c == members::Collation::RTrim ? " COLLATE RTRIM" : "";
}

// The member's query and the constraints bound to it (empty SQL: the member has no such object).
std::string member_query(const NamedVtab& v, sqlite3* db, const canonical::Member& m, const std::vector<Constraint>& constraints,
                         std::vector<const Constraint*>& bound, bool& by_position) {
  bound.clear();
  const auto shape = object_shape(db, m.schema, v.object);
  if (!shape) return {};
  by_position = !shape->rowid_table;
  std::string sql = by_position ? "SELECT NULL" : "SELECT " + shape->rowid_name;
  for (const auto& c : v.columns) sql += ", " + (shape->columns.count(c) ? quote_id(c) : std::string("NULL"));
  sql += fmt::format(" FROM {}.{}", quote_id(m.schema), quote_id(v.object));
  if (by_position) return sql;  // positions number the whole object: nothing may be left out
  for (const auto& c : constraints) {
    const std::string& name = v.columns[static_cast<size_t>(c.column)];
    auto it = shape->columns.find(name);
    if (it == shape->columns.end() || !pushable(c, v.affinity[static_cast<size_t>(c.column)], it->second)) continue;
    bound.push_back(&c);
    sql += bound.size() == 1 ? " WHERE " : " AND ";
    sql += fmt::format("{} {} ?{}{}", quote_id(name), members::constraint_sql_op(c.op), bound.size(), collate_clause(c.collation));
  }
  return sql;
}

void advance(NamedCursor* cur, NamedVtab* v) {
  for (;;) {
    if (cur->stmt) {
      const int rc = sqlite3_step(cur->stmt.get());
      if (rc == SQLITE_ROW) {
        ++cur->position;
        return;
      }
      if (rc != SQLITE_DONE) {
        if (rc == SQLITE_INTERRUPT || cur->watch->stopped()) members::InterruptWatch::raise();
        if (!refusal.empty()) throw Error(refusal, rc);  // a nested union's cycle or depth refusal
        throw Error(fmt::format("rocpd_union({}): {}: {}", v->object, members::member_label(*cur->member),
                                sqlite3_errmsg(cur->lease.db())),
                    rc);
      }
      cur->stmt.reset();
    }
    if (cur->next >= cur->members.size()) {
      cur->lease = members::Registry::Lease();
      cur->eof = true;
      return;
    }
    cur->watch->check();
    cur->member = cur->members[cur->next++];
    cur->lease = v->registry->acquire(cur->member, cur->watch.get());
    std::vector<const Constraint*> bound;
    const std::string sql = member_query(*v, cur->lease.db(), *cur->member, cur->constraints, bound, cur->by_position);
    if (sql.empty()) continue;  // this member has no such object
    cur->stmt = prepare(cur->lease.db(), sql, fmt::format("rocpd_union({}): {}", v->object, members::member_label(*cur->member)));
    for (size_t i = 0; i < bound.size(); ++i)
      sqlite3_bind_value(cur->stmt.get(), static_cast<int>(i + 1), bound[i]->value.get());
    cur->position = -1;
  }
}

int x_best_index(sqlite3_vtab* vt, sqlite3_index_info* info) {
  return guard(vt, [&] {
    int argv = 0;
    std::string cons;
    double cost = 1e7;
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      if (!c.usable || c.iColumn < 0) continue;
      const char* op = members::constraint_sql_op(c.op);
      if (!op) continue;
      const char* coll_name = sqlite3_vtab_collation(info, i);
      members::Collation coll = members::Collation::Binary;
      if (coll_name && sqlite3_stricmp(coll_name, "NOCASE") == 0) coll = members::Collation::NoCase;
      else if (coll_name && sqlite3_stricmp(coll_name, "RTRIM") == 0) coll = members::Collation::RTrim;
      else if (coll_name && sqlite3_stricmp(coll_name, "BINARY") != 0) continue;  // a collation members lack
      if (c.iColumn == 0) {
        if (c.op != SQLITE_INDEX_CONSTRAINT_EQ || coll != members::Collation::Binary || (info->idxNum & 1)) continue;
        info->idxNum |= 1;
        cost /= 100;
        info->aConstraintUsage[i].omit = 1;
      } else {
        cost /= 2;
      }
      info->aConstraintUsage[i].argvIndex = ++argv;
      if (!cons.empty()) cons += ',';
      cons += fmt::format("{}{}", c.iColumn, op);
      if (coll == members::Collation::NoCase) cons += "/n";
      if (coll == members::Collation::RTrim) cons += "/r";
    }
    info->idxStr = sqlite3_mprintf("%s", cons.c_str());
    if (!info->idxStr) throw std::bad_alloc();
    info->needToFreeIdxStr = 1;
    info->estimatedCost = cost;
    return SQLITE_OK;
  });
}

int x_filter(sqlite3_vtab_cursor* c, int, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* cur = static_cast<NamedCursor*>(c);
  auto* v = static_cast<NamedVtab*>(c->pVtab);
  return guard(c->pVtab, [&] {
    cur->stmt.reset();
    cur->lease = members::Registry::Lease();
    cur->constraints.clear();
    cur->eof = true;
    if (!cur->watch) cur->watch = std::make_unique<members::InterruptWatch>(v->registry->host());
    std::optional<std::string> db_filter;
    bool db_nothing = false;
    std::string_view s = idx_str ? idx_str : "";
    for (int i = 0; i < argc; ++i) {
      const size_t comma = s.find(',');
      std::string_view item = s.substr(0, comma);
      s = comma == std::string_view::npos ? std::string_view{} : s.substr(comma + 1);
      members::Collation coll = members::Collation::Binary;
      if (item.size() > 2 && item[item.size() - 2] == '/') {
        coll = item.back() == 'n' ? members::Collation::NoCase : members::Collation::RTrim;
        item.remove_suffix(2);
      }
      size_t n = 0;
      while (n < item.size() && item[n] >= '0' && item[n] <= '9') ++n;
      if (n == 0) throw Error("rocpd_union: malformed plan string");
      const int col = std::stoi(std::string(item.substr(0, n)));
      const unsigned char op = members::constraint_op_from_sql(item.substr(n));
      if (op == 0 || col < 0 || col > static_cast<int>(v->columns.size()))
        throw Error("rocpd_union: malformed plan string");
      if (col == 0) {
        // db is TEXT: numbers compare as their text; NULL and blobs equal no member name.
        const int type = sqlite3_value_type(argv[i]);
        if (type == SQLITE_NULL || type == SQLITE_BLOB) {
          db_nothing = true;
          continue;
        }
        Value copy = dup_value(argv[i]);
        const auto* t = sqlite3_value_text(copy.get());
        const std::string name = t ? std::string(reinterpret_cast<const char*>(t),
                                                 static_cast<size_t>(sqlite3_value_bytes(copy.get())))
                                   : std::string();
        if (db_filter && *db_filter != name) db_nothing = true;
        db_filter = name;
        continue;
      }
      cur->constraints.push_back({col - 1, op, coll, dup_value(argv[i])});
    }
    cur->members.clear();
    if (!db_nothing)
      for (auto& m : v->registry->members())
        if (!db_filter || m->alias == *db_filter) cur->members.push_back(m);
    cur->next = 0;
    cur->eof = false;
    ScanGuard scanning(*v);
    advance(cur, v);
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* c) {
  auto* cur = static_cast<NamedCursor*>(c);
  return guard(c->pVtab, [&] {
    auto* v = static_cast<NamedVtab*>(c->pVtab);
    ScanGuard scanning(*v);
    advance(cur, v);
    return SQLITE_OK;
  });
}

int x_eof(sqlite3_vtab_cursor* c) { return static_cast<NamedCursor*>(c)->eof; }

int x_column(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int col) {
  auto* cur = static_cast<NamedCursor*>(c);
  auto* v = static_cast<NamedVtab*>(c->pVtab);
  guard(ctx, [&] {
    if (col == 0) {
      sqlite3_result_text(ctx, cur->member->alias.c_str(), -1, SQLITE_TRANSIENT);
      return;
    }
    // Result column `col` of the member query is object column col - 1 (column 0 is the rowid).
    result_stored(ctx, stored_value(cur->stmt.get(), col, v->affinity[static_cast<size_t>(col - 1)]));
  });
  return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* c, sqlite3_int64* rowid) {
  auto* cur = static_cast<NamedCursor*>(c);
  return guard(c->pVtab, [&] {
    const int64_t own = cur->by_position ? cur->position : sqlite3_column_int64(cur->stmt.get(), 0);
    if (own < 0 || own >= (int64_t{1} << kOwnBits))
      throw Error(fmt::format("rocpd_union({}): {}: row id {} is outside 0..2^{}-1, the range rocpd_union can number",
                              static_cast<NamedVtab*>(c->pVtab)->object, members::member_label(*cur->member), own, kOwnBits));
    *rowid = (static_cast<int64_t>(cur->member->ordinal) << kOwnBits) | own;
    return SQLITE_OK;
  });
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

// The name of the object's own `db` column (any case), which our leading column takes: renamed,
// not dropped, to db_<object>, or db_<object>_2, _3, ... when another column of the object (any
// case) has that name.
std::string renamed_db(const std::string& object, const std::vector<std::pair<std::string, std::string>>& cols) {
  const auto taken = [&](const std::string& candidate) {
    for (const auto& [name, decl] : cols)
      if (sqlite3_stricmp(name.c_str(), candidate.c_str()) == 0) return true;
    return false;
  };
  std::string candidate = "db_" + object;
  for (int n = 2; taken(candidate); ++n) candidate = fmt::format("db_{}_{}", object, n);
  return candidate;
}

}  // namespace

const sqlite3_module kUnionNamedMethods = make_methods();

int union_named_connect(sqlite3* db, const std::shared_ptr<members::Registry>& reg, const std::string& schema,
                        const std::string& name, const std::string& object, sqlite3_vtab** out) {
  if (object.empty())
    throw Error("rocpd_union: name a table or view: CREATE VIRTUAL TABLE temp.kernels_all USING rocpd_union(kernels)");
  std::vector<std::pair<std::string, std::string>> cols;
  bool found = false;
  for (const auto& m : reg->members()) {
    auto lease = reg->acquire(m);
    if (!object_shape(lease.db(), m->schema, object)) continue;
    // The columns as a SELECT * of the object names them (views included), with declared types.
    auto stmt = prepare(lease.db(), fmt::format("SELECT * FROM {}.{}", quote_id(m->schema), quote_id(object)),
                        fmt::format("rocpd_union({}): {}", object, members::member_label(*m)));
    for (int i = 0; i < sqlite3_column_count(stmt.get()); ++i) {
      const char* decl = sqlite3_column_decltype(stmt.get(), i);
      const std::string name = sqlite3_column_name(stmt.get(), i);
      for (const auto& [seen, d] : cols)
        if (sqlite3_stricmp(seen.c_str(), name.c_str()) == 0)
          throw Error(fmt::format("rocpd_union({}): {} has two columns named {}; rocpd_union reads columns by name",
                                  object, members::member_label(*m), name));
      cols.emplace_back(name, decl ? decl : "");
    }
    found = true;
    break;
  }
  if (!found) throw Error(fmt::format("rocpd_union({}): no member has a table or view named {}", object, object));
  auto v = std::make_unique<NamedVtab>();
  v->registry = reg;
  v->named = true;
  v->schema = schema;
  v->name = name;
  v->object = object;
  std::string ddl = "CREATE TABLE x(db TEXT";
  for (const auto& [column, decl] : cols) {
    v->columns.push_back(column);
    v->affinity.push_back(affinity_of(decl));
    // Declared types are reduced to their affinity keyword: a member's declared type is text a
    // hostile file controls, and would otherwise be pasted into this declaration.
    const bool ours = sqlite3_stricmp(column.c_str(), "db") == 0;  // the leading column's name
    ddl += fmt::format(", {} {}", quote_id(ours ? renamed_db(object, cols) : column),
                       affinity_keyword(v->affinity.back()));
  }
  ddl += ")";
  const int rc = sqlite3_declare_vtab(db, ddl.c_str());
  if (rc != SQLITE_OK) throw Error(fmt::format("rocpd_union({}): {}", object, sqlite3_errmsg(db)), rc);
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *out = v.release();
  return SQLITE_OK;
}

}  // namespace rocpd::federation
