// The virtual table behind rocpd_op_groups and rocpd_api_groups (group_table.h).
#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <iterator>
#include <set>
#include <variant>

#include "common/affinity.h"
#include "common/natural_order.h"
#include "common/vtab_util.h"
#include "members/registry.h"
#include "members/interrupt.h"
#include "members/progress.h"
#include "stats/percentile_select.h"
#include "members/member_pool.h"
#include "summaries/group_table.h"

namespace rocpd::summaries {

using namespace analysis;

namespace {

constexpr int kDb = 0;

using Cols = GroupColumns;

struct Blob {
  std::string bytes;
  auto operator<=>(const Blob&) const = default;
};
// A group's durations, written as JSON only when SQLite reads the cell (a query picking some groups
// formats only theirs).
struct Durations {
  std::vector<int64_t> values;
  auto operator<=>(const Durations&) const = default;
};
// A sum an integer cannot hold: reading it fails as SQLite's sum() does, and only reading it (the
// group's other figures answer; a query that never reads it, or drops the group first, runs).
struct Overflow {
  auto operator<=>(const Overflow&) const = default;
};
using Cell = std::variant<std::monostate, int64_t, double, std::string, Blob, Durations, Overflow>;
using Row = std::vector<Cell>;

// The declared affinity of each column (the SQL path's values are returned as a plain table of
// those types stores them). total_ns, med_ns, min_ns and max_ns are declared without a type: they
// hold exactly what sum(), median(), min() and max() give, a real when the SQL path sums real
// durations (8267.0), as the pushdown's rewrite must return (an aggregate has no affinity).
std::vector<Affinity> affinities(const GroupTableDef& def) {
  const Cols col(def);
  std::vector<Affinity> out(static_cast<size_t>(col.count), Affinity::Integer);
  for (size_t i = 0; i < def.keys.size(); ++i) out[i] = def.keys[i].integer ? Affinity::Integer : Affinity::Text;
  out[static_cast<size_t>(col.avg)] = out[static_cast<size_t>(col.stddev)] = Affinity::Real;
  for (int c : {col.total, col.median, col.min, col.max, col.min_start, col.max_start, col.min_end, col.max_end,
                col.duration_values})
    out[static_cast<size_t>(c)] = Affinity::Blob;
  for (int c : {col.group_by, col.of_kind, col.durations})
    if (c >= 0) out[static_cast<size_t>(c)] = Affinity::Text;
  return out;
}

using State = GroupScan::State;

}  // namespace

struct GroupScan::State {
  const GroupTableDef* def = nullptr;
  std::vector<Affinity> affinity;  // per column, as declared
  std::shared_ptr<members::Registry> registry;
  std::vector<Row> rows;
  std::vector<int64_t> rowids;
  size_t pos = 0;
  int64_t rowid_base = 0;
  std::string group_by;
  std::optional<std::string> of_kind;
  std::optional<int64_t> of_gpu;
  // The SQL path: rows stepped from `stmt` (on the host connection) as SQLite asks for them.
  Stmt stmt;
  bool streaming = false, done = false;
  bool by_db = false;
  std::map<std::string, uint32_t, std::less<>> ordinals;  // member name -> ordinal, for rowids
  std::string last_db;
  int64_t position = 0, rowid = 0;
  // The JSON of the durations of the row at json_pos (SQLite reads the column more than once).
  mutable std::string json;
  mutable size_t json_pos = SIZE_MAX;
  // Grouped by db, every member: the engine a batch of members at a time (a member's groups are
  // whole after its own scan), in the rows' order (members natural), so that memory holds one
  // batch's rows, not the job's. `emitted`: the members whose rows were handed out, skipped by
  // the SQL path if a later batch needs it.
  bool batched = false;
  GroupSpec spec;
  std::vector<canonical::MemberPtr> members;
  size_t next_member = 0;
  std::set<std::string, std::less<>> emitted;
};

namespace {

void step_streamed(State& cur);

const GroupTableDef& def_of(const State& cur) { return *cur.def; }

GroupSpec parse_group_by(const GroupTableDef& def, const std::string& text) {
  GroupSpec spec;
  spec.table = def.table;
  size_t at = 0;
  bool any = false;
  while (at <= text.size()) {
    size_t comma = text.find(',', at);
    if (comma == std::string::npos) comma = text.size();
    std::string part = text.substr(at, comma - at);
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    bool* flag = nullptr;
    for (const KeyColumn& k : def.keys)
      if (part == k.name) flag = &(spec.*k.flag);
    if (!flag)
      throw Error(fmt::format("{}: unknown grouping column '{}' in '{}'; {}", def.name, part, text, def.usage));
    if (*flag) throw Error(fmt::format("{}: '{}' appears twice in '{}'", def.name, part, text));
    *flag = any = true;
    at = comma + 1;
  }
  if (!any) throw Error(fmt::format("{}: empty grouping; {}", def.name, def.usage));
  return spec;
}

uint64_t grouping_bits(const GroupTableDef& def, const GroupSpec& s) {
  uint64_t bits = 0;
  for (size_t i = 0; i < def.keys.size(); ++i) bits |= uint64_t{s.*def.keys[i].flag} << i;
  return bits;
}

Cell optional_cell(const std::optional<int64_t>& v) { return v ? Cell(*v) : Cell(); }

Cell text_cell(const std::optional<std::string>& v) { return v ? Cell(*v) : Cell(); }

// SQLite's sum() of integers: the exact total, or "integer overflow" when it is read.
Cell checked_sum(__int128 sum) {
  if (sum > INT64_MAX || sum < INT64_MIN) return Overflow{};
  return static_cast<int64_t>(sum);
}

// The durations as SQL's json_group_array(duration) writes integers (ascending).
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

std::vector<Row> rows_of(const GroupTableDef& def, JobGroups& job, const std::vector<canonical::MemberPtr>& members,
                         const GroupSpec& spec) {
  const Cols col(def);
  std::vector<Row> rows;
  rows.reserve(job.size());
  for (auto& [key, f] : job) {
    Row r(static_cast<size_t>(col.count));
    if (key.member != UINT32_MAX) r[kDb] = members[key.member]->alias;
    for (size_t i = 1; i < def.keys.size(); ++i)
      r[i] = def.keys[i].integer ? optional_cell(key.*def.keys[i].integer) : text_cell(key.*def.keys[i].text);
    r[col.instances] = f.rows;
    const auto n = static_cast<int64_t>(f.durations.n);
    r[col.timed] = n;
    if (n > 0) {
      r[col.total] = checked_sum(f.durations.sum);
      r[col.avg] = static_cast<double>(f.durations.sum) / static_cast<double>(n);
      r[col.min] = f.min;
      r[col.max] = f.max;
      if (auto sd = stats::sample_stddev(f.durations, stats::RealMoments{})) r[col.stddev] = *sd;
      if (spec.want_median && !f.values.empty()) {
        const stats::Number med = stats::percentile_select(f.values, 50.0);
        r[col.median] = std::visit([](auto x) { return Cell(x); }, med);
      }
      if (spec.want_values) {
        // Ascending: the same text in every run (the members' values arrive in any order).
        std::sort(f.values.begin(), f.values.end());
        r[col.durations] = Durations{std::move(f.values)};
      }
      f.values = {};
    }
    if (spec.want_busy) {
      if (f.busy_length > static_cast<uint64_t>(INT64_MAX))
        throw Error(fmt::format("{}: interval_union: the union is {} ns long, more than an integer "
                                "holds (INT64_MAX = {})",
                                def.name, f.busy_length, INT64_MAX));
      r[col.busy] = static_cast<int64_t>(f.busy_length);
    }
    r[col.first_start] = optional_cell(f.first_start);
    r[col.last_end] = optional_cell(f.last_end);
    if (spec.want_values && n == 0) r[col.durations] = Durations{};
    r[col.n_start] = f.starts.n;
    r[col.n_end] = f.ends.n;
    if (f.starts.n > 0) {
      r[col.min_start] = f.starts.min;
      r[col.max_start] = f.starts.max;
    }
    if (f.ends.n > 0) {
      r[col.min_end] = f.ends.min;
      r[col.max_end] = f.ends.max;
    }
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
void sort_rows(const GroupTableDef& def, std::vector<Row>& rows) {
  const size_t keys = def.keys.size();
  std::stable_sort(rows.begin(), rows.end(), [keys](const Row& a, const Row& b) {
    for (size_t c = 0; c < keys; ++c)
      if (cell_less(a[c], b[c], c == kDb) || cell_less(b[c], a[c], c == kDb)) return cell_less(a[c], b[c], c == kDb);
    return false;
  });
}

// `total` and `done_before`: the whole scan's member count and the members done in earlier
// batches, for the progress line.
std::vector<Row> engine_rows(const GroupTableDef& def, members::Registry& reg, const std::vector<canonical::MemberPtr>& members,
                             const GroupSpec& spec, size_t total = 0, size_t done_before = 0) {
  members::InterruptWatch watch(reg.host());
  members::MemberPool pool(reg, watch);
  members::PoolProgress progress;
  if (reg.progress)
    watch.report_progress([&, total, done_before] {
      return members::progress_line(def.name, progress, total ? total : members.size(), done_before);
    });
  // `db =`: only that member is leased (a lease of each of 10,000 members costs seconds); the
  // groups keep their index in `members`.
  std::vector<canonical::MemberPtr> picked;
  std::vector<uint32_t> index_of;
  for (uint32_t i = 0; spec.db && i < members.size(); ++i)
    if (members[i]->alias == *spec.db) {
      picked.push_back(members[i]);
      index_of.push_back(i);
    }
  std::vector<JobGroups> lanes(pool.lanes());
  pool.run(
      spec.db ? picked : members,
      [&](size_t k, sqlite3* db, size_t lane) {
        const uint32_t index = spec.db ? index_of[k] : static_cast<uint32_t>(k);
        merge_into(lanes[lane], scan_member(*members[index], index, db, spec, nullptr), spec);
      },
      &progress);
  JobGroups job = std::move(lanes[0]);
  for (size_t l = 1; l < lanes.size(); ++l) merge_into(job, std::move(lanes[l]), spec);
  finish(job, spec);
  return rows_of(def, job, members, spec);
}

// The same figures by SQL, for members the engine cannot read exactly (see the file comment) and
// past kMaxEngineGroups groups: GROUP BY sorts in bounded memory and the rows are streamed to
// SQLite as they come, in the grouping columns' order (as the engine's rows are sorted).
// The durations column by SQL: a JSON array only when it holds the values exactly (integers); a
// group holding another type gives NULL, and the pushdown then aggregates that group's rows by SQL.
constexpr const char* kDurationsSql =
    "CASE WHEN count(*) FILTER (WHERE typeof(duration) NOT IN ('integer', 'null')) = 0 "
    "THEN json_group_array(duration) FILTER (WHERE duration IS NOT NULL) END";
// sum(duration) by SQL fails for the whole scan when one group's sum overflows; so the total is
// computed in parts that cannot overflow (the integer durations in 23 + 20 + 20 bits, summed exactly
// by the cursor) and fails only when its cell is read, as the engine's. A group holding reals (a
// duration is an integer, a real or NULL) sums as total() does, which is sum()'s double sum.
constexpr const char* kSumPartsSql =
    "count(*) FILTER (WHERE typeof(duration) = 'real'), total(duration), "
    "sum(duration >> 40) FILTER (WHERE typeof(duration) = 'integer'), "
    "sum((duration >> 20) & 1048575) FILTER (WHERE typeof(duration) = 'integer'), "
    "sum(duration & 1048575) FILTER (WHERE typeof(duration) = 'integer')";

Stmt sql_groups(const GroupTableDef& def, sqlite3* host, const GroupSpec& spec) {
  std::vector<std::string> keys, selected;
  for (const KeyColumn& k : def.keys) {
    selected.push_back(spec.*k.flag ? k.name : "NULL");
    if (spec.*k.flag) keys.push_back(k.name);
  }
  std::string where;
  if (spec.kind) where += " WHERE kind = ?1";
  if (spec.db) where += fmt::format("{} db = ?2", where.empty() ? " WHERE" : " AND");
  if (spec.of_gpu) where += fmt::format("{} gpu = ?3", where.empty() ? " WHERE" : " AND");
  const std::string sql = fmt::format(
      "SELECT {}, count(*), NULL, avg(duration), {}, min(duration), max(duration), "
      "stddev(duration), {}min(start) FILTER (WHERE \"end\" >= start), max(\"end\") FILTER (WHERE \"end\" >= start), "
      "count(duration), NULL, {}{}, count(start), min(start), max(start), count(\"end\"), min(\"end\"), "
      "max(\"end\"), NULL, {} FROM {}{} GROUP BY {} ORDER BY {}",
      fmt::join(selected, ", "), spec.want_median ? "median(duration)" : "NULL",
      !def.busy ? "" : spec.want_busy ? "interval_union(start, \"end\"), " : "NULL, ", def.of_kind ? "NULL, NULL, " : "",
      spec.want_values ? kDurationsSql : "NULL", kSumPartsSql, def.source, where, fmt::join(keys, ", "),
      fmt::join(keys, ", "));
  Stmt stmt = prepare(host, sql, def.name);
  if (spec.kind) sqlite3_bind_text(stmt.get(), 1, spec.kind->data(), static_cast<int>(spec.kind->size()), SQLITE_TRANSIENT);
  if (spec.of_gpu) sqlite3_bind_int64(stmt.get(), 3, *spec.of_gpu);
  if (spec.db) sqlite3_bind_text(stmt.get(), 2, spec.db->data(), static_cast<int>(spec.db->size()), SQLITE_TRANSIENT);
  return stmt;
}

// Rowids below the arguments' bits: by db, the member's ordinal (14 bits) above the row's position
// among that member's rows, so that pruning members by `db =` leaves every other row's rowid as is;
// otherwise the row's position.
void number_rows(State& cur, const std::vector<canonical::MemberPtr>& members, const GroupSpec& spec) {
  const char* name = def_of(cur).name;
  cur.rowids.clear();
  std::map<std::string, uint32_t, std::less<>> ordinal;
  for (const auto& m : members) ordinal.emplace(m->alias, m->ordinal);
  const std::string* last = nullptr;
  int64_t position = 0;
  for (const Row& r : cur.rows) {
    if (!spec.by_db) {
      if (position >= (int64_t{1} << 42)) throw Error(fmt::format("{}: too many groups", name));
      cur.rowids.push_back(cur.rowid_base + position++);
      continue;
    }
    const auto* db = std::get_if<std::string>(&r[kDb]);
    if (!db) throw Error(fmt::format("{}: a group without a member name", name));
    if (!last || *last != *db) position = 0;
    last = db;
    auto it = ordinal.find(*db);
    if (it == ordinal.end()) throw Error(fmt::format("{}: member {} vanished during the query", name, *db));
    if (position >= (int64_t{1} << 28)) throw Error(fmt::format("{}: member {}: too many groups", name, *db));
    cur.rowids.push_back(cur.rowid_base + (int64_t{it->second} << 28) + position++);
  }
}

// The SQL path from here on (rows of the members in cur.emitted are skipped: handed out already).
void stream_by_sql(State& cur, const GroupSpec& spec, const std::vector<canonical::MemberPtr>& members) {
  cur.rows.clear();
  cur.rowids.clear();
  cur.pos = 0;
  cur.json_pos = SIZE_MAX;
  cur.batched = false;
  cur.stmt = sql_groups(def_of(cur), cur.registry->host(), spec);
  cur.streaming = true;
  cur.by_db = spec.by_db;
  cur.ordinals.clear();
  for (const auto& m : members) cur.ordinals.emplace(m->alias, m->ordinal);
  cur.last_db.clear();
  cur.position = 0;
  step_streamed(cur);
}

// Members per batch: enough to keep every core busy, few enough that a batch's rows stay small.
constexpr size_t kBatchMembers = 256;

// Loads the next batch of members that has rows (none left: eof).
void next_batch(State& cur) {
  members::Registry& reg = *cur.registry;
  const GroupTableDef& def = def_of(cur);
  cur.rows.clear();
  cur.rowids.clear();
  cur.pos = 0;
  cur.json_pos = SIZE_MAX;
  while (cur.rows.empty() && cur.next_member < cur.members.size()) {
    const size_t first = cur.next_member, last = std::min(first + kBatchMembers, cur.members.size());
    const std::vector<canonical::MemberPtr> batch(cur.members.begin() + static_cast<std::ptrdiff_t>(first),
                                                  cur.members.begin() + static_cast<std::ptrdiff_t>(last));
    try {
      cur.rows = engine_rows(def, reg, batch, cur.spec, cur.members.size(), first);
    } catch (const NeedsSql&) {
      stream_by_sql(cur, cur.spec, cur.members);
      return;
    }
    cur.next_member = last;
    sort_rows(def, cur.rows);
    number_rows(cur, batch, cur.spec);
    for (const auto& m : batch) cur.emitted.insert(m->alias);
  }
}

}  // namespace

GroupScan::GroupScan() : state_(std::make_unique<State>()) {}
GroupScan::~GroupScan() = default;

void GroupScan::compute(const GroupTableDef& def, sqlite3* conn, std::span<sqlite3_value* const> args, int idx_num) {
  State* cur = state_.get();
  cur->def = &def;
  cur->affinity = affinities(def);
  cur->rows.clear();
  cur->rowids.clear();
  cur->pos = 0;
  cur->json_pos = SIZE_MAX;
  cur->stmt.reset();
  cur->streaming = cur->done = false;
  if (!(idx_num & 1)) throw Error(fmt::format("{}: no grouping given; {}", def.name, def.usage));
  // args: group_by, [of_kind, of_gpu,] `db =`, as JobTable passes them.
  sqlite3_value* const db_arg = args.back();
  auto text_arg = [&](sqlite3_value* v, const char* what) -> std::optional<std::string> {
    if (sqlite3_value_type(v) != SQLITE_TEXT) {
      if (sqlite3_value_type(v) == SQLITE_NULL) return std::nullopt;
      throw Error(fmt::format("{}: {} must be text; {}", def.name, what, def.usage));
    }
    return std::string(reinterpret_cast<const char*>(sqlite3_value_text(v)),
                       static_cast<size_t>(sqlite3_value_bytes(v)));
  };
  const auto group_by = text_arg(args[0], "group_by");
  if (!group_by) return;  // `group_by = NULL` matches no row
  GroupSpec spec = parse_group_by(def, *group_by);
  cur->group_by = *group_by;
  cur->of_kind.reset();
  if (idx_num & 2) {
    spec.kind = text_arg(args[1], "of_kind");
    if (!spec.kind) return;  // `of_kind = NULL` matches no row
    cur->of_kind = spec.kind;
  }
  cur->of_gpu.reset();
  if (idx_num & 64) {
    sqlite3_value* v = args[2];
    if (sqlite3_value_type(v) == SQLITE_NULL) return;  // `of_gpu = NULL` matches no row
    if (sqlite3_value_type(v) != SQLITE_INTEGER)
      throw Error(fmt::format("{}: of_gpu must be an integer; {}", def.name, def.usage));
    spec.of_gpu = cur->of_gpu = sqlite3_value_int64(v);
  }
  if ((idx_num & 4) && db_arg && spec.by_db) {
    // The TEXT column compares numbers as their text; NULL and blobs equal no member name.
    const int type = sqlite3_value_type(db_arg);
    if (type == SQLITE_NULL || type == SQLITE_BLOB) return;
    Value copy = dup_value(db_arg);
    const auto* d = sqlite3_value_text(copy.get());
    if (!d) return;
    spec.db = std::string(reinterpret_cast<const char*>(d), static_cast<size_t>(sqlite3_value_bytes(copy.get())));
  }
  spec.want_median = idx_num & 8;
  spec.want_busy = idx_num & 16;
  spec.want_values = idx_num & 32;
  uint64_t kind_hash = 0;
  if (spec.kind)
    for (unsigned char ch : *spec.kind) kind_hash = (kind_hash ^ ch) * 0x100000001B3ull;
  if (spec.of_gpu) kind_hash = (kind_hash ^ static_cast<uint64_t>(*spec.of_gpu)) * 0x9E3779B97F4A7C15ull ^ 0x5bd1e995u;
  // The grouping's bits end below the sign bit: 59..62 for ops (4 columns; 42..58 the kind),
  // 58..62 for API calls.
  cur->rowid_base = static_cast<int64_t>(grouping_bits(def, spec) << (63 - def.keys.size()) |
                                         (spec.kind || spec.of_gpu ? 1ull << 58 : 0) | (kind_hash & 0xFFFFull) << 42);
  cur->registry = members::Registry::of(conn);
  if (!cur->registry) throw Error(fmt::format("{}: the connection's member registry is gone", def.name));
  members::Registry& reg = *cur->registry;
  const auto members = reg.members();
  cur->batched = false;
  cur->emitted.clear();
  if (spec.by_db && !spec.db) {
    cur->batched = true;
    cur->spec = spec;
    cur->members = members;
    std::stable_sort(cur->members.begin(), cur->members.end(),
                     [](const auto& a, const auto& b) { return natural_less(a->alias, b->alias); });
    cur->next_member = 0;
    next_batch(*cur);
    return;
  }
  try {
    cur->rows = engine_rows(def, reg, members, spec);
  } catch (const NeedsSql&) {
    stream_by_sql(*cur, spec, members);
    return;
  }
  sort_rows(def, cur->rows);
  number_rows(*cur, members, spec);
}

namespace {


// The SQL path: steps to the next row and numbers it as number_rows() numbers the engine's.
void step_streamed(State& cur) {
  const char* name = def_of(cur).name;
  for (;;) {
    if (!step(cur.stmt.get(), name)) {
      cur.done = true;
      cur.stmt.reset();
      return;
    }
    if (cur.emitted.empty() || sqlite3_column_type(cur.stmt.get(), kDb) != SQLITE_TEXT ||
        !cur.emitted.count(column_text(cur.stmt.get(), kDb)))
      break;
  }
  if (!cur.by_db) {
    if (cur.position >= (int64_t{1} << 42)) throw Error(fmt::format("{}: too many groups", name));
    cur.rowid = cur.rowid_base + cur.position++;
    return;
  }
  if (sqlite3_column_type(cur.stmt.get(), kDb) != SQLITE_TEXT)
    throw Error(fmt::format("{}: a group without a member name", name));
  const std::string_view db = column_text(cur.stmt.get(), kDb);
  if (db != cur.last_db) {
    cur.last_db.assign(db);
    cur.position = 0;
  }
  auto it = cur.ordinals.find(db);
  if (it == cur.ordinals.end()) throw Error(fmt::format("{}: member {} vanished during the query", name, db));
  if (cur.position >= (int64_t{1} << 28)) throw Error(fmt::format("{}: member {}: too many groups", name, db));
  cur.rowid = cur.rowid_base + (int64_t{it->second} << 28) + cur.position++;
}

// total_ns on the SQL path, from the parts kSumPartsSql adds after the table's columns.
void result_streamed_sum(const State& cur, sqlite3_context* ctx, const Cols& cols) {
  sqlite3_stmt* st = cur.stmt.get();
  const int parts = cols.count;
  if (sqlite3_column_int64(st, cols.timed) == 0) return;  // NULL, as sum() of no value
  if (sqlite3_column_int64(st, parts) > 0) {
    sqlite3_result_double(ctx, sqlite3_column_double(st, parts + 1));
    return;
  }
  const __int128 sum = static_cast<__int128>(sqlite3_column_int64(st, parts + 2)) * (__int128{1} << 40) +
                       static_cast<__int128>(sqlite3_column_int64(st, parts + 3)) * (__int128{1} << 20) +
                       sqlite3_column_int64(st, parts + 4);
  if (sum > INT64_MAX || sum < INT64_MIN) {
    result_error(ctx, fmt::format("{}: integer overflow", def_of(cur).name));
    return;
  }
  sqlite3_result_int64(ctx, static_cast<int64_t>(sum));
}

// duration_values: the engine's durations of the row as 64-bit little-endian integers, ascending
// (what rocpd_values_percentile reads); NULL on the SQL path, whose durations are JSON or NULL.
void result_duration_values(const State& cur, sqlite3_context* ctx, const Cols& cols) {
  if (cur.streaming) return sqlite3_result_null(ctx);
  const auto* d = std::get_if<Durations>(&cur.rows[cur.pos][static_cast<size_t>(cols.durations)]);
  if (!d) return sqlite3_result_null(ctx);
  const std::size_t bytes = d->values.size() * 8;
  if constexpr (std::endian::native == std::endian::little) {
    // Zero-length: an empty BLOB (a group without a duration), not NULL.
    sqlite3_result_blob64(ctx, bytes ? static_cast<const void*>(d->values.data()) : "", bytes, SQLITE_TRANSIENT);
  } else {
    std::vector<unsigned char> out(bytes);
    for (std::size_t i = 0; i < d->values.size(); ++i) {
      const auto v = __builtin_bswap64(static_cast<std::uint64_t>(d->values[i]));
      std::memcpy(out.data() + 8 * i, &v, 8);
    }
    sqlite3_result_blob64(ctx, bytes ? static_cast<const void*>(out.data()) : "", bytes, SQLITE_TRANSIENT);
  }
}

}  // namespace

void GroupScan::next() {
  State* cur = state_.get();
  if (cur->streaming) step_streamed(*cur);
  else if (++cur->pos >= cur->rows.size() && cur->batched) next_batch(*cur);
}

bool GroupScan::eof() const {
  const State* cur = state_.get();
  return cur->streaming ? cur->done : cur->pos >= cur->rows.size();
}

void GroupScan::column(sqlite3_context* ctx, int col) const {
  const State* cur = state_.get();
  const Cols cols(def_of(*cur));
  if (col == cols.group_by) {
    sqlite3_result_text(ctx, cur->group_by.data(), static_cast<int>(cur->group_by.size()), SQLITE_TRANSIENT);
    return;
  }
  if (col == cols.of_gpu) {
    if (cur->of_gpu) sqlite3_result_int64(ctx, *cur->of_gpu);
    return;
  }
  if (col == cols.of_kind) {
    if (cur->of_kind)
      sqlite3_result_text(ctx, cur->of_kind->data(), static_cast<int>(cur->of_kind->size()), SQLITE_TRANSIENT);
    return;
  }
  if (col == cols.duration_values) {
    result_duration_values(*cur, ctx, cols);
    return;
  }
  if (cur->streaming && col == cols.total) {
    result_streamed_sum(*cur, ctx, cols);
    return;
  }
  if (cur->streaming) {
    result_stored(ctx, stored_value(cur->stmt.get(), col, cur->affinity[static_cast<size_t>(col)]));
    return;
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
        else if constexpr (std::is_same_v<T, Durations>) {
          if (cur->json_pos != cur->pos) {
            try {
              cur->json = json_array(v.values);
            } catch (const std::bad_alloc&) {
              sqlite3_result_error_nomem(ctx);
              return;
            }
            cur->json_pos = cur->pos;
          }
          sqlite3_result_text64(ctx, cur->json.data(), cur->json.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
        } else if constexpr (std::is_same_v<T, Overflow>) {
          result_error(ctx, fmt::format("{}: integer overflow", def_of(*cur).name));
        } else sqlite3_result_null(ctx);
      },
      cell);
}

int64_t GroupScan::rowid() const {
  const State* cur = state_.get();
  return cur->streaming ? cur->rowid : cur->rowids[cur->pos];
}

int group_used_bits(const GroupTableDef& def, uint64_t col_used) {
  const Cols col(def);
  int bits = 0;
  if (col_used & (uint64_t{1} << col.median)) bits |= 8;
  if (col.busy >= 0 && col_used & (uint64_t{1} << col.busy)) bits |= 16;
  if (col_used & ((uint64_t{1} << col.durations) | (uint64_t{1} << col.duration_values))) bits |= 32;
  return bits;
}

}  // namespace rocpd::summaries
