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
-- Computed per member on every core by rocpd_op_groups (docs/summaries.md).
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_summary AS
SELECT 100.0 * total_ns / sum(total_ns) OVER () AS time_pct,
       total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns,
       name, demangle(name) AS demangled, kernel_short_name(name) AS short_name
FROM (SELECT name, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns
      FROM temp.rocpd_op_groups
      WHERE group_by = 'name' AND of_kind = 'kernel')
ORDER BY total_ns DESC, name;
