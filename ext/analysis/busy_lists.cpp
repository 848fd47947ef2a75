#include "analysis/busy_lists.h"

#include <set>

#include "members/member_pool.h"
#include "analysis/op_groups.h"

namespace rocpd::analysis {

std::optional<std::map<std::string, std::vector<GpuBusyList>>> busy_lists(sqlite3* host,
                                                                           const std::vector<std::string>& dbs,
                                                                           int64_t lo, int64_t hi,
                                                                           std::optional<int64_t> gpu) {
  auto registry = members::Registry::of(host);
  if (!registry) return std::nullopt;
  GroupSpec spec;
  spec.by_db = spec.by_gpu = true;
  spec.want_busy = spec.busy_lists = true;
  spec.clip_lo = lo;
  spec.clip_hi = hi;
  spec.gpu = gpu;
  const std::set<std::string> wanted(dbs.begin(), dbs.end());
  std::vector<canonical::MemberPtr> members;
  for (const auto& m : registry->members())
    if (wanted.count(m->alias)) members.push_back(m);
  std::vector<JobGroups> per_member(members.size());
  members::InterruptWatch watch(host);
  try {
    members::MemberPool(*registry, watch).run(members, [&](size_t i, sqlite3* db, size_t) {
      per_member[i] = scan_member(*members[i], static_cast<uint32_t>(i), db, spec, nullptr);
    });
  } catch (const NeedsSql&) {
    return std::nullopt;
  }
  std::map<std::string, std::vector<GpuBusyList>> out;
  for (size_t i = 0; i < members.size(); ++i) {
    auto& lists = out[members[i]->alias];
    for (auto& [key, figures] : per_member[i]) lists.push_back({key.gpu, std::move(figures.busy)});
  }
  return out;
}

}  // namespace rocpd::analysis
