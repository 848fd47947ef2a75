#include "federation/lookup_index.h"

#include <algorithm>
#include <cmath>

namespace rocpd::federation {

namespace {
// The integer an SQL value equals, if any (an integral real equals that integer in SQLite).
bool integer_of(int type, int64_t i, double d, int64_t& out) {
  if (type == SQLITE_INTEGER) {
    out = i;
    return true;
  }
  if (type == SQLITE_FLOAT && std::isfinite(d) && d == std::trunc(d) && d >= -9223372036854775808.0 &&
      d < 9223372036854775808.0) {
    out = static_cast<int64_t>(d);
    return true;
  }
  return false;
}
}  // namespace

void LookupIndex::build(sqlite3_stmt* stmt, std::span<const Affinity> affinity, int key_col) {
  rows_.width = affinity.size();
  for (;;) {
    const int rc = sqlite3_step(stmt);
    if (rc == SQLITE_DONE) break;
    if (rc == SQLITE_INTERRUPT) throw Error("interrupted", SQLITE_INTERRUPT);
    if (rc != SQLITE_ROW) throw Error(sqlite3_errmsg(sqlite3_db_handle(stmt)), rc);
    rows_.append(stmt, affinity);
    const auto row = static_cast<uint32_t>(rows_.rows - 1);
    const members::Cell& key = rows_.at(row, static_cast<size_t>(key_col));
    int64_t k = 0;
    if (integer_of(key.type, key.i, key.type == SQLITE_FLOAT ? key.d : 0.0, k)) by_key_[k].push_back(row);
    else if (key.type != SQLITE_NULL) other_.push_back(row);
  }
}

std::span<const uint32_t> LookupIndex::find(sqlite3_value* v, std::vector<uint32_t>& scratch) const {
  int64_t k = 0;
  const int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL) return {};
  const bool integral = integer_of(type, type == SQLITE_INTEGER ? sqlite3_value_int64(v) : 0,
                                   type == SQLITE_FLOAT ? sqlite3_value_double(v) : 0.0, k);
  const auto it = integral ? by_key_.find(k) : by_key_.end();
  if (other_.empty()) {
    if (it == by_key_.end()) return {};
    return it->second;
  }
  scratch.clear();
  if (it != by_key_.end()) scratch = it->second;
  scratch.insert(scratch.end(), other_.begin(), other_.end());
  std::sort(scratch.begin(), scratch.end());
  return scratch;
}

size_t LookupIndex::bytes() const {
  return rows_.bytes() + by_key_.size() * 64 + rows_.rows * sizeof(uint32_t) + other_.capacity() * sizeof(uint32_t);
}

}  // namespace rocpd::federation
