-- rocpd_kernel_summary_by_db: rocpd_kernel_summary per member (db): the same columns after db;
-- time_pct is the share of that member's summed kernel time. Ordered by db, then total time.
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_summary_by_db AS
SELECT db,
       100.0 * total_ns / sum(total_ns) OVER (PARTITION BY db) AS time_pct,
       total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns,
       name, demangle(name) AS demangled, kernel_short_name(name) AS short_name
FROM (SELECT db, name,
             sum(duration) AS total_ns,
             count(*) AS instances,
             avg(duration) AS avg_ns,
             median(duration) AS med_ns,
             min(duration) AS min_ns,
             max(duration) AS max_ns,
             stddev(duration) AS stddev_ns
      FROM temp.rocpd_ops
      WHERE kind = 'kernel'
      GROUP BY db, name)
ORDER BY db, total_ns DESC, name;
