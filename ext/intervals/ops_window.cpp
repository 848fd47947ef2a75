#include "intervals/ops_window.h"
#include "intervals/sql_args.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace rocpd::intervals {

namespace {

struct Code {
  char code;
  int bit;
};

// The code of a usable constraint on a column, or 0 when it is not pushed.
Code code_for(const sqlite3_index_info::sqlite3_index_constraint& c, const PlanColumns& cols) {
  const bool eq = c.op == SQLITE_INDEX_CONSTRAINT_EQ;
  if (c.iColumn == cols.db && eq) return {'D', kPlanDb};
  if (c.iColumn == cols.gpu && eq) return {'G', kPlanGpu};
  if (c.iColumn == cols.bucket_ns && eq) return {'W', kPlanBucketNs};
  if (c.iColumn == cols.lo && eq) return {'L', kPlanLo};
  if (c.iColumn == cols.hi && eq) return {'H', kPlanHi};
  if (c.iColumn == cols.buckets && eq) return {'N', kPlanBuckets};
  const bool start = c.iColumn == cols.start, end = c.iColumn == cols.end;
  if (!start && !end) return {0, 0};
  switch (c.op) {
    case SQLITE_INDEX_CONSTRAINT_GT: return {start ? 'a' : 'c', kPlanLowerTime};
    case SQLITE_INDEX_CONSTRAINT_GE: return {start ? 'b' : 'd', kPlanLowerTime};
    case SQLITE_INDEX_CONSTRAINT_LT: return {start ? 'e' : 'g', kPlanUpperTime};
    case SQLITE_INDEX_CONSTRAINT_LE: return {start ? 'f' : 'h', kPlanUpperTime};
    default: return {0, 0};
  }
}

bool is_hidden_argument(int column, const PlanColumns& cols) {
  return column >= 0 && (column == cols.bucket_ns || column == cols.lo || column == cols.hi || column == cols.buckets);
}

// A time constraint's value as a real number (integers exactly as int64, via long double).
long double time_value(const char* table, sqlite3_value* v, char code) {
  const char* column = (code == 'a' || code == 'b' || code == 'e' || code == 'f') ? "start" : "end";
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return static_cast<long double>(sqlite3_value_int64(v));
    case SQLITE_FLOAT: return sqlite3_value_double(v);
    default:
      throw Error(fmt::format("{}: {} must be compared with a number of ns, got {}", table, column,
                              sqlite3_value_type(v) == SQLITE_TEXT ? "text" : "a blob"));
  }
}

int64_t saturate(long double x) {
  if (std::isnan(x)) return 0;
  if (x <= -9223372036854775808.0L) return kNoLo;
  if (x >= 9223372036854775807.0L) return kNoHi;
  return static_cast<int64_t>(x);
}

}  // namespace

int plan_constraints(sqlite3_index_info* info, const PlanColumns& cols) {
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
    codes.push_back(code.code);
    bits |= code.bit;
    info->aConstraintUsage[i].argvIndex = static_cast<int>(codes.size());
    // Arguments are consumed; db/gpu/time are re-checked by SQLite (clipped rows satisfy them).
    info->aConstraintUsage[i].omit = is_hidden_argument(c.iColumn, cols) ? 1 : 0;
  }
  double cost = 1e7;
  if (bits & kPlanDb) cost /= 20;
  if (bits & kPlanGpu) cost /= 4;
  if (bits & kPlanLowerTime) cost /= 2;
  if (bits & kPlanUpperTime) cost /= 2;
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
      default: break;
    }
    if (sqlite3_value_type(v) == SQLITE_NULL) {  // `x = NULL`, `x > NULL` are never true
      w.nothing = true;
      continue;
    }
    if (code == 'D') {
      const auto text = std::string(reinterpret_cast<const char*>(sqlite3_value_text(v)),
                                    static_cast<size_t>(sqlite3_value_bytes(v)));
      if (w.db && *w.db != text) w.nothing = true;
      w.db = text;
      continue;
    }
    if (code == 'G') {
      if (sqlite3_value_type(v) != SQLITE_INTEGER) {  // gpu ids are integers: nothing equals 1.5 or 'x'
        w.nothing = true;
        continue;
      }
      const int64_t gpu = sqlite3_value_int64(v);
      if (w.gpu && *w.gpu != gpu) w.nothing = true;
      w.gpu = gpu;
      continue;
    }
    // Time bounds: integer ns make `start > x` the same as `start >= floor(x) + 1`, and so on;
    // each bound is turned into the window edge that the clipped rows still satisfy.
    const long double x = time_value(table, v, code);
    const long double fl = std::floor(x), ce = std::ceil(x);
    int64_t lo = kNoLo, hi = kNoHi;
    switch (code) {
      case 'a': lo = saturate(fl + 1); break;  // start > x
      case 'b': lo = saturate(ce); break;      // start >= x
      case 'c': lo = saturate(fl); break;      // end > x: pieces start at floor(x), end after it
      case 'd': lo = saturate(ce - 1); break;  // end >= x
      case 'e': hi = saturate(ce); break;      // start < x
      case 'f': hi = saturate(fl + 1); break;  // start <= x
      case 'g': hi = saturate(ce - 1); break;  // end < x
      case 'h': hi = saturate(fl); break;      // end <= x
      default: throw Error(fmt::format("{}: inconsistent query plan", table));
    }
    w.lo = std::max(w.lo, lo);
    w.hi = std::min(w.hi, hi);
  }
  if (w.hi <= w.lo) w.nothing = true;
  return w;
}

std::vector<std::string> member_dbs(sqlite3* conn, const std::optional<std::string>& db) {
  Stmt stmt = prepare(conn, db ? "SELECT db FROM rocpd_members WHERE db = ?1 ORDER BY db"
                               : "SELECT db FROM rocpd_members ORDER BY db",
                      "reading rocpd_members");
  if (db) sqlite3_bind_text(stmt.get(), 1, db->data(), static_cast<int>(db->size()), SQLITE_TRANSIENT);
  std::vector<std::string> out;
  while (step(stmt.get(), "reading rocpd_members")) out.emplace_back(column_text(stmt.get(), 0));
  return out;
}

std::optional<Interval> job_range(sqlite3* conn) {
  Stmt stmt = prepare(conn, "SELECT min(first_ns), max(last_ns) FROM rocpd_members", "reading rocpd_members");
  if (!step(stmt.get(), "reading rocpd_members") || sqlite3_column_type(stmt.get(), 0) == SQLITE_NULL ||
      sqlite3_column_type(stmt.get(), 1) == SQLITE_NULL)
    return std::nullopt;
  return Interval{sqlite3_column_int64(stmt.get(), 0), sqlite3_column_int64(stmt.get(), 1)};
}

std::vector<GpuBusy> load_busy(sqlite3* conn, const std::string& db, const OpsWindow& window) {
  // Only ops that overlap the window can add busy time inside it; rocpd_ops pushes these
  // constraints into each member's own query and skips members that cannot match.
  std::string sql = "SELECT gpu, start, \"end\" FROM rocpd_ops WHERE db = ?1";
  if (window.gpu) sql += " AND gpu = ?2";
  if (window.lo != kNoLo) sql += " AND \"end\" > ?3";
  if (window.hi != kNoHi) sql += " AND start < ?4";
  Stmt stmt = prepare(conn, sql, "reading rocpd_ops");
  sqlite3_bind_text(stmt.get(), 1, db.data(), static_cast<int>(db.size()), SQLITE_TRANSIENT);
  if (window.gpu) sqlite3_bind_int64(stmt.get(), 2, *window.gpu);
  if (window.lo != kNoLo) sqlite3_bind_int64(stmt.get(), 3, window.lo);
  if (window.hi != kNoHi) sqlite3_bind_int64(stmt.get(), 4, window.hi);

  std::map<std::optional<int64_t>, std::vector<Interval>> by_gpu;
  std::vector<Interval>* current = nullptr;  // rows of one gpu usually come in runs
  std::optional<int64_t> current_gpu;
  while (step(stmt.get(), "reading rocpd_ops")) {
    sqlite3_stmt* s = stmt.get();
    // Every API call takes the connection mutex: ask for a column's type only when its value is 0,
    // the one value a NULL also reads as.
    auto is_null = [s](int col, int64_t v) { return v == 0 && sqlite3_column_type(s, col) == SQLITE_NULL; };
    std::optional<int64_t> gpu = sqlite3_column_int64(s, 0);
    if (is_null(0, *gpu)) gpu.reset();
    if (!current || gpu != current_gpu) {
      current = &by_gpu[gpu];
      current_gpu = gpu;
    }
    const int64_t start = sqlite3_column_int64(s, 1), end = sqlite3_column_int64(s, 2);
    if (is_null(1, start) || is_null(2, end)) continue;
    const Interval iv = clip({start, end}, window.lo, window.hi);
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

}  // namespace rocpd::intervals
