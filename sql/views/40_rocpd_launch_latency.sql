-- rocpd_launch_latency_full: per kernel name, the time from the start of the API call that issued
-- a kernel (hipLaunchKernel, hipModuleLaunchKernel, ...) to the start of the kernel on the GPU:
-- op start minus issuing call's start, ops joined to their call on (db, correlation_id).
-- Includes launch overhead and queueing behind earlier GPU work.
--   launches          kernel executions with a known issuing call (unlinked ones are left out)
--   avg_ns, med_ns, p95_ns, min_ns, max_ns   of the latency (p95: percentile(latency, 95));
--                     avg_ns and p95_ns rounded to 0.1 ns (docs/views.md)
--   api_names         the distinct issuing API names, comma-separated
--   kernel, name, demangled   rocpd_display_name(name), raw kernel name and demangle(name)
-- rocpd_launch_latency: the same rows with `kernel` as the only name column.
-- A plain join: rocpd_apis answers `correlation_id =` as a lookup (docs/federation.md).
CREATE TEMP VIEW IF NOT EXISTS rocpd_launch_latency_full AS
WITH launches AS (
       SELECT o.name, o.start - c.start AS latency_ns, c.name AS api_name
       FROM temp.rocpd_ops AS o
       JOIN temp.rocpd_apis AS c ON c.db = o.db AND c.correlation_id = o.correlation_id
       WHERE o.kind = 'kernel')
SELECT count(*) AS launches,
       round(avg(latency_ns), 1) AS avg_ns,
       median(latency_ns) AS med_ns,
       round(percentile(latency_ns, 95), 1) AS p95_ns,
       min(latency_ns) AS min_ns,
       max(latency_ns) AS max_ns,
       group_concat(DISTINCT api_name) AS api_names,
       rocpd_display_name(name) AS kernel, name, demangle(name) AS demangled
FROM launches
WHERE rocpd_require_members('rocpd_launch_latency')
GROUP BY name
ORDER BY med_ns DESC, name;

CREATE TEMP VIEW IF NOT EXISTS rocpd_launch_latency AS
SELECT launches, avg_ns, med_ns, p95_ns, min_ns, max_ns, api_names, kernel
FROM temp.rocpd_launch_latency_full
WHERE rocpd_require_members('rocpd_launch_latency')
ORDER BY med_ns DESC, name;
