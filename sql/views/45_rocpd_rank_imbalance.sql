-- rocpd_rank_imbalance_full: load imbalance per kernel name across ranks. A rank is one process of the
-- job: (db, pid) (one rpd file may hold several processes as sessions). For each kernel name, the
-- kernel time of every rank that ran it is summed; the view shows the slowest rank and how far it
-- leads the median rank.
--   ranks                       ranks that ran the kernel (ranks that never ran it are not counted)
--   slowest_db, slowest_pid     the rank with the largest total (ties: first db in natural order, then pid)
--   slowest_total_ns, slowest_instances
--   median_total_ns             median over ranks of the per-rank total
--   fastest_total_ns            smallest per-rank total
--   lead_ns                     slowest_total_ns - median_total_ns
--   lead_pct                    100 * lead_ns / median_total_ns (NULL when the median is 0), 2 decimals
--   kernel, name, demangled     rocpd_display_name(name), the raw name, demangle(name)
-- rocpd_rank_imbalance: the same rows with the columns that fit a 160-column terminal: ranks,
-- slowest_db, slowest_total_ns, median_total_ns, lead_ns, lead_pct and `kernel` (slowest_pid,
-- slowest_instances, fastest_total_ns and the raw names are in rocpd_rank_imbalance_full).
-- Ordered by lead_ns: the worst stragglers first.
-- One sort per window and no join: the per-name figures are window aggregates over the whole
-- partition (median() answers such frames in O(n) per partition).
CREATE TEMP VIEW IF NOT EXISTS rocpd_rank_imbalance_full AS
WITH per_rank AS (
       SELECT name, db, pid, sum(duration) AS total_ns, count(*) AS instances
       FROM temp.rocpd_ops
       WHERE kind = 'kernel'
       GROUP BY name, db, pid),
     ranked AS (
       SELECT name, db, pid, total_ns, instances,
              row_number() OVER (PARTITION BY name ORDER BY total_ns DESC, db COLLATE rocpd_natural, pid) AS position,
              count(*) OVER per_name AS ranks,
              median(total_ns) OVER per_name AS median_total_ns,
              min(total_ns) OVER per_name AS fastest_total_ns
       FROM per_rank
       WINDOW per_name AS (PARTITION BY name))
SELECT ranks,
       db AS slowest_db, pid AS slowest_pid, total_ns AS slowest_total_ns, instances AS slowest_instances,
       median_total_ns, fastest_total_ns,
       total_ns - median_total_ns AS lead_ns,
       CASE WHEN median_total_ns <> 0
            THEN round(100.0 * (total_ns - median_total_ns) / median_total_ns, 2) END AS lead_pct,
       rocpd_display_name(name) AS kernel, name, demangle(name) AS demangled
FROM ranked
WHERE position = 1 AND rocpd_require_members('rocpd_rank_imbalance')
ORDER BY lead_ns DESC, name;

CREATE TEMP VIEW IF NOT EXISTS rocpd_rank_imbalance AS
SELECT ranks, slowest_db, slowest_total_ns, median_total_ns, lead_ns, lead_pct, kernel
FROM temp.rocpd_rank_imbalance_full
WHERE rocpd_require_members('rocpd_rank_imbalance')
ORDER BY lead_ns DESC, name;
