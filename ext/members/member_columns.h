// Reads chosen canonical columns of one member straight from its format adapter's sources on a
// connection leased from the registry (members/member_pool.h), without the federated tables in
// between: the diagnosis tables read members on every core this way. Values are exactly those the
// canonical table returns (its column affinity, the member's clock offset on time columns).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/affinity.h"
#include "common/big_alloc.h"
#include "canonical/canonical_tables.h"
#include "canonical/member.h"
#include "members/member_query.h"

namespace rocpd::members {

// `column op value` for an integer value (op: SQLITE_INDEX_CONSTRAINT_GE, _LT, ...).
struct IntBound {
  int column;
  unsigned char op;
  int64_t value;
};

class MemberColumns {
  class LinkMap;

 public:
  // The link tables one reader read (a pass over the member's whole link table each), for the
  // next reader of the same member's same table (a second pass over a window, say).
  class LinkCache {
    friend class MemberColumns;
    std::map<size_t, std::shared_ptr<const LinkMap>> by_source_;  // null: not integers, joined
  };

  // `columns`: canonical column indexes of `kind`'s table; `profile` as the adapter needs it
  // (FormatAdapter::needs_profile; may be null otherwise).
  // `text_equals` (column, text) and `bounds`: only rows that satisfy them are needed; the member
  // query filters by them where that is exact (a hint: callers still check every row themselves).
  // `links`: link tables read before by readers of the same member and table, and kept for later.
  // `only_source`: read that source of the table alone (a prefetch item), else every source.
  // Op names are read by key (SourceSql::name_key: once per distinct key) where the source declares
  // one; API names only with `api_names_by_key`, for readers of launch calls, whose few API names
  // repeat (a roctx message is its own key: read by key, every marker would cost a query).
  MemberColumns(const canonical::Member& m, sqlite3* db, canonical::TableKind kind, std::vector<int> columns,
                const canonical::Profile* profile = nullptr,
                std::optional<std::pair<int, std::string>> text_equals = std::nullopt,
                std::vector<IntBound> bounds = {}, LinkCache* links = nullptr, bool api_names_by_key = false,
                std::optional<size_t> only_source = std::nullopt);
  // Moves to the next row of any source; false after the last. Errors name the table and member.
  bool next();
  // Column `columns[i]` of the current row (text and blobs valid until next()).
  StoredValue operator[](size_t i) const {
    // Inline, the usual case of millions of reads: an integer read as it is stored.
    if (plain_int_[i]) {
      sqlite3_value* v = sqlite3_column_value(stmt_.get(), result_col_[i]);
      if (sqlite3_value_type(v) == SQLITE_INTEGER) {
        token_ = -1;
        StoredValue out;
        out.type = SQLITE_INTEGER;
        out.i = sqlite3_value_int64(v);
        return out;
      }
    }
    return value(i);
  }
  // The same, written into `out` (no copy of the value through the stack: readers that keep
  // rows call this for every value).
  void get(size_t i, StoredValue& out) const;
  // The row's rowid in the canonical table (unique across members, as federation/row_ids.h).
  int64_t rowid() const;
  // The row's rowid in its source, and that source (what rowid() packs).
  int64_t own_rowid() const { return sqlite3_column_int64(stmt_.get(), query_.rowid_index); }
  size_t source() const { return source_; }
  // After reading a name read by key: a number naming that key's name within this reader
  // (equal numbers, equal names), so callers can skip hashing the text; -1 otherwise.
  int64_t name_token() const { return token_; }
  // Whether column `columns[i]` holds one text on every row of the current source (a source
  // predicate's column under its hint: rpd's kind under kind = 'kernel').
  bool fixed(size_t i) const { return constant_[i] != nullptr; }

 private:
  void open(size_t source);
  // Reads the source's link table (SourceSql::link_sql); null when a key or value is not an
  // integer (then the column is read through its join).
  std::shared_ptr<const LinkMap> load_link(const canonical::SourceSql& src);
  [[noreturn]] void fail(const std::string& what, int code) const;
  // operator[] for every case.
  StoredValue value(size_t i) const;
  // The name of the current row through its name key (SourceSql::name_key): read once per
  // distinct key of the source, from the first row that has it.
  StoredValue keyed_name() const;
  struct Name;
  // A name read before, as the current row's value (and its token).
  StoredValue name_value(const Name& n) const;

  const canonical::Member& m_;
  sqlite3* db_;
  const canonical::CanonicalTable& table_;
  std::vector<int> columns_;
  const canonical::Profile* profile_;
  size_t sources_ = 0, source_ = 0;
  uint64_t used_ = 0;
  MemberQuery query_;
  Stmt stmt_;
  std::vector<Affinity> affinity_;  // per requested column
  std::vector<int> result_col_;     // per requested column: result column of stmt_
  // Per requested column: read straight from stmt_ (no name by key, no link) with an affinity that
  // keeps an integer an integer.
  std::vector<uint8_t> plain_int_;
  int linked_ = -1;                 // the requested column read through link_, else -1
  LinkCache* links_;
  // The link table: key -> smallest value. Keys numbered densely (op ids, the usual case) get a
  // direct table, looked up without hashing; others a hash map.
  class LinkMap {
   public:
    // Adds (key, value), keeping the smaller value of a repeated key.
    void add(int64_t key, int64_t value) { pairs_.emplace_back(key, value); }
    // After the last add(): builds the lookup.
    void build();
    const int64_t* find(int64_t key) const;

   private:
    // Megabytes per member (16 bytes a link row): BigVectors, so that inside a BigAllocReuse scope
    // (a diagnosis statement) the next member reuses them instead of faulting in fresh pages.
    BigVector<std::pair<int64_t, int64_t>> pairs_;
    BigVector<int64_t> dense_;
    BigVector<uint8_t> present_;
    int64_t dense_min_ = 0;
    std::unordered_map<int64_t, int64_t> hashed_;
  };
  std::shared_ptr<const LinkMap> link_;
  // Op names by name key: the requested column they stand for, the key's result columns, a query
  // of the name by rowid, and the names read so far (one source's keys: cleared per source).
  using NameKey = std::array<std::pair<int, int64_t>, 2>;  // per key part: (tag, value)
  struct Name {
    NameKey key{};
    int64_t token = 0;
    int type = SQLITE_NULL;
    int64_t i = 0;
    double d = 0;
    std::string bytes;
  };
  int name_col_ = -1;  // the table's name column when read by key, else -1
  int named_ = -1;
  std::vector<int> key_cols_;
  MemberQuery name_query_;
  mutable Stmt name_stmt_;
  struct NameKeyHash {
    size_t operator()(const NameKey& k) const noexcept {
      uint64_t h = 0x9e3779b97f4a7c15ULL;
      for (const auto& [tag, value] : k) h = (h ^ (static_cast<uint64_t>(value) + static_cast<uint64_t>(tag))) * 0xbf58476d1ce4e5b9ULL;
      return static_cast<size_t>(h ^ (h >> 31));
    }
  };
  mutable std::unordered_map<NameKey, Name, NameKeyHash> names_;
  // The same names by the key's first part when it is a small id (string ids, the usual case): one
  // array index per row instead of hashing. Entries point into names_ (its nodes never move).
  static constexpr int64_t kDirectNames = int64_t{1} << 18;  // at most 2 MB of pointers
  mutable std::vector<const Name*> direct_names_;
  mutable int64_t token_ = -1, next_token_ = 0;
  // The hints as constraints: column, op and value (owned by filter_values_).
  std::vector<std::pair<int, unsigned char>> filters_;
  std::vector<Value> filter_values_;
  // Per requested column: the filter value (in filter_values_) whose text it holds on every returned
  // row (a source predicate applied in the member query), else null.
  std::vector<sqlite3_value*> constant_;
};

}  // namespace rocpd::members
