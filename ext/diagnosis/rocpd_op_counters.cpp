// rocpd_op_counters: eponymous-only virtual table under the views rocpd_kernel_counters(_full)
// (HTA's counters with operator stacks, docs/diagnosis.md): one row per kernel op that has counter
// values, its counters summed per name as one JSON object, and its launch stack. Computed per
// member on every core: the member's counter rows (rocpd_counters) grouped in memory, then the
// stacks of the kernels they name only (diagnosis/launch_stacks.h). Pushdown and module:
// analysis/member_rows_table.h; rowids: the member's ordinal above the row's index.
//
// It gives exactly the rows of the SQL it replaced:
//   per_counter: SELECT db, pid, op_id, counter, sum(value) FROM rocpd_counters
//                WHERE counter IS NOT NULL GROUP BY db, pid, op_id, counter
//   per_op:      SELECT db, pid, op_id, count(*), json_group_object(counter, value) ... GROUP BY db, pid, op_id
//   rows:        rocpd_kernel_stacks k (kind 'kernel') joined to per_op c
//                ON c.db = k.db AND c.op_id = k.op_id AND c.pid = coalesce(k.pid, c.pid)
// with SQL's sum() (integers exactly, "integer overflow" past 64 bits; any other value summed as a
// double, as the running SQLite does: plainly before 3.43, Kahan-Babuska-Neumaier since), the
// counters of an op in BINARY order of their names, values written as SQLite's JSON writes them.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "diagnosis/launch_stacks.h"
#include "analysis/member_rows_table.h"
#include "diagnosis/register.h"
#include "diagnosis/sql_order.h"
#include "formats/adapter.h"

namespace rocpd::diagnosis {

using namespace analysis;
namespace {

constexpr const char* kTable = "rocpd_op_counters";

enum Column {
  kDb, kPid, kOpId, kCorrelation, kGpu, kQueue, kName, kStart, kEnd, kNCounters, kCounters, kDepth, kStack, kTop,
  kBottom
};

// SQL's sum() of one counter of one op.
struct Sum {
  int64_t count = 0, isum = 0;
  double rsum = 0, rerr = 0;
  bool approx = false, overflow = false;
};

// SQLite 3.43 and later sum doubles with Kahan-Babuska-Neumaier compensation (func.c).
bool kbn_sums() { return sqlite3_libversion_number() >= 3043000; }

void kbn_step(Sum& s, double r) {
  volatile double sum = s.rsum;
  volatile double t = sum + r;
  if (std::fabs(sum) > std::fabs(r)) s.rerr += (sum - t) + r;
  else s.rerr += (r - t) + sum;
  s.rsum = t;
}
void kbn_step_int(Sum& s, int64_t v) {
  if (v <= -4503599627370496LL || v >= 4503599627370496LL) {
    const int64_t small = v % 16384;
    kbn_step(s, static_cast<double>(v - small));
    kbn_step(s, static_cast<double>(small));
  } else {
    kbn_step(s, static_cast<double>(v));
  }
}
void kbn_init(Sum& s, int64_t v) {
  if (v <= -4503599627370496LL || v >= 4503599627370496LL) {
    const int64_t small = v % 16384;
    s.rsum = static_cast<double>(v - small);
    s.rerr = static_cast<double>(small);
  } else {
    s.rsum = static_cast<double>(v);
    s.rerr = 0;
  }
}

// One value into the sum: `integer` as sqlite3_value_numeric_type() would classify it, `d` its
// sqlite3_value_double().
void add(Sum& s, bool integer, int64_t i, double d, bool kbn) {
  ++s.count;
  if (!kbn) {  // SQLite 3.40's sumStep
    if (integer) {
      s.rsum += static_cast<double>(i);
      if (!s.approx && !s.overflow && __builtin_add_overflow(s.isum, i, &s.isum)) s.overflow = true;
    } else {
      s.rsum += d;
      s.approx = true;
    }
    return;
  }
  if (!s.approx) {
    if (!integer) {
      kbn_init(s, s.isum);
      s.approx = true;
      kbn_step(s, d);
    } else {
      int64_t x = 0;
      if (!__builtin_add_overflow(s.isum, i, &x)) {
        s.isum = x;
      } else {
        s.overflow = true;
        kbn_init(s, s.isum);
        s.approx = true;
        kbn_step_int(s, i);
      }
    }
  } else if (integer) {
    kbn_step_int(s, i);
  } else {
    s.overflow = false;
    kbn_step(s, d);
  }
}

// The JSON text of the sum's result (what json_group_object writes for it).
void append_sum(std::string& out, const Sum& s, bool kbn) {
  if (s.count == 0) {
    out += "null";
    return;
  }
  if (!kbn && s.overflow) throw Error("integer overflow");
  if (kbn && s.approx && s.overflow) throw Error("integer overflow");
  if (!s.approx) {
    out += std::to_string(s.isum);
    return;
  }
  double r = s.rsum;
  if (kbn && std::isfinite(s.rerr)) r += s.rerr;
  char buf[64];
  sqlite3_snprintf(sizeof buf, buf, "%!0.15g", r);
  out += buf;
}

// Counter rows group by (pid, op_id) as SQL's GROUP BY does: numbers by value (an integral real
// and the integer are one group), text and blobs by bytes.
struct Key {
  int cls = 0;  // sql_class of the value: 0 NULL, 1 number, 2 text, 3 blob
  int64_t i = 0;
  double d = 0;
  bool real = false;  // a number that is not an integral value held by an int64
  std::string bytes;
  static Key of(const StoredValue& v) {
    Key k;
    k.cls = sql_class(v.type);
    if (v.type == SQLITE_INTEGER) {
      k.i = v.i;
    } else if (v.type == SQLITE_FLOAT) {
      if (v.d >= -9223372036854775808.0 && v.d < 9223372036854775808.0 && v.d == std::trunc(v.d)) {
        k.i = static_cast<int64_t>(v.d);
      } else {
        k.real = true;
        k.d = v.d;
      }
    } else if (k.cls >= 2) {
      k.bytes.assign(static_cast<const char*>(v.bytes), static_cast<size_t>(v.length));
    }
    return k;
  }
  StoredValue stored() const {
    StoredValue v;
    if (cls == 1) {
      v.type = real ? SQLITE_FLOAT : SQLITE_INTEGER;
      v.i = i;
      v.d = d;
    } else if (cls >= 2) {
      v.type = cls == 2 ? SQLITE_TEXT : SQLITE_BLOB;
      v.bytes = bytes.data();
      v.length = static_cast<int>(bytes.size());
    }
    return v;
  }
  friend bool operator<(const Key& a, const Key& b) {
    const int c = sql_compare(a.stored(), b.stored());
    return c < 0;
  }
};

// The counters of one (pid, op_id): per counter name, its sum.
struct OpCounters {
  Key pid, op_id;
  std::map<std::string, Sum> sums;  // std::string's order is BINARY's (unsigned bytes)
  std::string json;
};

struct Row {
  uint32_t op;     // index into stacks.rows
  uint32_t group;  // index into groups
};

struct MemberRows {
  MemberStacks stacks;
  std::vector<OpCounters> groups;
  std::vector<Row> rows;
  size_t size() const { return rows.size(); }
};

// 1. The counter rows of member `m`, grouped by (pid, op_id), then by counter name.
std::vector<OpCounters> read_counter_groups(const canonical::Member& m, sqlite3* conn,
                                            const members::InterruptWatch& watch, bool kbn) {
  using namespace canonical;
  using namespace members;
  std::vector<OpCounters> groups;
  std::map<std::pair<Key, Key>, uint32_t> group_of_key;
  const bool profiled = m.info.adapter->needs_profile(TableKind::Counters, uint64_t{1} << kCntPid);
  MemberColumns rows(m, conn, TableKind::Counters, {kCntPid, kCntOpId, kCntCounter, kCntValue},
                     profiled ? m.profile.get() : nullptr);
  // Values that are text or blobs are summed as SQLite converts them (CAST ... AS REAL).
  Stmt as_real;
  uint64_t read = 0;
  int64_t last_pid = 0, last_op = 0;
  uint32_t last_group = UINT32_MAX;
  while (rows.next()) {
    if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
    const StoredValue counter = rows[2];
    if (counter.type == SQLITE_NULL) continue;
    const StoredValue pid = rows[0], op_id = rows[1];
    uint32_t group = UINT32_MAX;
    // Consecutive rows of one op (the usual layout) find their group without a lookup.
    if (pid.type == SQLITE_INTEGER && op_id.type == SQLITE_INTEGER && last_group != UINT32_MAX &&
        pid.i == last_pid && op_id.i == last_op) {
      group = last_group;
    } else {
      auto key = std::pair{Key::of(pid), Key::of(op_id)};
      auto [it, added] = group_of_key.try_emplace(std::move(key), static_cast<uint32_t>(groups.size()));
      if (added) {
        OpCounters g;
        g.pid = it->first.first;
        g.op_id = it->first.second;
        groups.push_back(std::move(g));
      }
      group = it->second;
      if (pid.type == SQLITE_INTEGER && op_id.type == SQLITE_INTEGER) {
        last_pid = pid.i;
        last_op = op_id.i;
        last_group = group;
      } else {
        last_group = UINT32_MAX;
      }
    }
    Sum& s = groups[group].sums[std::string(static_cast<const char*>(counter.bytes),
                                            static_cast<size_t>(counter.length))];
    const StoredValue v = rows[3];
    switch (v.type) {
      case SQLITE_NULL: break;
      case SQLITE_INTEGER: add(s, true, v.i, 0, kbn); break;
      case SQLITE_FLOAT: add(s, false, 0, v.d, kbn); break;
      default: {
        if (!as_real) as_real = prepare(conn, "SELECT CAST(?1 AS REAL)", kTable);
        sqlite3_reset(as_real.get());
        if (v.type == SQLITE_TEXT) sqlite3_bind_text(as_real.get(), 1, static_cast<const char*>(v.bytes), v.length, SQLITE_TRANSIENT);
        else sqlite3_bind_blob(as_real.get(), 1, v.bytes, v.length, SQLITE_TRANSIENT);
        step(as_real.get(), kTable);
        add(s, false, 0, sqlite3_column_double(as_real.get(), 0), kbn);
      }
    }
  }
  return groups;
}

// Each group's counters as one JSON object, names in order.
void write_json(std::vector<OpCounters>& groups, bool kbn) {
  for (OpCounters& c : groups) {
    c.json.push_back('{');
    bool first = true;
    for (const auto& [name, sum] : c.sums) {
      if (!first) c.json.push_back(',');
      first = false;
      append_json_string(c.json, name);
      c.json.push_back(':');
      append_sum(c.json, sum, kbn);
    }
    c.json.push_back('}');
  }
}

// The groups of each op_id, by pid in SQL's order (the order the former join found them in).
class GroupsByOp {
 public:
  explicit GroupsByOp(const std::vector<OpCounters>& groups) {
    for (uint32_t g = 0; g < groups.size(); ++g) {
      if (groups[g].op_id.cls == 1 && !groups[g].op_id.real) int_groups_[groups[g].op_id.i].push_back(g);
      else other_groups_[groups[g].op_id].push_back(g);
    }
    auto by_pid = [&](uint32_t a, uint32_t b) { return groups[a].pid < groups[b].pid; };
    for (auto& [id, list] : int_groups_) std::stable_sort(list.begin(), list.end(), by_pid);
    for (auto& [id, list] : other_groups_) std::stable_sort(list.begin(), list.end(), by_pid);
  }
  // The groups of an op_id, or null when it has none.
  const std::vector<uint32_t>* of(const StoredValue& op_id) const {
    const Key k = Key::of(op_id);
    if (k.cls == 1 && !k.real) {
      auto it = int_groups_.find(k.i);
      return it == int_groups_.end() ? nullptr : &it->second;
    }
    auto it = other_groups_.find(k);
    return it == other_groups_.end() ? nullptr : &it->second;
  }

 private:
  std::unordered_map<int64_t, std::vector<uint32_t>> int_groups_;  // integer op_id -> its groups
  std::map<Key, std::vector<uint32_t>> other_groups_;              // op_ids that are not integers
};

MemberRows member_rows(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
  MemberRows out;
  const bool kbn = kbn_sums();
  out.groups = read_counter_groups(m, conn, watch, kbn);
  if (out.groups.empty()) return out;
  write_json(out.groups, kbn);
  const GroupsByOp by_op(out.groups);
  auto groups_of = [&](const StoredValue& op_id) { return by_op.of(op_id); };

  // 2. The kernels these counters belong to, with their stacks.
  StackOptions options;
  options.copies = false;
  options.keep_op = [&](const StoredValue& op_id) { return groups_of(op_id) != nullptr; };
  out.stacks = member_stacks(m, conn, options, watch, kTable);

  // 3. Each kernel with the groups of its op_id whose pid is the kernel's launch pid (any pid that
  // is not NULL when the kernel has no launch pid).
  for (uint32_t i = 0; i < out.stacks.rows.size(); ++i) {
    const OpRow& r = out.stacks.rows[i];
    const auto* groups = groups_of(out.stacks.stored(r.op_id));
    if (!groups) continue;
    StoredValue launch_pid;
    if (r.call >= 0) launch_pid = out.stacks.stored(out.stacks.calls[static_cast<size_t>(r.call)].pid);
    for (uint32_t g : *groups) {
      const Key& pid = out.groups[g].pid;
      if (pid.cls == 0) continue;  // NULL = anything is not true
      if (launch_pid.type != SQLITE_NULL && sql_compare(pid.stored(), launch_pid) != 0) continue;
      out.rows.push_back({i, g});
    }
  }
  return out;
}

void key_result(sqlite3_context* ctx, const Key& k) {
  const StoredValue v = k.stored();
  switch (v.type) {
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, v.i); break;
    case SQLITE_FLOAT: sqlite3_result_double(ctx, v.d); break;
    case SQLITE_TEXT: sqlite3_result_text(ctx, static_cast<const char*>(v.bytes), v.length, SQLITE_TRANSIENT); break;
    case SQLITE_BLOB: sqlite3_result_blob(ctx, v.bytes, v.length, SQLITE_TRANSIENT); break;
    default: break;
  }
}

struct Def {
  static constexpr const char* kTableName = kTable;
  static constexpr const char* kSchema =
      "CREATE TABLE x(db TEXT, pid INTEGER, op_id INTEGER, correlation_id INTEGER, gpu INTEGER, queue INTEGER, "
      "name TEXT, start INTEGER, \"end\" INTEGER, n_counters INTEGER, counters TEXT, depth INTEGER, stack TEXT, "
      "top_level TEXT, bottom_level TEXT)";
  using Rows = MemberRows;
  // Readers of an rpd member's counter pids need its profile (its sessions' pids): computed here,
  // on every core, before the members are.
  static void prepare(members::Registry& reg, const std::vector<canonical::MemberPtr>& members,
                      members::InterruptWatch& watch) {
    std::vector<canonical::MemberPtr> need;
    for (const auto& m : members)
      if (m->info.adapter->needs_profile(canonical::TableKind::Counters, uint64_t{1} << canonical::kCntPid))
        need.push_back(m);
    reg.profile_all(need, watch);
    for (const auto& m : need) reg.profile(m, &watch);
  }
  static Rows compute(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch) {
    return member_rows(m, conn, watch);
  }
  static void column(const Rows& rows, size_t row, const MemberRef&, sqlite3_context* ctx, int col) {
    const Row& x = rows.rows[row];
    const MemberStacks& ms = rows.stacks;
    const OpRow& r = ms.rows[x.op];
    const OpCounters& g = rows.groups[x.group];
    const StackInfo& info = ms.info(r);
    auto name_result = [&](uint32_t id) {
      if (id == kNoName || id == ms.null_range_name) return;
      const std::string& n = ms.range_names[id];
      sqlite3_result_text(ctx, n.data(), static_cast<int>(n.size()), SQLITE_TRANSIENT);
    };
    switch (col) {
      case kPid: key_result(ctx, g.pid); break;
      case kOpId: ms.result(ctx, r.op_id); break;
      case kCorrelation: ms.result(ctx, r.corr); break;
      case kGpu: ms.result(ctx, r.gpu); break;
      case kQueue: ms.result(ctx, r.queue); break;
      case kName:
        if (r.name != kNoName) {
          const std::string& n = ms.names[r.name];
          sqlite3_result_text(ctx, n.data(), static_cast<int>(n.size()), SQLITE_TRANSIENT);
        }
        break;
      case kStart:
        if (r.has_start) sqlite3_result_int64(ctx, r.start);
        break;
      case kEnd:
        if (r.has_end) sqlite3_result_int64(ctx, r.end);
        break;
      case kNCounters: sqlite3_result_int64(ctx, static_cast<int64_t>(g.sums.size())); break;
      case kCounters: sqlite3_result_text(ctx, g.json.data(), static_cast<int>(g.json.size()), SQLITE_TRANSIENT); break;
      case kDepth: sqlite3_result_int64(ctx, info.depth); break;
      case kStack: {
        const std::string& s = ms.stacks[info.stack];
        sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
        break;
      }
      case kTop: name_result(info.top); break;
      case kBottom: name_result(info.bottom); break;
    }
  }
  static int64_t rowid(const Rows&, size_t row, const MemberRef& member) { return member_row_id(member, row, kTable); }
};

}  // namespace

void register_op_counters(sqlite3* db) { MemberRowsTable<Def>::register_module(db); }

}  // namespace rocpd::diagnosis
