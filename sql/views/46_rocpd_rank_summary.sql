-- rocpd_rank_summary: one row per rank (db, pid): its GPU work and how it compares with the
-- median rank, to spot stragglers at a glance.
--   kernels, kernel_ns      kernel executions and their summed time
--   copies, copy_ns         memory copies and their summed time
--   first_ns, last_ns       first op start and last op end of the rank
--   median_kernel_ns        median over all ranks of kernel_ns
--   lead_ns, lead_pct       kernel_ns - median_kernel_ns, and in percent of the median (2 decimals)
-- Ordered by kernel_ns, the busiest rank first (ties: members in natural order, then pid).
CREATE TEMP VIEW IF NOT EXISTS rocpd_rank_summary AS
WITH ranks AS MATERIALIZED (
       SELECT db, pid,
              count(*) FILTER (WHERE kind = 'kernel') AS kernels,
              coalesce(sum(duration) FILTER (WHERE kind = 'kernel'), 0) AS kernel_ns,
              count(*) FILTER (WHERE kind = 'copy') AS copies,
              coalesce(sum(duration) FILTER (WHERE kind = 'copy'), 0) AS copy_ns,
              min(start) AS first_ns,
              max("end") AS last_ns
       FROM temp.rocpd_ops
       GROUP BY db, pid),
     typical AS (SELECT median(kernel_ns) AS median_kernel_ns FROM ranks)
SELECT r.db, r.pid, r.kernels, r.kernel_ns, r.copies, r.copy_ns, r.first_ns, r.last_ns,
       t.median_kernel_ns,
       r.kernel_ns - t.median_kernel_ns AS lead_ns,
       CASE WHEN t.median_kernel_ns <> 0
            THEN round(100.0 * (r.kernel_ns - t.median_kernel_ns) / t.median_kernel_ns, 2) END AS lead_pct
FROM ranks AS r, typical AS t
WHERE rocpd_require_members('rocpd_rank_summary')
ORDER BY r.kernel_ns DESC, r.db COLLATE rocpd_natural, r.pid;
