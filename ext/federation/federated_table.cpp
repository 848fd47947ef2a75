#include "federation/federated_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <list>
#include <map>
#include <optional>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "common/big_alloc.h"
#include "common/read_transaction.h"
#include "common/vtab_util.h"
#include "federation/db_pick.h"
#include "federation/fed_plan.h"
#include "federation/grouped_rows.h"
#include "federation/lookup_index.h"
#include "members/member_files.h"
#include "members/member_prefetch.h"
#include "members/progress.h"
#include "members/member_query.h"
#include "members/row_ids.h"
#include "formats/adapter.h"
#include "names/demangle.h"

namespace rocpd::federation {

namespace {

// Lookups a cursor answers from member queries before it indexes the member source in memory:
// soon on a column the member has no index on; later on a primary key, whose lookups are already
// cheap (one B-tree seek), though still several times dearer than a hash probe once they repeat
// by the thousand.
constexpr int kLookupsBeforeIndex = 3;
constexpr int kKeyLookupsBeforeIndex = 256;
// Memory the lookup indexes of one cursor may take; past it, lookups query the members.
constexpr size_t kLookupIndexBudget = size_t{512} << 20;
// Member connections a cursor keeps, with their prepared queries, across filters.
constexpr size_t kMemberReaders = 8;

struct ModuleData {
  std::shared_ptr<members::Registry> registry;
  const canonical::CanonicalTable* table;
};

struct FedVtab : sqlite3_vtab {
  std::shared_ptr<members::Registry> registry;
  const canonical::CanonicalTable* table;
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
  // The same bounds on a member's own clock: profiles and zones hold its raw times, the user's
  // bounds are on the job's clock (raw time + the member's clock offset).
  Bounds raw(int64_t offset) const {
    if (offset == 0) return *this;
    auto shift = [offset](int64_t v) {
      if (v == std::numeric_limits<int64_t>::min() || v == std::numeric_limits<int64_t>::max()) return v;
      int64_t r = 0;
      if (__builtin_sub_overflow(v, offset, &r))
        return offset > 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
      return r;
    };
    Bounds b = *this;
    b.start_lo = shift(start_lo);
    b.start_hi = shift(start_hi);
    b.end_lo = shift(end_lo);
    b.end_hi = shift(end_hi);
    return b;
  }
};

struct WorkItem {
  canonical::MemberPtr member;
  int source = 0;
  bool ranged = false;
  int64_t lo = 0, hi = 0;
  bool prefetched = false;  // read by the members::Prefetcher threads, not inline
};

// What a prepared member query depends on besides the member: the plan (numbered per cursor),
// which of its constraints were handed to the members (a bit per argv index; it depends on the
// values: `gpu = '0'` is left to SQLite where `gpu = 0` is pushed) and, for rpd, the `kind = 'x'`
// literal written into the SQL as a list of op type ids.
struct PushKey {
  uint64_t plan = 0;
  uint64_t pushed = 0;
  std::string kind;
  friend bool operator==(const PushKey&, const PushKey&) = default;
  friend auto operator<=>(const PushKey&, const PushKey&) = default;
};

// A member query kept prepared across filters of one cursor.
struct OpenQuery {
  members::OpenMemberQuery q;
  PushKey key;
};

// The connection a cursor reads one member on, held across filters with the queries prepared
// on it (the inner side of a join re-filters thousands of times with the same plan). Members are
// destroyed in reverse order: the queries are finalized, then the transaction ends, then the
// connection goes back to the pool.
struct MemberReader {
  members::Registry::Lease lease;
  ReadTransaction transaction;
  std::map<std::pair<int, bool>, OpenQuery> queries;  // by (source, ranged)
  uint64_t last_use = 0;
};

// Equality lookups of one plan on one member source, and their in-memory index once built.
struct LookupState {
  int lookups = 0;
  std::unique_ptr<LookupIndex> index;
  std::vector<int> select_index;  // canonical column -> result column of the index's rows
};

enum class Mode { None, Stmt, Batch, Lookup };

struct FedCursor : sqlite3_vtab_cursor {
  // Fixed at the first filter, for the whole statement: the registry's list, shared, not copied.
  std::shared_ptr<const members::Registry::MemberList> members;
  std::unique_ptr<members::InterruptWatch> watch;
  std::optional<bool> like_pushable;

  // The current filter. Prepared queries and lookup indexes are reused only for the same PushKey.
  std::string plan_key;  // the idxStr the plan was parsed from
  Plan plan;
  PushKey push_key;
  // Whether every one of `members` was checked against its file (the list was made so). Otherwise
  // `checked` holds those checked for this statement (Registry::fresh): a query that picks members
  // by db checks only those it reads, and costs what they cost, however many members there are.
  bool all_checked = false;
  std::unordered_map<size_t, canonical::MemberPtr> checked;
  std::vector<Value> values;              // owned copies of the pushed constraints' values
  std::vector<members::PushedConstraint> pushed;   // value pointers into `values`
  // The members `db =` and `db IN (...)` select (indexes in `members`, ascending); nullopt: all.
  std::optional<std::vector<size_t>> db_pick;
  Bounds bounds;
  int lookup = -1;                        // index in `pushed` of an integer equality (a lookup)
  std::vector<WorkItem> work;
  size_t next = 0;

  // The current row.
  Mode mode = Mode::None;
  canonical::MemberPtr member;
  int source = -1;
  OpenQuery* query = nullptr;                 // Mode::Stmt
  std::unique_ptr<members::Prefetcher> prefetch;       // Mode::Batch
  std::unique_ptr<members::Batch> batch;
  size_t batch_row = 0;
  const LookupState* lookup_state = nullptr;  // Mode::Lookup
  std::span<const uint32_t> lookup_rows;
  size_t lookup_pos = 0;
  std::vector<uint32_t> scratch;
  bool eof = true;

  std::map<const canonical::Member*, MemberReader> readers;
  uint64_t clock = 0;
  std::map<std::tuple<PushKey, const canonical::Member*, int>, LookupState> lookups;
  // The lookup state of the last filter: a join's inner side asks for the same one every time.
  LookupState* last_lookup = nullptr;
  const canonical::Member* last_lookup_member = nullptr;
  int last_lookup_source = -1;
  PushKey last_lookup_key;
  size_t lookup_bytes = 0;
  int64_t filters = 0, prepared = 0, indexed_lookups = 0;  // over the statement (rocpd_last_scan)

  // A grouped plan (plan.group): the scan's rows above are collected into `grouped` and handed out
  // from there; `eof` then says whether the scan has more rows (the next member's, by db).
  // Grouped by db, one GroupedRows per member: each frees arrays of the size the next one needs
  // (2 MiB row chunks), kept mapped while the scan lasts instead of mapped and zeroed anew.
  std::optional<BigAllocReuse> grouped_reuse;
  std::unique_ptr<GroupedRows> grouped;
  bool grouped_eof = true;
  // Past kManyGroups groups the scan is read again with names as text (no reader keeps every name
  // read by key) into a temporary database: set for the rest of the filter.
  bool names_as_text = false;
  const canonical::Member* last_member = nullptr;         // member_index of the last row collected
  uint32_t last_member_index = 0;

  ~FedCursor() {
    prefetch.reset();
    grouped.reset();
    grouped_reuse.reset();
  }  // joins the readers before the members go away

  // Member `index` of `members` as this statement reads it.
  const canonical::MemberPtr& member_at(size_t index) const {
    if (!all_checked)
      if (auto it = checked.find(index); it != checked.end()) return it->second;
    return members->members[index];
  }

  // Stops everything the previous filter left running, keeping prepared member queries (a query
  // that ran to its end was reset then; only the one in use may be mid-scan).
  void stop_reading() {
    grouped.reset();
    grouped_reuse.reset();
    grouped_eof = true;
    prefetch.reset();
    batch.reset();
    if (mode == Mode::Stmt && query) sqlite3_reset(query->q.stmt.get());
    mode = Mode::None;
    query = nullptr;
    lookup_state = nullptr;
    member.reset();
    source = -1;
  }
};

FedVtab* vtab_of(sqlite3_vtab_cursor* c) { return static_cast<FedVtab*>(c->pVtab); }

// Whether `v` can be compared inside the member query with the same result SQLite would give.
bool pushable_value(const canonical::CanonicalColumn& col, unsigned char op, sqlite3_value* v) {
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

void tighten(Bounds& b, const canonical::CanonicalTable& t, const members::PushedConstraint& c) {
  if (c.column == t.gpu_col && c.op == SQLITE_INDEX_CONSTRAINT_EQ && sqlite3_value_type(c.value) == SQLITE_INTEGER) {
    b.gpu = sqlite3_value_int64(c.value);
    return;
  }
  if (c.column != t.start_col && c.column != t.end_col) return;
  int64_t& lo = c.column == t.start_col ? b.start_lo : b.end_lo;
  int64_t& hi = c.column == t.start_col ? b.start_hi : b.end_hi;
  const bool is_lower = c.op == SQLITE_INDEX_CONSTRAINT_GT || c.op == SQLITE_INDEX_CONSTRAINT_GE;
  const bool is_upper = c.op == SQLITE_INDEX_CONSTRAINT_LT || c.op == SQLITE_INDEX_CONSTRAINT_LE;
  if (is_lower || c.op == SQLITE_INDEX_CONSTRAINT_EQ) lo = std::max(lo, bound_of(c.value, true));
  if (is_upper || c.op == SQLITE_INDEX_CONSTRAINT_EQ) hi = std::min(hi, bound_of(c.value, false));
  if (is_lower || is_upper || c.op == SQLITE_INDEX_CONSTRAINT_EQ) b.timed = true;
}

// Whether the host connection's LIKE and GLOB are SQLite's own: a member applies the built-in
// ones, which would drop rows that an application-defined LIKE (ICU...) keeps.
bool builtin_like_and_glob(sqlite3* host) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(host, "SELECT count(*) FROM pragma_function_list WHERE name IN ('like', 'glob') AND builtin = 0",
                         -1, &raw, nullptr) != SQLITE_OK) {
    sqlite3_finalize(raw);
    return false;  // cannot tell: keep LIKE with SQLite
  }
  Stmt stmt(raw);
  return sqlite3_step(stmt.get()) == SQLITE_ROW && sqlite3_column_int(stmt.get(), 0) == 0;
}

int x_connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char** err) {
  return guard(err, [&] {
    auto* module_data = static_cast<ModuleData*>(aux);
    const int rc = sqlite3_declare_vtab(db, canonical::declare_sql(*module_data->table).c_str());
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
    auto* v = static_cast<FedVtab*>(vt);
    PlanEstimates est;
    est.members = static_cast<double>(std::max<size_t>(1, v->registry->known_members()));
    const double rows = v->registry->mean_rows(v->table->kind == canonical::TableKind::Ops);
    if (rows > 0) est.rows_per_member = rows;
    plan_best_index(*v->table, info, est);
    return SQLITE_OK;
  });
}

std::shared_ptr<const canonical::Profile> pid_profile(FedCursor* cur, members::Registry* reg, const canonical::CanonicalTable& t, const canonical::MemberPtr& m) {
  // rpd ops resolve their pid from the member's sessions, which the profile knows.
  if (m->info.adapter->needs_profile(t.kind, cur->plan.used)) return reg->profile(m, cur->watch.get());
  return nullptr;
}

// The cursor's connection to member `m`, kept for the following filters.
MemberReader& reader(FedCursor* cur, members::Registry* reg, const canonical::MemberPtr& m) {
  auto it = cur->readers.find(m.get());
  if (it == cur->readers.end()) {
    while (cur->readers.size() >= kMemberReaders) {
      auto victim = cur->readers.begin();
      for (auto i = cur->readers.begin(); i != cur->readers.end(); ++i)
        if (i->second.last_use < victim->second.last_use) victim = i;
      cur->readers.erase(victim);  // its queries are finalized before its lease is released
    }
    it = cur->readers.emplace(m.get(), MemberReader{}).first;
    it->second.lease = reg->acquire(m, cur->watch.get());
    // The host connection's transactions are the user's: only private connections get one.
    if (!m->attached) it->second.transaction = ReadTransaction(it->second.lease.db());
  }
  it->second.last_use = ++cur->clock;
  return it->second;
}

// The prepared member query of a work item, made or re-bound for the current filter.
OpenQuery& open_query(FedCursor* cur, members::Registry* reg, const canonical::CanonicalTable& t, const WorkItem& w) {
  MemberReader& r = reader(cur, reg, w.member);
  const auto key = std::make_pair(w.source, w.ranged);
  auto it = r.queries.find(key);
  if (it != r.queries.end() && it->second.key == cur->push_key) {
    it->second.q.rebind(cur->pushed, w.lo, w.hi);
    return it->second;
  }
  if (it != r.queries.end()) r.queries.erase(it);
  OpenQuery q;
  const auto profile = pid_profile(cur, reg, t, w.member);
  q.q = members::open_member_query(t, *w.member, profile.get(), r.lease.db(), w.source, cur->plan.used, cur->pushed, w.ranged,
                          w.lo, w.hi);
  reg->last_scan.prepared = ++cur->prepared;
  q.key = cur->push_key;
  return r.queries.emplace(key, std::move(q)).first->second;
}

// The lookup index answering the current equality lookup on `w`'s source, once lookups repeat
// (nullptr: query the member instead).
const LookupState* lookup_index(FedCursor* cur, members::Registry* reg, const canonical::CanonicalTable& t, const WorkItem& w) {
  if (cur->lookup < 0 || w.ranged) return nullptr;
  const members::PushedConstraint& c = cur->pushed[static_cast<size_t>(cur->lookup)];
  if (sqlite3_value_type(c.value) != SQLITE_INTEGER) return nullptr;
  const bool key = members::shapes_of(t.kind, *w.member).at(static_cast<size_t>(w.source)).indexed & (uint64_t{1} << c.column);
  if (!(cur->last_lookup && cur->last_lookup_member == w.member.get() && cur->last_lookup_source == w.source &&
        cur->last_lookup_key == cur->push_key)) {
    cur->last_lookup = &cur->lookups[std::make_tuple(cur->push_key, w.member.get(), w.source)];
    cur->last_lookup_member = w.member.get();
    cur->last_lookup_source = w.source;
    cur->last_lookup_key = cur->push_key;
  }
  LookupState& s = *cur->last_lookup;
  if (s.index) return &s;
  if (++s.lookups < (key ? kKeyLookupsBeforeIndex : kLookupsBeforeIndex) || cur->lookup_bytes > kLookupIndexBudget)
    return nullptr;
  MemberReader& r = reader(cur, reg, w.member);
  const auto profile = pid_profile(cur, reg, t, w.member);
  const uint64_t used = cur->plan.used | (uint64_t{1} << c.column);
  auto q = members::open_member_query(t, *w.member, profile.get(), r.lease.db(), w.source, used, {}, false);
  auto index = std::make_unique<LookupIndex>();
  try {
    index->build(q.stmt.get(), q.affinity, q.query.select_index[static_cast<size_t>(c.column)]);
  } catch (const Error& e) {
    if (e.code() == SQLITE_INTERRUPT) members::InterruptWatch::raise();
    throw Error(fmt::format("{}: {}: {}{}", t.name, members::member_label(*w.member), e.what(), members::zstd_reason(w.member->path)),
                e.code());
  }
  cur->lookup_bytes += index->bytes();
  s.index = std::move(index);
  s.select_index = q.query.select_index;
  return &s;
}

// Moves to the next row, opening the next work item when one is exhausted.
void advance(FedCursor* cur, members::Registry* reg, const canonical::CanonicalTable& t) {
  for (;;) {
    switch (cur->mode) {
      case Mode::Stmt: {
        const int rc = sqlite3_step(cur->query->q.stmt.get());
        if (rc == SQLITE_ROW) {
          ++reg->last_scan.rows;
          return;
        }
        if (rc != SQLITE_DONE) {
          if (rc == SQLITE_INTERRUPT || cur->watch->stopped()) members::InterruptWatch::raise();
          throw Error(fmt::format("{}: {}: {}{}", t.name, members::member_label(*cur->member),
                                  sqlite3_errmsg(sqlite3_db_handle(cur->query->q.stmt.get())),
                                  members::zstd_reason(cur->member->path)),
                      rc);
        }
        sqlite3_reset(cur->query->q.stmt.get());  // ends its read transaction
        cur->mode = Mode::None;
        break;
      }
      case Mode::Batch:
        if (cur->batch && cur->batch_row + 1 < cur->batch->block.rows) {
          ++cur->batch_row;
          ++reg->last_scan.rows;
          return;
        }
        if (cur->batch && cur->batch->last_of_item) {
          cur->prefetch->recycle(std::move(cur->batch));
          cur->mode = Mode::None;
          break;
        }
        cur->prefetch->recycle(std::move(cur->batch));
        cur->batch = cur->prefetch->next();
        if (!cur->batch) throw Error(fmt::format("{}: a prefetch thread stopped early", t.name));
        cur->batch_row = 0;
        if (cur->batch->block.rows > 0) {
          ++reg->last_scan.rows;
          return;
        }
        break;
      case Mode::Lookup:
        if (++cur->lookup_pos < cur->lookup_rows.size()) {
          ++reg->last_scan.rows;
          return;
        }
        cur->mode = Mode::None;
        break;
      case Mode::None: {
        if (cur->next >= cur->work.size()) {
          cur->prefetch.reset();
          cur->eof = true;
          return;
        }
        const WorkItem& w = cur->work[cur->next++];
        cur->member = w.member;
        cur->source = w.source;
        if (w.prefetched) {
          cur->mode = Mode::Batch;
          cur->prefetch->recycle(std::move(cur->batch));
          cur->batch = cur->prefetch->next();
          if (!cur->batch) throw Error(fmt::format("{}: a prefetch thread stopped early", t.name));
          cur->batch_row = 0;
          if (cur->batch->block.rows > 0) {
            ++reg->last_scan.rows;
            return;
          }
          break;
        }
        if (const LookupState* s = lookup_index(cur, reg, t, w)) {
          reg->last_scan.indexed_lookups = ++cur->indexed_lookups;
          cur->lookup_state = s;
          cur->lookup_rows = s->index->find(cur->pushed[static_cast<size_t>(cur->lookup)].value, cur->scratch);
          cur->lookup_pos = 0;
          cur->mode = Mode::Lookup;
          if (!cur->lookup_rows.empty()) {
            ++reg->last_scan.rows;
            return;
          }
          cur->mode = Mode::None;
          break;
        }
        cur->query = &open_query(cur, reg, t, w);
        cur->mode = Mode::Stmt;
        break;
      }
    }
  }
}

// Hands the opened members' items to background readers when that can overlap work.
// ROCPD_GROUPED_BY_COLUMNS=0: grouped scans read members through the canonical member query, as
// plain scans do (bench/bench_grouped.py compares).
bool grouped_by_columns() {
  const char* v = std::getenv("ROCPD_GROUPED_BY_COLUMNS");
  return !(v && std::strcmp(v, "0") == 0);
}

void start_prefetch(FedCursor* cur, members::Registry* reg, const canonical::CanonicalTable& t) {
  // hardware_concurrency() reads /sys on every call: once is enough.
  static const unsigned cores = std::thread::hardware_concurrency();
  if (cur->lookup >= 0 || cores < 2) return;
  std::vector<members::PrefetchItem> items;
  for (auto& w : cur->work) {
    if (w.member->attached) continue;  // the host connection stays on the host thread
    items.push_back({w.member, w.source, w.ranged, w.lo, w.hi, pid_profile(cur, reg, t, w.member)});
  }
  if (items.empty()) return;
  // A grouped scan (every constraint but db's checked again by SQLite) reads op names by key.
  const bool derived_used = t.derived_col >= 0 && (cur->plan.used & (uint64_t{1} << t.derived_col));
  const bool by_columns = !cur->plan.group.empty() && !derived_used && grouped_by_columns() && !cur->names_as_text &&
                          (t.kind == canonical::TableKind::Ops || t.kind == canonical::TableKind::Apis);
  try {
    cur->prefetch = std::make_unique<members::Prefetcher>(reg, t, cur->plan.used, cur->pushed, std::move(items),
                                                 cur->watch.get(), by_columns);
  } catch (const members::ThreadStartFailure&) {
    return;  // the system gives us no thread: read every member inline
  }
  for (auto& w : cur->work)
    if (!w.member->attached) w.prefetched = true;
  reg->last_scan.parallel = true;
}

// Lists the (member, source, rowid range) items the scan must read, skipping members and
// zones that the db, gpu and time constraints rule out without reading them.
void plan_work(FedCursor* cur, members::Registry* reg, const canonical::CanonicalTable& t) {
  cur->work.clear();
  const auto& members = cur->members->members;
  // Only ops and API calls have profiles (bounds, gpus, zones) to prune with.
  const bool prune = (cur->bounds.timed || cur->bounds.gpu) && cur->lookup < 0 &&
                     (t.kind == canonical::TableKind::Ops || t.kind == canonical::TableKind::Apis);
  const size_t count = cur->db_pick ? cur->db_pick->size() : members.size();
  int64_t planned = 0;
  for (size_t k = 0; k < count; ++k) {
    const size_t index = cur->db_pick ? (*cur->db_pick)[k] : k;
    if (!cur->all_checked && !cur->checked.count(index)) cur->checked.emplace(index, reg->fresh(members[index]));
    const canonical::MemberPtr& m = cur->member_at(index);
    const size_t before = cur->work.size();
    cur->watch->check();
    const size_t nsources = members::shapes_of(t.kind, *m).size();
    if (!prune || m->info.loose_types) {
      for (size_t s = 0; s < nsources; ++s) cur->work.push_back({m, static_cast<int>(s)});
      planned += cur->work.size() > before;
      continue;
    }
    const Bounds bounds = cur->bounds.raw(m->clock_offset.load());
    const auto p = reg->profile(m, cur->watch.get());
    if (cur->bounds.gpu && !p->gpu_unknown && !p->gpus.count(*cur->bounds.gpu) && t.kind == canonical::TableKind::Ops) continue;
    if (t.kind == canonical::TableKind::Apis) {
      if (cur->bounds.timed && !p->times_unbounded && p->first_ns &&
          bounds.excludes(*p->first_ns, *p->last_ns, *p->first_ns, *p->last_ns))
        continue;
      for (size_t s = 0; s < nsources; ++s) cur->work.push_back({m, static_cast<int>(s)});
      planned += cur->work.size() > before;
      continue;
    }
    if (cur->bounds.timed && !p->ops_unbounded) {
      // Ops without any numeric time can match no time window (a NULL compares with nothing).
      const int64_t min_start = p->ops_min_start.value_or(INT64_MAX), max_start = p->ops_max_start.value_or(INT64_MIN);
      const int64_t min_end = p->ops_min_end.value_or(INT64_MAX), max_end = p->ops_max_end.value_or(INT64_MIN);
      if (bounds.excludes(min_start, max_start, min_end, max_end)) continue;
    }
    for (size_t s = 0; s < nsources; ++s) {
      if (!cur->bounds.timed || s >= p->op_zones.size()) {
        cur->work.push_back({m, static_cast<int>(s)});
        continue;
      }
      // Merge the zones that may hold matching rows into rowid ranges.
      std::optional<WorkItem> range;
      for (const auto& z : p->op_zones[s]) {
        if (!z.unbounded && bounds.excludes(z.min_start, z.max_start, z.min_end, z.max_end)) {
          if (range) cur->work.push_back(*range);
          range.reset();
          continue;
        }
        if (range) range->hi = z.last_rowid;
        else range = WorkItem{m, static_cast<int>(s), true, z.first_rowid, z.last_rowid};
      }
      if (range) cur->work.push_back(*range);
    }
    planned += cur->work.size() > before;
  }
  auto& scan = reg->last_scan;
  scan.table = t.name;
  scan.members = static_cast<int64_t>(members.size());
  scan.skipped = static_cast<int64_t>(members.size()) - planned;
  scan.ranges = static_cast<int64_t>(cur->work.size());
  scan.rows = 0;
  scan.parallel = false;
  scan.filters = ++cur->filters;
  scan.prepared = cur->prepared;
  scan.indexed_lookups = cur->indexed_lookups;
  scan.groups = -1;
  scan.spilled = false;
}

void collect_group(FedCursor* cur, members::Registry* reg, const canonical::CanonicalTable& t);

// Narrows the members to read to those a `db = v` (or, `in_list`, a `db IN (...)` handed over
// whole: sqlite3_vtab_in) names; several db constraints select the members all of them name.
void pick_members(FedCursor* cur, sqlite3_value* v, bool in_list) {
  std::vector<size_t> pick = picked_members(*cur->members, v, in_list);
  if (cur->db_pick) {
    std::vector<size_t> both;
    std::set_intersection(cur->db_pick->begin(), cur->db_pick->end(), pick.begin(), pick.end(), std::back_inserter(both));
    pick = std::move(both);
  }
  cur->db_pick = std::move(pick);
}

// A grouped plan led by db reads the members in the order of their names (as SQLite would sort
// them), so that each member's rows are one run of groups: they are grouped a member at a time.
void order_work_by_name(FedCursor* cur, const canonical::CanonicalTable& t) {
  if (cur->plan.group.empty() || cur->plan.group[0].column != t.db_col) return;
  const bool desc = cur->plan.group[0].desc;
  std::stable_sort(cur->work.begin(), cur->work.end(), [desc](const WorkItem& a, const WorkItem& b) {
    return desc ? a.member->alias > b.member->alias : a.member->alias < b.member->alias;
  });
}

int x_filter(sqlite3_vtab_cursor* c, int, const char* idx_str, int argc, sqlite3_value** argv) {
  auto* cur = static_cast<FedCursor*>(c);
  auto* vt = vtab_of(c);
  return guard(c->pVtab, [&] {
    const auto& t = *vt->table;
    members::Registry* reg = vt->registry.get();
    // Newer SQLite re-filters a cursor in the middle of a scan: stop the readers of the previous
    // filter before its values go away.
    cur->stop_reading();
    cur->eof = true;
    if (!cur->watch) {
      cur->watch = std::make_unique<members::InterruptWatch>(reg->host());
      if (reg->progress)
        cur->watch->report_progress([cur, reg, name = t.name] {
          // Members of this filter's work finished (those before the one being read), out of all it reads.
          std::set<const canonical::Member*> planned, before;
          for (size_t i = 0; i < cur->work.size(); ++i) {
            planned.insert(cur->work[i].member.get());
            if (i < cur->next) before.insert(cur->work[i].member.get());
          }
          if (cur->member) before.erase(cur->member.get());
          // A nested loop filters the inner table once per outer row: say so, with the count.
          const std::string join =
              cur->filters > 1 ? fmt::format("inner side of a join: {} lookups", cur->filters) : std::string();
          members::ProgressCounts c;
          c.what = name;
          c.members_done = before.size();
          c.members_total = planned.size();
          c.rows = reg->last_scan.rows;
          if (cur->member) c.now = cur->member->alias;
          c.detail = join;
          return members::progress_line(c);
        });
    }
    cur->watch->check();
    if (std::string_view(idx_str ? idx_str : "") != cur->plan_key) {
      cur->plan = parse_plan(t, idx_str);
      cur->plan_key = idx_str ? idx_str : "";
      ++cur->push_key.plan;
    }
    if (!cur->members) {
      // A plan that picks members by db checks only the files of those it reads (plan_work).
      const bool picks = std::any_of(cur->plan.constraints.begin(), cur->plan.constraints.end(), [&](const auto& k) {
        return k.column == t.db_col && k.op == SQLITE_INDEX_CONSTRAINT_EQ && k.collation == members::Collation::Binary;
      });
      cur->members = reg->member_list(!picks);
      cur->all_checked = !picks;
    }
    if (static_cast<int>(cur->plan.constraints.size()) != argc) throw Error("rocpd: plan and arguments disagree");
    cur->values.clear();
    cur->pushed.clear();
    cur->db_pick.reset();
    cur->bounds = Bounds{};
    cur->lookup = -1;
    cur->push_key.pushed = 0;
    cur->push_key.kind.clear();
    for (int i = 0; i < argc; ++i) {
      const auto& con = cur->plan.constraints[static_cast<size_t>(i)];
      if (con.column == t.db_col) {
        if (con.op == SQLITE_INDEX_CONSTRAINT_EQ && con.collation == members::Collation::Binary)
          pick_members(cur, argv[i], con.in_list);
        continue;  // other db constraints are checked by SQLite itself
      }
      const auto& column = t.columns[static_cast<size_t>(con.column)];
      if (!pushable_value(column, con.op, argv[i])) continue;
      if (con.op == SQLITE_INDEX_CONSTRAINT_LIKE || con.op == SQLITE_INDEX_CONSTRAINT_GLOB) {
        if (!cur->like_pushable) cur->like_pushable = builtin_like_and_glob(reg->host());
        if (!*cur->like_pushable) continue;
      }
      cur->values.push_back(dup_value(argv[i]));
      cur->pushed.push_back({con.column, con.op, con.collation, cur->values.back().get()});
      if (i < 64) cur->push_key.pushed |= uint64_t{1} << i;
      else cur->push_key.kind += '#' + std::to_string(i);  // past 64 constraints: spelled out
      // Adapters may write `kind = 'x'` or `domain = 'x'` into the member SQL as a predicate of
      // their own (SourceSql::predicates: rpd's op type ids, nsys's eventClass): the prepared
      // query then depends on the value itself (each value of an IN list is a filter of its own).
      if (con.op == SQLITE_INDEX_CONSTRAINT_EQ &&
          (column.name == std::string_view("kind") || column.name == std::string_view("domain")))
        cur->push_key.kind += reinterpret_cast<const char*>(sqlite3_value_text(cur->values.back().get())) + std::string(";");
      tighten(cur->bounds, t, cur->pushed.back());
      if (con.op == SQLITE_INDEX_CONSTRAINT_EQ && !column.text && cur->lookup < 0 &&
          sqlite3_value_type(argv[i]) == SQLITE_INTEGER && (column.name == std::string_view("correlation_id") ||
                                                            column.name == std::string_view("op_id") ||
                                                            column.name == std::string_view("api_id")))
        cur->lookup = static_cast<int>(cur->pushed.size() - 1);
    }
    plan_work(cur, reg, t);
    order_work_by_name(cur, t);
    cur->names_as_text = false;
    start_prefetch(cur, reg, t);
    cur->next = 0;
    cur->eof = false;
    advance(cur, reg, t);
    if (!cur->plan.group.empty()) collect_group(cur, reg, t);
    return SQLITE_OK;
  });
}

int x_next(sqlite3_vtab_cursor* c) {
  auto* cur = static_cast<FedCursor*>(c);
  auto* vt = vtab_of(c);
  // The bulk of a full scan: the next row of the current batch.
  if (cur->mode == Mode::Batch && !cur->grouped && cur->batch && cur->batch_row + 1 < cur->batch->block.rows) {
    ++cur->batch_row;
    ++vt->registry->last_scan.rows;
    return SQLITE_OK;
  }
  return guard(c->pVtab, [&] {
    if (cur->grouped) {
      cur->grouped->next();
      if (!cur->grouped->done()) return SQLITE_OK;
      if (cur->eof) cur->grouped_eof = true;
      else collect_group(cur, vt->registry.get(), *vt->table);  // the next member's groups
      return SQLITE_OK;
    }
    advance(cur, vt->registry.get(), *vt->table);
    return SQLITE_OK;
  });
}

int x_eof(sqlite3_vtab_cursor* c) {
  const auto* cur = static_cast<FedCursor*>(c);
  return cur->grouped ? cur->grouped_eof : cur->eof;
}

// Where the current row's result column for canonical column `col` lives.
struct CurrentCell {
  sqlite3_stmt* stmt = nullptr;  // Mode::Stmt: result column `index` of this statement
  const members::RowBlock* block = nullptr;
  size_t row = 0;
  int index = -1;  // -1: the column is not selected (NULL)
};

CurrentCell current_cell(const FedCursor* cur, int col) {
  CurrentCell cell;
  switch (cur->mode) {
    case Mode::Stmt:
      cell.stmt = cur->query->q.stmt.get();
      cell.index = col < 0 ? cur->query->q.query.rowid_index : cur->query->q.query.select_index[static_cast<size_t>(col)];
      break;
    case Mode::Batch:
      cell.block = &cur->batch->block;
      cell.row = cur->batch_row;
      cell.index = col < 0 ? 0 : (*cur->batch->columns)[static_cast<size_t>(col)];
      break;
    case Mode::Lookup:
      cell.block = &cur->lookup_state->index->rows();
      cell.row = cur->lookup_rows[cur->lookup_pos];
      cell.index = col < 0 ? 0 : cur->lookup_state->select_index[static_cast<size_t>(col)];
      break;
    case Mode::None: break;
  }
  return cell;
}

// The current row's value of canonical column `col` (neither db nor a derived column) as the
// column stores it.
RowValue row_value(const FedCursor* cur, const canonical::CanonicalTable& t, int col) {
  const CurrentCell cell = current_cell(cur, col);
  RowValue v;
  if (cell.index < 0) return v;
  if (cell.stmt) {
    const StoredValue sv = stored_value(cell.stmt, cell.index, t.columns[static_cast<size_t>(col)].affinity());
    v.type = sv.type;
    v.i = sv.i;
    v.d = sv.d;
    if (sv.type == SQLITE_TEXT || sv.type == SQLITE_BLOB)
      v.bytes = {static_cast<const char*>(sv.bytes), static_cast<size_t>(sv.length)};
    return v;
  }
  const members::Cell& k = cell.block->at(cell.row, static_cast<size_t>(cell.index));
  v.type = k.type;
  v.i = k.i;
  if (k.type == SQLITE_FLOAT) v.d = k.d;
  if (k.type == SQLITE_TEXT || k.type == SQLITE_BLOB) {
    v.bytes = cell.block->text(k);
    v.i = 0;
    if (k.type == SQLITE_TEXT) {  // read by key: its number (members::RowBlock::append_values)
      v.token = k.i;
      v.left_out = k.offset == members::kTextLeftOut;
    }
  }
  return v;
}

// Bytes a grouped scan keeps in memory before its rows go to a temporary database.
size_t grouped_budget() {
  if (const char* v = std::getenv("ROCPD_GROUPED_BUDGET"); v && *v) {
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    if (end && *end == 0) return static_cast<size_t>(n);
  }
  return kGroupedBudget;
}

// Reads the scan again from work item `first` (the first item of the rows collected so far), its
// members through their member queries (names as text) instead of by key.
void restart_with_names_as_text(FedCursor* cur, members::Registry* reg, const canonical::CanonicalTable& t, size_t first) {
  cur->prefetch.reset();
  cur->batch.reset();
  if (cur->mode == Mode::Stmt && cur->query) sqlite3_reset(cur->query->q.stmt.get());
  cur->mode = Mode::None;
  cur->query = nullptr;
  cur->member.reset();
  cur->source = -1;
  cur->last_member = nullptr;
  cur->work.erase(cur->work.begin(), cur->work.begin() + static_cast<std::ptrdiff_t>(std::min(first, cur->work.size())));
  for (auto& w : cur->work) w.prefetched = false;
  cur->names_as_text = true;
  start_prefetch(cur, reg, t);
  cur->next = 0;
  cur->eof = false;
  advance(cur, reg, t);
}

// Collects the scan's rows (led by db: the current member's rows only) into the cursor's groups
// and makes their first row current.
void collect_group(FedCursor* cur, members::Registry* reg, const canonical::CanonicalTable& t) {
  const Plan& plan = cur->plan;
  std::vector<int> wanted, stored;
  for (const GroupTerm& g : plan.group)
    if (g.column != t.db_col) wanted.push_back(g.column);
  for (int c = 0; c < static_cast<int>(t.columns.size()); ++c) {
    if (c == t.db_col || !(plan.used & (uint64_t{1} << c))) continue;
    if (std::any_of(plan.group.begin(), plan.group.end(), [c](const GroupTerm& g) { return g.column == c; })) continue;
    stored.push_back(c);
    wanted.push_back(c);
  }
  const bool by_member = plan.group.front().column == t.db_col;
  if (by_member && !cur->grouped_reuse) cur->grouped_reuse.emplace();
  cur->grouped.reset();
  cur->grouped = std::make_unique<GroupedRows>(plan.group, stored, t.db_col, cur->members->names, grouped_budget(),
                                               cur->watch.get());
  GroupedRows* g = cur->grouped.get();
  if (cur->names_as_text) g->spill();
  std::vector<RowValue> values(t.columns.size());
  std::string derived;
  const canonical::Member* segment = cur->member.get();
  const size_t first_item = cur->next > 0 ? cur->next - 1 : 0;  // the work item of the first row
  size_t n = 0;
  size_t item = SIZE_MAX;  // the batch's item: texts numbered by key are numbered per item
  while (!cur->eof) {
    if (g->many_groups()) {
      if (cur->prefetch && !cur->names_as_text) {
        // Names read by key (each kept by its reader, and by the groups): read these rows again,
        // names as text, into the temporary database.
        restart_with_names_as_text(cur, reg, t, first_item);
        cur->grouped = std::make_unique<GroupedRows>(plan.group, stored, t.db_col, cur->members->names,
                                                     grouped_budget(), cur->watch.get());
        g = cur->grouped.get();
        segment = cur->member.get();
        item = SIZE_MAX;
      }
      g->spill();
      continue;
    }
    if (by_member && cur->member.get() != segment) break;
    if (cur->mode == Mode::Batch && cur->batch->item != item) {
      item = cur->batch->item;
      g->new_text_numbers();
    }
    if (cur->member.get() != cur->last_member) {
      cur->last_member = cur->member.get();
      cur->last_member_index = static_cast<uint32_t>(cur->members->index.at(cur->member->alias));
    }
    for (int c : wanted) {
      if (c != t.derived_col || current_cell(cur, c).index >= 0) {
        values[static_cast<size_t>(c)] = row_value(cur, t, c);
        continue;
      }
      // demangled, computed from the name as x_column computes it
      const RowValue name = row_value(cur, t, t.derived_from);
      RowValue& v = values[static_cast<size_t>(c)];
      v = RowValue{};
      if (name.type != SQLITE_TEXT) continue;
      derived = names::demangle_cached(std::string(name.bytes));
      v.type = SQLITE_TEXT;
      v.bytes = derived;
    }
    const CurrentCell rc = current_cell(cur, -1);
    const int64_t own = rc.stmt ? sqlite3_column_int64(rc.stmt, rc.index) : rc.block->at(rc.row, 0).i;
    g->add(cur->last_member_index, cur->source, own, values.data());
    if ((++n & 4095) == 0) cur->watch->check();
    advance(cur, reg, t);
  }
  g->finish();
  auto& scan = reg->last_scan;
  scan.groups = std::max<int64_t>(scan.groups, 0) + static_cast<int64_t>(g->groups());
  scan.spilled = scan.spilled || g->spilled();
  cur->grouped_eof = g->done();
}

int x_column(sqlite3_vtab_cursor* c, sqlite3_context* ctx, int col) {
  auto* cur = static_cast<FedCursor*>(c);
  const auto& t = *vtab_of(c)->table;
  // The bulk of a full scan: an integer a prefetch thread read (db is never a cell: index -1).
  if (cur->mode == Mode::Batch && !cur->grouped && cur->batch) {
    const int index = (*cur->batch->columns)[static_cast<size_t>(col)];
    if (index >= 0) {
      const members::Cell& k = cur->batch->block.at(cur->batch_row, static_cast<size_t>(index));
      if (k.type == SQLITE_INTEGER) {
        sqlite3_result_int64(ctx, k.i);
        return SQLITE_OK;
      }
    }
  }
  guard(ctx, [&] {
    if (cur->grouped) {
      const RowValue v = cur->grouped->value(col);
      switch (v.type) {
        case SQLITE_INTEGER: sqlite3_result_int64(ctx, v.i); break;
        case SQLITE_FLOAT: sqlite3_result_double(ctx, v.d); break;
        case SQLITE_TEXT:
          sqlite3_result_text64(ctx, v.bytes.data(), v.bytes.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
          break;
        case SQLITE_BLOB:
          if (v.bytes.empty()) sqlite3_result_zeroblob(ctx, 0);
          else sqlite3_result_blob64(ctx, v.bytes.data(), v.bytes.size(), SQLITE_TRANSIENT);
          break;
        default: break;
      }
      return;
    }
    if (col == t.db_col) {
      sqlite3_result_text(ctx, cur->member->alias.c_str(), static_cast<int>(cur->member->alias.size()),
                          SQLITE_TRANSIENT);
      return;
    }
    // A source that records the derived column itself (nsys: its own demangled names) selects it.
    const bool derived = col == t.derived_col && current_cell(cur, col).index < 0;
    const CurrentCell cell = current_cell(cur, derived ? t.derived_from : col);
    if (cell.index < 0) return;
    if (derived) {
      std::string name;
      if (cell.stmt) {
        const StoredValue v = stored_value(cell.stmt, cell.index, Affinity::Text);
        if (v.type != SQLITE_TEXT) return;
        name.assign(static_cast<const char*>(v.bytes), static_cast<size_t>(v.length));
      } else {
        const members::Cell& k = cell.block->at(cell.row, static_cast<size_t>(cell.index));
        if (k.type != SQLITE_TEXT) return;
        name = cell.block->text(k);
      }
      const std::string d = names::demangle_cached(name);
      sqlite3_result_text(ctx, d.data(), static_cast<int>(d.size()), SQLITE_TRANSIENT);
      return;
    }
    if (cell.stmt) result_stored(ctx, stored_value(cell.stmt, cell.index, t.columns[static_cast<size_t>(col)].affinity()));
    else cell.block->result(ctx, cell.block->at(cell.row, static_cast<size_t>(cell.index)));
  });
  return SQLITE_OK;
}

int x_rowid(sqlite3_vtab_cursor* c, sqlite3_int64* rowid) {
  auto* cur = static_cast<FedCursor*>(c);
  return guard(c->pVtab, [&] {
    if (cur->grouped) {
      *rowid = members::pack_rowid(*cur->member_at(cur->grouped->member()), cur->grouped->source(), cur->grouped->rowid(),
                          vtab_of(c)->table->name);
      return SQLITE_OK;
    }
    const CurrentCell cell = current_cell(cur, -1);
    int64_t own = 0;
    if (cell.stmt) own = sqlite3_column_int64(cell.stmt, cell.index);
    else if (cell.block) own = cell.block->at(cell.row, 0).i;
    *rowid = members::pack_rowid(*cur->member, cur->source, own, vtab_of(c)->table->name);
    return SQLITE_OK;
  });
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.iVersion = 0;
  // Both eponymous (SELECT ... FROM rocpd_ops) and creatable: the extension creates
  // temp.rocpd_ops so that its views and internal SQL reach it whatever the attached schemas hold.
  m.xCreate = x_connect;
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

int register_federated_table(sqlite3* db, const std::shared_ptr<members::Registry>& registry, const canonical::CanonicalTable& table) {
  auto* aux = new ModuleData{registry, &table};
  return sqlite3_create_module_v2(db, table.name, &kModule, aux, [](void* p) { delete static_cast<ModuleData*>(p); });
}

}  // namespace rocpd::federation
