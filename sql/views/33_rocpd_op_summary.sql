-- rocpd_op_summary_full: every kind of GPU activity (kernels, copies, fills, barriers...) per kind
-- and name, job-wide: the corrected upstream `top` view. time_pct is the share of the summed GPU
-- op time of all kinds (upstream `top` loses ops with equal (name, start, end) on two GPUs through
-- UNION; nothing is lost here). Columns as in rocpd_kernel_summary_full, with kind and `op` (the
-- display name of any op) instead of kernel and without short_name.
-- rocpd_op_summary: the same rows with `op` as the only name column.
-- Computed per member on every core by rocpd_op_groups (docs/summaries.md).
CREATE TEMP VIEW IF NOT EXISTS rocpd_op_summary_full AS
SELECT round(100.0 * total_ns / sum(total_ns) OVER (), 2) AS time_pct,
       total_ns, instances, round(avg_ns, 1) AS avg_ns, med_ns, min_ns, max_ns, round(stddev_ns, 1) AS stddev_ns,
       kind, rocpd_display_name(name) AS op, name, demangle(name) AS demangled
FROM (SELECT kind, name, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns
      FROM temp.rocpd_op_groups
      WHERE group_by = 'kind,name')
WHERE rocpd_require_members('rocpd_op_summary')
ORDER BY total_ns DESC, kind, name;

CREATE TEMP VIEW IF NOT EXISTS rocpd_op_summary AS
SELECT time_pct, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns, kind, op
FROM temp.rocpd_op_summary_full
WHERE rocpd_require_members('rocpd_op_summary')
ORDER BY total_ns DESC, kind, name;
