// Which members a query reads: the one helper every analysis table asks, first for the members'
// names and ordinals (what a scan visits, in its order), then for the members themselves (what
// MemberPool reads on every core). Both come from the connection's member registry.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/sqlite_util.h"
#include "members/registry.h"

namespace rocpd::analysis {

// A member to visit: its name and ordinal (temp.rocpd_members.rowid, stable while it is one).
struct MemberRef {
  std::string db;
  int64_t ordinal = 0;
};

// The members a scan visits, in natural order of their names (rank2 before rank10): every member
// of temp.rocpd_members, or only `db` when given.
std::vector<MemberRef> query_members(sqlite3* conn, const std::optional<std::string>& db);

// The registry of `conn` and its members named in `refs` (query_members order), for MemberPool.
// Nothing to read gives an empty set; members but no registry is an error naming `table`.
struct MemberSet {
  std::shared_ptr<members::Registry> registry;
  std::vector<canonical::MemberPtr> members;
};
MemberSet open_members(sqlite3* conn, std::span<const MemberRef> refs, const char* table);

}  // namespace rocpd::analysis
