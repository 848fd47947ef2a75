-- rocpd_busy: true GPU busy time per member (db) and gpu, next to the upstream-style sum.
--   busy_ns    length of the union of the op intervals (interval_union): concurrent ops count once
--   span_ns    first op start to last op end on that gpu (ops with end < start left out)
--   busy       busy_ns / span_ns, never above 1 (NULL when the span is 0), rounded to 4 decimals: the
--              one fraction of the views, kept under the name issue 3 promised (docs/views.md)
--   busy_pct   the same in percent, 0 to 100, rounded to 2 decimals (the views' rule for ratios)
--   sum_ns     the upstream `busy` view's GpuTime: the sum of op durations (end < start counts 0)
--   overlap_ns sum_ns - busy_ns: how much the upstream view over-counts
--   ops        number of op rows of that gpu
-- Computed per member on every core by rocpd_op_groups (docs/summaries.md): the same figures as
-- interval_union(start, "end"), sum(duration), count(*) ... FROM rocpd_ops GROUP BY db, gpu.
-- Ordered by member in natural order (rank2 before rank10), then gpu. Like every analysis view, it
-- refuses to answer while no trace is open (rocpd_require_members, docs/views.md).
CREATE TEMP VIEW IF NOT EXISTS rocpd_busy AS
SELECT db, gpu, busy_ns, span_ns,
       CASE WHEN span_ns > 0 THEN round(CAST(busy_ns AS REAL) / span_ns, 4) END AS busy,
       CASE WHEN span_ns > 0 THEN round(100.0 * busy_ns / span_ns, 2) END AS busy_pct,
       sum_ns, sum_ns - busy_ns AS overlap_ns, ops
FROM (SELECT db, gpu, busy_ns, last_end - first_start AS span_ns, coalesce(total_ns, 0) AS sum_ns,
             instances AS ops
      FROM temp.rocpd_op_groups
      WHERE group_by = 'db,gpu')
WHERE rocpd_require_members('rocpd_busy')
ORDER BY db COLLATE rocpd_natural, gpu;
