// Rowids of the federated tables: unique across members and stable for a row as long as its
// member is one, so SQLite's multi-index OR plans (which de-duplicate by rowid) and users'
// `rowid` see a plain table's behaviour. A row's rowid packs, from the top:
//   16 bits  the member's ordinal (Member::ordinal)
//    3 bits  the source table within the member (rocpd: kernel dispatches, memory copies, ...)
//   44 bits  the row's own rowid in that source table
// so it is never negative. A member row whose own rowid lies outside [0, 2^44) cannot be numbered:
// an error names it (no tracer writes such ids; rpd's session offsets reach 2^44 after 4096 sessions).
#pragma once
#include <cstdint>

#include <fmt/format.h>

#include "federation/member.h"

namespace rocpd::federation {

inline constexpr int kOwnRowidBits = 44;
inline constexpr int kSourceBits = 3;

inline int64_t pack_rowid(const Member& m, int source, int64_t own, const char* table) {
  if (own < 0 || own >= (int64_t{1} << kOwnRowidBits))
    throw Error(fmt::format("{}: member {}: row id {} is outside 0..2^{}-1, the range {} can number", table, m.alias,
                            own, kOwnRowidBits, table));
  if (source < 0 || source >= (1 << kSourceBits)) throw Error(fmt::format("{}: too many source tables", table));
  return (static_cast<int64_t>(m.ordinal) << (kOwnRowidBits + kSourceBits)) |
         (static_cast<int64_t>(source) << kOwnRowidBits) | own;
}

}  // namespace rocpd::federation
