#include "members/member_columns.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "members/member_files.h"
#include "members/member_sql.h"
#include "members/row_ids.h"

namespace rocpd::members {

MemberColumns::MemberColumns(const canonical::Member& m, sqlite3* db, canonical::TableKind kind,
                             std::vector<int> columns, const canonical::Profile* profile,
                             std::optional<std::pair<int, std::string>> text_equals, std::vector<IntBound> bounds,
                             LinkCache* links, bool api_names_by_key, std::optional<size_t> only_source)
    : m_(m), db_(db), table_(canonical::table_of(kind)), columns_(std::move(columns)), profile_(profile), links_(links) {
  if (kind == canonical::TableKind::Ops) name_col_ = canonical::kOpsName;
  else if (kind == canonical::TableKind::Apis && api_names_by_key) name_col_ = canonical::kApisName;
  for (int c : columns_) used_ |= uint64_t{1} << c;
  // The hints' values as sqlite3_values (what the member query binds).
  Stmt make = prepare(db_, "SELECT ?1");
  auto keep = [&](int column, unsigned char op) {
    if (sqlite3_step(make.get()) != SQLITE_ROW) fail(sqlite3_errmsg(db_), sqlite3_errcode(db_));
    filters_.emplace_back(column, op);
    filter_values_.push_back(dup_value(sqlite3_column_value(make.get(), 0)));
    sqlite3_reset(make.get());
  };
  if (text_equals) {
    sqlite3_bind_text(make.get(), 1, text_equals->second.data(), static_cast<int>(text_equals->second.size()),
                      SQLITE_TRANSIENT);
    keep(text_equals->first, SQLITE_INDEX_CONSTRAINT_EQ);
  }
  for (const IntBound& b : bounds) {
    sqlite3_bind_int64(make.get(), 1, b.value);
    keep(b.column, b.op);
  }
  sources_ = shapes_of(kind, m).size();
  size_t first = 0;
  if (only_source) {
    if (*only_source >= sources_) fail(fmt::format("no source {} of this table", *only_source), SQLITE_ERROR);
    first = *only_source;
    sources_ = first + 1;
  }
  if (sources_ > first) open(first);
}

void MemberColumns::fail(const std::string& what, int code) const {
  throw Error(fmt::format("{}: {}: {}{}", table_.name, member_label(m_), what,
                          zstd_reason(m_.path)),
              code);
}

void MemberColumns::open(size_t source) {
  source_ = source;
  try {
    std::vector<PushedConstraint> pushed;
    const uint64_t unpushable = shapes_of(table_.kind, m_).at(source).unpushable;
    for (size_t f = 0; f < filters_.size() && !m_.info.loose_types; ++f)
      if (!(unpushable & (uint64_t{1} << filters_[f].first)))
        pushed.push_back({filters_[f].first, filters_[f].second, Collation::Binary, filter_values_[f].get()});
    const bool id_lists = wants_string_id_lists(table_.kind, used_, pushed);
    auto sources = sources_for(table_.kind, m_, profile_, id_lists ? db_ : nullptr);
    canonical::SourceSql src = std::move(sources.at(source));
    linked_ = -1;
    // A requested column filtered by one of the source's predicates (rpd: kind = 'kernel' as a list
    // of op type ids) holds that text on every row the query returns: it is not selected.
    constant_.assign(columns_.size(), nullptr);
    uint64_t constant_columns = 0;
    for (const PushedConstraint& con : pushed) {
      if (!source_predicate(src, con)) continue;
      for (size_t i = 0; i < columns_.size(); ++i)
        if (columns_[i] == con.column) constant_[i] = con.value;
      constant_columns |= uint64_t{1} << con.column;
    }
    link_.reset();
    const int lc = src.link_column;
    if (lc >= 0 && (used_ & (uint64_t{1} << lc))) {
      if (!links_) {
        link_ = load_link(src);
      } else if (const auto it = links_->by_source_.find(source); it != links_->by_source_.end()) {
        link_ = it->second;
      } else {
        link_ = load_link(src);
        links_->by_source_.emplace(source, link_);
      }
    }
    if (link_) {
      src.expr[static_cast<size_t>(lc)] = src.link_key;
      src.expr_joins[static_cast<size_t>(lc)] = 0;
      for (size_t i = 0; i < columns_.size(); ++i)
        if (columns_[i] == lc) linked_ = static_cast<int>(i);
    }
    named_ = -1;
    key_cols_.clear();
    names_.clear();
    direct_names_.clear();
    name_stmt_.reset();
    uint64_t used = used_ & ~constant_columns;
    const int name_col = name_col_;
    const size_t keys = src.name_key.size();
    if (name_col >= 0 && (used & (uint64_t{1} << name_col)) && keys >= 1 && keys <= 2) {
      // Names by key: the name's own expression (string joins per row) is read once per key.
      name_query_ = build_member_query(src, uint64_t{1} << name_col, {}, true);
      name_stmt_ = prepare(db_, name_query_.sql);
      used &= ~(uint64_t{1} << name_col);
      for (size_t i = 0; i < columns_.size(); ++i)
        if (columns_[i] == name_col) named_ = static_cast<int>(i);
      for (size_t k = 0; k < keys; ++k) {
        src.expr.push_back(src.name_key[k]);
        src.expr_joins.push_back(0);
        used |= uint64_t{1} << (table_.columns.size() + k);
      }
    }
    // Each requested column's affinity is applied on read (affinity_): equal expressions can share.
    query_ = build_member_query(src, used, pushed, false, time_columns(table_), m_.clock_offset.load(), true);
    stmt_ = prepare(db_, query_.sql);
    bind_constraints(stmt_.get(), pushed);
    for (size_t k = 0; named_ >= 0 && k < keys; ++k)
      key_cols_.push_back(query_.select_index[table_.columns.size() + k]);
  } catch (const Error& e) {
    fail(e.what(), e.code());
  }
  result_col_.clear();
  affinity_.clear();
  plain_int_.clear();
  for (size_t i = 0; i < columns_.size(); ++i) {
    const int c = columns_[i];
    const bool computed = (c == name_col_ && named_ >= 0) || constant_[i];
    result_col_.push_back(computed ? -1 : query_.select_index[static_cast<size_t>(c)]);
    const Affinity a = table_.columns[static_cast<size_t>(c)].affinity();
    affinity_.push_back(a);
    const bool direct = static_cast<int>(i) != named_ && static_cast<int>(i) != linked_ && !constant_[i];
    plain_int_.push_back(direct && a != Affinity::Text && a != Affinity::Real);
  }
}

void MemberColumns::LinkMap::build() {
  if (pairs_.empty()) return;
  int64_t lo = pairs_.front().first, hi = lo;
  for (const auto& [k, v] : pairs_) {
    lo = std::min(lo, k);
    hi = std::max(hi, k);
  }
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (range < 4 * pairs_.size() + 4096) {
    dense_min_ = lo;
    dense_.assign(range + 1, 0);
    present_.assign(range + 1, 0);
    for (const auto& [k, v] : pairs_) {
      const uint64_t at = static_cast<uint64_t>(k) - static_cast<uint64_t>(lo);
      if (!present_[at] || v < dense_[at]) dense_[at] = v;
      present_[at] = 1;
    }
  } else {
    for (const auto& [k, v] : pairs_) {
      auto [it, inserted] = hashed_.try_emplace(k, v);
      if (!inserted && v < it->second) it->second = v;
    }
  }
  pairs_ = {};
}

const int64_t* MemberColumns::LinkMap::find(int64_t key) const {
  if (!present_.empty()) {
    const uint64_t at = static_cast<uint64_t>(key) - static_cast<uint64_t>(dense_min_);
    return at < present_.size() && present_[at] ? &dense_[at] : nullptr;
  }
  const auto it = hashed_.find(key);
  return it == hashed_.end() ? nullptr : &it->second;
}

std::shared_ptr<const MemberColumns::LinkMap> MemberColumns::load_link(const canonical::SourceSql& src) {
  auto link = std::make_shared<LinkMap>();
  Stmt stmt = prepare(db_, src.link_sql);
  for (;;) {
    const int rc = sqlite3_step(stmt.get());
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) fail(sqlite3_errmsg(db_), rc);
    sqlite3_value* key = sqlite3_column_value(stmt.get(), 0);
    sqlite3_value* value = sqlite3_column_value(stmt.get(), 1);
    const int value_type = sqlite3_value_type(value);
    if (value_type == SQLITE_NULL) continue;  // min() skips NULLs
    if (sqlite3_value_type(key) != SQLITE_INTEGER || value_type != SQLITE_INTEGER) return nullptr;
    link->add(sqlite3_value_int64(key), sqlite3_value_int64(value));
  }
  link->build();
  return link;
}

bool MemberColumns::next() {
  while (source_ < sources_) {
    const int rc = sqlite3_step(stmt_.get());
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) fail(sqlite3_errmsg(db_), rc);
    stmt_.reset();
    if (source_ + 1 >= sources_) {
      source_ = sources_;
      return false;
    }
    open(source_ + 1);
  }
  return false;
}

StoredValue MemberColumns::keyed_name() const {
  sqlite3_stmt* st = stmt_.get();
  // The row's own rowid is read only when needed (a key part that is not an id, a new key).
  std::optional<int64_t> rowid;
  auto own_rowid = [&] {
    if (!rowid) rowid = sqlite3_value_int64(sqlite3_column_value(st, query_.rowid_index));
    return *rowid;
  };
  NameKey key{};
  for (size_t k = 0; k < key_cols_.size(); ++k) {
    sqlite3_value* part = sqlite3_column_value(st, key_cols_[k]);
    const int type = sqlite3_value_type(part);
    if (type == SQLITE_INTEGER) key[k] = {1, sqlite3_value_int64(part)};
    else if (type != SQLITE_NULL) key[k] = {2, own_rowid()};  // not an id: this row's own name
  }
  const bool direct = key[0].first == 1 && key[0].second >= 0 && key[0].second < kDirectNames;
  const size_t slot = direct ? static_cast<size_t>(key[0].second) : 0;
  if (direct && slot < direct_names_.size() && direct_names_[slot] && direct_names_[slot]->key == key)
    return name_value(*direct_names_[slot]);
  auto [it, inserted] = names_.try_emplace(key);
  Name& n = it->second;
  if (inserted) {
    n.key = key;
    n.token = next_token_++;
    sqlite3_stmt* q = name_stmt_.get();
    sqlite3_reset(q);
    sqlite3_bind_int64(q, name_query_.rowid_param, own_rowid());
    sqlite3_bind_int64(q, name_query_.rowid_param + 1, own_rowid());
    const int rc = sqlite3_step(q);
    if (rc != SQLITE_ROW) {
      names_.erase(it);
      if (rc == SQLITE_DONE) fail("a row vanished while its name was read", SQLITE_ERROR);
      fail(sqlite3_errmsg(db_), rc);
    }
    const StoredValue v = stored_value(q, name_query_.select_index[static_cast<size_t>(name_col_)], Affinity::Text);
    n.type = v.type;
    n.i = v.i;
    n.d = v.d;
    if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB) n.bytes.assign(static_cast<const char*>(v.bytes), static_cast<size_t>(v.length));
  }
  if (direct) {
    if (slot >= direct_names_.size()) direct_names_.resize(slot + 1, nullptr);
    if (!direct_names_[slot]) direct_names_[slot] = &n;
  }
  return name_value(n);
}

StoredValue MemberColumns::name_value(const Name& n) const {
  token_ = n.token;
  StoredValue out;
  out.type = n.type;
  out.i = n.i;
  out.d = n.d;
  out.bytes = n.bytes.data();
  out.length = static_cast<int>(n.bytes.size());
  return out;
}

void MemberColumns::get(size_t i, StoredValue& out) const {
  if (static_cast<int>(i) == named_ || static_cast<int>(i) == linked_ || constant_[i]) {
    out = (*this)[i];
    return;
  }
  token_ = -1;
  stored_value_to(stmt_.get(), result_col_[i], affinity_[i], out);
}

StoredValue MemberColumns::value(size_t i) const {
  if (static_cast<int>(i) == named_) return keyed_name();
  token_ = -1;
  if (sqlite3_value* v = constant_[i]) {
    StoredValue out;
    out.type = SQLITE_TEXT;
    out.bytes = sqlite3_value_text(v);
    out.length = sqlite3_value_bytes(v);
    return out;
  }
  const StoredValue v = stored_value(stmt_.get(), result_col_[i], affinity_[i]);
  if (static_cast<int>(i) != linked_) return v;
  // The join `link key = row key` compares numbers as numbers: 5.0 finds the key 5.
  std::optional<int64_t> key;
  if (v.type == SQLITE_INTEGER) key = v.i;
  else if (v.type == SQLITE_FLOAT && std::isfinite(v.d) && v.d == std::floor(v.d) && std::fabs(v.d) < 9.2e18)
    key = static_cast<int64_t>(v.d);
  StoredValue out;
  if (!key) return out;
  const int64_t* linked = link_->find(*key);
  if (!linked) return out;
  out.type = SQLITE_INTEGER;
  out.i = *linked;
  return out;
}

int64_t MemberColumns::rowid() const {
  return pack_rowid(m_, static_cast<int>(source_), sqlite3_column_int64(stmt_.get(), query_.rowid_index),
                                table_.name);
}

}  // namespace rocpd::members
