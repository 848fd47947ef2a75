#include "ranks/job_collectives.h"

#include <map>

#include "members/interrupt.h"
#include "members/member_pool.h"

namespace rocpd::ranks {

using namespace analysis;

JobCollectives read_job_collectives(sqlite3* conn, const char* table) {
  JobCollectives job;
  job.members = analysis::query_members(conn, std::nullopt);
  if (job.members.empty()) return job;
  const analysis::MemberSet set = analysis::open_members(conn, job.members, table);
  std::vector<analysis::MemberCollectivesRead> reads(set.members.size());
  members::InterruptWatch watch(conn);
  try {
    // A member an earlier pass read for this one (rocpd_gpu_screen(pattern)) is not visited again.
    const auto to_visit = set.registry->take_stashes(set.members, kCollectivesStash, [&](size_t i, std::shared_ptr<void> v) {
      reads[i] = std::move(*std::static_pointer_cast<MemberCollectivesRead>(v));
    });
    // An op's pid costs a lookup per op in some formats (rpd: its session's) unless the member's
    // profile (one pass, cached by the registry) gives it: computed in the same visit.
    const uint64_t pid_bit = uint64_t{1} << canonical::kOpsPid;
    members::MemberPool(*set.registry, watch).run(to_visit.members, [&](size_t k, sqlite3* db, size_t) {
      const size_t i = to_visit.index[k];
      const canonical::MemberPtr& m = set.members[i];
      const auto profile = set.registry->profile_on(m, db, watch, pid_bit);
      reads[i] = analysis::read_member_collectives(*m, db, watch, profile.get(), table);
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
    analysis::MemberCollectivesRead& r = reads[i];
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
