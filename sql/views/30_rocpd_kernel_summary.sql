-- rocpd_kernel_summary: job-wide GPU kernel time per kernel name, with Nsight Systems'
-- cuda_gpu_kern_sum columns (and rocpd's summary columns under Nsight's names).
--   time_pct   share of the summed kernel time of the whole job (all members), in percent
--   total_ns   sum of kernel durations; instances: number of kernel executions
--   avg_ns, med_ns, min_ns, max_ns, stddev_ns   of the durations (stddev: sample, NULL for one)
--   name       the raw kernel name as recorded (mangled or not: never replaced)
--   demangled  demangle(name): readable form next to the raw one
--   short_name kernel_short_name(name): base function name without templates/parameters
-- Ordered by total time, like Nsight. Names are demangled once per row of the summary,
-- not once per kernel execution.
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_summary AS
SELECT 100.0 * total_ns / sum(total_ns) OVER () AS time_pct,
       total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns,
       name, demangle(name) AS demangled, kernel_short_name(name) AS short_name
FROM (SELECT name,
             sum(duration) AS total_ns,
             count(*) AS instances,
             avg(duration) AS avg_ns,
             median(duration) AS med_ns,
             min(duration) AS min_ns,
             max(duration) AS max_ns,
             stddev(duration) AS stddev_ns
      FROM temp.rocpd_ops
      WHERE kind = 'kernel'
      GROUP BY name)
ORDER BY total_ns DESC, name;
