// The bare form rocpd_union('top'|'ktop'|'copies'|'apis'|'markers'): per member and name,
// calls, total/avg/min/max/stddev (sample) of durations and percent of the member's total,
// computed from the canonical tables (UNION ALL semantics: every op counts once, unlike the
// upstream `top` view's UNION).
//
// Plan: idxNum bit 0 = the summary argument is given, bit 1 = `db =` (BINARY) selects one member.
// Calls count every op (or call) row; the duration figures are over the rows whose duration is
// not NULL (as SQL's sum/avg/min/max are); sums are checked and overflow raises "integer overflow"
// like SQLite's sum(). Rowids: the member's ordinal above the row's rank within the member.
#include <fmt/format.h>

#include "common/vtab_util.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "members/interrupt.h"
#include "members/progress.h"
#include "members/member_query.h"
#include "members/member_sql.h"
#include "federation/rocpd_union.h"
#include "members/member_pool.h"
#include "analysis/op_groups.h"

namespace rocpd::federation {

namespace {

enum Col { kDb, kName, kCalls, kTotal, kAvg, kMin, kMax, kStddev, kPercent, kSummaryArg };

constexpr const char* kUsage =
    "use rocpd_union('top'|'ktop'|'copies'|'apis'|'markers'); for any table or view, the named form: "
    "CREATE VIRTUAL TABLE temp.kernels_all USING rocpd_union(kernels)";

// A number as SQL keeps it: an integer, or a real once any real took part (as sum() does).
struct Number {
  bool real = false;
  int64_t i = 0;
  double d = 0;
  double value() const { return real ? d : static_cast<double>(i); }
  bool less(const Number& o) const {
    if (!real && !o.real) return i < o.i;
    return value() < o.value();
  }
  void result(sqlite3_context* ctx) const {
    if (real) sqlite3_result_double(ctx, d);
    else sqlite3_result_int64(ctx, i);
  }
};

// SQLite's sum(): integers add exactly and raise "integer overflow"; a real makes the sum real.
void add(Number& sum, const Number& x) {
  if (!sum.real && !x.real) {
    if (__builtin_add_overflow(sum.i, x.i, &sum.i)) throw Error("integer overflow");
    return;
  }
  if (!sum.real) {
    sum.real = true;
    sum.d = static_cast<double>(sum.i);
  }
  sum.d += x.value();
}

struct SummaryRow {
  std::string db;
  std::optional<std::string> name;  // NULL for ops whose name is unknown
  uint32_t ordinal = 0;
  int64_t rank = 0;                 // position within the member's rows
  int64_t calls = 0, timed = 0;     // timed: rows with a duration (not NULL)
  Number total, min, max;
  double mean = 0, m2 = 0;  // Welford: stable sample variance
  std::optional<double> stddev;
  double percent = 0;
};

// One member's rows: computed on a pool thread, or (past analysis::kMaxEngineGroups names, whose
// rows the engine would hold in memory) streamed from SQL's GROUP BY on the host connection when
// the cursor reaches the member.
struct MemberRows {
  std::vector<SummaryRow> rows;
  canonical::MemberPtr streamed;
};

struct SummaryCursor : sqlite3_vtab_cursor {
  std::vector<MemberRows> members;
  size_t member = 0, pos = 0;
  const SummaryRow* current = nullptr;  // null at the end
  // The streamed member's statement and current row.
  Stmt stmt;
  SummaryRow row;
  Number member_total;
  // The argument, read back through the hidden column: SQLite re-checks `summary = 'top'` on
  // the rows of some plans (a multi-index OR), as on a plain table's column.
  std::string summary;
};

// Which rows of which canonical table a summary aggregates.
struct SummaryKind {
  canonical::TableKind table;
  const char* ops_kind;  // ops: required kind, or nullptr for all
  int marker;            // apis: 1 = markers only, 0 = everything but markers
};

SummaryKind parse_summary(const std::string& s) {
  if (s == "top") return {canonical::TableKind::Ops, nullptr, 0};
  if (s == "ktop") return {canonical::TableKind::Ops, "kernel", 0};
  if (s == "copies") return {canonical::TableKind::Ops, "copy", 0};
  if (s == "apis") return {canonical::TableKind::Apis, nullptr, 0};
  if (s == "markers") return {canonical::TableKind::Apis, nullptr, 1};
  throw Error(fmt::format("rocpd_union('{}'): unknown summary; {}", s, kUsage));
}

// Orders one member's rows by total time (then name) and numbers them, with percents of the
// member's total.
void rank_rows(std::vector<SummaryRow>& out) {
  Number member_total;
  for (const auto& r : out) add(member_total, r.total);
  for (auto& r : out)
    r.percent = member_total.value() != 0 ? 100.0 * r.total.value() / member_total.value() : 0.0;
  std::sort(out.begin(), out.end(), [](const SummaryRow& a, const SummaryRow& b) {
    if (a.total.less(b.total)) return false;
    if (b.total.less(a.total)) return true;
    return a.name < b.name;
  });
  for (size_t i = 0; i < out.size(); ++i) out[i].rank = static_cast<int64_t>(i);
}

// Op summaries through the summary engine (compact rows, names resolved once per key). Throws
// analysis::NeedsSql for values only the generic reader below folds as SQL does.
std::vector<SummaryRow> summarize_ops_fast(const canonical::MemberPtr& m, const SummaryKind& kind, sqlite3* db,
                                           const std::atomic<bool>* stop) {
  analysis::GroupSpec spec;
  spec.by_db = spec.by_name = true;
  if (kind.ops_kind) spec.kind = kind.ops_kind;
  auto groups = analysis::scan_member(*m, 0, db, spec, stop);
  std::vector<SummaryRow> out;
  out.reserve(groups.size());
  for (auto& [key, f] : groups) {
    SummaryRow r;
    r.db = m->alias;
    r.name = key.name;
    r.ordinal = m->ordinal;
    r.calls = f.rows;
    r.timed = static_cast<int64_t>(f.durations.n);
    if (r.timed > 0) {
      if (f.durations.sum > INT64_MAX || f.durations.sum < INT64_MIN) throw Error("integer overflow");
      r.total = Number{false, static_cast<int64_t>(f.durations.sum), 0};
      r.min = Number{false, f.min, 0};
      r.max = Number{false, f.max, 0};
      r.stddev = stats::sample_stddev(f.durations, stats::RealMoments{});
    }
    out.push_back(std::move(r));
  }
  return out;
}

// nullopt: too many names to hold; the member's rows are streamed by SQL (streamed_summary).
std::optional<std::vector<SummaryRow>> summarize_member(const canonical::MemberPtr& m, const SummaryKind& kind, sqlite3* db,
                                                        members::InterruptWatch& watch) {
  if (kind.table == canonical::TableKind::Ops) {
    try {
      auto rows = summarize_ops_fast(m, kind, db, nullptr);
      rank_rows(rows);
      return rows;
    } catch (const analysis::TooManyGroups&) {
      return std::nullopt;
    } catch (const analysis::NeedsSql&) {
      // Read again below, value by value as SQL would.
    }
  }
  const bool ops = kind.table == canonical::TableKind::Ops;
  const canonical::CanonicalTable& t = ops ? canonical::ops_table() : canonical::apis_table();
  const int name_col = ops ? int{canonical::kOpsName} : int{canonical::kApisName};
  const int dur_col = ops ? int{canonical::kOpsDuration} : int{canonical::kApisDuration};
  const int filter_col = ops ? int{canonical::kOpsKind} : int{canonical::kApisDomain};
  const uint64_t used = (uint64_t{1} << name_col) | (uint64_t{1} << dur_col) | (uint64_t{1} << filter_col);
  std::map<std::optional<std::string>, SummaryRow> by_name;
  const size_t nsources = members::shapes_of(kind.table, *m).size();
  for (size_t source = 0; source < nsources; ++source) {
    auto q = members::open_member_query(t, *m, nullptr, db, static_cast<int>(source), used, {}, false);
    sqlite3_stmt* stmt = q.stmt.get();
    const int ni = q.query.select_index[static_cast<size_t>(name_col)],
              di = q.query.select_index[static_cast<size_t>(dur_col)],
              fi = q.query.select_index[static_cast<size_t>(filter_col)];
    for (;;) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        if (rc == SQLITE_INTERRUPT || watch.stopped()) members::InterruptWatch::raise();
        throw Error(fmt::format("rocpd_union: {}: {}", members::member_label(*m), sqlite3_errmsg(db)), rc);
      }
      const StoredValue filter = stored_value(stmt, fi, Affinity::Text);
      const std::string_view f = filter.type == SQLITE_TEXT
                                     ? std::string_view(static_cast<const char*>(filter.bytes),
                                                        static_cast<size_t>(filter.length))
                                     : std::string_view();
      if (ops ? (kind.ops_kind && f != kind.ops_kind) : ((f == "marker") != (kind.marker == 1))) continue;
      const StoredValue name = stored_value(stmt, ni, Affinity::Text);
      std::optional<std::string> key;
      if (name.type != SQLITE_NULL) key.emplace(static_cast<const char*>(name.bytes), static_cast<size_t>(name.length));
      auto [it, inserted] = by_name.try_emplace(std::move(key));
      SummaryRow& r = it->second;
      if (inserted) {
        if (by_name.size() > analysis::kMaxEngineGroups) return std::nullopt;
        r.db = m->alias;
        r.name = it->first;
        r.ordinal = m->ordinal;
      }
      ++r.calls;
      const StoredValue dur = stored_value(stmt, di, Affinity::Integer);
      if (dur.type == SQLITE_NULL) continue;
      // A duration is end - start: a number (a real when a hostile file stores real times).
      const Number d = dur.type == SQLITE_INTEGER ? Number{false, dur.i, 0}
                                                  : Number{true, 0, dur.type == SQLITE_FLOAT ? dur.d : 0.0};
      if (r.timed == 0) r.min = r.max = d;
      ++r.timed;
      add(r.total, d);
      if (d.less(r.min)) r.min = d;
      if (r.max.less(d)) r.max = d;
      const double delta = d.value() - r.mean;
      r.mean += delta / static_cast<double>(r.timed);
      r.m2 += delta * (d.value() - r.mean);
    }
  }
  std::vector<SummaryRow> out;
  for (auto& [name, r] : by_name) {
    if (r.timed > 1) r.stddev = std::sqrt(r.m2 / static_cast<double>(r.timed - 1));
    out.push_back(std::move(r));
  }
  rank_rows(out);
  return out;
}

Number number_of(sqlite3_stmt* s, int col) {
  return sqlite3_column_type(s, col) == SQLITE_INTEGER ? Number{false, sqlite3_column_int64(s, col), 0}
                                                       : Number{true, 0, sqlite3_column_double(s, col)};
}

// A member's summary by SQL's GROUP BY over temp.rocpd_ops / temp.rocpd_apis, in the order
// rank_rows() gives: SQLite sorts in bounded memory, so many names cost no memory of ours
// (analysis::kMaxEngineGroups). `total`: the member's total (the sum of the groups' totals, as
// rank_rows() adds them: durations are never negative, so the same overflow), for the percents.
Stmt streamed_summary(sqlite3* host, const MemberRows& m, const SummaryKind& kind, Number& total) {
  const bool ops = kind.table == canonical::TableKind::Ops;
  std::string filter;
  if (ops && kind.ops_kind) filter = " AND kind = ?2";
  if (!ops) filter = kind.marker == 1 ? " AND domain = 'marker'" : " AND domain IS NOT 'marker'";
  const char* table = ops ? "temp.rocpd_ops" : "temp.rocpd_apis";
  auto bound = [&](const std::string& sql) {
    Stmt stmt = prepare(host, sql, "rocpd_union");
    const std::string& alias = m.streamed->alias;
    sqlite3_bind_text(stmt.get(), 1, alias.data(), static_cast<int>(alias.size()), SQLITE_TRANSIENT);
    if (ops && kind.ops_kind) sqlite3_bind_text(stmt.get(), 2, kind.ops_kind, -1, SQLITE_STATIC);
    return stmt;
  };
  {
    Stmt sum = bound(fmt::format("SELECT sum(duration) FROM {} WHERE db = ?1{}", table, filter));
    total = step(sum.get(), "rocpd_union") && sqlite3_column_type(sum.get(), 0) != SQLITE_NULL
                ? number_of(sum.get(), 0)
                : Number{};
  }
  return bound(fmt::format(
      "SELECT name, count(*) AS calls, sum(duration) AS total, min(duration), max(duration), stddev(duration), "
      "count(duration) FROM {} WHERE db = ?1{} GROUP BY name ORDER BY coalesce(total, 0) DESC, name",
      table, filter));
}

// Moves the cursor to its next row (the current one when it has not been read yet): through the
// computed rows, and through each streamed member's statement.
void settle(SummaryCursor& cur, sqlite3* host, const SummaryKind& kind) {
  cur.current = nullptr;
  while (cur.member < cur.members.size()) {
    MemberRows& m = cur.members[cur.member];
    if (!m.streamed) {
      if (cur.pos < m.rows.size()) {
        cur.current = &m.rows[cur.pos];
        return;
      }
    } else {
      if (!cur.stmt) cur.stmt = streamed_summary(host, m, kind, cur.member_total);
      if (step(cur.stmt.get(), "rocpd_union")) {
        sqlite3_stmt* s = cur.stmt.get();
        SummaryRow& r = cur.row;
        r.db = m.streamed->alias;
        r.ordinal = m.streamed->ordinal;
        r.rank = static_cast<int64_t>(cur.pos);
        if (sqlite3_column_type(s, 0) == SQLITE_NULL) r.name.reset();
        else r.name = std::string(column_text(s, 0));
        r.calls = sqlite3_column_int64(s, 1);
        r.timed = sqlite3_column_int64(s, 6);
        r.total = r.timed > 0 ? number_of(s, 2) : Number{};
        r.min = r.timed > 0 ? number_of(s, 3) : Number{};
        r.max = r.timed > 0 ? number_of(s, 4) : Number{};
        r.stddev.reset();
        if (sqlite3_column_type(s, 5) != SQLITE_NULL) r.stddev = sqlite3_column_double(s, 5);
        r.percent = cur.member_total.value() != 0 ? 100.0 * r.total.value() / cur.member_total.value() : 0.0;
        cur.current = &r;
        return;
      }
      cur.stmt.reset();
    }
    ++cur.member;
    cur.pos = 0;
  }
}

int x_best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  int argv = 0;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (c.iColumn == kSummaryArg) {
      if (!c.usable) return SQLITE_CONSTRAINT;  // the argument must be known before the scan
      // The same argument may come twice (a multi-index OR repeats it in each branch): the first
      // is the argument, the others SQLite checks against the hidden column.
      if (info->idxNum & 1) continue;
      info->aConstraintUsage[i].argvIndex = ++argv;
      info->aConstraintUsage[i].omit = 1;
      info->idxNum |= 1;
    }
  }
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    const char* coll = sqlite3_vtab_collation(info, i);
    const bool binary = !coll || sqlite3_stricmp(coll, "BINARY") == 0;
    if (c.usable && c.op == SQLITE_INDEX_CONSTRAINT_EQ && c.iColumn == kDb && binary && !(info->idxNum & 2)) {
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
    cur->members.clear();
    cur->member = cur->pos = 0;
    cur->current = nullptr;
    cur->stmt.reset();
    if (!(idx_num & 1)) throw Error(fmt::format("rocpd_union: no summary named; {}", kUsage));
    const auto* arg = sqlite3_value_text(argv[0]);
    if (!arg || sqlite3_value_type(argv[0]) != SQLITE_TEXT)
      throw Error(fmt::format("rocpd_union: the summary name must be text; {}", kUsage));
    const SummaryKind kind = parse_summary(reinterpret_cast<const char*>(arg));
    cur->summary = reinterpret_cast<const char*>(arg);
    std::string db_filter;
    const bool one_db = (idx_num & 2) && argc > 1;
    if (one_db) {
      // The TEXT column compares numbers as their text; NULL and blobs equal no member name.
      const int type = sqlite3_value_type(argv[1]);
      if (type == SQLITE_NULL || type == SQLITE_BLOB) return SQLITE_OK;
      Value copy = dup_value(argv[1]);
      const auto* d = sqlite3_value_text(copy.get());
      if (!d) return SQLITE_OK;
      db_filter.assign(reinterpret_cast<const char*>(d), static_cast<size_t>(sqlite3_value_bytes(copy.get())));
    }
    members::InterruptWatch watch(reg.host());
    std::vector<canonical::MemberPtr> members;
    for (const auto& m : reg.members())
      if (!one_db || m->alias == db_filter) members.push_back(m);
    members::PoolProgress progress;
    if (reg.progress)
      watch.report_progress([&] { return members::progress_line("rocpd_union", progress, members.size()); });
    // Members on every core; each task fills its own member's slot.
    cur->members.resize(members.size());
    members::MemberPool(reg, watch)
        .run(
            members,
            [&](size_t index, sqlite3* db, size_t) {
              auto rows = summarize_member(members[index], kind, db, watch);
              if (rows) cur->members[index].rows = std::move(*rows);
              else cur->members[index].streamed = members[index];
            },
            &progress);
    settle(*cur, reg.host(), kind);
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* c) {
  auto* cur = static_cast<SummaryCursor*>(c);
  auto& reg = *static_cast<UnionVtab*>(c->pVtab)->registry;
  return guard(c->pVtab, [&] {
    ++cur->pos;
    settle(*cur, reg.host(), parse_summary(cur->summary));
    return SQLITE_OK;
  });
}

int x_eof(sqlite3_vtab_cursor* c) { return static_cast<SummaryCursor*>(c)->current == nullptr; }

int x_column(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int col) {
  const auto* cur = static_cast<SummaryCursor*>(c);
  const SummaryRow& r = *cur->current;
  const bool timed = r.timed > 0;
  switch (col) {
    case kDb: sqlite3_result_text(ctx, r.db.data(), static_cast<int>(r.db.size()), SQLITE_TRANSIENT); break;
    case kName:
      if (r.name) sqlite3_result_text(ctx, r.name->data(), static_cast<int>(r.name->size()), SQLITE_TRANSIENT);
      break;
    case kCalls: sqlite3_result_int64(ctx, r.calls); break;
    case kTotal:
      if (timed) r.total.result(ctx);
      break;
    case kAvg:
      if (timed) sqlite3_result_double(ctx, r.total.value() / static_cast<double>(r.timed));
      break;
    case kMin:
      if (timed) r.min.result(ctx);
      break;
    case kMax:
      if (timed) r.max.result(ctx);
      break;
    case kStddev:
      if (r.stddev) sqlite3_result_double(ctx, *r.stddev);
      break;
    case kPercent: sqlite3_result_double(ctx, r.percent); break;
    case kSummaryArg:
      sqlite3_result_text(ctx, cur->summary.data(), static_cast<int>(cur->summary.size()), SQLITE_TRANSIENT);
      break;
    default: break;
  }
  return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* c, sqlite3_int64* rowid) {
  const SummaryRow& r = *static_cast<SummaryCursor*>(c)->current;
  *rowid = (static_cast<sqlite3_int64>(r.ordinal) << 40) | r.rank;
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

int union_summary_connect(sqlite3* db, const std::shared_ptr<members::Registry>& reg, sqlite3_vtab** out) {
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
