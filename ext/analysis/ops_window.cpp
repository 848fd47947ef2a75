#include "analysis/ops_window.h"
#include "analysis/sql_args.h"
#include "common/natural_order.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <thread>
#include <string>

namespace rocpd::analysis {

namespace {

struct Code {
  char code;
  int bit;
};

// The code of a usable constraint on a column, or 0 when it is not handed to xFilter.
Code code_for(const sqlite3_index_info::sqlite3_index_constraint& c, const WindowColumns& cols) {
  if (c.iColumn < 0) return {0, 0};  // the rowid: SQLite compares it
  const bool eq = c.op == SQLITE_INDEX_CONSTRAINT_EQ;
  if (c.iColumn == cols.db && eq) return {'D', kPlanDb};
  if (c.iColumn == cols.gpu && eq) return {'G', kPlanGpu};
  if (c.iColumn == cols.bucket_ns && eq) return {'W', kPlanBucketNs};
  if (c.iColumn == cols.lo && eq) return {'L', kPlanLo};
  if (c.iColumn == cols.hi && eq) return {'H', kPlanHi};
  if (c.iColumn == cols.buckets && eq) return {'N', kPlanBuckets};
  if (c.iColumn == cols.kind && eq) return {'K', kPlanKind};
  return {0, 0};
}

bool is_hidden_argument(int column, const WindowColumns& cols) {
  return column >= 0 && (column == cols.bucket_ns || column == cols.lo || column == cols.hi || column == cols.buckets ||
                         column == cols.kind);
}

uint64_t mix(uint64_t x) {  // splitmix64's finaliser: spreads any gpu id over the slot range
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The kind argument: NULL (every op), or text holding comma-separated items (spaces around them
// ignored), none of them empty.
void decode_kind(const char* table, sqlite3_value* v, OpsWindow& w) {
  const int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL) return;
  if (type != SQLITE_TEXT)
    throw Error(fmt::format("{}: kind must be text (a kind or op name of rocpd_ops such as 'kernel', or several "
                            "separated by commas), got {}",
                            table, type == SQLITE_INTEGER ? "an integer" : type == SQLITE_FLOAT ? "a real" : "a blob"));
  const std::string text(reinterpret_cast<const char*>(sqlite3_value_text(v)), static_cast<size_t>(sqlite3_value_bytes(v)));
  if (w.kind && *w.kind != text) w.nothing = true;  // kind = 'a' AND kind = 'b'
  w.kind = text;
  w.kind_items.clear();
  for (size_t begin = 0;;) {
    const size_t comma = std::min(text.find(',', begin), text.size());
    std::string item = text.substr(begin, comma - begin);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (item.empty()) throw Error(fmt::format("{}: kind '{:.60}' has an empty item", table, text));
    w.kind_items.push_back(std::move(item));
    if (comma == text.size()) break;
    begin = comma + 1;
  }
}

}  // namespace

int plan_constraints(sqlite3_index_info* info, const WindowColumns& cols) {
  std::string codes;
  int bits = 0;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    const Code code = code_for(c, cols);
    if (!c.usable) {
      // A plan without an argument of the table-valued call would silently change its meaning:
      // refuse it, so SQLite picks a plan that binds the argument first (as series.c does).
      if (code.code && is_hidden_argument(c.iColumn, cols)) return SQLITE_CONSTRAINT;
      continue;
    }
    if (!code.code) continue;
    // db selects members by byte equality: under another collation SQLite alone compares it.
    if (code.code == 'D') {
      const char* coll = sqlite3_vtab_collation(info, i);
      if (coll && sqlite3_stricmp(coll, "BINARY") != 0) continue;
    }
    codes.push_back(code.code);
    bits |= code.bit;
    info->aConstraintUsage[i].argvIndex = static_cast<int>(codes.size());
    // Arguments are consumed; every other constraint is re-checked by SQLite.
    info->aConstraintUsage[i].omit = is_hidden_argument(c.iColumn, cols) ? 1 : 0;
  }
  double cost = 1e7;
  if (bits & kPlanDb) cost /= 20;
  if (bits & kPlanGpu) cost /= 4;
  if (bits & (kPlanLo | kPlanHi)) cost /= 4;
  info->estimatedCost = cost;
  info->estimatedRows = static_cast<sqlite3_int64>(cost / 10);
  info->idxNum = bits;
  info->idxStr = sqlite_strdup(codes);
  if (!info->idxStr) throw std::bad_alloc();
  info->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

OpsWindow decode_constraints(const char* table, const char* idx_str, int argc, sqlite3_value** argv) {
  OpsWindow w;
  const std::string codes = idx_str ? idx_str : "";
  if (codes.size() != static_cast<size_t>(argc)) throw Error(fmt::format("{}: inconsistent query plan", table));
  for (int i = 0; i < argc; ++i) {
    sqlite3_value* v = argv[i];
    const char code = codes[static_cast<size_t>(i)];
    auto argument = [&](std::optional<int64_t>& slot, const char* name, const char* unit = "ns") {
      auto value = int64_arg(v, table, name, unit);
      if (value) slot = value;
    };
    switch (code) {
      case 'W': argument(w.bucket_ns, "bucket_ns"); continue;
      case 'L': argument(w.arg_lo, "lo"); continue;
      case 'H': argument(w.arg_hi, "hi"); continue;
      case 'N': argument(w.buckets, "buckets", "a count"); continue;
      case 'K': decode_kind(table, v, w); continue;
      default: break;
    }
    const int type = sqlite3_value_type(v);
    if (type == SQLITE_NULL) {  // `x = NULL`, `x > NULL` are never true
      w.nothing = true;
      continue;
    }
    if (code == 'D') {
      // db is TEXT: a number compares as its text, a blob equals no name.
      if (type == SQLITE_BLOB) {
        w.nothing = true;
        continue;
      }
      Value copy = dup_value(v);
      const auto text = std::string(reinterpret_cast<const char*>(sqlite3_value_text(copy.get())),
                                    static_cast<size_t>(sqlite3_value_bytes(copy.get())));
      if (w.db && *w.db != text) w.nothing = true;
      w.db = text;
      continue;
    }
    if (code == 'G') {
      // gpu ids are integers; anything else SQLite compares itself (gpu is not pruned then).
      if (type != SQLITE_INTEGER) continue;
      const int64_t gpu = sqlite3_value_int64(v);
      if (w.gpu && *w.gpu != gpu) w.nothing = true;
      w.gpu = gpu;
      continue;
    }
    throw Error(fmt::format("{}: inconsistent query plan", table));
  }
  if (w.arg_lo) w.lo = *w.arg_lo;
  if (w.arg_hi) w.hi = *w.arg_hi;
  return w;
}

namespace {
int type_rank(int type) {
  switch (type) {
    case SQLITE_NULL: return 0;
    case SQLITE_INTEGER:
    case SQLITE_FLOAT: return 1;
    case SQLITE_TEXT: return 2;
    default: return 3;
  }
}

std::string describe(const GpuKey& k) {
  switch (k.type) {
    case SQLITE_NULL: return "NULL";
    case SQLITE_INTEGER: return std::to_string(k.i);
    case SQLITE_FLOAT: return fmt::format("{}", k.d);
    case SQLITE_TEXT: return fmt::format("'{:.40}'", k.bytes);
    default: return fmt::format("a blob of {} bytes", k.bytes.size());
  }
}
}  // namespace

bool operator<(const GpuKey& a, const GpuKey& b) {
  const int ra = type_rank(a.type), rb = type_rank(b.type);
  if (ra != rb) return ra < rb;
  if (ra == 1) {
    if (a.type == SQLITE_INTEGER && b.type == SQLITE_INTEGER) return a.i < b.i;
    const long double x = a.type == SQLITE_INTEGER ? static_cast<long double>(a.i) : a.d;
    const long double y = b.type == SQLITE_INTEGER ? static_cast<long double>(b.i) : b.d;
    return x < y;
  }
  return a.bytes < b.bytes;  // BINARY collation: memcmp order
}

void GpuKey::result(sqlite3_context* ctx) const {
  switch (type) {
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, i); break;
    case SQLITE_FLOAT: sqlite3_result_double(ctx, d); break;
    case SQLITE_TEXT: sqlite3_result_text(ctx, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT); break;
    case SQLITE_BLOB:
      if (bytes.empty()) sqlite3_result_zeroblob(ctx, 0);
      else sqlite3_result_blob(ctx, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
      break;
    default: sqlite3_result_null(ctx); break;
  }
}

int64_t RowNumbering::rowid(int64_t ordinal, const GpuKey& gpu, uint64_t index, const char* table) {
  constexpr int kIndexBits = 31, kSlotBits = 16;
  uint32_t slot = 0;
  if (gpu.is_null()) {
    slot = 32767;
  } else if (gpu.type == SQLITE_INTEGER && gpu.i >= 0 && gpu.i < 32767) {
    slot = static_cast<uint32_t>(gpu.i);
  } else {
    uint64_t h = static_cast<uint64_t>(gpu.type) * 0x9e3779b97f4a7c15ULL;
    if (gpu.type == SQLITE_INTEGER) h ^= mix(static_cast<uint64_t>(gpu.i));
    else if (gpu.type == SQLITE_FLOAT) h ^= mix(std::hash<double>{}(gpu.d));
    else h ^= mix(std::hash<std::string>{}(gpu.bytes));
    slot = 32768 + static_cast<uint32_t>(mix(h) % 32768);
  }
  if (ordinal != slots_member_) {
    slots_.clear();
    slots_member_ = ordinal;
  }
  bool seen = false;
  for (const auto& [s, g] : slots_) {
    if (s != slot) continue;
    if (!(g == gpu))
      throw Error(fmt::format("{}: gpu values {} and {} of one member cannot both be numbered in rowids", table,
                              describe(g), describe(gpu)));
    seen = true;
  }
  if (!seen) slots_.emplace_back(slot, gpu);
  if (index >= (uint64_t{1} << kIndexBits))
    throw Error(fmt::format("{}: more than 2^{} rows for one gpu cannot be numbered in rowids", table, kIndexBits));
  return (ordinal << (kSlotBits + kIndexBits)) | (static_cast<int64_t>(slot) << kIndexBits) |
         static_cast<int64_t>(index);
}

std::optional<Interval> job_range(sqlite3* conn) {
  Stmt stmt = prepare(conn, "SELECT min(first_ns), max(last_ns) FROM temp.rocpd_members", "reading rocpd_members");
  if (!step(stmt.get(), "reading rocpd_members") || sqlite3_column_type(stmt.get(), 0) == SQLITE_NULL ||
      sqlite3_column_type(stmt.get(), 1) == SQLITE_NULL)
    return std::nullopt;
  return Interval{sqlite3_column_int64(stmt.get(), 0), sqlite3_column_int64(stmt.get(), 1)};
}

std::map<std::string, Interval> clock_clusters(sqlite3* conn) {
  Stmt stmt = prepare(conn,
                      "SELECT db, first_ns, last_ns FROM temp.rocpd_members WHERE first_ns IS NOT NULL AND last_ns "
                      "IS NOT NULL ORDER BY first_ns",
                      "reading rocpd_members");
  std::vector<std::pair<std::string, Interval>> spans;
  while (step(stmt.get(), "reading rocpd_members"))
    spans.emplace_back(std::string(column_text(stmt.get(), 0)),
                       Interval{sqlite3_column_int64(stmt.get(), 1), sqlite3_column_int64(stmt.get(), 2)});
  std::map<std::string, Interval> out;
  // Sweep in order of first_ns: a member starting after the cluster's end opens a new cluster.
  for (size_t begin = 0; begin < spans.size();) {
    Interval cluster = spans[begin].second;
    size_t end = begin + 1;
    while (end < spans.size() && spans[end].second.start <= cluster.end)
      cluster.end = std::max(cluster.end, spans[end++].second.end);
    for (size_t i = begin; i < end; ++i) out[spans[i].first] = cluster;
    begin = end;
  }
  return out;
}

namespace {
// A gpu or time column of the current op: an integer, or NULL (nullopt). Anything else (text or
// a real in a hostile file) is an error naming the member, as interval_union's own.
std::optional<int64_t> integer_column(sqlite3_stmt* s, int col, const char* table, const std::string& db,
                                      const char* what, const char* unit) {
  const int type = sqlite3_column_type(s, col);
  if (type == SQLITE_INTEGER) return sqlite3_column_int64(s, col);
  if (type == SQLITE_NULL) return std::nullopt;
  Value v = dup_value(sqlite3_column_value(s, col));
  const std::string fn = fmt::format("{}: member {}", table, db);
  return int64_arg(v.get(), fn.c_str(), what, unit);
}
}  // namespace

std::vector<GpuBusy> load_busy(sqlite3* conn, const std::string& db, const OpsWindow& window, const char* table) {
  // Only ops that overlap the window can add busy time inside it; rocpd_ops pushes these
  // constraints into each member's own query and skips members that cannot match.
  std::string sql = "SELECT gpu, start, \"end\" FROM temp.rocpd_ops WHERE db = ?1";
  if (window.gpu) sql += " AND gpu = ?2";
  if (window.lo != kNoLo) sql += " AND \"end\" > ?3";
  if (window.hi != kNoHi) sql += " AND start < ?4";
  if (window.kind) {
    // Only ops of the kinds (or names) listed: ?5.. hold the items, compared as IN compares them.
    std::string items;
    for (size_t i = 0; i < window.kind_items.size(); ++i) items += fmt::format("{}?{}", i ? ", " : "", 5 + i);
    sql += fmt::format(" AND (kind IN ({0}) OR name IN ({0}))", items);
  }
  Stmt stmt = prepare(conn, sql, "reading rocpd_ops");
  for (size_t i = 0; window.kind && i < window.kind_items.size(); ++i)
    sqlite3_bind_text(stmt.get(), static_cast<int>(5 + i), window.kind_items[i].data(),
                      static_cast<int>(window.kind_items[i].size()), SQLITE_TRANSIENT);
  sqlite3_bind_text(stmt.get(), 1, db.data(), static_cast<int>(db.size()), SQLITE_TRANSIENT);
  if (window.gpu) sqlite3_bind_int64(stmt.get(), 2, *window.gpu);
  if (window.lo != kNoLo) sqlite3_bind_int64(stmt.get(), 3, window.lo);
  if (window.hi != kNoHi) sqlite3_bind_int64(stmt.get(), 4, window.hi);

  std::map<GpuKey, std::vector<Interval>> by_gpu;
  std::vector<Interval>* current = nullptr;  // rows of one gpu usually come in runs
  GpuKey current_gpu;
  while (step(stmt.get(), "reading rocpd_ops")) {
    sqlite3_stmt* s = stmt.get();
    GpuKey gpu;
    gpu.type = sqlite3_column_type(s, 0);
    if (gpu.type == SQLITE_INTEGER) gpu.i = sqlite3_column_int64(s, 0);
    else if (gpu.type == SQLITE_FLOAT) gpu.d = sqlite3_column_double(s, 0);
    else if (gpu.type == SQLITE_TEXT) gpu.bytes.assign(column_text(s, 0));
    else if (gpu.type == SQLITE_BLOB)
      gpu.bytes.assign(static_cast<const char*>(sqlite3_column_blob(s, 0)), static_cast<size_t>(sqlite3_column_bytes(s, 0)));
    if (!current || !(gpu == current_gpu)) {
      current = &by_gpu[gpu];
      current_gpu = gpu;
    }
    const auto start = integer_column(s, 1, table, db, "start", "ns");
    const auto end = integer_column(s, 2, table, db, "end", "ns");
    if (!start || !end) continue;
    const Interval iv = clip({*start, *end}, window.lo, window.hi);
    if (!iv.empty()) current->push_back(iv);
  }
  std::vector<GpuBusy> out;
  out.reserve(by_gpu.size());
  for (auto& [gpu, ivs] : by_gpu) {
    out.push_back({gpu, merge(ivs)});
    std::vector<Interval>().swap(ivs);  // release each gpu's raw ops as soon as it is merged
  }
  return out;
}

namespace {
// Members per batch: a few per core keeps every core busy while memory stays small.
size_t busy_batch() { return 4 * std::max(1u, std::thread::hardware_concurrency()); }
}  // namespace

void BusyReader::start(const std::vector<MemberRef>& dbs) {
  order_.clear();
  for (const auto& m : dbs) order_.push_back(m.db);
  batch_.clear();
  use_sql_ = false;
}

std::vector<GpuBusy> BusyReader::load(sqlite3* conn, const std::string& db, const OpsWindow& window,
                                      const char* table) {
  // The summary engine takes every op: a kind argument reads through SQL.
  if (window.kind) return load_busy(conn, db, window, table);
  if (!use_sql_ && !batch_.count(db)) {
    auto at = std::find(order_.begin(), order_.end(), db);
    std::vector<std::string> next(at, at == order_.end() ? at : std::min(order_.end(), at + static_cast<std::ptrdiff_t>(busy_batch())));
    if (next.empty()) next.push_back(db);
    batch_.clear();
    auto lists = busy_lists(conn, next, window.lo, window.hi, window.gpu);
    if (lists) batch_ = std::move(*lists);
    else use_sql_ = true;
    // A member without ops gets an empty entry, so it is not read again.
    for (const auto& name : next) batch_.try_emplace(name);
  }
  if (use_sql_) return load_busy(conn, db, window, table);
  std::vector<GpuBusy> out;
  auto it = batch_.find(db);
  for (auto& list : it->second) {
    GpuBusy g;
    if (list.gpu) {
      g.gpu.type = SQLITE_INTEGER;
      g.gpu.i = *list.gpu;
    }
    g.busy = std::move(list.busy);
    out.push_back(std::move(g));
  }
  batch_.erase(it);
  return out;
}

}  // namespace rocpd::analysis
