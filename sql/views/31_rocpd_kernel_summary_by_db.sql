-- rocpd_kernel_summary_by_db: rocpd_kernel_summary per member (db): the same columns after db;
-- time_pct is the share of that member's summed kernel time. Ordered by db, then total time.
-- Computed per member on every core by rocpd_op_groups (docs/summaries.md).
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_summary_by_db AS
SELECT db,
       100.0 * total_ns / sum(total_ns) OVER (PARTITION BY db) AS time_pct,
       total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns,
       name, demangle(name) AS demangled, kernel_short_name(name) AS short_name
FROM (SELECT db, name, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns
      FROM temp.rocpd_op_groups
      WHERE group_by = 'db,name' AND of_kind = 'kernel')
ORDER BY db, total_ns DESC, name;
