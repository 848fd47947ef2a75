// Values read from a member (StoredValue) kept compactly for a table's rows: 16 bytes a cell,
// text and blobs interned once per distinct value (kinds, kernel and API names repeat), so a
// member's rows of many columns fit in memory while they are handed out.
#pragma once
#include <cstdint>
#include <vector>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/affinity.h"

namespace rocpd::analysis {

struct Cell {
  union {
    int64_t i;
    double d;
    uint32_t text;  // index into the store's strings
  };
  int type = SQLITE_NULL;
  Cell() : i(0) {}
};

class CellStore {
 public:
  CellStore() = default;
  CellStore(CellStore&&) = default;  // the map's nodes, which strings_ points at, move along
  CellStore& operator=(CellStore&&) = default;
  CellStore(const CellStore&) = delete;

  Cell keep(const StoredValue& v) {
    Cell c;
    c.type = v.type;
    if (v.type == SQLITE_INTEGER) c.i = v.i;
    else if (v.type == SQLITE_FLOAT) c.d = v.d;
    else if (v.type == SQLITE_TEXT || v.type == SQLITE_BLOB) {
      std::string key(1, v.type == SQLITE_TEXT ? 't' : 'b');  // equal bytes of either type stay apart
      if (v.length > 0) key.append(static_cast<const char*>(v.bytes), static_cast<size_t>(v.length));
      auto [it, added] = index_.try_emplace(std::move(key), static_cast<uint32_t>(strings_.size()));
      if (added) strings_.push_back(&it->first);
      c.text = it->second;
    }
    return c;
  }
  Cell integer(int64_t n) const {
    Cell c;
    c.type = SQLITE_INTEGER;
    c.i = n;
    return c;
  }
  // The value a cell holds, as MemberColumns hands values out (text valid while the store lives).
  StoredValue stored(const Cell& c) const {
    StoredValue v;
    v.type = c.type;
    if (c.type == SQLITE_INTEGER) v.i = c.i;
    else if (c.type == SQLITE_FLOAT) v.d = c.d;
    else if (c.type == SQLITE_TEXT || c.type == SQLITE_BLOB) {
      const std::string& s = *strings_[c.text];
      v.bytes = s.data() + 1;
      v.length = static_cast<int>(s.size() - 1);
    }
    return v;
  }
  void result(sqlite3_context* ctx, const Cell& c) const {
    switch (c.type) {
      case SQLITE_INTEGER: sqlite3_result_int64(ctx, c.i); break;
      case SQLITE_FLOAT: sqlite3_result_double(ctx, c.d); break;
      case SQLITE_TEXT:
      case SQLITE_BLOB: {
        const std::string& s = *strings_[c.text];
        StoredValue v;
        v.type = c.type;
        v.bytes = s.data() + 1;
        v.length = static_cast<int>(s.size() - 1);
        result_stored(ctx, v);
        break;
      }
      default: sqlite3_result_null(ctx); break;
    }
  }

 private:
  std::unordered_map<std::string, uint32_t> index_;  // node-based: keys stay where they are
  std::vector<const std::string*> strings_;
};

}  // namespace rocpd::analysis
