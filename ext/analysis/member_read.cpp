#include "analysis/member_read.h"
#include "common/like_pattern.h"
#include "common/terminal_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "members/member_columns.h"
#include "analysis/sql_args.h"

namespace rocpd::analysis {

int plan(sqlite3_index_info* info, const PlanColumns& cols, double full_cost) {
  std::string codes;
  int bits = 0;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.op != SQLITE_INDEX_CONSTRAINT_EQ || c.iColumn < 0) continue;
    char code = 0;
    if (c.iColumn == cols.db) code = 'D';
    else if (c.iColumn == cols.gpu) code = 'G';
    else if (c.iColumn == cols.threshold) code = 'T';
    else if (c.iColumn == cols.lo) code = 'L';
    else if (c.iColumn == cols.hi) code = 'H';
    else if (c.iColumn == cols.pattern) code = 'P';
    if (!code) continue;
    const bool argument = code == 'T' || code == 'L' || code == 'H' || code == 'P';
    if (!c.usable) {
      // A plan without an argument of the table-valued call would change its meaning.
      if (argument) return SQLITE_CONSTRAINT;
      continue;
    }
    if (code == 'D') {
      // rocpd_natural orders differently but is equal exactly when BINARY is (common/natural_order.h).
      const char* coll = sqlite3_vtab_collation(info, i);
      if (coll && sqlite3_stricmp(coll, "BINARY") != 0 && sqlite3_stricmp(coll, "rocpd_natural") != 0) continue;
    }
    codes.push_back(code);
    bits |= 1 << (code - 'A');
    info->aConstraintUsage[i].argvIndex = static_cast<int>(codes.size());
    // Arguments are consumed; db and gpu are re-checked by SQLite.
    info->aConstraintUsage[i].omit = argument ? 1 : 0;
  }
  double cost = full_cost;
  if (codes.find('D') != std::string::npos) cost /= 20;
  if (codes.find('G') != std::string::npos) cost /= 4;
  info->estimatedCost = cost;
  info->estimatedRows = static_cast<sqlite3_int64>(cost / 10) + 1;
  info->idxNum = bits;
  info->idxStr = sqlite_strdup(codes);
  if (!info->idxStr) throw std::bad_alloc();
  info->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

Selection decode(const char* table, const char* idx_str, int argc, sqlite3_value** argv) {
  Selection s;
  const std::string codes = idx_str ? idx_str : "";
  if (codes.size() != static_cast<size_t>(argc)) throw Error(fmt::format("{}: inconsistent query plan", table));
  for (int i = 0; i < argc; ++i) {
    sqlite3_value* v = argv[i];
    const char code = codes[static_cast<size_t>(i)];
    if (code == 'P') {
      const auto pattern = like_pattern_arg(v, table, "pattern", "ProfilerStep#%");
      if (!pattern) continue;  // the default
      const std::string& text = *pattern;
      if (s.pattern && *s.pattern != text) s.nothing = true;
      s.pattern = text;
      continue;
    }
    if (code == 'T' || code == 'L' || code == 'H') {
      const char* name = code == 'T' ? "threshold_ns" : code == 'L' ? "lo" : "hi";
      auto value = int64_arg(v, table, name);
      if (value) (code == 'T' ? s.threshold : code == 'L' ? s.lo : s.hi) = value;
      continue;
    }
    const int type = sqlite3_value_type(v);
    if (type == SQLITE_NULL) {
      s.nothing = true;
      continue;
    }
    if (code == 'D') {
      if (type == SQLITE_BLOB) {
        s.nothing = true;
        continue;
      }
      Value copy = dup_value(v);
      std::string text(reinterpret_cast<const char*>(sqlite3_value_text(copy.get())),
                       static_cast<size_t>(sqlite3_value_bytes(copy.get())));
      if (s.db && *s.db != text) s.nothing = true;
      s.db = std::move(text);
    } else if (code == 'G') {
      if (type != SQLITE_INTEGER) continue;  // SQLite compares other values itself
      const int64_t gpu = sqlite3_value_int64(v);
      if (s.gpu && *s.gpu != gpu) s.nothing = true;
      s.gpu = gpu;
    } else {
      throw Error(fmt::format("{}: inconsistent query plan", table));
    }
  }
  return s;
}

GpuKey value_key(sqlite3_stmt* s, int col) {
  GpuKey k;
  k.type = sqlite3_column_type(s, col);
  if (k.type == SQLITE_INTEGER) k.i = sqlite3_column_int64(s, col);
  else if (k.type == SQLITE_FLOAT) k.d = sqlite3_column_double(s, col);
  else if (k.type == SQLITE_TEXT) k.bytes.assign(column_text(s, col));
  else if (k.type == SQLITE_BLOB)
    k.bytes.assign(static_cast<const char*>(sqlite3_column_blob(s, col)), static_cast<size_t>(sqlite3_column_bytes(s, col)));
  return k;
}

std::optional<int64_t> time_column(sqlite3_stmt* s, int col, const char* table, const std::string& db, const char* what) {
  const int type = sqlite3_column_type(s, col);
  if (type == SQLITE_INTEGER) return sqlite3_column_int64(s, col);
  if (type == SQLITE_NULL) return std::nullopt;
  Value v = dup_value(sqlite3_column_value(s, col));
  const std::string fn = fmt::format("{}: member {}", table, db);
  return int64_arg(v.get(), fn.c_str(), what);
}

GpuKey value_key(const StoredValue& v) {
  GpuKey k;
  k.type = v.type;
  if (v.type == SQLITE_INTEGER) k.i = v.i;
  else if (v.type == SQLITE_FLOAT) k.d = v.d;
  else if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB)
    k.bytes.assign(static_cast<const char*>(v.bytes), static_cast<size_t>(v.length));
  return k;
}

StoredValue stored_of(const GpuKey& k) {
  StoredValue v;
  v.type = k.type;
  v.i = k.i;
  v.d = k.d;
  v.bytes = k.bytes.data();
  v.length = static_cast<int>(k.bytes.size());
  return v;
}

std::optional<int64_t> time_value_other(const StoredValue& v, const char* table, const std::string& db,
                                        const char* what) {
  const std::string fn = fmt::format("{}: member {}", table, db);
  if (v.type == SQLITE_FLOAT) {
    // As int64_arg: [-2^63, 2^63) is exactly the doubles that convert without overflow.
    if (std::isfinite(v.d) && v.d == std::floor(v.d) && v.d >= -9223372036854775808.0 && v.d < 9223372036854775808.0)
      return static_cast<int64_t>(v.d);
    throw Error(fmt::format("{}: {} must be an integer (ns), got real {}", fn, what, v.d));
  }
  const std::string bytes(static_cast<const char*>(v.bytes), static_cast<size_t>(v.length));
  if (v.type == SQLITE_TEXT)
    throw Error(fmt::format("{}: {} must be an integer (ns), got text {}", fn, what, quoted_text(bytes)));
  throw Error(fmt::format("{}: {} must be an integer (ns), got a blob", fn, what));
}

namespace {
// -1, 0, 1 as SQLite orders a stored value against the integer n (NULL handled by the callers).
int compare_int(const StoredValue& v, int64_t n) {
  if (v.type == SQLITE_INTEGER) return v.i < n ? -1 : v.i > n;
  if (v.type == SQLITE_FLOAT) {
    const double d = static_cast<double>(n);
    return v.d < d ? -1 : v.d > d;
  }
  return 1;  // text and blobs
}
}  // namespace

bool equals_int(const StoredValue& v, int64_t n) {
  return (v.type == SQLITE_INTEGER || v.type == SQLITE_FLOAT) && compare_int(v, n) == 0;
}
bool greater_than(const StoredValue& v, int64_t n) { return v.type != SQLITE_NULL && compare_int(v, n) > 0; }
bool less_than(const StoredValue& v, int64_t n) { return v.type != SQLITE_NULL && compare_int(v, n) < 0; }

std::optional<int64_t> corr_column(sqlite3_stmt* s, int col) {
  if (sqlite3_column_type(s, col) != SQLITE_INTEGER) return std::nullopt;
  return sqlite3_column_int64(s, col);
}

MemberLaunches read_member_launches(const canonical::Member& m, sqlite3* db, const CorrSlots& wanted,
                                    bool with_thread, const char* table, const canonical::Profile* profile) {
  MemberLaunches out;
  out.calls.resize(wanted.size());
  if (wanted.size() == 0) return out;
  using namespace canonical;
  using namespace members;
  std::vector<int> cols{kApisCorrelationId, kApisStart, kApisEnd, kApisApiId};
  if (with_thread) cols.insert(cols.end(), {kApisPid, kApisTid});
  MemberColumns rows(m, db, TableKind::Apis, cols, profile);
  scan_best_launches(rows, wanted, out.calls, table, m.alias, [&](LaunchCall& c, int64_t start) {
    const auto end = time_value(rows[2], table, m.alias, "end");
    c.end = end ? std::max(*end, start) : start;
    if (with_thread) {
      c.pid = out.cells.keep(rows[4]);
      c.tid = out.cells.keep(rows[5]);
    }
  });
  return out;
}

}  // namespace rocpd::analysis
