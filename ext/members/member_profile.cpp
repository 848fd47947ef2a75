#include "members/member_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "formats/adapter.h"
#include "members/member_sql.h"

namespace rocpd::members {

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

// Columns are read through one sqlite3_column_value each: every sqlite3_column_* call costs an API
// entry and exit, and the profile pass reads every row of the member.
TimeValue read_time(sqlite3_stmt* stmt, int col) {
  sqlite3_value* v = sqlite3_column_value(stmt, col);
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL: return {};
    case SQLITE_INTEGER: {
      const int64_t i = sqlite3_value_int64(v);
      return {TimeValue::Number, i, i};
    }
    case SQLITE_FLOAT: {
      const double d = sqlite3_value_double(v);
      return {TimeValue::Number, saturated(std::floor(d)), saturated(std::ceil(d))};
    }
    default: return {TimeValue::Other, 0, 0};
  }
}

// An integer-or-NULL column as sqlite3_column_int64 reads it, and whether it is NULL.
struct IntValue {
  int64_t value;
  int type;
};
IntValue read_int(sqlite3_stmt* stmt, int col) {
  sqlite3_value* v = sqlite3_column_value(stmt, col);
  return {sqlite3_value_int64(v), sqlite3_value_type(v)};
}

// See Profile::ops_unended (a real time counts as maybe before when its rounding could make it so).
bool unended(const TimeValue& start, const TimeValue& end) {
  return !(start.kind == TimeValue::Number && end.kind == TimeValue::Number && end.lo >= start.hi);
}

// pids, bounds and counts of the API calls; for rpd also which pid wrote each session
// (ids of session s are offset by s << 32).
void profile_apis(sqlite3* db, const canonical::Member& m, canonical::Profile& p, std::set<int64_t>& pids) {
  const uint64_t used = (1u << canonical::kApisPid) | (1u << canonical::kApisStart) | (1u << canonical::kApisEnd) | (1u << canonical::kApisApiId);
  const bool sessions = m.info.adapter->session_ids();
  for (const auto& src : sources_for(canonical::TableKind::Apis, m, nullptr)) {
    auto q = build_member_query(src, used, {}, false);
    auto stmt = prepare(db, q.sql);
    const int pi = q.select_index[canonical::kApisPid], si = q.select_index[canonical::kApisStart], ei = q.select_index[canonical::kApisEnd],
              ii = q.select_index[canonical::kApisApiId];
    bool have_last = false, last_has_pid = false;
    int64_t last_pid = 0, last_session = 0;
    while (step(stmt.get())) {
      const IntValue pid_value = read_int(stmt.get(), pi);
      const int64_t pid = pid_value.value;
      const TimeValue start = read_time(stmt.get(), si), end = read_time(stmt.get(), ei);
      ++p.apis;
      if (unended(start, end)) ++p.apis_unended;
      for (const TimeValue& t : {start, end}) {
        if (t.kind == TimeValue::Number) widen(p.first_ns, p.last_ns, t.lo, t.hi);
        if (t.kind == TimeValue::Other) p.times_unbounded = true;
      }
      const bool has_pid = pid_value.type != SQLITE_NULL;
      const int64_t session = sessions ? (read_int(stmt.get(), ii).value >> 32) : 0;
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

void profile_ops(sqlite3* db, const canonical::Member& m, canonical::Profile& p, std::set<int64_t>& pids) {
  const bool want_pid = m.info.adapter->cheap_op_pid();
  uint64_t used = (1u << canonical::kOpsGpu) | (1u << canonical::kOpsStart) | (1u << canonical::kOpsEnd);
  if (want_pid) used |= 1u << canonical::kOpsPid;
  for (const auto& src : sources_for(canonical::TableKind::Ops, m, nullptr)) {
    auto q = build_member_query(src, used, {}, false);
    auto stmt = prepare(db, q.sql + " ORDER BY " + src.rowid);
    std::vector<canonical::Zone> zones;
    canonical::Zone z;
    int64_t in_zone = 0;
    const int gi = q.select_index[canonical::kOpsGpu], si = q.select_index[canonical::kOpsStart], ei = q.select_index[canonical::kOpsEnd],
              ri = q.rowid_index, pi = want_pid ? q.select_index[canonical::kOpsPid] : -1;
    std::optional<int64_t> last_gpu, last_pid;
    while (step(stmt.get())) {
      const int64_t rowid = read_int(stmt.get(), ri).value;
      const TimeValue start = read_time(stmt.get(), si), end = read_time(stmt.get(), ei);
      if (const IntValue g = read_int(stmt.get(), gi); g.type == SQLITE_INTEGER) {
        const int64_t gpu = g.value;
        if (!last_gpu || *last_gpu != gpu) p.gpus.insert(gpu);  // ops of a gpu come in runs
        last_gpu = gpu;
      } else {
        p.gpu_unknown = true;  // NULL, or not an integer: no gpu constraint may rule the member out
      }
      if (const IntValue pv = pi >= 0 ? read_int(stmt.get(), pi) : IntValue{0, SQLITE_NULL}; pv.type != SQLITE_NULL) {
        const int64_t pid = pv.value;
        if (!last_pid || *last_pid != pid) pids.insert(pid);
        last_pid = pid;
      }
      ++p.ops;
      if (start.kind == TimeValue::Number && end.kind == TimeValue::Number && end.hi < start.lo) ++p.bad_ops;
      if (unended(start, end)) ++p.ops_unended;
      if (in_zone == 0) z = canonical::Zone{rowid, rowid};
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

std::shared_ptr<const canonical::Profile> compute_profile(sqlite3* db, const canonical::Member& m, InterruptWatch* watch) {
  auto p = std::make_shared<canonical::Profile>();
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

}  // namespace rocpd::members
