// Rows copied out of member statements into flat cells: what prefetch threads hand to the host
// thread and what the lookup index keeps. Values are converted as the canonical column's declared
// type would store them (common/affinity.h), so a copied row reads exactly like a stored one.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/affinity.h"
#include "members/duration_parts.h"

namespace rocpd::members {

// Texts numbered below this (append_values) may be left out of the arena after their first row.
inline constexpr int64_t kTextNumbers = int64_t{1} << 20;
inline constexpr uint64_t kTextLeftOut = UINT64_MAX;  // Cell::offset of a text left out

// One value (text and blobs live in the block's arena). 24 bytes, not 40: prefetch threads write
// every cell of a scan and the host reads it back, and their cache misses on the cells were the
// largest single cost of a grouped scan (bench/bench_grouped.py). `d` is meant for a FLOAT cell
// only, `offset` for a TEXT or BLOB one.
struct Cell {
  int64_t i = 0;  // text read by name key (append_values): its token + 1 (equal tokens, equal texts)
  union {
    double d = 0;
    uint64_t offset;
  };
  int type = SQLITE_NULL;
  uint32_t length = 0;
};
static_assert(sizeof(Cell) == 24);

struct RowBlock {
  size_t width = 0;  // cells per row: the member query's result columns
  std::vector<Cell> cells;
  std::string arena;
  size_t rows = 0;

  // Appends the current row of `stmt`; result column c is stored with affinity[c].
  void append(sqlite3_stmt* stmt, std::span<const Affinity> affinity);
  // The same, result column `difference` a duration's `end - start` that `parts` finishes
  // (OpenMemberQuery::duration_difference).
  void append(sqlite3_stmt* stmt, std::span<const Affinity> affinity, int difference, DurationParts& parts);
  // Appends a row of `width` values already stored as their columns store them; `tokens[c]` >= 0
  // numbers the text of value c among the texts of column c from the same reader (equal numbers,
  // equal texts). `left_out[c]`: a numbered text whose bytes an earlier row of the reader carried
  // (only for numbers below kTextNumbers): its cell keeps the number and length, not the bytes.
  void append_values(std::span<const StoredValue> values, std::span<const int64_t> tokens,
                     std::span<const uint8_t> left_out);
  // The cell of a value, its text or blob bytes copied into the arena.
  Cell stored_cell(const StoredValue& v);
  const Cell& at(size_t row, size_t col) const { return cells[row * width + col]; }
  // A text left out (append_values) reads as "": its reader resolves it by number.
  std::string_view text(const Cell& c) const {
    if (c.offset == kTextLeftOut) return {};
    return {arena.data() + c.offset, c.length};
  }
  size_t bytes() const { return cells.capacity() * sizeof(Cell) + arena.capacity(); }
  void result(sqlite3_context* ctx, const Cell& c) const;

 private:
  // Result column `col` of `stmt` as a column of affinity `a` stores it, as a new cell.
  void push_column(sqlite3_stmt* stmt, int col, Affinity a) {
    // Inline, the usual case: an integer that its column keeps an integer.
    sqlite3_value* v = sqlite3_column_value(stmt, col);
    if (sqlite3_value_type(v) == SQLITE_INTEGER && keeps_integer(a)) {
      Cell& cell = cells.emplace_back();
      cell.type = SQLITE_INTEGER;
      cell.i = sqlite3_value_int64(v);
      return;
    }
    cells.push_back(stored_cell(stored_value(stmt, col, a)));
  }
};

}  // namespace rocpd::members
