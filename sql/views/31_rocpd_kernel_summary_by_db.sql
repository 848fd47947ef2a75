-- rocpd_kernel_summary_by_db_full: rocpd_kernel_summary_full per member (db): the same columns
-- after db; time_pct is the share of that member's summed kernel time. Ordered by db, then total
-- time (members in natural order: rank2 before rank10). rocpd_kernel_summary_by_db: the same rows
-- with `kernel` as the only name column.
-- Computed per member on every core by rocpd_op_groups (docs/summaries.md).
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_summary_by_db_full AS
SELECT db,
       round(100.0 * total_ns / sum(total_ns) OVER (PARTITION BY db), 2) AS time_pct,
       total_ns, instances, round(avg_ns, 1) AS avg_ns, med_ns, min_ns, max_ns, round(stddev_ns, 1) AS stddev_ns,
       rocpd_display_name(name) AS kernel, name, demangle(name) AS demangled, kernel_short_name(name) AS short_name
FROM (SELECT db, name, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns
      FROM temp.rocpd_op_groups
      WHERE group_by = 'db,name' AND of_kind = 'kernel')
WHERE rocpd_require_members('rocpd_kernel_summary_by_db')
ORDER BY db COLLATE rocpd_natural, total_ns DESC, name;

CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_summary_by_db AS
SELECT db, time_pct, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns, kernel
FROM temp.rocpd_kernel_summary_by_db_full
WHERE rocpd_require_members('rocpd_kernel_summary_by_db')
ORDER BY db COLLATE rocpd_natural, total_ns DESC, name;
