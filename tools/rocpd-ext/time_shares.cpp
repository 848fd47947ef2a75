#include "time_shares.h"

#include <fmt/format.h>

#include "display.h"

namespace rocpd_cli {

namespace {
// The whole-gpu rows of rocpd_time_breakdown (docs/diagnosis.md), read once: the breakdown
// section shows them and the headlines add them up.
constexpr const char* kFill = R"(
CREATE TEMP TABLE IF NOT EXISTS cli_breakdown AS
SELECT db, gpu, start, "end", span_ns, busy_ns, compute_ns, comm_ns, copy_ns, overlap_ns, idle_ns,
       compute_pct, comm_pct, copy_pct, idle_pct
FROM rocpd_time_breakdown WHERE step IS NULL AND span_ns IS NOT NULL
ORDER BY db COLLATE rocpd_natural, gpu)";

constexpr const char* kShares =
    "SELECT {} count(*), sum(span_ns), 100.0 * sum(compute_ns) / sum(span_ns), 100.0 * sum(comm_ns) / sum(span_ns),"
    " 100.0 * sum(copy_ns) / sum(span_ns), 100.0 * sum(idle_ns) / sum(span_ns)"
    " FROM temp.cli_breakdown {}";

Shares shares_of(const std::vector<Cell>& r, size_t first) {
  Shares s;
  s.gpus = r[first].integer;
  s.span_ns = r[first + 1].number();
  s.compute = r[first + 2].number();
  s.comm = r[first + 3].number();
  s.copy = r[first + 4].number();
  s.idle = r[first + 5].number();
  return s;
}
}  // namespace

void prepare_breakdown(Session& session) { session.run(kFill); }

Shares job_shares(Session& session) {
  ResultSet rs = session.run(fmt::format(kShares, "", ""));
  return rs.rows.empty() ? Shares{} : shares_of(rs.rows[0], 0);
}

std::vector<Shares> member_shares(Session& session) {
  // A member holding several processes (an Nsight export of two ranks) gives a line per process:
  // the GPUs its ops ran on. Worst first: the most idle share of the GPUs' spans.
  constexpr const char* kByRank = R"(
WITH procs AS (SELECT DISTINCT db, pid, gpu FROM rocpd_ops WHERE pid IS NOT NULL AND gpu IS NOT NULL),
     multi AS (SELECT db FROM procs GROUP BY db HAVING count(DISTINCT pid) > 1),
     owners AS (SELECT b.*, p.pid AS pid FROM temp.cli_breakdown AS b
                LEFT JOIN procs AS p ON p.db = b.db AND p.gpu = b.gpu AND b.db IN (SELECT db FROM multi))
SELECT CASE WHEN pid IS NULL THEN db ELSE db || ' pid ' || pid END, count(*), sum(span_ns),
       100.0 * sum(compute_ns) / sum(span_ns), 100.0 * sum(comm_ns) / sum(span_ns),
       100.0 * sum(copy_ns) / sum(span_ns), 100.0 * sum(idle_ns) / sum(span_ns)
FROM owners GROUP BY db, pid
ORDER BY 1.0 * sum(idle_ns) / sum(span_ns) DESC, db COLLATE rocpd_natural, pid)";
  std::vector<Shares> out;
  ResultSet rs = session.run(kByRank);
  for (const auto& r : rs.rows) {
    Shares s = shares_of(r, 1);
    s.db = r[0].text;
    out.push_back(s);
  }
  return out;
}

std::string shares_line(const Shares& s) {
  if (s.gpus == 0 || s.span_ns <= 0) return "no GPU time: the members hold no GPU op with a duration";
  std::string line =
      fmt::format("{} ({} GPU{}, {}): compute {:.1f} %, communication {:.1f} %, copies {:.1f} %, idle {:.1f} %",
                  s.db.empty() ? "GPU time" : s.db, s.gpus, s.gpus == 1 ? "" : "s",
                  format_duration(s.span_ns, TimeUnit::Auto), s.compute, s.comm, s.copy, s.idle);
  // Each kind is a union of its own ops, so time when kinds run at once counts in each and the
  // shares add up past 100 %: say by how much, lest the line read as an error.
  if (const double counted_twice = s.compute + s.comm + s.copy + s.idle - 100.0; counted_twice >= 0.05)
    line += fmt::format(" (kinds running at once count in each: +{:.1f} %)", counted_twice);
  return line;
}

}  // namespace rocpd_cli
