#include "federation/grouped_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>

#include "members/row_block.h"

namespace rocpd::federation {

namespace {

int type_class(int type) {
  switch (type) {
    case SQLITE_NULL: return 0;
    case SQLITE_INTEGER:
    case SQLITE_FLOAT: return 1;
    case SQLITE_TEXT: return 2;
    default: return 3;
  }
}

// SQLite's comparison of an integer with a double (sqlite3IntFloatCompare), exact.
int compare_int_double(int64_t i, double r) {
  if (r < -9223372036854775808.0) return 1;
  if (r >= 9223372036854775808.0) return -1;
  const auto y = static_cast<int64_t>(r);
  if (i != y) return i < y ? -1 : 1;
  const auto s = static_cast<double>(i);
  return s < r ? -1 : s > r ? 1 : 0;
}

int compare_bytes(std::string_view a, std::string_view b) {
  const size_t n = std::min(a.size(), b.size());
  const int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
  if (c != 0) return c < 0 ? -1 : 1;
  return a.size() == b.size() ? 0 : a.size() < b.size() ? -1 : 1;
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xC2B2AE3D27D4EB4Full;
}

void bind_value(sqlite3_stmt* stmt, int index, const RowValue& v) {
  switch (v.type) {
    case SQLITE_INTEGER: sqlite3_bind_int64(stmt, index, v.i); break;
    case SQLITE_FLOAT: sqlite3_bind_double(stmt, index, v.d); break;
    case SQLITE_TEXT:
      sqlite3_bind_text64(stmt, index, v.bytes.data(), v.bytes.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
      break;
    case SQLITE_BLOB:
      sqlite3_bind_blob64(stmt, index, v.bytes.empty() ? "" : v.bytes.data(), v.bytes.size(), SQLITE_TRANSIENT);
      break;
    default: sqlite3_bind_null(stmt, index); break;
  }
}

}  // namespace

int compare_values(const RowValue& a, const RowValue& b) {
  const int ca = type_class(a.type), cb = type_class(b.type);
  if (ca != cb) return ca < cb ? -1 : 1;
  switch (ca) {
    case 0: return 0;
    case 1:
      if (a.type == SQLITE_INTEGER && b.type == SQLITE_INTEGER) return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
      if (a.type == SQLITE_FLOAT && b.type == SQLITE_FLOAT) return a.d < b.d ? -1 : a.d > b.d ? 1 : 0;
      if (a.type == SQLITE_INTEGER) return compare_int_double(a.i, b.d);
      return -compare_int_double(b.i, a.d);
    default: return compare_bytes(a.bytes, b.bytes);
  }
}

uint32_t GroupedRows::Dict::id(std::string_view v) {
  if (!values.empty() && v == last) return last_id;  // runs of one value (a kind, a name) are common
  auto it = ids.find(v);
  if (it != ids.end()) {
    last = it->first;
    last_id = it->second;
    return it->second;
  }
  const auto next = static_cast<uint32_t>(values.size());
  values.emplace_back(v);
  ids.emplace(values.back(), next);
  last = values.back();
  last_id = next;
  bytes += v.size() + sizeof(std::string) + 48;  // the string, its hash node and bucket
  return next;
}

uint32_t GroupedRows::Dict::id(std::string_view v, int64_t token, bool left_out) {
  // Numbers past a million (a reader with that many distinct names) are hashed as any text (and
  // their bytes never left out: RowBlock's kTextNumbers).
  if (token <= 0 || token > members::kTextNumbers) return id(v);
  const auto at = static_cast<size_t>(token - 1);
  if (at < by_token.size() && by_token[at] != 0) return by_token[at] - 1;
  if (left_out) throw Error("rocpd: grouped scan: a text read by key arrived without its bytes");
  const uint32_t found = id(v);
  if (at >= by_token.size()) by_token.resize(std::max(at + 1, by_token.size() * 2), 0);
  by_token[at] = found + 1;
  return found;
}

void GroupedRows::new_text_numbers() {
  for (Dict& d : text_) d.by_token.clear();
}

size_t GroupedRows::KeyHash::operator()(const std::vector<Packed>& k) const noexcept {
  uint64_t h = 0;
  for (const Packed& p : k) h = mix(mix(h, p.type), p.payload);
  return static_cast<size_t>(h ^ (h >> 29));
}

GroupedRows::GroupedRows(std::vector<GroupTerm> terms, std::vector<int> stored, int db_col,
                         const std::vector<std::string_view>& member_names, size_t budget, members::InterruptWatch* watch)
    : terms_(std::move(terms)),
      stored_(std::move(stored)),
      db_col_(db_col),
      member_names_(member_names),
      budget_(budget),
      watch_(watch),
      text_(terms_.size() + stored_.size()),
      blob_(terms_.size() + stored_.size()),
      stored_values_(stored_.size()) {
  for (size_t i = 0; i < terms_.size() + stored_.size(); ++i) {
    const int c = i < terms_.size() ? terms_[i].column : stored_[i - terms_.size()];
    if (c < 0) continue;
    if (slot_by_column_.size() <= static_cast<size_t>(c)) slot_by_column_.resize(static_cast<size_t>(c) + 1, -1);
    slot_by_column_[static_cast<size_t>(c)] = static_cast<int>(i);
  }
}

GroupedRows::~GroupedRows() = default;

size_t GroupedRows::slot_of(int column) const {
  if (column < 0 || static_cast<size_t>(column) >= slot_by_column_.size() || slot_by_column_[column] < 0)
    throw Error(fmt::format("rocpd: grouped scan: column {} was not collected", column));
  return static_cast<size_t>(slot_by_column_[column]);
}

GroupedRows::Packed GroupedRows::pack(size_t slot, const RowValue& v) {
  Packed p;
  p.type = static_cast<uint8_t>(v.type);
  switch (v.type) {
    case SQLITE_INTEGER: p.payload = static_cast<uint64_t>(v.i); break;
    case SQLITE_FLOAT: p.payload = std::bit_cast<uint64_t>(v.d); break;
    case SQLITE_TEXT: p.payload = text_[slot].id(v.bytes, v.token, v.left_out); break;
    case SQLITE_BLOB: p.payload = blob_[slot].id(v.bytes); break;
    default: p.type = SQLITE_NULL; break;
  }
  return p;
}

RowValue GroupedRows::unpack(size_t slot, const Packed& p) const {
  RowValue v;
  v.type = p.type;
  switch (p.type) {
    case SQLITE_INTEGER: v.i = static_cast<int64_t>(p.payload); break;
    case SQLITE_FLOAT: v.d = std::bit_cast<double>(p.payload); break;
    case SQLITE_TEXT: v.bytes = text_[slot].values[p.payload]; break;
    case SQLITE_BLOB: v.bytes = blob_[slot].values[p.payload]; break;
    default: break;
  }
  return v;
}

size_t GroupedRows::bytes() const {
  size_t per_row = member_source_.bytes_per_row() + rowid_.bytes_per_row() + group_.bytes_per_row();
  for (const Column& c : stored_values_) per_row += c.type.bytes_per_row() + c.payload.bytes_per_row();
  size_t b = rows_ * per_row;
  b += group_count_ * (terms_.size() * sizeof(Packed) + 96);
  for (const Dict& d : text_) b += d.bytes;
  for (const Dict& d : blob_) b += d.bytes;
  return b;
}

void GroupedRows::add(uint32_t member, int source, int64_t rowid, const RowValue* values) {
  if (source < 0 || source > 255 || member >= (uint32_t{1} << 24))
    throw Error("rocpd: grouped scan: member or source out of range");
  const uint32_t ms = member << 8 | static_cast<uint32_t>(source);
  if (spill_db_) return spill_row(ms, rowid, values);
  std::vector<Packed>& key = key_scratch_;
  key.resize(terms_.size());
  for (size_t t = 0; t < terms_.size(); ++t) {
    if (terms_[t].column == db_col_) key[t] = Packed{SQLITE_TEXT, member};
    else key[t] = pack(t, values[terms_[t].column]);
  }
  uint32_t group = last_group_;
  if (group_count_ == 0 || key != group_keys_[group]) {
    group = group_of(key);
    last_group_ = group;
  }
  member_source_.push(ms, rows_);
  rowid_.push(rowid, rows_);
  group_.push(group, rows_);
  for (size_t s = 0; s < stored_.size(); ++s) {
    const Packed p = pack(terms_.size() + s, values[stored_[s]]);
    stored_values_[s].type.push(p.type, rows_);
    stored_values_[s].payload.push(p.payload, rows_);
  }
  ++rows_;
  if ((rows_ & 4095) == 0 && bytes() > budget_) start_spill();
}

uint32_t GroupedRows::group_of(const std::vector<Packed>& key) {
  // A few groups (grouped by db: one member's gpus and kinds, their rows interleaved) are found by
  // comparing the keys, cheaper than hashing every row's key.
  if (group_count_ <= kFewGroups) {
    const auto same = std::find(group_keys_.begin(), group_keys_.end(), key);
    if (same != group_keys_.end()) return static_cast<uint32_t>(same - group_keys_.begin());
  } else if (const auto it = group_ids_.find(key); it != group_ids_.end()) {
    return it->second;
  }
  const auto group = static_cast<uint32_t>(group_count_++);
  group_ids_.emplace(key, group);
  group_keys_.push_back(key);
  return group;
}

void GroupedRows::finish() {
  pos_ = 0;
  if (!spill_db_ && bytes() > budget_) start_spill();
  if (spill_db_) return read_spill();
  std::vector<uint32_t> groups(group_count_);
  std::iota(groups.begin(), groups.end(), 0);
  auto term_value = [&](uint32_t g, size_t t) {
    const Packed& p = group_keys_[g][t];
    if (terms_[t].column == db_col_) {
      RowValue v;
      v.type = SQLITE_TEXT;
      v.bytes = member_names_[p.payload];
      return v;
    }
    return unpack(t, p);
  };
  // Groups that SQLite finds equal (an integer and a double of the same value) sort together.
  std::stable_sort(groups.begin(), groups.end(), [&](uint32_t a, uint32_t b) {
    for (size_t t = 0; t < terms_.size(); ++t) {
      const int c = compare_values(term_value(a, t), term_value(b, t));
      if (c != 0) return terms_[t].desc ? c > 0 : c < 0;
    }
    return false;
  });
  // Rows are moved into group order (a counting sort: every array read in arrival order, written
  // at one cursor per group), so that SQLite then reads them sequentially.
  std::vector<uint32_t> rank(group_count_);
  for (size_t r = 0; r < groups.size(); ++r) rank[groups[r]] = static_cast<uint32_t>(r);
  std::vector<uint32_t> start(group_count_ + 1, 0);  // rank -> first position
  for (size_t row = 0; row < rows_; ++row) ++start[rank[group_.at(row)] + 1];
  for (size_t r = 0; r < group_count_; ++r) start[r + 1] += start[r];
  group_end_.assign(start.begin() + 1, start.end());
  BigArray<uint32_t> dest(rows_);
  for (size_t row = 0; row < rows_; ++row) dest[row] = start[rank[group_.at(row)]]++;
  group_.clear();
  member_source_.reorder(dest.get(), rows_);
  rowid_.reorder(dest.get(), rows_);
  for (auto& c : stored_values_) {
    c.type.reorder(dest.get(), rows_);
    c.payload.reorder(dest.get(), rows_);
  }
  group_order_ = std::move(groups);
  group_ids_ = {};
  current_group_ = 0;
  done_ = rows_ == 0;
  if (!done_) skip_empty_groups();
}

void GroupedRows::skip_empty_groups() {
  while (current_group_ < group_end_.size() && group_end_[current_group_] <= pos_) ++current_group_;
}

void GroupedRows::next() {
  if (spill_select_) {
    done_ = !step(spill_select_.get(), "rocpd: grouped scan (temporary database)");
    return;
  }
  done_ = ++pos_ >= rows_;
  if (!done_) skip_empty_groups();
}

uint32_t GroupedRows::member() const {
  if (spill_select_) return static_cast<uint32_t>(sqlite3_column_int64(spill_select_.get(), 0)) >> 8;
  return member_source_.at(pos_) >> 8;
}

int GroupedRows::source() const {
  if (spill_select_) return static_cast<int>(sqlite3_column_int64(spill_select_.get(), 0) & 0xFF);
  return static_cast<int>(member_source_.at(pos_) & 0xFF);
}

int64_t GroupedRows::rowid() const {
  if (spill_select_) return sqlite3_column_int64(spill_select_.get(), 1);
  return rowid_.at(pos_);
}

RowValue GroupedRows::value(int column) const {
  if (column == db_col_) {
    RowValue v;
    v.type = SQLITE_TEXT;
    v.bytes = member_names_[member()];
    return v;
  }
  const size_t slot = slot_of(column);
  if (spill_select_) {
    sqlite3_stmt* st = spill_select_.get();
    const int c = static_cast<int>(2 + slot);
    RowValue v;
    v.type = sqlite3_column_type(st, c);
    if (v.type == SQLITE_INTEGER) v.i = sqlite3_column_int64(st, c);
    else if (v.type == SQLITE_FLOAT) v.d = sqlite3_column_double(st, c);
    else if (v.type == SQLITE_TEXT)
      v.bytes = {reinterpret_cast<const char*>(sqlite3_column_text(st, c)), static_cast<size_t>(sqlite3_column_bytes(st, c))};
    else if (v.type == SQLITE_BLOB) {
      const void* b = sqlite3_column_blob(st, c);
      v.bytes = {static_cast<const char*>(b), static_cast<size_t>(sqlite3_column_bytes(st, c))};
    }
    return v;
  }
  const size_t row = pos_;
  if (slot < terms_.size()) return unpack(slot, group_keys_[group_order_[current_group_]][slot]);
  const auto& col = stored_values_[slot - terms_.size()];
  return unpack(slot, Packed{col.type.at(row), col.payload.at(row)});
}

void GroupedRows::start_spill() {
  sqlite3* raw = nullptr;
  // A private temporary database: SQLite creates its file in its temporary directory and deletes
  // it when the connection closes (as its sorter does with the spills of a plain table's GROUP BY).
  const int rc = sqlite3_open_v2("", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  Db db(raw);
  if (rc != SQLITE_OK)
    throw Error(fmt::format("rocpd: grouped scan: cannot open a temporary database: {}",
                            raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc)),
                rc);
  std::string cols = "ms INTEGER, rid INTEGER";
  std::string params = "?1, ?2";
  for (size_t s = 0; s < terms_.size() + stored_.size(); ++s) {
    cols += fmt::format(", c{}", s);
    params += fmt::format(", ?{}", s + 3);
  }
  exec(db.get(), "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -8192",
       "rocpd: grouped scan (temporary database)");
  exec(db.get(), fmt::format("CREATE TABLE s({}); BEGIN", cols).c_str(), "rocpd: grouped scan (temporary database)");
  spill_insert_ = prepare(db.get(), fmt::format("INSERT INTO s VALUES ({})", params), "rocpd: grouped scan");
  spill_db_ = std::move(db);
  spill_guard_ = members::ProgressGuard(spill_db_.get(), watch_, true);
  // The rows so far, in arrival order.
  std::vector<RowValue> values;
  for (size_t row = 0; row < rows_; ++row) {
    sqlite3_stmt* st = spill_insert_.get();
    const uint32_t ms = member_source_.at(row);
    sqlite3_bind_int64(st, 1, ms);
    sqlite3_bind_int64(st, 2, rowid_.at(row));
    const auto& key = group_keys_[group_.at(row)];
    for (size_t t = 0; t < terms_.size(); ++t) {
      RowValue v;
      if (terms_[t].column == db_col_) {
        v.type = SQLITE_TEXT;
        v.bytes = member_names_[ms >> 8];
      } else {
        v = unpack(t, key[t]);
      }
      bind_value(st, static_cast<int>(t + 3), v);
    }
    for (size_t s = 0; s < stored_.size(); ++s) {
      const auto& col = stored_values_[s];
      bind_value(st, static_cast<int>(terms_.size() + s + 3),
                 unpack(terms_.size() + s, Packed{col.type.at(row), col.payload.at(row)}));
    }
    step(st, "rocpd: grouped scan (temporary database)");
    sqlite3_reset(st);
  }
  // Everything is in the database now.
  group_ids_ = {};
  last_group_ = 0;
  group_keys_ = {};
  group_count_ = 0;
  member_source_.clear();
  rowid_.clear();
  group_.clear();
  for (auto& c : stored_values_) c = {};
  // The texts stay: a numbered text of the rows to come may arrive without its bytes (with_bytes).
  for (auto& d : blob_) d = {};
}

void GroupedRows::spill_row(uint32_t member_source, int64_t rowid, const RowValue* values) {
  sqlite3_stmt* st = spill_insert_.get();
  sqlite3_bind_int64(st, 1, member_source);
  sqlite3_bind_int64(st, 2, rowid);
  for (size_t t = 0; t < terms_.size(); ++t) {
    if (terms_[t].column == db_col_) {
      const std::string_view name = member_names_[member_source >> 8];
      sqlite3_bind_text64(st, static_cast<int>(t + 3), name.data(), name.size(), SQLITE_STATIC, SQLITE_UTF8);
    } else {
      bind_value(st, static_cast<int>(t + 3), with_bytes(t, values[terms_[t].column]));
    }
  }
  for (size_t s = 0; s < stored_.size(); ++s)
    bind_value(st, static_cast<int>(terms_.size() + s + 3), with_bytes(terms_.size() + s, values[stored_[s]]));
  step(st, "rocpd: grouped scan (temporary database)");
  sqlite3_reset(st);
  ++rows_;
}

RowValue GroupedRows::with_bytes(size_t slot, const RowValue& v) {
  if (v.type != SQLITE_TEXT || v.token <= 0) return v;
  RowValue out = v;
  out.bytes = text_[slot].values[text_[slot].id(v.bytes, v.token, v.left_out)];
  out.left_out = false;
  return out;
}

void GroupedRows::read_spill() {
  exec(spill_db_.get(), "COMMIT", "rocpd: grouped scan (temporary database)");
  std::string order;
  for (size_t t = 0; t < terms_.size(); ++t) order += fmt::format("c{}{}, ", t, terms_[t].desc ? " DESC" : "");
  spill_insert_.reset();
  spill_select_ = prepare(spill_db_.get(), fmt::format("SELECT * FROM s ORDER BY {}rowid", order),
                          "rocpd: grouped scan (temporary database)");
  group_count_ = 0;  // not counted on this path
  done_ = !step(spill_select_.get(), "rocpd: grouped scan (temporary database)");
}

}  // namespace rocpd::federation
