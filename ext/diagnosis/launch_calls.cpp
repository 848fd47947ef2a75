#include "diagnosis/launch_calls.h"

#include "federation/interrupt.h"
#include "federation/member_columns.h"

namespace rocpd::diagnosis {

std::vector<StoredCall> read_stored_calls(const federation::Member& m, sqlite3* db, const CorrSlots& wanted,
                                          CellStore& cells, const char* table,
                                          const federation::InterruptWatch& watch) {
  using namespace federation;
  std::vector<StoredCall> out(wanted.size());
  if (wanted.size() == 0) return out;
  MemberColumns rows(m, db, TableKind::Apis, {kApisCorrelationId, kApisStart, kApisEnd, kApisApiId, kApisPid, kApisTid,
                                              kApisName});
  uint64_t read = 0;
  while (rows.next()) {
    if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
    const StoredValue corr = rows[0];
    if (corr.type != SQLITE_INTEGER) continue;
    const int64_t slot = wanted.find(corr.i);
    if (slot < 0) continue;
    const auto start = time_value(rows[1], table, m.alias, "start");
    if (!start) continue;
    const int64_t api_id = launch_order(rows[3]);
    StoredCall& c = out[static_cast<size_t>(slot)];
    if (!better_launch(c.found, c.start, c.api_id, *start, api_id)) continue;
    c.found = true;
    c.start = *start;
    c.api_id = api_id;
    c.end = cells.keep(rows[2]);
    c.pid = cells.keep(rows[4]);
    c.tid = cells.keep(rows[5]);
    c.name = cells.keep(rows[6]);
  }
  return out;
}

}  // namespace rocpd::diagnosis
