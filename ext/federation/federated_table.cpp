#include "federation/federated_table.h"

#include <fmt/format.h>

#include "common/vtab_util.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <thread>

#include "federation/member_files.h"
#include "federation/member_prefetch.h"
#include "federation/member_sql.h"
#include "names/demangle.h"

namespace rocpd::federation {

namespace {

struct ModuleData {
  std::shared_ptr<Registry> registry;
  const CanonicalTable* table;
};

struct FedVtab : sqlite3_vtab {
  std::shared_ptr<Registry> registry;
  const CanonicalTable* table;
};

// The user's time/gpu constraints reduced to bounds, for skipping members and zones unread.
struct Bounds {
  int64_t start_lo = std::numeric_limits<int64_t>::min(), start_hi = std::numeric_limits<int64_t>::max();
  int64_t end_lo = std::numeric_limits<int64_t>::min(), end_hi = std::numeric_limits<int64_t>::max();
  std::optional<int64_t> gpu;
  bool timed = false;

  bool excludes(int64_t min_start, int64_t max_start, int64_t min_end, int64_t max_end) const {
    return max_start < start_lo || min_start > start_hi || max_end < end_lo || min_end > end_hi;
  }
};

struct WorkItem {
  MemberPtr member;
  int source = 0;
  bool ranged = false;
  int64_t lo = 0, hi = 0;
  bool prefetched = false;  // read by the Prefetcher thread, not inline
};

struct Plan {
  uint64_t used = 0;
  std::vector<PushedConstraint> constraints;  // in argv order
};

struct FedCursor : sqlite3_vtab_cursor {
  std::vector<WorkItem> work;
  size_t next = 0;
  Plan plan;
  std::vector<PushedConstraint> pushed;      // the subset whose values can be pushed
  std::vector<sqlite3_value*> pushed_values;  // owned copies, parallel to `pushed`
  std::vector<std::string> db_filter;         // `db =` values (all must match)
  Bounds bounds;

  // Current member source.
  MemberPtr member;
  int source = -1;
  Registry::Lease lease;
  Stmt stmt;
  MemberQuery query;
  int64_t rowid = 0;
  bool eof = true;

  // Prefetched items: rows come from batches filled by a background thread.
  std::unique_ptr<Prefetcher> prefetch;
  bool in_batch_item = false;
  std::unique_ptr<Batch> batch;
  size_t batch_next = 0;  // next row of `batch` to deliver; the current row is batch_next - 1

  ~FedCursor() {
    prefetch.reset();  // joins the thread, which reads pushed_values
    free_values();
  }
  void free_values() {
    for (auto* v : pushed_values) sqlite3_value_free(v);
    pushed_values.clear();
  }
};

const CanonicalTable& table_of(sqlite3_vtab* v) { return *static_cast<FedVtab*>(v)->table; }

int column_by_name(const CanonicalTable& t, std::string_view name) {
  for (size_t i = 0; i < t.columns.size(); ++i)
    if (name == t.columns[i].name) return static_cast<int>(i);
  return -1;
}

Plan parse_plan(const CanonicalTable& t, const char* idx_str) {
  Plan plan;
  std::string_view s = idx_str ? idx_str : "";
  if (s.substr(0, 5) != "used=") throw Error("rocpd: malformed plan string");
  const size_t semi = s.find(';');
  plan.used = std::stoull(std::string(s.substr(5, semi - 5)), nullptr, 16);
  if (semi == std::string_view::npos) return plan;
  std::string_view rest = s.substr(semi + 1);
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    size_t n = 0;
    // Column names are lower case; the operator starts at the first other character.
    while (n < item.size() && (std::islower(static_cast<unsigned char>(item[n])) || item[n] == '_')) ++n;
    const int col = column_by_name(t, item.substr(0, n));
    std::string_view op_text = item.substr(n);
    if (!op_text.empty() && op_text[0] == ' ') op_text.remove_prefix(1);
    const unsigned char op = constraint_op_from_sql(op_text);
    if (col < 0 || op == 0) throw Error("rocpd: malformed plan string");
    plan.constraints.push_back({col, op});
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return plan;
}

// Whether `v` can be compared inside the member query with the same result SQLite would give.
bool pushable_value(const CanonicalColumn& col, unsigned char op, sqlite3_value* v) {
  const int type = sqlite3_value_type(v);
  if (op == SQLITE_INDEX_CONSTRAINT_LIKE || op == SQLITE_INDEX_CONSTRAINT_GLOB)
    return col.text && type == SQLITE_TEXT;
  return col.text ? type == SQLITE_TEXT : (type == SQLITE_INTEGER || type == SQLITE_FLOAT);
}

// Conservative integer bound for a numeric constraint value.
int64_t bound_of(sqlite3_value* v, bool lower) {
  if (sqlite3_value_type(v) == SQLITE_INTEGER) return sqlite3_value_int64(v);
  const double d = sqlite3_value_double(v);
  const double r = lower ? std::floor(d) : std::ceil(d);
  if (!(r > -9.2e18)) return std::numeric_limits<int64_t>::min();
  if (!(r < 9.2e18)) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(r);
}

void tighten(Bounds& b, int col, const CanonicalTable& t, unsigned char op, sqlite3_value* v) {
  if (col == t.gpu_col && op == SQLITE_INDEX_CONSTRAINT_EQ && sqlite3_value_type(v) == SQLITE_INTEGER) {
    b.gpu = sqlite3_value_int64(v);
    return;
  }
  if (col != t.start_col && col != t.end_col) return;
  int64_t& lo = col == t.start_col ? b.start_lo : b.end_lo;
  int64_t& hi = col == t.start_col ? b.start_hi : b.end_hi;
  const bool is_lower = op == SQLITE_INDEX_CONSTRAINT_GT || op == SQLITE_INDEX_CONSTRAINT_GE;
  const bool is_upper = op == SQLITE_INDEX_CONSTRAINT_LT || op == SQLITE_INDEX_CONSTRAINT_LE;
  if (is_lower || op == SQLITE_INDEX_CONSTRAINT_EQ) lo = std::max(lo, bound_of(v, true));
  if (is_upper || op == SQLITE_INDEX_CONSTRAINT_EQ) hi = std::min(hi, bound_of(v, false));
  if (is_lower || is_upper || op == SQLITE_INDEX_CONSTRAINT_EQ) b.timed = true;
}

int x_connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    auto* module_data = static_cast<ModuleData*>(aux);
    const int rc = sqlite3_declare_vtab(db, declare_sql(*module_data->table).c_str());
    if (rc != SQLITE_OK) return rc;
    auto* v = new FedVtab{};
    v->registry = module_data->registry;
    v->table = module_data->table;
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
    *out = v;
    return SQLITE_OK;
  });
}

int x_best_index(sqlite3_vtab* vt, sqlite3_index_info* info) {
  return guard(vt, [&] {
    const auto& t = table_of(vt);
    std::string cons;
    int argv = 0;
    double cost = 1e7;
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      if (!c.usable || c.iColumn < 0 || c.iColumn == t.derived_col) continue;
      const char* op = constraint_sql_op(c.op);
      if (!op) continue;
      info->aConstraintUsage[i].argvIndex = ++argv;
      const bool db_eq = c.iColumn == t.db_col && c.op == SQLITE_INDEX_CONSTRAINT_EQ;
      info->aConstraintUsage[i].omit = db_eq ? 1 : 0;
      info->idxNum |= 1 << c.iColumn;
      if (!cons.empty()) cons += ',';
      cons += t.columns[c.iColumn].name;
      if (std::isalpha(static_cast<unsigned char>(op[0]))) cons += ' ';  // "name LIKE"
      cons += op;
      if (db_eq) cost /= 100;
      else if (c.iColumn == t.start_col || c.iColumn == t.end_col) cost /= 4;
      else if (c.op == SQLITE_INDEX_CONSTRAINT_EQ) cost /= 3;
      else cost /= 1.5;
    }
    uint64_t used = info->colUsed;
    // The derived column (demangled) is computed from its source column.
    if (t.derived_col >= 0 && (used & (uint64_t{1} << t.derived_col))) used |= uint64_t{1} << t.derived_from;
    info->idxStr = sqlite3_mprintf("used=%llx;%s", static_cast<unsigned long long>(used), cons.c_str());
    info->needToFreeIdxStr = 1;
    info->estimatedCost = cost;
    info->estimatedRows = static_cast<sqlite3_int64>(cost);
    return SQLITE_OK;
  });
}

std::string member_label(const Member& m) {
  return fmt::format("member {} ({})", m.alias, m.path.empty() ? "in memory" : m.path);
}

// Moves to the next row, opening the next work item's statement (or taking the next prefetched
// batch) when one is exhausted.
void advance(FedCursor* cur, Registry* reg, const CanonicalTable& t) {
  for (;;) {
    if (cur->in_batch_item) {
      if (cur->batch && cur->batch_next < cur->batch->rows) {
        ++cur->batch_next;
        ++cur->rowid;
        ++reg->last_scan.rows;
        return;
      }
      if (cur->batch && cur->batch->last_of_item) {
        cur->batch.reset();
        cur->in_batch_item = false;
        continue;
      }
      cur->batch = cur->prefetch->next();
      cur->batch_next = 0;
      if (!cur->batch) throw Error(fmt::format("{}: a prefetch thread stopped early", t.name));
      continue;
    }
    if (cur->stmt) {
      int rc = sqlite3_step(cur->stmt.get());
      if (rc == SQLITE_ROW) {
        ++cur->rowid;
        ++reg->last_scan.rows;
        return;
      }
      if (rc != SQLITE_DONE)
        throw Error(fmt::format("{}: {}: {}{}", t.name, member_label(*cur->member), sqlite3_errmsg(cur->lease.db()),
                                zstd_reason(cur->member->path)),
                    rc);
    }
    if (cur->next >= cur->work.size()) {
      cur->stmt.reset();
      cur->lease = Registry::Lease();
      cur->prefetch.reset();
      cur->eof = true;
      return;
    }
    const WorkItem& w = cur->work[cur->next++];
    if (w.prefetched) {
      cur->stmt.reset();
      cur->lease = Registry::Lease();
      cur->member = w.member;
      cur->source = -1;
      cur->in_batch_item = true;
      continue;
    }
    if (w.member != cur->member || w.source != cur->source || !cur->stmt) {
      cur->stmt.reset();
      cur->lease = reg->acquire(w.member);
      std::shared_ptr<const Profile> profile;
      // rpd ops resolve their pid from the member's sessions, which the profile knows.
      if (t.kind == TableKind::Ops && w.member->info.format == Format::Rpd && (cur->plan.used & (1u << kOpsPid)))
        profile = reg->profile(w.member);
      const auto sources =
          sources_for(t.kind, *w.member, profile.get(), uses_kind(t.kind, cur->plan.used, cur->pushed) ? cur->lease.db() : nullptr);
      cur->query =
          build_member_query(sources.at(w.source), cur->plan.used, cur->pushed, w.ranged, &cur->pushed_values);
      try {
        cur->stmt = prepare(cur->lease.db(), cur->query.sql);
      } catch (const Error& e) {
        throw Error(fmt::format("{}: {}: {}", t.name, member_label(*w.member), e.what()), e.code());
      }
      for (size_t i = 0; i < cur->pushed_values.size(); ++i)
        sqlite3_bind_value(cur->stmt.get(), static_cast<int>(i + 1), cur->pushed_values[i]);
      cur->member = w.member;
      cur->source = w.source;
    } else {
      sqlite3_reset(cur->stmt.get());
    }
    if (w.ranged) {
      sqlite3_bind_int64(cur->stmt.get(), cur->query.rowid_param, w.lo);
      sqlite3_bind_int64(cur->stmt.get(), cur->query.rowid_param + 1, w.hi);
    }
  }
}

// Equality on an identifying column means a lookup (often one per outer row of a join):
// a thread per lookup would cost more than it saves.
bool is_lookup(const FedCursor* cur, const CanonicalTable& t) {
  for (const auto& c : cur->pushed) {
    if (c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    const std::string_view name = t.columns[c.column].name;
    if (name == "correlation_id" || name == "op_id" || name == "api_id" || name == "pid" || name == "name") return true;
  }
  return false;
}

// Hands the opened members' items to a background reader when that can overlap work.
void start_prefetch(FedCursor* cur, Registry* reg, const CanonicalTable& t) {
  if (std::thread::hardware_concurrency() < 2 || is_lookup(cur, t)) return;
  std::vector<PrefetchItem> items;
  for (auto& w : cur->work) {
    if (w.member->attached) continue;  // the host connection stays on the host thread
    w.prefetched = true;
    std::shared_ptr<const Profile> profile;
    if (t.kind == TableKind::Ops && w.member->info.format == Format::Rpd && (cur->plan.used & (1u << kOpsPid)))
      profile = reg->profile(w.member);
    items.push_back({w.member, w.source, w.ranged, w.lo, w.hi, std::move(profile)});
  }
  if (items.empty()) return;
  cur->prefetch = std::make_unique<Prefetcher>(reg, t, cur->plan.used, cur->pushed, cur->pushed_values, std::move(items));
  reg->last_scan.parallel = true;
}

// Lists the (member, source, rowid range) items the scan must read, skipping members and
// zones that the db, gpu and time constraints rule out without reading them.
void plan_work(FedCursor* cur, Registry* reg, const CanonicalTable& t) {
  cur->work.clear();
  const auto members = reg->members();
  std::set<const Member*> planned;
  for (const auto& m : members) {
    bool wanted = true;
    for (const auto& d : cur->db_filter) wanted = wanted && d == m->alias;
    if (!wanted) continue;
    const size_t nsources = sources_for(t.kind, *m, nullptr).size();
    if (!cur->bounds.timed && !cur->bounds.gpu) {
      for (size_t s = 0; s < nsources; ++s) cur->work.push_back({m, static_cast<int>(s)});
      continue;
    }
    const auto p = reg->profile(m);
    if (cur->bounds.gpu && !p->gpu_unknown && !p->gpus.count(*cur->bounds.gpu) && t.kind == TableKind::Ops) continue;
    if (t.kind == TableKind::Apis) {
      if (p->first_ns && cur->bounds.excludes(*p->first_ns, *p->last_ns, *p->first_ns, *p->last_ns)) continue;
      cur->work.push_back({m, 0});
      continue;
    }
    if (!p->ops_min_start) continue;  // no ops at all
    if (cur->bounds.excludes(*p->ops_min_start, *p->ops_max_start, *p->ops_min_end, *p->ops_max_end)) continue;
    for (size_t s = 0; s < nsources; ++s) {
      if (!cur->bounds.timed || s >= p->op_zones.size()) {
        cur->work.push_back({m, static_cast<int>(s)});
        continue;
      }
      // Merge the zones that may hold matching rows into rowid ranges.
      std::optional<WorkItem> range;
      for (const auto& z : p->op_zones[s]) {
        if (cur->bounds.excludes(z.min_start, z.max_start, z.min_end, z.max_end)) {
          if (range) cur->work.push_back(*range);
          range.reset();
          continue;
        }
        if (range) range->hi = z.last_rowid;
        else range = WorkItem{m, static_cast<int>(s), true, z.first_rowid, z.last_rowid};
      }
      if (range) cur->work.push_back(*range);
    }
  }
  for (const auto& w : cur->work) planned.insert(w.member.get());
  reg->last_scan = Registry::ScanStats{t.name, static_cast<int64_t>(members.size()),
                                       static_cast<int64_t>(members.size() - planned.size()),
                                       static_cast<int64_t>(cur->work.size()), 0};
}

int x_filter(sqlite3_vtab_cursor* c, int, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* cur = static_cast<FedCursor*>(c);
  auto* vt = static_cast<FedVtab*>(c->pVtab);
  return guard(c->pVtab, [&] {
    const auto& t = *vt->table;
    cur->stmt.reset();
    cur->lease = Registry::Lease();
    cur->member.reset();
    cur->source = -1;
    cur->free_values();
    cur->pushed.clear();
    cur->db_filter.clear();
    cur->bounds = Bounds{};
    cur->plan = parse_plan(t, idx_str);
    if (static_cast<int>(cur->plan.constraints.size()) != argc) throw Error("rocpd: plan and arguments disagree");
    for (int i = 0; i < argc; ++i) {
      const auto& con = cur->plan.constraints[i];
      if (con.column == t.db_col) {
        if (con.op == SQLITE_INDEX_CONSTRAINT_EQ) {
          const auto* text = sqlite3_value_text(argv[i]);
          cur->db_filter.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
          if (!text) cur->db_filter.back() = std::string("\x01null");  // NULL never equals a member name
        }
        continue;  // other db constraints are checked by SQLite itself
      }
      if (!pushable_value(t.columns[con.column], con.op, argv[i])) continue;
      tighten(cur->bounds, con.column, t, con.op, argv[i]);
      cur->pushed.push_back(con);
      sqlite3_value* copy = sqlite3_value_dup(argv[i]);
      if (!copy) throw std::bad_alloc();
      cur->pushed_values.push_back(copy);
    }
    plan_work(cur, vt->registry.get(), t);
    start_prefetch(cur, vt->registry.get(), t);
    cur->next = 0;
    cur->rowid = 0;
    cur->eof = false;
    advance(cur, vt->registry.get(), t);
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* c) {
  auto* cur = static_cast<FedCursor*>(c);
  auto* vt = static_cast<FedVtab*>(c->pVtab);
  return guard(c->pVtab, [&] {
    advance(cur, vt->registry.get(), *vt->table);
    return SQLITE_OK;
  });
}

int x_eof(sqlite3_vtab_cursor* c) { return static_cast<FedCursor*>(c)->eof; }

void result_cell(sqlite3_context* ctx, const Batch& b, const Cell& cell) {
  switch (cell.type) {
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, cell.i); break;
    case SQLITE_FLOAT: sqlite3_result_double(ctx, cell.d); break;
    case SQLITE_TEXT:
      sqlite3_result_text(ctx, b.arena.data() + cell.offset, static_cast<int>(cell.length), SQLITE_TRANSIENT);
      break;
    case SQLITE_BLOB:
      sqlite3_result_blob(ctx, b.arena.data() + cell.offset, static_cast<int>(cell.length), SQLITE_TRANSIENT);
      break;
    default: break;
  }
}

// The text of canonical column `col` in the current row (nullopt for NULL or not selected).
std::optional<std::string_view> current_text(const FedCursor* cur, int col) {
  if (cur->in_batch_item) {
    const Batch& b = *cur->batch;
    const int idx = (*b.columns)[col];
    if (idx < 0) return std::nullopt;
    const Cell& cell = b.cells[(cur->batch_next - 1) * b.width + static_cast<size_t>(idx)];
    if (cell.type != SQLITE_TEXT) return std::nullopt;
    return std::string_view(b.arena.data() + cell.offset, cell.length);
  }
  const int idx = cur->query.select_index[col];
  if (idx < 0 || sqlite3_column_type(cur->stmt.get(), idx) == SQLITE_NULL) return std::nullopt;
  return column_text(cur->stmt.get(), idx);
}

int x_column(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int col) {
  auto* cur = static_cast<FedCursor*>(c);
  const auto& t = table_of(c->pVtab);
  if (col == t.db_col) {
    sqlite3_result_text(ctx, cur->member->alias.c_str(), static_cast<int>(cur->member->alias.size()),
                        SQLITE_TRANSIENT);
    return SQLITE_OK;
  }
  if (col == t.derived_col) {
    const auto name = current_text(cur, t.derived_from);
    if (!name) return SQLITE_OK;
    guard(ctx, [&] {
      const std::string d = names::demangle_cached(*name);
      sqlite3_result_text(ctx, d.data(), static_cast<int>(d.size()), SQLITE_TRANSIENT);
    });
    return SQLITE_OK;
  }
  if (cur->in_batch_item) {
    const Batch& b = *cur->batch;
    const int idx = (*b.columns)[col];
    if (idx >= 0) result_cell(ctx, b, b.cells[(cur->batch_next - 1) * b.width + static_cast<size_t>(idx)]);
    return SQLITE_OK;
  }
  const int idx = cur->query.select_index[col];
  if (idx >= 0) sqlite3_result_value(ctx, sqlite3_column_value(cur->stmt.get(), idx));
  return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* c, sqlite3_int64* rowid) {
  *rowid = static_cast<FedCursor*>(c)->rowid;
  return SQLITE_OK;
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.iVersion = 0;
  m.xCreate = nullptr;  // eponymous only: `CREATE VIRTUAL TABLE ... USING rocpd_ops` is refused
  m.xConnect = x_connect;
  m.xBestIndex = x_best_index;
  m.xDisconnect = vtab_disconnect<FedVtab>;
  m.xDestroy = vtab_disconnect<FedVtab>;
  m.xOpen = vtab_open<FedCursor>;
  m.xClose = vtab_close<FedCursor>;
  m.xFilter = x_filter;
  m.xNext = x_next;
  m.xEof = x_eof;
  m.xColumn = x_column;
  m.xRowid = x_rowid;
  return m;
}

const sqlite3_module kModule = make_module();

}  // namespace

int register_federated_table(sqlite3* db, const std::shared_ptr<Registry>& registry, const CanonicalTable& table) {
  auto* aux = new ModuleData{registry, &table};
  return sqlite3_create_module_v2(db, table.name, &kModule, aux, [](void* p) { delete static_cast<ModuleData*>(p); });
}

}  // namespace rocpd::federation
