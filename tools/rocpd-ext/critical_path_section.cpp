#include "critical_path_section.h"

#include <fmt/format.h>

#include "display.h"


namespace rocpd_cli {

namespace {
constexpr const char* kFill =
    "CREATE TEMP TABLE IF NOT EXISTS cli_critical_path AS"
    " SELECT step, db, pid, tid, gpu, queue, stream, kind, name, start, \"end\", duration, waited_for, inferred,"
    " step_inferred_edges, run FROM rocpd_critical_path";

// Steps ranked by time (ties: the lower step first); the median is the lower middle one. The
// segments of a step tile it, so its time is the sum of their durations.
constexpr const char* kSection = R"(
WITH steps AS (SELECT step, sum(duration) AS step_ns FROM temp.cli_critical_path GROUP BY step),
ranked AS (SELECT step, step_ns, row_number() OVER (ORDER BY step_ns DESC, step) AS slow,
                  row_number() OVER (ORDER BY step_ns, step) AS fast, count(*) OVER () AS n FROM steps),
chosen AS (SELECT 'slowest' AS step_of, 0 AS o, step, step_ns FROM ranked WHERE slow = 1
           UNION ALL SELECT 'median', 1, step, step_ns FROM ranked WHERE fast = (n + 1) / 2),
items AS (SELECT step, kind, db, name, sum(duration) AS ns FROM temp.cli_critical_path GROUP BY step, kind, db, name),
kinds AS (SELECT step, kind, sum(ns) AS ns FROM items GROUP BY step, kind),
largest AS (SELECT step, kind, db, name, ns,
                   row_number() OVER (PARTITION BY step, kind ORDER BY ns DESC, db, name) AS r FROM items),
rows AS (SELECT c.step_of, c.o, c.step, c.step_ns AS step_time_ns, k.kind, k.ns AS path_ns, round(100.0 * k.ns / c.step_ns, 2) AS pct,
                l.db AS largest_db, rocpd_display_name(l.name) AS largest_name, l.ns AS largest_ns,
                row_number() OVER (PARTITION BY c.o ORDER BY k.ns DESC, k.kind) AS r
         FROM chosen c JOIN kinds k USING (step) JOIN largest l ON l.step = k.step AND l.kind = k.kind AND l.r = 1)
SELECT step_of, step, step_time_ns, kind, path_ns, pct, largest_db, largest_name, largest_ns, r FROM rows
WHERE r <= ?1 ORDER BY o, r)";
}  // namespace

void prepare_critical_path(Session& session) { session.run(kFill); }

std::vector<std::string> critical_path_bounds(Session& session) {
  // rocpd_critical_path_summary's own statement (sql/views/72_rocpd_critical_path_summary.sql), over
  // the segments read once: its one reading of rocpd_critical_path becomes the table's.
  ResultSet view = session.run("SELECT sql FROM sqlite_temp_master WHERE type = 'view' AND name = 'rocpd_critical_path_summary'");
  if (view.rows.empty()) return {};
  std::string sql = view.rows[0][0].text;
  // SQLite keeps it as "CREATE VIEW rocpd_critical_path_summary AS ...".
  const std::string from = "FROM rocpd_critical_path\n", head = "CREATE VIEW rocpd_critical_path_summary AS";
  const size_t at = sql.find(from);
  if (at == std::string::npos || sql.find(from, at + 1) != std::string::npos || !sql.starts_with(head)) return {};
  sql.replace(at, from.size(), "FROM temp.cli_critical_path\n");
  sql.replace(0, head.size(), "CREATE TEMP VIEW IF NOT EXISTS cli_critical_path_summary AS");
  session.run(sql);
  // The slowest and the median step, as the section chooses them.
  ResultSet rs = session.run(R"(
WITH ranked AS (SELECT step, step_ns, bound_by, row_number() OVER (ORDER BY step_ns DESC, step) AS slow,
                       row_number() OVER (ORDER BY step_ns, step) AS fast, count(*) OVER () AS n
                FROM temp.cli_critical_path_summary)
SELECT 'slowest', step, step_ns, bound_by FROM ranked WHERE slow = 1
UNION ALL SELECT 'median', step, step_ns, bound_by FROM ranked WHERE fast = (n + 1) / 2 AND slow <> 1)");
  std::vector<std::string> out;
  for (const auto& r : rs.rows)
    out.push_back(fmt::format("critical path, {} step {} ({}): {}", r[0].text, r[1].text,
                              format_duration(r[2].number(), TimeUnit::Auto), r[3].text));
  return out;
}

ResultSet critical_path_section(Session& session, long long top) {
  ResultSet rs = session.run(kSection, {Param(std::int64_t{top + 1})});
  // The rank column only serves the cut: a step with more kinds than --top loses its last row.
  const size_t rank = rs.columns.size() - 1;
  bool cut = false;
  std::vector<std::vector<Cell>> kept;
  for (auto& r : rs.rows) {
    if (r[rank].integer > top) {
      cut = true;
      continue;
    }
    r.pop_back();
    kept.push_back(std::move(r));
  }
  rs.rows = std::move(kept);
  rs.columns.pop_back();
  if (cut) rs.note = fmt::format("(the largest {} kinds of each step; -n/--top shows more)", top);
  return rs;
}

}  // namespace rocpd_cli
