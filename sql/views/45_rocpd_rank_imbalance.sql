-- rocpd_rank_imbalance: load imbalance per kernel name across ranks. A rank is one process of the
-- job: (db, pid) (one rpd file may hold several processes as sessions). For each kernel name, the
-- kernel time of every rank that ran it is summed; the view shows the slowest rank and how far it
-- leads the median rank.
--   ranks                       ranks that ran the kernel (ranks that never ran it are not counted)
--   slowest_db, slowest_pid     the rank with the largest total (ties: first db, then pid)
--   slowest_total_ns, slowest_instances
--   median_total_ns             median over ranks of the per-rank total
--   fastest_total_ns            smallest per-rank total
--   lead_ns                     slowest_total_ns - median_total_ns
--   lead_pct                    100 * lead_ns / median_total_ns (NULL when the median is 0)
--   name, demangled
-- Ordered by lead_ns: the worst stragglers first.
CREATE TEMP VIEW IF NOT EXISTS rocpd_rank_imbalance AS
WITH per_rank AS MATERIALIZED (
       SELECT name, db, pid, sum(duration) AS total_ns, count(*) AS instances
       FROM rocpd_ops
       WHERE kind = 'kernel'
       GROUP BY name, db, pid),
     across AS (
       SELECT name, count(*) AS ranks, median(total_ns) AS median_total_ns, min(total_ns) AS fastest_total_ns
       FROM per_rank
       GROUP BY name),
     slowest AS (
       SELECT name, db, pid, total_ns, instances,
              row_number() OVER (PARTITION BY name ORDER BY total_ns DESC, db, pid) AS position
       FROM per_rank)
SELECT a.ranks,
       s.db AS slowest_db, s.pid AS slowest_pid, s.total_ns AS slowest_total_ns, s.instances AS slowest_instances,
       a.median_total_ns, a.fastest_total_ns,
       s.total_ns - a.median_total_ns AS lead_ns,
       CASE WHEN a.median_total_ns <> 0 THEN 100.0 * (s.total_ns - a.median_total_ns) / a.median_total_ns END AS lead_pct,
       s.name, demangle(s.name) AS demangled
FROM slowest AS s
JOIN across AS a ON a.name IS s.name
WHERE s.position = 1
ORDER BY lead_ns DESC, s.name;
