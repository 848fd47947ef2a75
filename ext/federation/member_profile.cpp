#include "federation/member_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "federation/member_probe.h"
#include "federation/member_sql.h"

namespace rocpd::federation {

namespace {

void widen(std::optional<int64_t>& lo, std::optional<int64_t>& hi, int64_t a, int64_t b) {
  lo = lo ? std::min(*lo, a) : a;
  hi = hi ? std::max(*hi, b) : b;
}

// pids, bounds and counts of the API calls; for rpd also which pid wrote each session
// (ids of session s are offset by s << 32).
void profile_apis(sqlite3* db, const Member& m, Profile& p, std::set<int64_t>& pids) {
  const uint64_t used = (1u << kApisPid) | (1u << kApisStart) | (1u << kApisEnd) | (1u << kApisApiId);
  const bool sessions = m.info.format == Format::Rpd;
  for (const auto& src : api_sources(m)) {
    auto q = build_member_query(src, used, {}, false);
    auto stmt = prepare(db, q.sql);
    const int pi = q.select_index[kApisPid], si = q.select_index[kApisStart], ei = q.select_index[kApisEnd],
              ii = q.select_index[kApisApiId];
    while (step(stmt.get())) {
      const int64_t pid = sqlite3_column_int64(stmt.get(), pi);
      const int64_t start = sqlite3_column_int64(stmt.get(), si), end = sqlite3_column_int64(stmt.get(), ei);
      ++p.apis;
      widen(p.first_ns, p.last_ns, std::min(start, end), std::max(start, end));
      pids.insert(pid);
      const int64_t session = sessions ? (sqlite3_column_int64(stmt.get(), ii) >> 32) : 0;
      auto [it, inserted] = p.session_pid.emplace(session, pid);
      if (!inserted && it->second != pid) p.session_pid_exact = false;
    }
  }
}

void profile_ops(sqlite3* db, const Member& m, Profile& p, std::set<int64_t>& pids) {
  const bool want_pid = m.info.format == Format::Rocpd;
  uint64_t used = (1u << kOpsGpu) | (1u << kOpsStart) | (1u << kOpsEnd) | (1u << kOpsOpId);
  if (want_pid) used |= 1u << kOpsPid;
  for (const auto& src : op_sources(m, nullptr)) {
    auto q = build_member_query(src, used, {}, false);
    auto stmt = prepare(db, q.sql + " ORDER BY " + src.rowid);
    std::vector<Zone> zones;
    Zone z;
    int64_t in_zone = 0;
    const int gi = q.select_index[kOpsGpu], si = q.select_index[kOpsStart], ei = q.select_index[kOpsEnd],
              ri = q.select_index[kOpsOpId], pi = want_pid ? q.select_index[kOpsPid] : -1;
    while (step(stmt.get())) {
      const int64_t rowid = sqlite3_column_int64(stmt.get(), ri);
      const int64_t start = sqlite3_column_int64(stmt.get(), si);
      const int64_t end = sqlite3_column_int64(stmt.get(), ei);
      if (sqlite3_column_type(stmt.get(), gi) == SQLITE_NULL) p.gpu_unknown = true;
      else p.gpus.insert(sqlite3_column_int64(stmt.get(), gi));
      if (pi >= 0) pids.insert(sqlite3_column_int64(stmt.get(), pi));
      ++p.ops;
      if (end < start) ++p.bad_ops;
      widen(p.ops_min_start, p.ops_max_start, start, start);
      widen(p.ops_min_end, p.ops_max_end, end, end);
      widen(p.first_ns, p.last_ns, std::min(start, end), std::max(start, end));
      if (in_zone == 0) {
        z = Zone{rowid, rowid, start, start, end, end};
      } else {
        z.last_rowid = rowid;
        z.min_start = std::min(z.min_start, start);
        z.max_start = std::max(z.max_start, start);
        z.min_end = std::min(z.min_end, end);
        z.max_end = std::max(z.max_end, end);
      }
      if (++in_zone == kRowsPerZone) {
        zones.push_back(z);
        in_zone = 0;
      }
    }
    if (in_zone) zones.push_back(z);
    p.op_zones.push_back(std::move(zones));
  }
}

}  // namespace

std::shared_ptr<const Profile> compute_profile(sqlite3* db, const Member& m) {
  auto p = std::make_shared<Profile>();
  std::set<int64_t> pids;
  try {
    profile_apis(db, m, *p, pids);
    profile_ops(db, m, *p, pids);
  } catch (const Error& e) {
    throw Error(fmt::format("member {} ({}): {}", m.alias, m.path.empty() ? "in memory" : m.path, e.what()),
                e.code());
  }
  p->pids.assign(pids.begin(), pids.end());
  return p;
}

}  // namespace rocpd::federation
