#include "federation/member_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "formats/adapter.h"
#include "federation/member_sql.h"

namespace rocpd::federation {

namespace {

void widen(std::optional<int64_t>& lo, std::optional<int64_t>& hi, int64_t a, int64_t b) {
  lo = lo ? std::min(*lo, a) : a;
  hi = hi ? std::max(*hi, b) : b;
}

// A time as read from a member: NULL, a number (reals rounded outwards to whole ns), or
// something that is not a number.
struct TimeValue {
  enum Kind { Null, Number, Other } kind = Null;
  int64_t lo = 0, hi = 0;
};

int64_t saturated(double d) {
  if (!(d > -9.2e18)) return INT64_MIN;
  if (!(d < 9.2e18)) return INT64_MAX;
  return static_cast<int64_t>(d);
}

TimeValue read_time(sqlite3_stmt* stmt, int col) {
  switch (sqlite3_column_type(stmt, col)) {
    case SQLITE_NULL: return {};
    case SQLITE_INTEGER: {
      const int64_t v = sqlite3_column_int64(stmt, col);
      return {TimeValue::Number, v, v};
    }
    case SQLITE_FLOAT: {
      const double d = sqlite3_column_double(stmt, col);
      return {TimeValue::Number, saturated(std::floor(d)), saturated(std::ceil(d))};
    }
    default: return {TimeValue::Other, 0, 0};
  }
}

// See Profile::ops_unended (a real time counts as maybe before when its rounding could make it so).
bool unended(const TimeValue& start, const TimeValue& end) {
  return !(start.kind == TimeValue::Number && end.kind == TimeValue::Number && end.lo >= start.hi);
}

// pids, bounds and counts of the API calls; for rpd also which pid wrote each session
// (ids of session s are offset by s << 32).
void profile_apis(sqlite3* db, const Member& m, Profile& p, std::set<int64_t>& pids) {
  const uint64_t used = (1u << kApisPid) | (1u << kApisStart) | (1u << kApisEnd) | (1u << kApisApiId);
  const bool sessions = m.info.adapter->session_ids();
  for (const auto& src : sources_for(TableKind::Apis, m, nullptr)) {
    auto q = build_member_query(src, used, {}, false);
    auto stmt = prepare(db, q.sql);
    const int pi = q.select_index[kApisPid], si = q.select_index[kApisStart], ei = q.select_index[kApisEnd],
              ii = q.select_index[kApisApiId];
    bool have_last = false, last_has_pid = false;
    int64_t last_pid = 0, last_session = 0;
    while (step(stmt.get())) {
      const int64_t pid = sqlite3_column_int64(stmt.get(), pi);
      const TimeValue start = read_time(stmt.get(), si), end = read_time(stmt.get(), ei);
      ++p.apis;
      if (unended(start, end)) ++p.apis_unended;
      for (const TimeValue& t : {start, end}) {
        if (t.kind == TimeValue::Number) widen(p.first_ns, p.last_ns, t.lo, t.hi);
        if (t.kind == TimeValue::Other) p.times_unbounded = true;
      }
      const bool has_pid = sqlite3_column_type(stmt.get(), pi) != SQLITE_NULL;
      const int64_t session = sessions ? (sqlite3_column_int64(stmt.get(), ii) >> 32) : 0;
      // Consecutive calls mostly share pid and session: the sets see each run once.
      if (have_last && pid == last_pid && session == last_session && has_pid == last_has_pid) continue;
      if (has_pid) pids.insert(pid);
      auto [it, inserted] = p.session_pid.try_emplace(session, pid);
      if (!inserted && it->second != pid) p.session_pid_exact = false;
      have_last = true;
      last_pid = pid;
      last_session = session;
      last_has_pid = has_pid;
    }
  }
}

void profile_ops(sqlite3* db, const Member& m, Profile& p, std::set<int64_t>& pids) {
  const bool want_pid = m.info.adapter->cheap_op_pid();
  uint64_t used = (1u << kOpsGpu) | (1u << kOpsStart) | (1u << kOpsEnd);
  if (want_pid) used |= 1u << kOpsPid;
  for (const auto& src : sources_for(TableKind::Ops, m, nullptr)) {
    auto q = build_member_query(src, used, {}, false);
    auto stmt = prepare(db, q.sql + " ORDER BY " + src.rowid);
    std::vector<Zone> zones;
    Zone z;
    int64_t in_zone = 0;
    const int gi = q.select_index[kOpsGpu], si = q.select_index[kOpsStart], ei = q.select_index[kOpsEnd],
              ri = q.rowid_index, pi = want_pid ? q.select_index[kOpsPid] : -1;
    std::optional<int64_t> last_gpu, last_pid;
    while (step(stmt.get())) {
      const int64_t rowid = sqlite3_column_int64(stmt.get(), ri);
      const TimeValue start = read_time(stmt.get(), si), end = read_time(stmt.get(), ei);
      if (sqlite3_column_type(stmt.get(), gi) == SQLITE_INTEGER) {
        const int64_t gpu = sqlite3_column_int64(stmt.get(), gi);
        if (!last_gpu || *last_gpu != gpu) p.gpus.insert(gpu);  // ops of a gpu come in runs
        last_gpu = gpu;
      } else {
        p.gpu_unknown = true;  // NULL, or not an integer: no gpu constraint may rule the member out
      }
      if (pi >= 0 && sqlite3_column_type(stmt.get(), pi) != SQLITE_NULL) {
        const int64_t pid = sqlite3_column_int64(stmt.get(), pi);
        if (!last_pid || *last_pid != pid) pids.insert(pid);
        last_pid = pid;
      }
      ++p.ops;
      if (start.kind == TimeValue::Number && end.kind == TimeValue::Number && end.hi < start.lo) ++p.bad_ops;
      if (unended(start, end)) ++p.ops_unended;
      if (in_zone == 0) z = Zone{rowid, rowid};
      z.last_rowid = rowid;
      if (start.kind == TimeValue::Other || end.kind == TimeValue::Other) {
        z.unbounded = true;
        p.ops_unbounded = true;
        p.times_unbounded = true;
      }
      if (start.kind == TimeValue::Number) {
        z.min_start = std::min(z.min_start, start.lo);
        z.max_start = std::max(z.max_start, start.hi);
        widen(p.ops_min_start, p.ops_max_start, start.lo, start.hi);
        widen(p.first_ns, p.last_ns, start.lo, start.hi);
      }
      if (end.kind == TimeValue::Number) {
        z.min_end = std::min(z.min_end, end.lo);
        z.max_end = std::max(z.max_end, end.hi);
        widen(p.ops_min_end, p.ops_max_end, end.lo, end.hi);
        widen(p.first_ns, p.last_ns, end.lo, end.hi);
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

std::shared_ptr<const Profile> compute_profile(sqlite3* db, const Member& m, InterruptWatch* watch) {
  auto p = std::make_shared<Profile>();
  std::set<int64_t> pids;
  try {
    profile_apis(db, m, *p, pids);
    profile_ops(db, m, *p, pids);
  } catch (const Error& e) {
    if (e.code() == SQLITE_INTERRUPT || (watch && watch->stopped())) InterruptWatch::raise();
    throw Error(fmt::format("member {} ({}): {}", m.alias, m.path.empty() ? "in memory" : m.path, e.what()),
                e.code());
  }
  p->pids.assign(pids.begin(), pids.end());
  return p;
}

}  // namespace rocpd::federation
