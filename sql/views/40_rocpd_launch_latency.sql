-- rocpd_launch_latency_full: per kernel name, the time from the start of the API call that launched
-- a kernel (hipLaunchKernel, hipModuleLaunchKernel, ...) to the start of the kernel on the GPU.
-- Includes launch overhead and queueing behind earlier GPU work. The launch of a kernel is the one
-- docs/diagnosis.md defines for every analysis: of its member's calls with the kernel's
-- correlation_id, the one with the earliest start (then the smallest api_id); calls without a
-- start are no launches, kernels without a launch are left out.
--   launches          kernel executions with a launch (a kernel whose start is NULL counts here
--                     but has no latency)
--   avg_ns, med_ns, p95_ns, min_ns, max_ns   of the latency (p95: as percentile(latency, 95));
--                     avg_ns and p95_ns rounded to 0.1 ns (docs/views.md)
--   api_names         the distinct launching API names, comma-separated (in BINARY order)
--   kernel, name, demangled   rocpd_display_name(name), raw kernel name and demangle(name)
-- Ordered by median latency, largest first.
-- rocpd_launch_latency: the same rows with `kernel` as the only name column.
-- The figures come from the rocpd_launch_groups table (ext/diagnosis/rocpd_launch_groups.cpp):
-- every member's kernels and launch calls read on every core, the latencies kept per kernel name.
CREATE TEMP VIEW IF NOT EXISTS rocpd_launch_latency_full AS
SELECT launches, round(avg_ns, 1) AS avg_ns, med_ns, round(p95_ns, 1) AS p95_ns, min_ns, max_ns, api_names,
       rocpd_display_name(name) AS kernel, name, demangle(name) AS demangled
FROM temp.rocpd_launch_groups
WHERE rocpd_require_members('rocpd_launch_latency')
ORDER BY med_ns DESC, name;

CREATE TEMP VIEW IF NOT EXISTS rocpd_launch_latency AS
SELECT launches, avg_ns, med_ns, p95_ns, min_ns, max_ns, api_names, kernel
FROM temp.rocpd_launch_latency_full
WHERE rocpd_require_members('rocpd_launch_latency')
ORDER BY med_ns DESC, name;
