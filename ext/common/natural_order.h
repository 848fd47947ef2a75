// Natural order of names: digit runs compare by their numeric value, so rank2 sorts before rank10
// (text order puts rank10 first). The order of members wherever the extension lists them
// (rocpd_members, the per-db tables and views) and the SQL collation `rocpd_natural`.
#pragma once
#include <string_view>

#include "common/sqlite_util.h"

namespace rocpd {

// < 0, 0 or > 0 as `a` sorts before, equal to, or after `b`. A name is a sequence of tokens: runs
// of ASCII digits and single other bytes. Tokens compare as: two digit runs by value (leading
// zeros ignored: "007" = "7"), a digit run and a byte as the run's first digit and the byte, two
// bytes as unsigned bytes; a sequence that is a prefix of the other sorts first. Names equal by
// that rule ("rank01", "rank1") are ordered by their bytes, so the result is 0 only for equal
// bytes and the order is total (a valid collation: transitive, antisymmetric).
int natural_compare(std::string_view a, std::string_view b) noexcept;

inline bool natural_less(std::string_view a, std::string_view b) noexcept { return natural_compare(a, b) < 0; }

// Registers the collation rocpd_natural (natural_compare) on `db`; each capability whose SQL or
// tables use it calls this (registering it again changes nothing). Throws on failure.
void register_natural_collation(sqlite3* db);

}  // namespace rocpd
