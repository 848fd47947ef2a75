-- rocpd_gpu_summary: per member (db) and gpu, what kept the GPU busy: kernel and copy counts and
-- times next to the busy figures of rocpd_busy (interval unions; sql/views/20_rocpd_busy.sql).
--   ops, kernels, copies      op rows of that gpu (all kinds / kernels / copies)
--   kernel_ns, copy_ns        summed durations (concurrent ops counted each)
--   kernel_busy_ns            union of the kernel intervals only (compute busy, copies excluded)
--   busy_ns, span_ns, busy_pct  from rocpd_busy: union of all op intervals, first start to last
--                             end, 100 * busy_ns / span_ns
--   kernel_busy_pct           100 * kernel_busy_ns / span_ns (percents rounded to 2 decimals)
-- Computed per member on every core by rocpd_op_groups (docs/summaries.md): one group per
-- (db, gpu, kind), so each FILTER below sums exactly one row. Members in natural order.
CREATE TEMP VIEW IF NOT EXISTS rocpd_gpu_summary AS
SELECT k.db, k.gpu, k.ops, k.kernels, k.kernel_ns, k.kernel_busy_ns, k.copies, k.copy_ns,
       b.busy_ns, b.span_ns, b.busy_pct,
       CASE WHEN b.span_ns > 0 THEN round(100.0 * k.kernel_busy_ns / b.span_ns, 2) END AS kernel_busy_pct
FROM (SELECT db, gpu,
             sum(instances) AS ops,
             coalesce(sum(instances) FILTER (WHERE kind = 'kernel'), 0) AS kernels,
             coalesce(sum(total_ns) FILTER (WHERE kind = 'kernel'), 0) AS kernel_ns,
             coalesce(sum(busy_ns) FILTER (WHERE kind = 'kernel'), 0) AS kernel_busy_ns,
             coalesce(sum(instances) FILTER (WHERE kind = 'copy'), 0) AS copies,
             coalesce(sum(total_ns) FILTER (WHERE kind = 'copy'), 0) AS copy_ns
      FROM temp.rocpd_op_groups
      WHERE group_by = 'db,gpu,kind'
      GROUP BY db, gpu) AS k
LEFT JOIN temp.rocpd_busy AS b ON b.db = k.db AND b.gpu IS k.gpu
WHERE rocpd_require_members('rocpd_gpu_summary')
ORDER BY k.db COLLATE rocpd_natural, k.gpu;
