#include "federation/db_pick.h"

#include <algorithm>

#include "common/sqlite_util.h"

namespace rocpd::federation {

std::optional<std::string> db_value(sqlite3_value* v) {
  const int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL || type == SQLITE_BLOB) return std::nullopt;
  if (type == SQLITE_TEXT)
    return std::string(reinterpret_cast<const char*>(sqlite3_value_text(v)), static_cast<size_t>(sqlite3_value_bytes(v)));
  Value copy = dup_value(v);
  const auto* text = sqlite3_value_text(copy.get());
  if (!text) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_value_bytes(copy.get())));
}

std::vector<size_t> picked_members(const members::Registry::MemberList& list, sqlite3_value* v, bool in_list) {
  std::vector<size_t> pick;
  auto add = [&](sqlite3_value* value) {
    if (auto name = db_value(value)) {
      auto it = list.index.find(*name);
      if (it != list.index.end()) pick.push_back(it->second);
    }
  };
  if (in_list) {
    sqlite3_value* item = nullptr;
    int rc = sqlite3_vtab_in_first(v, &item);
    for (; rc == SQLITE_OK && item; rc = sqlite3_vtab_in_next(v, &item)) add(item);
    if (rc != SQLITE_OK && rc != SQLITE_DONE) throw Error("rocpd: cannot read the values of db IN (...)", rc);
  } else {
    add(v);
  }
  std::sort(pick.begin(), pick.end());
  pick.erase(std::unique(pick.begin(), pick.end()), pick.end());
  return pick;
}

}  // namespace rocpd::federation
