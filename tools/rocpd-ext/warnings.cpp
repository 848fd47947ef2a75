#include "warnings.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "display.h"

namespace rocpd_cli {

namespace {
// "a, b and c" or "a, b, c and 7 more": members named in a warning, at most `shown` of them.
std::string name_list(const std::vector<std::string>& names, size_t shown = 4) {
  std::string out;
  size_t n = std::min(names.size(), shown);
  for (size_t i = 0; i < n; ++i) {
    if (i) out += i + 1 == n && names.size() <= shown ? " and " : ", ";
    out += names[i];
  }
  if (names.size() > shown) out += fmt::format(" and {} more", names.size() - shown);
  return out;
}

void counter_replay(Session& session, std::vector<std::string>& out) {
  // Per-kernel counter values: CUPTI's range profiler replays each kernel once per counter pass,
  // rocprofv3 and rocprof serialise kernels to read them.
  // Kept for the roofline section, which has rows only for kernels with counter values.
  session.run(
      "CREATE TEMP TABLE IF NOT EXISTS cli_counted AS SELECT db FROM rocpd_members AS m WHERE EXISTS"
      " (SELECT 1 FROM rocpd_counters AS c WHERE c.db = m.db AND c.op_id IS NOT NULL) ORDER BY db COLLATE rocpd_natural");
  ResultSet counted = session.run("SELECT db FROM temp.cli_counted");
  // Every kernel of the member equally long (a trace of real work never is).
  ResultSet uniform = session.run(
      "SELECT k.db, k.instances, k.min_ns, (SELECT count(*) FROM rocpd_op_groups('db,name', 'kernel') AS n"
      " WHERE n.db = k.db) FROM rocpd_op_groups('db', 'kernel') AS k"
      " WHERE k.instances >= 10 AND k.min_ns = k.max_ns AND k.min_ns > 0 ORDER BY k.db COLLATE rocpd_natural");
  std::map<std::string, std::string> why;
  for (const auto& r : uniform.rows)
    why[r[0].text] = fmt::format("every one of its {} kernels ({} names) lasts exactly {}", with_separators(r[1].integer),
                                 r[3].text, format_duration(r[2].number(), TimeUnit::Auto));
  for (const auto& r : counted.rows) {
    std::string& w = why[r[0].text];
    w += w.empty() ? "its kernels carry hardware counter values" : ", and its kernels carry hardware counter values";
  }
  // One line per reason, naming the members that share it.
  std::map<std::string, std::vector<std::string>> by_reason;
  for (const auto& [db, reason] : why) by_reason[reason].push_back(db);
  for (const auto& [reason, dbs] : by_reason)
    out.push_back(name_list(dbs) + ": " + reason +
                  ": a counter-collection trace (CUPTI range profiler, kernel serialisation): its kernel durations are "
                  "those of the profiling passes, not of a normal run");
}

void disjoint_runs(Session& session, std::vector<std::string>& out) {
  ResultSet rs = session.run(
      "SELECT db, first_ns, last_ns FROM rocpd_members WHERE first_ns IS NOT NULL AND last_ns IS NOT NULL"
      " ORDER BY first_ns, db");
  // Groups of members whose time ranges chain into one another.
  std::vector<std::vector<std::string>> groups;
  std::int64_t reach = 0;
  std::vector<std::int64_t> gaps;
  for (const auto& r : rs.rows) {
    if (groups.empty() || r[1].integer > reach) {
      if (!groups.empty()) gaps.push_back(r[1].integer - reach);
      groups.push_back({});
      reach = r[2].integer;
    }
    groups.back().push_back(r[0].text);
    reach = std::max(reach, r[2].integer);
  }
  if (groups.size() < 2) return;
  std::string parts;
  for (size_t i = 0; i < groups.size() && i < 4; ++i) parts += (i ? " | " : "") + name_list(groups[i], 3);
  if (groups.size() > 4) parts += fmt::format(" | {} more", groups.size() - 4);
  std::int64_t gap = *std::max_element(gaps.begin(), gaps.end());
  out.push_back(fmt::format(
      "the members fall into {} groups whose times do not overlap ({}; up to {} apart): different runs opened as "
      "one job? The job's span, idle time and shares count the time between them; open each run alone, or compare "
      "two with rocpd-ext compare",
      groups.size(), parts, format_duration(static_cast<double>(gap), TimeUnit::Auto)));
}

void opened_twice(Session& session, std::vector<std::string>& out) {
  ResultSet rs = session.run(
      "SELECT group_concat(db, ', '), count(*), count(DISTINCT nullif(uuid, '')) = 1 AND count(nullif(uuid, '')) ="
      " count(*) FROM (SELECT * FROM rocpd_members ORDER BY db COLLATE rocpd_natural)"
      " WHERE ops + apis > 0"
      " GROUP BY format, version, pids, first_ns, last_ns, ops, apis, bad_ops HAVING count(*) > 1");
  for (const auto& r : rs.rows)
    out.push_back(fmt::format("{} are one trace opened {} times (the same {}content: format, pids, times, ops and API "
                              "calls): every figure counts it {} times",
                              r[0].text, r[1].integer, r[2].integer ? "uuid and " : "", r[1].integer));
}

void mixed_runs(const std::vector<MemberFacts>& facts, std::vector<std::string>& out) {
  auto differ = [&](const char* what, auto&& value) {
    std::map<std::string, std::vector<std::string>> by;
    for (const auto& m : facts)
      if (std::string v = value(m); !v.empty()) by[v].push_back(m.db);
    if (by.size() < 2) return;
    std::string parts;
    for (const auto& [v, dbs] : by) parts += (parts.empty() ? "" : "; ") + name_list(dbs, 3) + ": " + v;
    out.push_back(fmt::format("the members ran on different {} ({}): they are not ranks of one job, and figures "
                              "that pool them mix two setups",
                              what, parts));
  };
  differ("devices", [](const MemberFacts& m) {
    std::string s;
    for (const auto& d : m.devices) s += (s.empty() ? "" : ", ") + d;
    return s;
  });
  differ("world sizes", [](const MemberFacts& m) { return m.world_size; });
}

void without_gpu_ops(Session& session, std::vector<std::string>& out) {
  ResultSet rs = session.run("SELECT db FROM rocpd_members WHERE ops = 0 ORDER BY db COLLATE rocpd_natural");
  std::vector<std::string> dbs;
  for (const auto& r : rs.rows) dbs.push_back(r[0].text);
  if (dbs.empty()) return;
  out.push_back(fmt::format("{} {} no GPU op (GPU activity was not traced, or a host-only process): {} in no GPU "
                            "figure",
                            name_list(dbs), dbs.size() == 1 ? "holds" : "hold", dbs.size() == 1 ? "it counts" : "they count"));
}
}  // namespace

std::vector<std::string> job_warnings(Session& session, const std::vector<MemberFacts>& facts) {
  std::vector<std::string> out;
  counter_replay(session, out);
  disjoint_runs(session, out);
  opened_twice(session, out);
  mixed_runs(facts, out);
  without_gpu_ops(session, out);
  return out;
}

}  // namespace rocpd_cli
