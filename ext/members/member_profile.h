// One pass over a member's op and API tables: pids, time bounds, counts, the gpus present and
// the block range index (zones) used to skip members and blocks that cannot match a query.
#pragma once
#include <memory>

#include "members/interrupt.h"
#include "canonical/member.h"

namespace rocpd::members {

// Rows per zone of the block range index: small enough that a 1 % window reads little more
// than 1 % of a member, large enough that the index of a 100k-op member is ~25 entries.
inline constexpr int64_t kRowsPerZone = 4096;

// `db` is the member's connection; with a watch, the pass stops when the user interrupts.
std::shared_ptr<const canonical::Profile> compute_profile(sqlite3* db, const canonical::Member& m, InterruptWatch* watch = nullptr);

}  // namespace rocpd::members
