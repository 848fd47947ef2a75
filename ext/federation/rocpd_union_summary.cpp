// The bare form rocpd_union('top'|'ktop'|'copies'|'apis'|'markers'): per member and name,
// calls, total/avg/min/max/stddev (sample) of durations and percent of the member's total,
// computed from the canonical tables (UNION ALL semantics: every op counts once, unlike the
// upstream `top` view's UNION).
//
// Plan: idxNum bit 0 = the summary argument is given, bit 1 = `db =` selects one member.
#include <fmt/format.h>

#include "common/vtab_util.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "federation/member_sql.h"
#include "federation/rocpd_union.h"

namespace rocpd::federation {

namespace {

enum Col { kDb, kName, kCalls, kTotal, kAvg, kMin, kMax, kStddev, kPercent, kSummaryArg };

constexpr const char* kUsage =
    "use rocpd_union('top'|'ktop'|'copies'|'apis'|'markers'); for any table or view, the named form: "
    "CREATE VIRTUAL TABLE temp.kernels_all USING rocpd_union(kernels)";

struct SummaryRow {
  std::string db, name;
  int64_t calls = 0, total = 0, min = 0, max = 0;
  double mean = 0, m2 = 0;  // Welford: stable sample variance
  double percent = 0;
};

struct SummaryCursor : sqlite3_vtab_cursor {
  std::vector<SummaryRow> rows;
  size_t pos = 0;
};

// Which rows of which canonical table a summary aggregates.
struct SummaryKind {
  TableKind table;
  const char* ops_kind;  // ops: required kind, or nullptr for all
  int marker;            // apis: 1 = markers only, 0 = everything but markers
};

SummaryKind parse_summary(const std::string& s) {
  if (s == "top") return {TableKind::Ops, nullptr, 0};
  if (s == "ktop") return {TableKind::Ops, "kernel", 0};
  if (s == "copies") return {TableKind::Ops, "copy", 0};
  if (s == "apis") return {TableKind::Apis, nullptr, 0};
  if (s == "markers") return {TableKind::Apis, nullptr, 1};
  throw Error(fmt::format("rocpd_union('{}'): unknown summary; {}", s, kUsage));
}

void summarize_member(Registry& reg, const MemberPtr& m, const SummaryKind& kind, std::vector<SummaryRow>& out) {
  auto lease = reg.acquire(m);
  const bool ops = kind.table == TableKind::Ops;
  const int name_col = ops ? int{kOpsName} : int{kApisName};
  const int dur_col = ops ? int{kOpsDuration} : int{kApisDuration};
  const int filter_col = ops ? int{kOpsKind} : int{kApisDomain};
  const uint64_t used = (uint64_t{1} << name_col) | (uint64_t{1} << dur_col) | (uint64_t{1} << filter_col);
  std::unordered_map<std::string, SummaryRow> by_name;
  for (const auto& src : sources_for(kind.table, *m, nullptr, lease.db())) {
    const auto q = build_member_query(src, used, {}, false);
    Stmt stmt;
    try {
      stmt = prepare(lease.db(), q.sql);
    } catch (const Error& e) {
      throw Error(fmt::format("rocpd_union: member {} ({}): {}", m->alias, m->path, e.what()), e.code());
    }
    const int ni = q.select_index[name_col], di = q.select_index[dur_col], fi = q.select_index[filter_col];
    while (step(stmt.get(), fmt::format("rocpd_union: member {}", m->alias))) {
      const std::string_view filter = column_text(stmt.get(), fi);
      if (ops ? (kind.ops_kind && filter != kind.ops_kind) : ((filter == "marker") != (kind.marker == 1))) continue;
      if (sqlite3_column_type(stmt.get(), di) == SQLITE_NULL) continue;
      const int64_t d = sqlite3_column_int64(stmt.get(), di);
      auto [it, inserted] = by_name.try_emplace(std::string(column_text(stmt.get(), ni)));
      SummaryRow& r = it->second;
      if (inserted) {
        r.db = m->alias;
        r.name = it->first;
        r.min = r.max = d;
      }
      ++r.calls;
      r.total += d;
      r.min = std::min(r.min, d);
      r.max = std::max(r.max, d);
      const double delta = static_cast<double>(d) - r.mean;
      r.mean += delta / static_cast<double>(r.calls);
      r.m2 += delta * (static_cast<double>(d) - r.mean);
    }
  }
  int64_t member_total = 0;
  for (const auto& [name, r] : by_name) member_total += r.total;
  const size_t first = out.size();
  for (auto& [name, r] : by_name) {
    r.percent = member_total ? 100.0 * static_cast<double>(r.total) / static_cast<double>(member_total) : 0.0;
    out.push_back(std::move(r));
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), [](const SummaryRow& a, const SummaryRow& b) {
    return a.total != b.total ? a.total > b.total : a.name < b.name;
  });
}

int x_best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  int argv = 0;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (c.iColumn == kSummaryArg) {
      if (!c.usable) return SQLITE_CONSTRAINT;  // the argument must be known before the scan
      info->aConstraintUsage[i].argvIndex = ++argv;
      info->aConstraintUsage[i].omit = 1;
      info->idxNum |= 1;
    }
  }
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.usable && c.op == SQLITE_INDEX_CONSTRAINT_EQ && c.iColumn == kDb && !(info->idxNum & 2)) {
      info->aConstraintUsage[i].argvIndex = ++argv;
      info->aConstraintUsage[i].omit = 1;
      info->idxNum |= 2;
    }
  }
  info->estimatedCost = (info->idxNum & 2) ? 1e4 : 1e6;
  return SQLITE_OK;
}

int x_filter(sqlite3_vtab_cursor* c, int idx_num, const char*, int argc, sqlite3_value** argv) {
  auto* cur = static_cast<SummaryCursor*>(c);
  auto& reg = *static_cast<UnionVtab*>(c->pVtab)->registry;
  return guard(c->pVtab, [&] {
    cur->rows.clear();
    cur->pos = 0;
    if (!(idx_num & 1)) throw Error(fmt::format("rocpd_union: no summary named; {}", kUsage));
    const auto* arg = sqlite3_value_text(argv[0]);
    if (!arg || sqlite3_value_type(argv[0]) != SQLITE_TEXT)
      throw Error(fmt::format("rocpd_union: the summary name must be text; {}", kUsage));
    const SummaryKind kind = parse_summary(reinterpret_cast<const char*>(arg));
    std::string db_filter;
    const bool one_db = (idx_num & 2) && argc > 1;
    if (one_db) {
      const auto* d = sqlite3_value_text(argv[1]);
      if (!d) return SQLITE_OK;
      db_filter = reinterpret_cast<const char*>(d);
    }
    for (const auto& m : reg.members())
      if (!one_db || m->alias == db_filter) summarize_member(reg, m, kind, cur->rows);
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* c) {
  ++static_cast<SummaryCursor*>(c)->pos;
  return SQLITE_OK;
}

int x_eof(sqlite3_vtab_cursor* c) {
  auto* cur = static_cast<SummaryCursor*>(c);
  return cur->pos >= cur->rows.size();
}

int x_column(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int col) {
  const auto* cur = static_cast<SummaryCursor*>(c);
  const SummaryRow& r = cur->rows[cur->pos];
  switch (col) {
    case kDb: sqlite3_result_text(ctx, r.db.data(), static_cast<int>(r.db.size()), SQLITE_TRANSIENT); break;
    case kName: sqlite3_result_text(ctx, r.name.data(), static_cast<int>(r.name.size()), SQLITE_TRANSIENT); break;
    case kCalls: sqlite3_result_int64(ctx, r.calls); break;
    case kTotal: sqlite3_result_int64(ctx, r.total); break;
    case kAvg: sqlite3_result_double(ctx, static_cast<double>(r.total) / static_cast<double>(r.calls)); break;
    case kMin: sqlite3_result_int64(ctx, r.min); break;
    case kMax: sqlite3_result_int64(ctx, r.max); break;
    case kStddev:
      if (r.calls > 1) sqlite3_result_double(ctx, std::sqrt(r.m2 / static_cast<double>(r.calls - 1)));
      break;
    case kPercent: sqlite3_result_double(ctx, r.percent); break;
    default: break;
  }
  return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* c, sqlite3_int64* rowid) {
  *rowid = static_cast<sqlite3_int64>(static_cast<SummaryCursor*>(c)->pos);
  return SQLITE_OK;
}

sqlite3_module make_methods() {
  sqlite3_module m{};
  m.xBestIndex = x_best_index;
  m.xDisconnect = vtab_disconnect<UnionVtab>;
  m.xOpen = vtab_open<SummaryCursor>;
  m.xClose = vtab_close<SummaryCursor>;
  m.xFilter = x_filter;
  m.xNext = x_next;
  m.xEof = x_eof;
  m.xColumn = x_column;
  m.xRowid = x_rowid;
  return m;
}

}  // namespace

const sqlite3_module kUnionSummaryMethods = make_methods();

int union_summary_connect(sqlite3* db, const std::shared_ptr<Registry>& reg, sqlite3_vtab** out) {
  const int rc = sqlite3_declare_vtab(db,
                                      "CREATE TABLE x(db TEXT, name TEXT, calls INTEGER, total_ns INTEGER, avg_ns REAL, "
                                      "min_ns INTEGER, max_ns INTEGER, stddev_ns REAL, percent REAL, summary HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  auto* v = new UnionVtab{};
  v->registry = reg;
  v->named = false;
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *out = v;
  return SQLITE_OK;
}

}  // namespace rocpd::federation
