-- rocpd_kernel_counters: HTA's counter analysis with operator stacks
-- (get_cupti_counter_data_with_operators): one row per kernel op that has performance counter
-- values, with its counters as one JSON object {"counter": value, ...} and the stack of ranges
-- that launched it (rocpd_kernel_stacks). docs/diagnosis.md.
--   counters   rocpd_counters' values of the op summed per counter name (rocprofv3 stores a
--              dimensioned counter as one value per XCC/instance; upstream's counters_collection
--              sums them likewise); counter rows without a name are left out
--   pid        the op's process (rocpd_counters.pid)
--   depth, stack, top_level, bottom_level   as in rocpd_kernel_stacks
-- The long form (one row per value) is rocpd_counters itself. rocpd_kernel_stacks is read once
-- (outer loop, CROSS JOIN fixes the order) and probes the grouped counters through an automatic
-- index, never a scan per kernel. A kernel of rocpd_kernel_stacks is the op of the counter rows
-- with the same db and op_id and, when it has a launch, the same pid.
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_counters AS
WITH per_counter AS (
       SELECT db, pid, op_id, counter, sum(value) AS value
       FROM temp.rocpd_counters WHERE counter IS NOT NULL
       GROUP BY db, pid, op_id, counter),
     per_op AS (
       SELECT db, pid, op_id, count(*) AS n_counters, json_group_object(counter, value) AS counters
       FROM per_counter GROUP BY db, pid, op_id)
SELECT k.db, c.pid, k.op_id, k.correlation_id, k.gpu, k.queue, k.name, k.start, k."end",
       k."end" - k.start AS duration, c.n_counters, c.counters, k.depth, k.stack, k.top_level, k.bottom_level
FROM temp.rocpd_kernel_stacks AS k
CROSS JOIN per_op AS c ON c.db = k.db AND c.op_id = k.op_id AND c.pid = coalesce(k.pid, c.pid)
WHERE k.kind = 'kernel' AND rocpd_require_members('rocpd_kernel_counters');
