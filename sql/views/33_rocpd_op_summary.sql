-- rocpd_op_summary: every kind of GPU activity (kernels, copies, fills, barriers...) per kind and
-- name, job-wide: the corrected upstream `top` view. time_pct is the share of the summed GPU op
-- time of all kinds (upstream `top` loses ops with equal (name, start, end) on two GPUs through
-- UNION; nothing is lost here). Columns as in rocpd_kernel_summary, plus kind.
-- Computed per member on every core by rocpd_op_groups (docs/summaries.md).
CREATE TEMP VIEW IF NOT EXISTS rocpd_op_summary AS
SELECT 100.0 * total_ns / sum(total_ns) OVER () AS time_pct,
       total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns,
       kind, name, demangle(name) AS demangled
FROM (SELECT kind, name, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns
      FROM temp.rocpd_op_groups
      WHERE group_by = 'kind,name')
ORDER BY total_ns DESC, kind, name;
