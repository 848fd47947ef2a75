// Rowids of the federated tables: unique across members and stable for a row as long as its
// member is one, so SQLite's multi-index OR plans (which de-duplicate by rowid) and users'
// `rowid` see a plain table's behaviour. A row's rowid packs, from the top (63 bits, never
// negative):
//   14 bits                the member's ordinal (Member::ordinal, kMaxMembers)
//   Member::source_bits    the source table within the member (rocprofv3: kernel dispatches,
//                          memory copies, ... of each process in the file)
//   the rest (>= 40 bits)  the row's own rowid in that source table
// A member row whose own rowid does not fit cannot be numbered: an error names it (rpd's session
// offsets, session << 32, fit up to 2^(own bits - 32) sessions).
#pragma once
#include <cstdint>

#include <fmt/format.h>

#include "canonical/member.h"

namespace rocpd::members {

inline constexpr int kOrdinalBits = 14;

inline int own_rowid_bits(const canonical::Member& m) { return 63 - kOrdinalBits - m.source_bits; }

inline int64_t pack_rowid(const canonical::Member& m, int source, int64_t own, const char* table) {
  const int own_bits = own_rowid_bits(m);
  if (own < 0 || own >= (int64_t{1} << own_bits))
    throw Error(fmt::format("{}: member {}: row id {} is outside 0..2^{}-1, the range {} can number", table, m.alias,
                            own, own_bits, table));
  if (source < 0 || source >= (1 << m.source_bits)) throw Error(fmt::format("{}: too many source tables", table));
  return (static_cast<int64_t>(m.ordinal) << (63 - kOrdinalBits)) | (static_cast<int64_t>(source) << own_bits) | own;
}

}  // namespace rocpd::members
