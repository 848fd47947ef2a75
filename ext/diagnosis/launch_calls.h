// The launch call of each op of a member with every column a table shows of it, values as stored
// (rocpd_launch_stats and rocpd_op_launches show the call's end and name as rocpd_apis holds them;
// analysis/member_read.h's read_member_launches clamps the end for the stack sweep).
#pragma once
#include <vector>

#include "analysis/cell_store.h"
#include "analysis/member_read.h"

namespace rocpd::diagnosis {

using analysis::Cell;
using analysis::CellStore;

struct StoredCall {
  bool found = false;
  int64_t start = 0;
  int64_t api_id = 0;
  Cell end, pid, tid, name;
};

// The calls of member `m` whose correlation_id has a slot in `wanted`, by slot: the one with the
// earliest start, then the smallest api_id, when several share an id; calls with a NULL start are
// no launches, a start that is not an integer is an error naming `table` and the member. Values
// are kept in `cells`.
std::vector<StoredCall> read_stored_calls(const canonical::Member& m, sqlite3* db, const CorrSlots& wanted,
                                          CellStore& cells, const char* table,
                                          const members::InterruptWatch& watch);

}  // namespace rocpd::diagnosis
