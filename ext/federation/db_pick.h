// Members picked by `db = x` or `db IN (...)` (handed over whole: sqlite3_vtab_in): found through
// the member list's name index, so that picking 8 of 10,000 members costs what the 8 cost.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "members/registry.h"

namespace rocpd::federation {

// The text a `db =` value compares as against the TEXT column db (SQLite converts numbers to
// text there; a blob never equals text); nullopt when no member name can equal it.
std::optional<std::string> db_value(sqlite3_value* v);

// Indexes in `list` (ascending, each once) of the members `v` names: one value, or with
// `in_list` every value of the IN list `v`.
std::vector<size_t> picked_members(const members::Registry::MemberList& list, sqlite3_value* v, bool in_list);

}  // namespace rocpd::federation
