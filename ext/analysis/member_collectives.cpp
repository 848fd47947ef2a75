#include "analysis/member_collectives.h"

#include <algorithm>
#include <bit>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/collective_family.h"
#include "analysis/comm_class.h"
#include "members/member_columns.h"

namespace rocpd::analysis {

namespace {

// A cell's value as a key: equal keys, equal values (text by its interned index within the member).
std::pair<int, int64_t> cell_key(const Cell& c) {
  if (c.type == SQLITE_FLOAT) return {c.type, std::bit_cast<int64_t>(c.d)};
  if (c.type == SQLITE_TEXT || c.type == SQLITE_BLOB) return {c.type, static_cast<int64_t>(c.text)};
  return {c.type, c.type == SQLITE_INTEGER ? c.i : 0};
}

}  // namespace

MemberCollectivesRead read_member_collectives(const canonical::Member& m, sqlite3* conn,
                                              const members::InterruptWatch& watch,
                                              const canonical::Profile* profile, const char* table) {
  using namespace canonical;
  using namespace members;
  using analysis::CommClass;
  MemberCollectivesRead out;
  CellStore& cells = out.collectives.cells;
  std::unordered_map<int64_t, int32_t> family_by_token;  // kernel names read by key: classified once each
  std::map<std::string, uint32_t> family_index;
  std::map<std::tuple<int, int64_t, int, int64_t>, uint32_t> participants;
  struct Raw {
    CollectiveRow row;
    uint32_t family, participant;
  };
  std::vector<Raw> raw;
  auto family_of = [&](const StoredValue& name) -> int32_t {
    if (analysis::kernel_class(name) != CommClass::Comm) return -1;
    const std::string_view text(static_cast<const char*>(name.bytes), static_cast<size_t>(name.length));
    auto [it, added] = family_index.try_emplace(collective_family(text), static_cast<uint32_t>(family_index.size()));
    if (added) out.families.push_back(it->first);
    return static_cast<int32_t>(it->second);
  };
  // Only kernels can be collectives: the member skips the other ops (kind_class checks again).
  MemberColumns ops(m, conn, TableKind::Ops,
                    {kOpsPid, kOpsGpu, kOpsQueue, kOpsStream, kOpsKind, kOpsName, kOpsStart, kOpsEnd, kOpsOpId},
                    profile, std::pair<int, std::string>{kOpsKind, "kernel"});
  uint64_t read = 0;
  while (ops.next()) {
    if ((++read & 0xffff) == 0 && watch.stopped()) InterruptWatch::raise();
    if (analysis::kind_class(ops[4]) != CommClass::Compute) continue;  // kernels only
    const StoredValue name = ops[5];
    int32_t family = -1;
    if (const int64_t token = ops.name_token(); token >= 0) {
      auto [it, added] = family_by_token.try_emplace(token, -1);
      if (added) it->second = family_of(name);
      family = it->second;
    } else {
      family = family_of(name);
    }
    if (family < 0) continue;
    const auto start = analysis::time_value(ops[6], table, m.alias, "start");
    const auto end = analysis::time_value(ops[7], table, m.alias, "end");
    if (!start || !end) continue;
    Raw r;
    r.row.rowid = ops.rowid();
    r.row.pid = cells.keep(ops[0]);
    r.row.gpu = cells.keep(ops[1]);
    r.row.queue = cells.keep(ops[2]);
    r.row.stream = cells.keep(ops[3]);
    r.row.name = cells.keep(name);
    r.row.op_id = cells.keep(ops[8]);
    r.row.start = *start;
    r.row.end = *end;
    const auto [pk, pv] = cell_key(r.row.pid);
    const auto [gk, gv] = cell_key(r.row.gpu);
    const auto [at, added] = participants.try_emplace({pk, pv, gk, gv}, static_cast<uint32_t>(participants.size()));
    if (added) out.participant_pid.push_back(analysis::value_key(ops[0]));
    r.participant = at->second;
    r.family = static_cast<uint32_t>(family);
    raw.push_back(std::move(r));
  }
  std::sort(raw.begin(), raw.end(), [](const Raw& a, const Raw& b) {
    return a.row.start != b.row.start ? a.row.start < b.row.start : a.row.rowid < b.row.rowid;
  });
  for (Raw& r : raw) {
    out.collectives.rows.push_back(r.row);
    out.local_family.push_back(r.family);
    out.local_participant.push_back(r.participant);
  }
  return out;
}


}  // namespace rocpd::analysis
