// Repeated equality lookups on a column a member cannot look up by index, as on the inner side of
// a join (`rocpd_apis a JOIN rocpd_ops o ON o.db = a.db AND o.correlation_id = a.correlation_id`):
// after a few such lookups, the cursor reads the member source once into memory, keyed by that
// column, and answers every further lookup from there. SQLite's own automatic indexes do the same
// for plain tables; it builds none for virtual tables.
//
// Keys are integers (INTEGER canonical columns). Rows whose key is not an integer (text, a real
// with a fraction, a blob) are returned by every lookup: SQLite re-checks every constraint, so a
// superset is exact, a missing row would not be.
#pragma once
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "members/interrupt.h"
#include "members/row_block.h"

namespace rocpd::federation {

class LookupIndex {
 public:
  // Reads every row of `stmt` (result columns stored with `affinity`); `key_col` is the result
  // column of the key. Stops with "interrupted" when `watch` says so.
  void build(sqlite3_stmt* stmt, std::span<const Affinity> affinity, int key_col);
  // Rows that may match `key = v`, in member order.
  std::span<const uint32_t> find(sqlite3_value* v, std::vector<uint32_t>& scratch) const;
  const members::RowBlock& rows() const { return rows_; }
  size_t bytes() const;

 private:
  members::RowBlock rows_;
  std::unordered_map<int64_t, std::vector<uint32_t>> by_key_;
  std::vector<uint32_t> other_;  // rows whose key is not an integer (NULL keys never match)
};

}  // namespace rocpd::federation
