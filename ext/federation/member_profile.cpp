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

void profile_apis(sqlite3* db, const Member& m, Profile& p, std::set<int64_t>& pids) {
  std::string sql;
  if (m.info.format == Format::Rpd) {
    sql = fmt::format("SELECT id >> 32, pid, count(*), min(start), max(\"end\") FROM {}.rocpd_api GROUP BY 1, 2",
                      quote_id(m.schema));
  } else {
    sql = fmt::format("SELECT 0, pid, count(*), min(start), max(\"end\") FROM {}.{} GROUP BY 2", quote_id(m.schema),
                      quote_id("rocpd_region" + m.info.table_suffix));
  }
  auto stmt = prepare(db, sql);
  while (step(stmt.get())) {
    const int64_t session = sqlite3_column_int64(stmt.get(), 0);
    const int64_t pid = sqlite3_column_int64(stmt.get(), 1);
    p.apis += sqlite3_column_int64(stmt.get(), 2);
    widen(p.first_ns, p.last_ns, sqlite3_column_int64(stmt.get(), 3), sqlite3_column_int64(stmt.get(), 4));
    pids.insert(pid);
    auto [it, inserted] = p.session_pid.emplace(session, pid);
    if (!inserted && it->second != pid) p.session_pid_exact = false;
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
