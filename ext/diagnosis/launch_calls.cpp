#include "diagnosis/launch_calls.h"

#include "members/interrupt.h"
#include "members/member_columns.h"

namespace rocpd::diagnosis {

using namespace analysis;

std::vector<StoredCall> read_stored_calls(const canonical::Member& m, sqlite3* db, const CorrSlots& wanted,
                                          CellStore& cells, const char* table,
                                          const members::InterruptWatch& watch) {
  using namespace canonical;
  using namespace members;
  std::vector<StoredCall> out(wanted.size());
  if (wanted.size() == 0) return out;
  MemberColumns rows(m, db, TableKind::Apis,
                     {kApisCorrelationId, kApisStart, kApisEnd, kApisApiId, kApisPid, kApisTid, kApisName}, nullptr,
                     std::nullopt, {}, nullptr, true);
  scan_best_launches(
      rows, wanted, out, table, m.alias,
      [&](StoredCall& c, int64_t) {
        c.end = cells.keep(rows[2]);
        c.pid = cells.keep(rows[4]);
        c.tid = cells.keep(rows[5]);
        c.name = cells.keep(rows[6]);
      },
      &watch);
  return out;
}

}  // namespace rocpd::diagnosis
