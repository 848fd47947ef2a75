-- rocpd_launch_latency: per kernel name, the time from the start of the API call that issued a
-- kernel (hipLaunchKernel, hipModuleLaunchKernel, ...) to the start of the kernel on the GPU:
-- op start minus issuing call's start, ops joined to their call on (db, correlation_id).
-- Includes launch overhead and queueing behind earlier GPU work.
--   launches          kernel executions with a known issuing call (unlinked ones are left out)
--   avg_ns, med_ns, p95_ns, min_ns, max_ns   of the latency (p95: percentile(latency, 95))
--   api_names         the distinct issuing API names, comma-separated
--   name, demangled   raw kernel name and demangle(name)
-- The API rows are materialised once so the join is an index lookup, not a scan per kernel.
CREATE TEMP VIEW IF NOT EXISTS rocpd_launch_latency AS
WITH calls AS MATERIALIZED (
       SELECT db, correlation_id, start AS call_start, name AS api_name
       FROM temp.rocpd_apis
       WHERE correlation_id IS NOT NULL),
     launches AS (
       SELECT o.name, o.start - c.call_start AS latency_ns, c.api_name
       FROM temp.rocpd_ops AS o
       JOIN calls AS c ON c.db = o.db AND c.correlation_id = o.correlation_id
       WHERE o.kind = 'kernel')
SELECT count(*) AS launches,
       avg(latency_ns) AS avg_ns,
       median(latency_ns) AS med_ns,
       percentile(latency_ns, 95) AS p95_ns,
       min(latency_ns) AS min_ns,
       max(latency_ns) AS max_ns,
       group_concat(DISTINCT api_name) AS api_names,
       name, demangle(name) AS demangled
FROM launches
GROUP BY name
ORDER BY med_ns DESC, name;
