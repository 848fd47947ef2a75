#include "members/row_block.h"

namespace rocpd::members {

Cell RowBlock::stored_cell(const StoredValue& v) {
  Cell cell;
  cell.type = v.type;
  if (v.type == SQLITE_INTEGER) {
    cell.i = v.i;
  } else if (v.type == SQLITE_FLOAT) {
    cell.d = v.d;
  } else if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB) {
    cell.offset = arena.size();
    cell.length = static_cast<uint32_t>(v.length);
    if (v.length) arena.append(static_cast<const char*>(v.bytes), static_cast<size_t>(v.length));
  }
  return cell;
}

void RowBlock::append(sqlite3_stmt* stmt, std::span<const Affinity> affinity) {
  for (size_t c = 0; c < width; ++c) push_column(stmt, static_cast<int>(c), affinity[c]);
  ++rows;
}

void RowBlock::append(sqlite3_stmt* stmt, std::span<const Affinity> affinity, int difference, DurationParts& parts) {
  for (size_t c = 0; c < width; ++c) {
    const int col = static_cast<int>(c);
    if (col == difference) cells.push_back(stored_cell(parts.of(sqlite3_column_value(stmt, col), affinity[c])));
    else push_column(stmt, col, affinity[c]);
  }
  ++rows;
}

void RowBlock::append_values(std::span<const StoredValue> values, std::span<const int64_t> tokens,
                             std::span<const uint8_t> left_out) {
  for (size_t c = 0; c < width; ++c) {
    const StoredValue& v = values[c];
    const bool numbered = v.type == SQLITE_TEXT && tokens[c] >= 0;
    Cell cell;
    if (numbered && tokens[c] < kTextNumbers && left_out[c]) {
      cell.type = v.type;
      cell.offset = kTextLeftOut;
      cell.length = static_cast<uint32_t>(v.length);
    } else {
      cell = stored_cell(v);
    }
    if (numbered) cell.i = tokens[c] + 1;
    cells.push_back(cell);
  }
  ++rows;
}

void RowBlock::result(sqlite3_context* ctx, const Cell& c) const {
  switch (c.type) {
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, c.i); break;
    case SQLITE_FLOAT: sqlite3_result_double(ctx, c.d); break;
    case SQLITE_TEXT:
      sqlite3_result_text(ctx, arena.data() + c.offset, static_cast<int>(c.length), SQLITE_TRANSIENT);
      break;
    case SQLITE_BLOB:
      if (c.length == 0) sqlite3_result_zeroblob(ctx, 0);
      else sqlite3_result_blob(ctx, arena.data() + c.offset, static_cast<int>(c.length), SQLITE_TRANSIENT);
      break;
    default: break;
  }
}

}  // namespace rocpd::members
