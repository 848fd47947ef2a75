#include "diagnosis/diag_read.h"

#include <fmt/format.h>

#include "intervals/sql_args.h"

namespace rocpd::diagnosis {

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
    if (!code) continue;
    const bool argument = code == 'T' || code == 'L' || code == 'H';
    if (!c.usable) {
      // A plan without an argument of the table-valued call would change its meaning.
      if (argument) return SQLITE_CONSTRAINT;
      continue;
    }
    if (code == 'D') {
      const char* coll = sqlite3_vtab_collation(info, i);
      if (coll && sqlite3_stricmp(coll, "BINARY") != 0) continue;
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
    if (code == 'T' || code == 'L' || code == 'H') {
      const char* name = code == 'T' ? "threshold_ns" : code == 'L' ? "lo" : "hi";
      auto value = intervals::int64_arg(v, table, name);
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
  return intervals::int64_arg(v.get(), fn.c_str(), what);
}

namespace {
uint64_t mix(int64_t key) {
  uint64_t x = static_cast<uint64_t>(key) + 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

void CorrSlots::grow() {
  std::vector<int64_t> keys = std::move(keys_);
  std::vector<uint32_t> slots = std::move(slots_);
  const size_t capacity = keys.empty() ? 1024 : keys.size() * 2;
  keys_.assign(capacity, 0);
  slots_.assign(capacity, UINT32_MAX);
  const size_t mask = capacity - 1;
  for (size_t i = 0; i < keys.size(); ++i) {
    if (slots[i] == UINT32_MAX) continue;
    size_t h = mix(keys[i]) & mask;
    while (slots_[h] != UINT32_MAX) h = (h + 1) & mask;
    keys_[h] = keys[i];
    slots_[h] = slots[i];
  }
}

uint32_t CorrSlots::add(int64_t corr) {
  if ((count_ + 1) * 2 > keys_.size()) grow();
  const size_t mask = keys_.size() - 1;
  size_t h = mix(corr) & mask;
  while (slots_[h] != UINT32_MAX) {
    if (keys_[h] == corr) return slots_[h];
    h = (h + 1) & mask;
  }
  keys_[h] = corr;
  slots_[h] = static_cast<uint32_t>(count_++);
  return slots_[h];
}

int64_t CorrSlots::find(int64_t corr) const {
  if (keys_.empty()) return -1;
  const size_t mask = keys_.size() - 1;
  size_t h = mix(corr) & mask;
  while (slots_[h] != UINT32_MAX) {
    if (keys_[h] == corr) return slots_[h];
    h = (h + 1) & mask;
  }
  return -1;
}

std::optional<int64_t> corr_column(sqlite3_stmt* s, int col) {
  if (sqlite3_column_type(s, col) != SQLITE_INTEGER) return std::nullopt;
  return sqlite3_column_int64(s, col);
}

Prefetched::Prefetched(sqlite3* conn, const std::string& sql, const std::string& db, const char* what,
                       void (*extra)(sqlite3_stmt*, const void*), const void* extra_arg)
    : stmt_(prepare(conn, sql, what)), what_(what) {
  sqlite3_bind_text(stmt_.get(), 1, db.data(), static_cast<int>(db.size()), SQLITE_TRANSIENT);
  if (extra) extra(stmt_.get(), extra_arg);
  has_first_ = step(stmt_.get(), what_);
  first_ = true;
}

bool Prefetched::next() {
  if (!stmt_) return false;
  if (first_) {
    first_ = false;
    return has_first_;
  }
  return step(stmt_.get(), what_);
}

Prefetched launch_query(sqlite3* conn, const std::string& db, bool with_thread) {
  return Prefetched(conn,
                    with_thread ? "SELECT correlation_id, start, \"end\", api_id, pid, tid FROM temp.rocpd_apis WHERE db = ?1"
                                : "SELECT correlation_id, start, \"end\", api_id FROM temp.rocpd_apis WHERE db = ?1",
                    db, "reading rocpd_apis");
}

std::vector<LaunchCall> read_launches(Prefetched& query, const std::string& db, const CorrSlots& wanted, bool with_thread,
                                      const char* table) {
  std::vector<LaunchCall> out(wanted.size());
  sqlite3_stmt* s = query.get();
  while (query.next()) {
    const auto corr = corr_column(s, 0);
    if (!corr) continue;
    const int64_t slot = wanted.find(*corr);
    if (slot < 0) continue;
    const auto start = time_column(s, 1, table, db, "start");
    if (!start) continue;
    const int64_t api_id = sqlite3_column_int64(s, 3);
    LaunchCall& c = out[static_cast<size_t>(slot)];
    if (c.found && (c.start < *start || (c.start == *start && c.api_id <= api_id))) continue;
    const auto end = time_column(s, 2, table, db, "end");
    c.found = true;
    c.start = *start;
    c.end = end ? std::max(*end, *start) : *start;
    c.api_id = api_id;
    if (with_thread) {
      c.pid = value_key(s, 4);
      c.tid = value_key(s, 5);
    }
  }
  query.finish();
  return out;
}

}  // namespace rocpd::diagnosis
