#include "ranks/job_collectives.h"

#include <algorithm>
#include <bit>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/comm_class.h"
#include "formats/adapter.h"
#include "members/interrupt.h"
#include "members/member_columns.h"
#include "members/member_pool.h"
#include "analysis/collective_family.h"

namespace rocpd::ranks {

using namespace analysis;
namespace {

// A member's collectives as read, families and participants numbered within the member.
struct MemberRead {
  MemberCollectives collectives;
  std::vector<std::string> families;  // member-local family ids
  std::vector<uint32_t> local_family;  // per row
  std::vector<uint32_t> local_participant;  // per row
  std::vector<analysis::GpuKey> participant_pid;  // per member-local participant
};

// A cell's value as a key: equal keys, equal values (text by its interned index within the member).
std::pair<int, int64_t> cell_key(const Cell& c) {
  if (c.type == SQLITE_FLOAT) return {c.type, std::bit_cast<int64_t>(c.d)};
  if (c.type == SQLITE_TEXT || c.type == SQLITE_BLOB) return {c.type, static_cast<int64_t>(c.text)};
  return {c.type, c.type == SQLITE_INTEGER ? c.i : 0};
}

MemberRead read_member(const canonical::Member& m, sqlite3* conn, const members::InterruptWatch& watch,
                       const canonical::Profile* profile, const char* table) {
  using namespace canonical;
  using namespace members;
  using analysis::CommClass;
  MemberRead out;
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

}  // namespace

JobCollectives read_job_collectives(sqlite3* conn, const char* table) {
  JobCollectives job;
  job.members = analysis::query_members(conn, std::nullopt);
  if (job.members.empty()) return job;
  const analysis::MemberSet set = analysis::open_members(conn, job.members, table);
  std::vector<MemberRead> reads(set.members.size());
  members::InterruptWatch watch(conn);
  try {
    // An op's pid costs a lookup per op in some formats (rpd: its session's) unless the member's
    // profile (one pass, cached by the registry) gives it: computed in the same visit.
    const uint64_t pid_bit = uint64_t{1} << canonical::kOpsPid;
    members::MemberPool(*set.registry, watch).run(set.members, [&](size_t i, sqlite3* db, size_t) {
      const canonical::MemberPtr& m = set.members[i];
      const auto profile = m->info.adapter->needs_profile(canonical::TableKind::Ops, pid_bit)
                               ? set.registry->profile_on(m, db, watch)
                               : nullptr;
      reads[i] = read_member(*m, db, watch, profile.get(), table);
    });
  } catch (...) {
    // A member read stopped by the interrupt reports it in its own words; the query ends with
    // SQLite's "interrupted", as every other statement.
    members::InterruptWatch host(conn);
    if (host.poll()) members::InterruptWatch::raise();
    throw;
  }
  // Job-wide family and participant numbers, then the matching.
  std::map<std::string, uint32_t> family_index;
  std::vector<Collective> all;
  std::vector<std::pair<uint32_t, uint32_t>> where;  // (member, row) of all[i]
  job.per_member.resize(reads.size());
  for (uint32_t i = 0; i < reads.size(); ++i) {
    MemberRead& r = reads[i];
    std::vector<uint32_t> families;
    for (const std::string& f : r.families)
      families.push_back(family_index.try_emplace(f, static_cast<uint32_t>(family_index.size())).first->second);
    const auto first_participant = static_cast<uint32_t>(job.participant_member.size());
    job.participant_member.insert(job.participant_member.end(), r.participant_pid.size(), i);
    for (auto& pid : r.participant_pid) job.participant_pid.push_back(std::move(pid));
    auto& rows = r.collectives.rows;
    for (uint32_t k = 0; k < rows.size(); ++k) {
      rows[k].family = families[r.local_family[k]];
      rows[k].participant = first_participant + r.local_participant[k];
      all.push_back({rows[k].participant, rows[k].family, rows[k].start, rows[k].end, rows[k].rowid});
      where.emplace_back(i, k);
    }
    r.local_family = {};
    r.local_participant = {};
    job.per_member[i] = std::move(r.collectives);
  }
  job.families.resize(family_index.size());
  for (const auto& [name, index] : family_index) job.families[index] = name;
  members::InterruptWatch host(conn);
  const auto matched = match_collectives(
      all, table, [](const void* w) { static_cast<members::InterruptWatch*>(const_cast<void*>(w))->check(); },
      &host);
  for (size_t n = 0; n < matched.size(); ++n)
    job.per_member[where[n].first].rows[where[n].second].match = matched[n];
  return job;
}

}  // namespace rocpd::ranks
