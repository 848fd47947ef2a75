// rocpd_op_groups(group_by [, of_kind]): the GPU ops of every member grouped by any of db, gpu,
// kind and name, with count, sum, mean, median, extremes, sample stddev, busy time (the union of
// the op intervals) and the first start / last end; what the summary views are plain SQL over
// (docs/summaries.md). Computed by the per-member engine (op_groups.h) on every core; a member
// holding values SQL would treat otherwise (text or real times...) sends the whole query through
// the same aggregates in SQL over temp.rocpd_ops, so the answer never depends on the path.
//
// Plan (idxNum bits): 1 group_by given (required: SQLITE_CONSTRAINT while unusable), 2 of_kind
// given, 4 `db =` (BINARY) given: members other than that one are not read (the constraint is still
// checked by SQLite), 8 med_ns used (durations kept for exact medians), 16 busy_ns used, 32 durations
// used (every duration of the group as a JSON array, for aggregates the engine does not compute).
// Rowids: the grouping and the kind argument's hash above the member's ordinal and the row's
// position (rows sorted by db, gpu, kind, name as GROUP BY sorts them): rows of different
// arguments never collide, and pruning by db never renumbers the other members' rows.
#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "common/natural_order.h"
#include "common/vtab_util.h"
#include "members/interrupt.h"
#include "members/progress.h"
#include "stats/percentile_select.h"
#include "members/member_pool.h"
#include "summaries/op_groups.h"
#include "summaries/register_summaries.h"

namespace rocpd::summaries {

namespace {

enum Col {
  kDb, kGpu, kKind, kName, kInstances, kTotal, kAvg, kMedian, kMin, kMax, kStddev, kBusy, kFirstStart, kLastEnd,
  kTimed, kGroupBy, kOfKind, kDurations
};

constexpr const char* kSchema =
    "CREATE TABLE x(db TEXT, gpu INTEGER, kind TEXT, name TEXT, instances INTEGER, total_ns INTEGER, avg_ns REAL, "
    "med_ns NUMERIC, min_ns INTEGER, max_ns INTEGER, stddev_ns REAL, busy_ns INTEGER, first_start INTEGER, "
    "last_end INTEGER, timed INTEGER, group_by TEXT HIDDEN, of_kind TEXT HIDDEN, durations TEXT HIDDEN)";

constexpr const char* kUsage =
    "use rocpd_op_groups(group_by [, of_kind]) with group_by a comma-separated list of db, gpu, kind, name "
    "(e.g. 'db,gpu' or 'name') and of_kind an op kind ('kernel', 'copy', ...)";

struct Blob {
  std::string bytes;
  auto operator<=>(const Blob&) const = default;
};
using Cell = std::variant<std::monostate, int64_t, double, std::string, Blob>;
using Row = std::vector<Cell>;

struct OpGroupsVtab : sqlite3_vtab {
  std::shared_ptr<federation::Registry> registry;
};

struct OpGroupsCursor : sqlite3_vtab_cursor {
  std::vector<Row> rows;
  std::vector<int64_t> rowids;
  size_t pos = 0;
  int64_t rowid_base = 0;
  std::string group_by;
  std::optional<std::string> of_kind;
  // The SQL path: rows stepped from `stmt` (on the host connection) as SQLite asks for them.
  Stmt stmt;
  bool streaming = false, done = false;
  bool by_db = false;
  std::map<std::string, uint32_t, std::less<>> ordinals;  // member name -> ordinal, for rowids
  std::string last_db;
  int64_t position = 0, rowid = 0;
};
void step_streamed(OpGroupsCursor& cur);

GroupSpec parse_group_by(const std::string& text) {
  GroupSpec spec;
  size_t at = 0;
  bool any = false;
  while (at <= text.size()) {
    size_t comma = text.find(',', at);
    if (comma == std::string::npos) comma = text.size();
    std::string part = text.substr(at, comma - at);
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    bool* flag = part == "db" ? &spec.by_db : part == "gpu" ? &spec.by_gpu : part == "kind" ? &spec.by_kind
                 : part == "name" ? &spec.by_name : nullptr;
    if (!flag) throw Error(fmt::format("rocpd_op_groups: unknown grouping column '{}' in '{}'; {}", part, text, kUsage));
    if (*flag) throw Error(fmt::format("rocpd_op_groups: '{}' appears twice in '{}'", part, text));
    *flag = any = true;
    at = comma + 1;
  }
  if (!any) throw Error(fmt::format("rocpd_op_groups: empty grouping; {}", kUsage));
  return spec;
}

uint64_t grouping_bits(const GroupSpec& s) {
  return uint64_t{s.by_db} | uint64_t{s.by_gpu} << 1 | uint64_t{s.by_kind} << 2 | uint64_t{s.by_name} << 3;
}

Cell optional_cell(const std::optional<int64_t>& v) { return v ? Cell(*v) : Cell(); }

Cell text_cell(const std::optional<std::string>& v) { return v ? Cell(*v) : Cell(); }

// SQLite's sum() of integers: the exact total, or "integer overflow".
int64_t checked_sum(__int128 sum) {
  if (sum > INT64_MAX || sum < INT64_MIN) throw Error("rocpd_op_groups: integer overflow");
  return static_cast<int64_t>(sum);
}

// The durations as SQL's json_group_array(duration) writes integers (in another order).
std::string json_array(const std::vector<int64_t>& values) {
  fmt::memory_buffer out;
  out.push_back('[');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out.push_back(',');
    fmt::format_to(std::back_inserter(out), "{}", values[i]);
  }
  out.push_back(']');
  return fmt::to_string(out);
}

std::vector<Row> rows_of(JobGroups& job, const std::vector<federation::MemberPtr>& members, const GroupSpec& spec) {
  std::vector<Row> rows;
  rows.reserve(job.size());
  for (auto& [key, f] : job) {
    Row r(kDurations + 1);
    if (key.member != UINT32_MAX) r[kDb] = members[key.member]->alias;
    r[kGpu] = optional_cell(key.gpu);
    r[kKind] = text_cell(key.kind);
    r[kName] = text_cell(key.name);
    r[kInstances] = f.rows;
    const auto n = static_cast<int64_t>(f.durations.n);
    r[kTimed] = n;
    if (n > 0) {
      const int64_t total = checked_sum(f.durations.sum);
      r[kTotal] = total;
      r[kAvg] = static_cast<double>(total) / static_cast<double>(n);
      r[kMin] = f.min;
      r[kMax] = f.max;
      if (auto sd = stats::sample_stddev(f.durations, stats::RealMoments{})) r[kStddev] = *sd;
      if (spec.want_values) r[kDurations] = json_array(f.values);
      if (spec.want_median && !f.values.empty()) {
        const stats::Number med = stats::percentile_select(f.values, 50.0);
        r[kMedian] = std::visit([](auto x) { return Cell(x); }, med);
        f.values.clear();
        f.values.shrink_to_fit();
      }
    }
    if (spec.want_busy) {
      if (f.busy_length > static_cast<uint64_t>(INT64_MAX))
        throw Error(fmt::format("rocpd_op_groups: interval_union: the union is {} ns long, more than an integer "
                                "holds (INT64_MAX = {})",
                                f.busy_length, INT64_MAX));
      r[kBusy] = static_cast<int64_t>(f.busy_length);
    }
    r[kFirstStart] = optional_cell(f.first_start);
    r[kLastEnd] = optional_cell(f.last_end);
    if (spec.want_values && n == 0) r[kDurations] = std::string("[]");
    rows.push_back(std::move(r));
  }
  return rows;
}

// The order of SQL's GROUP BY on the grouping columns: NULL first, numbers, text by BINARY; but
// members (db) in natural order, as everywhere members are listed (rank2 before rank10).
bool cell_less(const Cell& a, const Cell& b, bool natural = false) {
  if (a.index() != b.index()) return a.index() < b.index();
  if (natural)
    if (const auto* sa = std::get_if<std::string>(&a)) return natural_less(*sa, std::get<std::string>(b));
  return a < b;
}
void sort_rows(std::vector<Row>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    for (int c : {kDb, kGpu, kKind, kName})
      if (cell_less(a[c], b[c], c == kDb) || cell_less(b[c], a[c], c == kDb)) return cell_less(a[c], b[c], c == kDb);
    return false;
  });
}

std::vector<Row> engine_rows(federation::Registry& reg, const std::vector<federation::MemberPtr>& members,
                             const GroupSpec& spec) {
  federation::InterruptWatch watch(reg.host());
  federation::MemberPool pool(reg, watch);
  federation::PoolProgress progress;
  if (reg.progress)
    watch.report_progress([&] { return federation::progress_line("rocpd_op_groups", progress, members.size()); });
  std::vector<JobGroups> lanes(pool.lanes());
  pool.run(
      members,
      [&](size_t index, sqlite3* db, size_t lane) {
        if (spec.db && members[index]->alias != *spec.db) return;
        merge_into(lanes[lane], scan_member(*members[index], static_cast<uint32_t>(index), db, spec, nullptr), spec);
      },
      &progress);
  JobGroups job = std::move(lanes[0]);
  for (size_t l = 1; l < lanes.size(); ++l) merge_into(job, std::move(lanes[l]), spec);
  finish(job, spec);
  return rows_of(job, members, spec);
}

// The same figures by SQL, for members the engine cannot read exactly (see the file comment) and
// past kMaxEngineGroups groups: GROUP BY sorts in bounded memory and the rows are streamed to
// SQLite as they come, in the grouping columns' order (as the engine's rows are sorted).
// The durations column by SQL: a JSON array only when it holds the values exactly (integers); a
// group holding another type gives NULL, and the pushdown then aggregates that group's rows by SQL.
constexpr const char* kDurationsSql =
    "CASE WHEN count(*) FILTER (WHERE typeof(duration) NOT IN ('integer', 'null')) = 0 "
    "THEN json_group_array(duration) FILTER (WHERE duration IS NOT NULL) END";

Stmt sql_groups(sqlite3* host, const GroupSpec& spec) {
  std::vector<std::string> keys;
  if (spec.by_db) keys.push_back("db");
  if (spec.by_gpu) keys.push_back("gpu");
  if (spec.by_kind) keys.push_back("kind");
  if (spec.by_name) keys.push_back("name");
  auto key = [&](const char* c) { return std::find(keys.begin(), keys.end(), c) != keys.end() ? c : "NULL"; };
  std::string where;
  if (spec.kind) where += " WHERE kind = ?1";
  if (spec.db) where += fmt::format("{} db = ?2", where.empty() ? " WHERE" : " AND");
  const std::string sql = fmt::format(
      "SELECT {}, {}, {}, {}, count(*), sum(duration), avg(duration), {}, min(duration), max(duration), "
      "stddev(duration), {}, min(start) FILTER (WHERE \"end\" >= start), max(\"end\") FILTER (WHERE \"end\" >= start), "
      "count(duration), NULL, NULL, {} FROM temp.rocpd_ops{} GROUP BY {} ORDER BY {}",
      key("db"), key("gpu"), key("kind"), key("name"), spec.want_median ? "median(duration)" : "NULL",
      spec.want_busy ? "interval_union(start, \"end\")" : "NULL", spec.want_values ? kDurationsSql : "NULL", where, fmt::join(keys, ", "), fmt::join(keys, ", "));
  Stmt stmt = prepare(host, sql, "rocpd_op_groups");
  if (spec.kind) sqlite3_bind_text(stmt.get(), 1, spec.kind->data(), static_cast<int>(spec.kind->size()), SQLITE_TRANSIENT);
  if (spec.db) sqlite3_bind_text(stmt.get(), 2, spec.db->data(), static_cast<int>(spec.db->size()), SQLITE_TRANSIENT);
  return stmt;
}

// Rowids below the arguments' bits: by db, the member's ordinal (14 bits) above the row's position
// among that member's rows, so that pruning members by `db =` leaves every other row's rowid as is;
// otherwise the row's position.
void number_rows(OpGroupsCursor& cur, const std::vector<federation::MemberPtr>& members, const GroupSpec& spec) {
  cur.rowids.clear();
  std::map<std::string, uint32_t, std::less<>> ordinal;
  for (const auto& m : members) ordinal.emplace(m->alias, m->ordinal);
  const std::string* last = nullptr;
  int64_t position = 0;
  for (const Row& r : cur.rows) {
    if (!spec.by_db) {
      if (position >= (int64_t{1} << 42)) throw Error("rocpd_op_groups: too many groups");
      cur.rowids.push_back(cur.rowid_base + position++);
      continue;
    }
    const auto* db = std::get_if<std::string>(&r[kDb]);
    if (!db) throw Error("rocpd_op_groups: a group without a member name");
    if (!last || *last != *db) position = 0;
    last = db;
    auto it = ordinal.find(*db);
    if (it == ordinal.end()) throw Error(fmt::format("rocpd_op_groups: member {} vanished during the query", *db));
    if (position >= (int64_t{1} << 28)) throw Error(fmt::format("rocpd_op_groups: member {}: too many groups", *db));
    cur.rowids.push_back(cur.rowid_base + (int64_t{it->second} << 28) + position++);
  }
}

int x_connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    int rc = sqlite3_declare_vtab(db, kSchema);
    if (rc != SQLITE_OK) return rc;
    sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);  // reads member files
    auto* vtab = new OpGroupsVtab();
    vtab->registry = *static_cast<std::shared_ptr<federation::Registry>*>(aux);
    *out = vtab;
    return SQLITE_OK;
  });
}

int x_best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  int group_by = -1, of_kind = -1, db = -1;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (c.iColumn == kGroupBy) {
      if (!c.usable) return SQLITE_CONSTRAINT;  // the arguments must be known before the scan
      if (group_by < 0) group_by = i;
    } else if (c.iColumn == kOfKind) {
      if (!c.usable) return SQLITE_CONSTRAINT;
      if (of_kind < 0) of_kind = i;
    } else if (c.iColumn == kDb && c.usable && db < 0) {
      const char* coll = sqlite3_vtab_collation(info, i);
      if (!coll || sqlite3_stricmp(coll, "BINARY") == 0) db = i;
    }
  }
  int argv = 0;
  // An argument appearing twice (a multi-index OR repeats it) is checked by SQLite on the rest.
  if (group_by >= 0) {
    info->aConstraintUsage[group_by].argvIndex = ++argv;
    info->aConstraintUsage[group_by].omit = 1;
    info->idxNum |= 1;
  }
  if (of_kind >= 0) {
    info->aConstraintUsage[of_kind].argvIndex = ++argv;
    info->aConstraintUsage[of_kind].omit = 1;
    info->idxNum |= 2;
  }
  if (db >= 0) {
    info->aConstraintUsage[db].argvIndex = ++argv;  // not omitted: SQLite checks it again
    info->idxNum |= 4;
  }
  if (info->colUsed & (uint64_t{1} << kMedian)) info->idxNum |= 8;
  if (info->colUsed & (uint64_t{1} << kBusy)) info->idxNum |= 16;
  if (info->colUsed & (uint64_t{1} << kDurations)) info->idxNum |= 32;
  info->estimatedCost = (info->idxNum & 4) ? 1e4 : 1e6;
  info->estimatedRows = 1000;
  return SQLITE_OK;
}

int x_filter(sqlite3_vtab_cursor* c, int idx_num, const char*, int argc, sqlite3_value** argv) {
  auto* cur = static_cast<OpGroupsCursor*>(c);
  auto& reg = *static_cast<OpGroupsVtab*>(c->pVtab)->registry;
  return guard(c->pVtab, [&] {
    cur->rows.clear();
    cur->rowids.clear();
    cur->pos = 0;
    cur->stmt.reset();
    cur->streaming = cur->done = false;
    if (!(idx_num & 1)) throw Error(fmt::format("rocpd_op_groups: no grouping given; {}", kUsage));
    int arg = 0;
    auto text_arg = [&](const char* what) -> std::optional<std::string> {
      sqlite3_value* v = argv[arg++];
      if (sqlite3_value_type(v) != SQLITE_TEXT) {
        if (sqlite3_value_type(v) == SQLITE_NULL) return std::nullopt;
        throw Error(fmt::format("rocpd_op_groups: {} must be text; {}", what, kUsage));
      }
      return std::string(reinterpret_cast<const char*>(sqlite3_value_text(v)),
                         static_cast<size_t>(sqlite3_value_bytes(v)));
    };
    const auto group_by = text_arg("group_by");
    if (!group_by) return SQLITE_OK;  // `group_by = NULL` matches no row
    GroupSpec spec = parse_group_by(*group_by);
    cur->group_by = *group_by;
    cur->of_kind.reset();
    if (idx_num & 2) {
      spec.kind = text_arg("of_kind");
      if (!spec.kind) return SQLITE_OK;  // `of_kind = NULL` matches no row
      cur->of_kind = spec.kind;
    }
    if ((idx_num & 4) && arg < argc && spec.by_db) {
      // The TEXT column compares numbers as their text; NULL and blobs equal no member name.
      const int type = sqlite3_value_type(argv[arg]);
      if (type == SQLITE_NULL || type == SQLITE_BLOB) return SQLITE_OK;
      Value copy = dup_value(argv[arg]);
      const auto* d = sqlite3_value_text(copy.get());
      if (!d) return SQLITE_OK;
      spec.db = std::string(reinterpret_cast<const char*>(d), static_cast<size_t>(sqlite3_value_bytes(copy.get())));
    }
    spec.want_median = idx_num & 8;
    spec.want_busy = idx_num & 16;
    spec.want_values = idx_num & 32;
    uint64_t kind_hash = 0;
    if (spec.kind)
      for (unsigned char ch : *spec.kind) kind_hash = (kind_hash ^ ch) * 0x100000001B3ull;
    cur->rowid_base = static_cast<int64_t>(grouping_bits(spec) << 59 | (spec.kind ? 1ull << 58 : 0) |
                                           (kind_hash & 0xFFFFull) << 42);
    const auto members = reg.members();
    try {
      cur->rows = engine_rows(reg, members, spec);
    } catch (const NeedsSql&) {
      cur->rows.clear();
      cur->stmt = sql_groups(reg.host(), spec);
      cur->streaming = true;
      cur->by_db = spec.by_db;
      cur->ordinals.clear();
      for (const auto& m : members) cur->ordinals.emplace(m->alias, m->ordinal);
      cur->last_db.clear();
      cur->position = 0;
      step_streamed(*cur);
      return SQLITE_OK;
    }
    sort_rows(cur->rows);
    number_rows(*cur, members, spec);
    return SQLITE_OK;
  });
}

// The SQL path: steps to the next row and numbers it as number_rows() numbers the engine's.
void step_streamed(OpGroupsCursor& cur) {
  if (!step(cur.stmt.get(), "rocpd_op_groups")) {
    cur.done = true;
    cur.stmt.reset();
    return;
  }
  if (!cur.by_db) {
    if (cur.position >= (int64_t{1} << 42)) throw Error("rocpd_op_groups: too many groups");
    cur.rowid = cur.rowid_base + cur.position++;
    return;
  }
  if (sqlite3_column_type(cur.stmt.get(), kDb) != SQLITE_TEXT) throw Error("rocpd_op_groups: a group without a member name");
  const std::string_view db = column_text(cur.stmt.get(), kDb);
  if (db != cur.last_db) {
    cur.last_db.assign(db);
    cur.position = 0;
  }
  auto it = cur.ordinals.find(db);
  if (it == cur.ordinals.end()) throw Error(fmt::format("rocpd_op_groups: member {} vanished during the query", db));
  if (cur.position >= (int64_t{1} << 28)) throw Error(fmt::format("rocpd_op_groups: member {}: too many groups", db));
  cur.rowid = cur.rowid_base + (int64_t{it->second} << 28) + cur.position++;
}

int x_next(sqlite3_vtab_cursor* c) {
  auto* cur = static_cast<OpGroupsCursor*>(c);
  if (!cur->streaming) {
    ++cur->pos;
    return SQLITE_OK;
  }
  return guard(c->pVtab, [&] {
    step_streamed(*cur);
    return SQLITE_OK;
  });
}

int x_eof(sqlite3_vtab_cursor* c) {
  auto* cur = static_cast<OpGroupsCursor*>(c);
  return cur->streaming ? cur->done : cur->pos >= cur->rows.size();
}

int x_column(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int col) {
  const auto* cur = static_cast<OpGroupsCursor*>(c);
  if (col == kGroupBy) {
    sqlite3_result_text(ctx, cur->group_by.data(), static_cast<int>(cur->group_by.size()), SQLITE_TRANSIENT);
    return SQLITE_OK;
  }
  if (col == kOfKind) {
    if (cur->of_kind)
      sqlite3_result_text(ctx, cur->of_kind->data(), static_cast<int>(cur->of_kind->size()), SQLITE_TRANSIENT);
    return SQLITE_OK;
  }
  if (cur->streaming) {
    sqlite3_result_value(ctx, sqlite3_column_value(cur->stmt.get(), col));
    return SQLITE_OK;
  }
  const Cell& cell = cur->rows[cur->pos][static_cast<size_t>(col)];
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) sqlite3_result_int64(ctx, v);
        else if constexpr (std::is_same_v<T, double>) sqlite3_result_double(ctx, v);
        else if constexpr (std::is_same_v<T, std::string>)
          sqlite3_result_text(ctx, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
        else if constexpr (std::is_same_v<T, Blob>)
          sqlite3_result_blob(ctx, v.bytes.data(), static_cast<int>(v.bytes.size()), SQLITE_TRANSIENT);
        else sqlite3_result_null(ctx);
      },
      cell);
  return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* c, sqlite3_int64* rowid) {
  const auto* cur = static_cast<OpGroupsCursor*>(c);
  *rowid = cur->streaming ? cur->rowid : cur->rowids[cur->pos];
  return SQLITE_OK;
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.xCreate = x_connect;
  m.xConnect = x_connect;
  m.xBestIndex = x_best_index;
  m.xDisconnect = vtab_disconnect<OpGroupsVtab>;
  m.xDestroy = vtab_disconnect<OpGroupsVtab>;
  m.xOpen = vtab_open<OpGroupsCursor>;
  m.xClose = vtab_close<OpGroupsCursor>;
  m.xFilter = x_filter;
  m.xNext = x_next;
  m.xEof = x_eof;
  m.xColumn = x_column;
  m.xRowid = x_rowid;
  return m;
}

const sqlite3_module kModule = make_module();

}  // namespace

int register_rocpd_op_groups(sqlite3* db, const std::shared_ptr<federation::Registry>& registry) {
  return sqlite3_create_module_v2(db, "rocpd_op_groups", &kModule, new std::shared_ptr<federation::Registry>(registry),
                                  [](void* p) { delete static_cast<std::shared_ptr<federation::Registry>*>(p); });
}

}  // namespace rocpd::summaries
