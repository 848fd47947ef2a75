-- rocpd_kernel_summary_full: job-wide GPU kernel time per kernel name, with Nsight Systems'
-- cuda_gpu_kern_sum columns (and rocpd's summary columns under Nsight's names).
--   time_pct   share of the summed kernel time of the whole job (all members), in percent
--   total_ns   sum of kernel durations; instances: number of kernel executions
--   avg_ns, med_ns, min_ns, max_ns, stddev_ns   of the durations (stddev: sample, NULL for one)
--   kernel     rocpd_display_name(name): the short form summaries show (docs/names.md)
--   name       the raw kernel name as recorded (mangled or not: never replaced)
--   demangled  demangle(name): readable form next to the raw one
--   short_name kernel_short_name(name): base function name without templates/parameters
-- Rounding and ratios follow docs/views.md: percents to 2 decimals, averages and standard
-- deviations to 0.1 ns; exact figures (counts, sums, extremes, medians) are never rounded.
-- Ordered by total time, like Nsight. Names are demangled once per row of the summary,
-- not once per kernel execution.
-- Computed per member on every core by rocpd_op_groups (docs/summaries.md).
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_summary_full AS
SELECT round(100.0 * total_ns / sum(total_ns) OVER (), 2) AS time_pct,
       total_ns, instances, round(avg_ns, 1) AS avg_ns, med_ns, min_ns, max_ns, round(stddev_ns, 1) AS stddev_ns,
       rocpd_display_name(name) AS kernel, name, demangle(name) AS demangled, kernel_short_name(name) AS short_name
FROM (SELECT name, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns
      FROM temp.rocpd_op_groups
      WHERE group_by = 'name' AND of_kind = 'kernel')
WHERE rocpd_require_members('rocpd_kernel_summary')
ORDER BY total_ns DESC, name;

-- rocpd_kernel_summary: the same rows with one name column, `kernel` (the display name); the raw,
-- demangled and short names are in rocpd_kernel_summary_full.
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_summary AS
SELECT time_pct, total_ns, instances, avg_ns, med_ns, min_ns, max_ns, stddev_ns, kernel
FROM temp.rocpd_kernel_summary_full
WHERE rocpd_require_members('rocpd_kernel_summary')
ORDER BY total_ns DESC, name;
