// Rows of one federated scan handed to SQLite grouped (docs/federation.md, "Grouped scans"): when
// SQLite plans a GROUP BY or DISTINCT on plain columns of rocpd_ops, rocpd_apis... it lets the
// table deliver the rows with the rows of each group adjacent (sqlite3_vtab_distinct()), and then
// skips its own sorter over every row. The scan's rows are collected here (members read on every
// core as for any scan), put in groups and handed out group by group, the groups in the order
// SQLite's sorter would give them (NULL, numbers, text by BINARY, blobs; DESC where asked), the
// rows of a group in scan order. SQLite still computes every aggregate itself, over exactly the
// rows a plain table holds: only the order changes.
//
// Memory: each row keeps its member, rowid and the statement's other columns (text interned per
// column); past a budget (kGroupedBudget, or ROCPD_GROUPED_BUDGET bytes) the rows go to a private
// temporary SQLite database instead and are read back with ORDER BY, as SQLite's sorter spills.
// So do they past kManyGroups groups (or distinct texts of a column): every group and text costs memory (and the readers
// keep each name read by key), and grouping that many rows in memory gains nothing over a sort; the
// scan then reads its rows again with names as text (federated_table.cpp) into that database.
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/big_alloc.h"
#include "common/sqlite_util.h"
#include "members/interrupt.h"

namespace rocpd::federation {

// Memory of `n` values of T from big_allocate (common/big_alloc.h): arrays of 2 MiB and more are
// advised as huge pages, one page fault per 2 MiB instead of one per 4 KiB (measured: faults were
// most of the host thread's time in a grouped scan of 16 x 100k ops, every query anew). Arrays
// from 256 KiB take a whole huge page too: a member's reordered rows (grouped by db, 100k rows:
// 0.4-0.8 MiB each) are then reused from member to member under the scan's BigAllocReuse instead
// of faulted in 4 KiB at a time for every member.
template <class T>
class BigArray {
 public:
  BigArray() = default;
  explicit BigArray(size_t n) : bytes_(mapped_bytes(n)), p_(n ? static_cast<T*>(big_allocate(bytes_)) : nullptr) {}
  BigArray(BigArray&& o) noexcept : bytes_(std::exchange(o.bytes_, 0)), p_(std::exchange(o.p_, nullptr)) {}
  BigArray& operator=(BigArray&& o) noexcept {
    if (this != &o) {
      release();
      p_ = std::exchange(o.p_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  ~BigArray() { release(); }
  T& operator[](size_t i) { return p_[i]; }
  const T& operator[](size_t i) const { return p_[i]; }
  T* get() const { return p_; }
  explicit operator bool() const { return p_ != nullptr; }

 private:
  static size_t mapped_bytes(size_t n) {
    const size_t bytes = n * sizeof(T);
    return bytes >= (size_t{256} << 10) ? std::max(bytes, size_t{2} << 20) : bytes;
  }
  void release() noexcept {
    if (p_) big_free(p_, bytes_);
    p_ = nullptr;
    bytes_ = 0;
  }
  size_t bytes_ = 0;  // as passed to big_allocate
  T* p_ = nullptr;
};

// One per-row array of a grouped scan. Rows arrive in chunks (never moved: growing one vector
// copied every row again and faulted in fresh pages each time): a small first one, then 2 MiB
// ones. A column whose rows all hold one value (the member when grouped by db, `kind` under
// `kind = 'kernel'`, the type of an all-integer column) keeps that value only. reorder() moves the
// rows into one array in the order of `dest`.
template <class T>
class RowColumn {
 public:
  // Appends the value of row `row` (== the rows appended so far).
  void push(T v, size_t row) {
    if (uniform_) {
      if (row == 0 || v == first_) {
        first_ = v;
        return;
      }
      uniform_ = false;
      for (size_t r = 0; r < row; ++r) append(first_, r);
    }
    append(v, row);
  }
  // Row `row` in arrival order before reorder(), in the new order after.
  T at(size_t row) const {
    if (uniform_) return first_;
    if (flat_) return flat_[row];
    return in_chunk(row);
  }
  // Moves row r to dest[r] (a permutation of the `rows` rows).
  void reorder(const uint32_t* dest, size_t rows) {
    if (uniform_) return;
    flat_ = BigArray<T>(rows);
    for (size_t r = 0; r < std::min(rows, kFirst); ++r) flat_[dest[r]] = chunks_[0][r];
    for (size_t c = 1; c < chunks_.size(); ++c) {
      const size_t base = kFirst + (c - 1) * kBig;
      const size_t n = std::min(kBig, rows - base);
      const T* from = chunks_[c].get();
      for (size_t r = 0; r < n; ++r) flat_[dest[base + r]] = from[r];
    }
    std::vector<BigArray<T>>().swap(chunks_);
  }
  size_t bytes_per_row() const { return uniform_ ? 0 : sizeof(T); }
  void clear() { *this = RowColumn(); }

 private:
  static constexpr size_t kFirst = size_t{1} << 12;              // rows in the first chunk
  static constexpr size_t kBig = (size_t{2} << 20) / sizeof(T);  // rows in the others
  T in_chunk(size_t row) const {
    if (row < kFirst) return chunks_[0][row];
    row -= kFirst;
    return chunks_[1 + row / kBig][row % kBig];
  }
  void append(T v, size_t row) {
    if (row < kFirst) {
      if (chunks_.empty()) chunks_.emplace_back(kFirst);
      chunks_[0][row] = v;
      return;
    }
    row -= kFirst;
    if (row % kBig == 0) chunks_.emplace_back(kBig);
    chunks_[1 + row / kBig][row % kBig] = v;
  }
  bool uniform_ = true;
  T first_{};
  std::vector<BigArray<T>> chunks_;
  BigArray<T> flat_;
};

inline constexpr size_t kGroupedBudget = size_t{384} << 20;
inline constexpr size_t kManyGroups = size_t{1} << 16;

// One value of a row, as its canonical column stores it; text and blob bytes stay valid until the
// row source moves on.
struct RowValue {
  int type = SQLITE_NULL;
  int64_t i = 0;
  double d = 0;
  std::string_view bytes;
  // Text read by key (members/row_block.h): its number + 1 among the texts since the last
  // GroupedRows::new_text_numbers() (equal numbers, equal texts); 0: not numbered.
  int64_t token = 0;
  // A numbered text whose bytes an earlier row of the same numbering carried: `bytes` is empty.
  bool left_out = false;
};

// -1, 0, 1 as SQLite orders a and b in a BINARY ORDER BY (NULL < numbers < text < blob).
int compare_values(const RowValue& a, const RowValue& b);

struct GroupTerm {
  int column = 0;  // canonical column
  bool desc = false;
  friend bool operator==(const GroupTerm&, const GroupTerm&) = default;
};

class GroupedRows {
 public:
  // `terms`: the grouping, in SQLite's order; `stored`: the other columns the statement reads
  // (neither the db column nor a column of the grouping); `member_names`: the member of each
  // index (the db column's value), outliving this object. `budget`: bytes kept in memory. `watch`
  // (outliving this object) stops the temporary database's statements when the user interrupts.
  GroupedRows(std::vector<GroupTerm> terms, std::vector<int> stored, int db_col,
              const std::vector<std::string_view>& member_names, size_t budget, members::InterruptWatch* watch);
  ~GroupedRows();
  GroupedRows(const GroupedRows&) = delete;
  GroupedRows& operator=(const GroupedRows&) = delete;

  // Adds a row: `values` indexed by canonical column (only the grouping's and stored columns are
  // read). `member` indexes member_names; `source` < 256.
  void add(uint32_t member, int source, int64_t rowid, const RowValue* values);
  // The texts' numbers (RowValue::token) of the following rows start anew (another reader's).
  void new_text_numbers();
  // After the last add: orders the groups and makes the first row current.
  void finish();

  bool done() const { return done_; }
  void next();
  uint32_t member() const;
  int source() const;
  int64_t rowid() const;
  // The current row's value of a grouping or stored column (the db column: the member's name).
  RowValue value(int column) const;

  size_t rows() const { return rows_; }
  size_t groups() const { return group_count_; }
  bool spilled() const { return static_cast<bool>(spill_db_); }
  // Past kManyGroups groups, or distinct texts of a column, in memory.
  bool many_groups() const {
    if (spill_db_) return false;
    if (group_count_ > kManyGroups) return true;
    for (const Dict& d : text_)
      if (d.values.size() > kManyGroups) return true;
    return false;
  }
  // The rows so far and every row to come go to the temporary database.
  void spill() {
    if (!spill_db_) start_spill();
  }

 private:
  // Text or blob values of one column, each stored once, numbered in arrival order.
  struct Dict {
    std::deque<std::string> values;
    std::unordered_map<std::string_view, uint32_t> ids;
    size_t bytes = 0;
    std::string_view last;  // the last value looked up, and its id
    uint32_t last_id = 0;
    // Ids by text number (RowValue::token - 1) + 1, 0 when not yet seen: one array read per row
    // instead of hashing the text.
    std::vector<uint32_t> by_token;
    uint32_t id(std::string_view v);
    uint32_t id(std::string_view v, int64_t token, bool left_out);
  };
  // A value without its bytes: type and payload (integer, double bits, or a Dict id).
  struct Packed {
    uint8_t type = SQLITE_NULL;
    uint64_t payload = 0;
    bool operator==(const Packed&) const = default;
  };
  struct KeyHash {
    size_t operator()(const std::vector<Packed>& k) const noexcept;
  };

  static constexpr size_t kFewGroups = 16;
  // The group of `key`, a new one when no row had it.
  uint32_t group_of(const std::vector<Packed>& key);
  Packed pack(size_t slot, const RowValue& v);  // slot: grouping terms first, then stored columns
  RowValue unpack(size_t slot, const Packed& p) const;
  size_t slot_of(int column) const;
  size_t bytes() const;
  void start_spill();
  void spill_row(uint32_t member_source, int64_t rowid, const RowValue* values);
  // `v` with its text's bytes when they were left out (RowValue::left_out).
  RowValue with_bytes(size_t slot, const RowValue& v);
  void read_spill();

  std::vector<GroupTerm> terms_;
  std::vector<int> stored_;
  int db_col_;
  const std::vector<std::string_view>& member_names_;
  size_t budget_;
  members::InterruptWatch* watch_;

  std::vector<Dict> text_, blob_;  // per slot
  std::unordered_map<std::vector<Packed>, uint32_t, KeyHash> group_ids_;
  std::vector<std::vector<Packed>> group_keys_;
  size_t group_count_ = 0;
  std::vector<Packed> key_scratch_;
  uint32_t last_group_ = 0;
  std::vector<int> slot_by_column_;  // canonical column -> slot, -1 when not collected
  RowColumn<uint32_t> member_source_;  // per row: member << 8 | source
  RowColumn<int64_t> rowid_;
  RowColumn<uint32_t> group_;
  struct Column {
    RowColumn<uint8_t> type;
    RowColumn<uint64_t> payload;
  };
  std::vector<Column> stored_values_;  // per stored column, per row
  size_t rows_ = 0;

  // Emission (in memory): rows moved into group order by finish().
  std::vector<uint32_t> group_order_;  // group ids by rank
  std::vector<uint32_t> group_end_;    // rank -> one past its last row
  size_t current_group_ = 0;           // rank of the current row's group
  size_t pos_ = 0;
  void skip_empty_groups();
  bool done_ = true;

  // Past the budget: every row in a private temporary database, read back in group order.
  Db spill_db_;
  Stmt spill_insert_, spill_select_;
  members::ProgressGuard spill_guard_;
};

}  // namespace rocpd::federation
