-- rocpd_kernel_counters_full: HTA's counter analysis with operator stacks
-- (get_cupti_counter_data_with_operators): one row per kernel op that has performance counter
-- values, with its counters as one JSON object {"counter": value, ...} and the stack of ranges
-- that launched it (as rocpd_kernel_stacks). docs/diagnosis.md.
--   pid        the op's process (rocpd_counters.pid)
--   kernel, name, demangled   rocpd_display_name(name), the raw kernel name, demangle(name)
--   duration   end - start
--   n_counters counter names with a value for this op
--   counters   rocpd_counters' values of the op summed per counter name (rocprofv3 stores a
--              dimensioned counter as one value per XCC/instance; upstream's counters_collection
--              sums them likewise); counter rows without a name are left out
--   depth, stack, top_level, bottom_level   as in rocpd_kernel_stacks
-- The long form (one row per value) is rocpd_counters itself. A kernel of rocpd_kernel_stacks is the
-- op of the counter rows with the same db and op_id and, when it has a launch, the same pid.
-- The rows are computed per member on every core by the rocpd_op_counters table
-- (ext/diagnosis/rocpd_op_counters.cpp: the member's counters grouped in memory, then the stacks of
-- the kernels they name); a `db =` filter reads only that member.
-- rocpd_kernel_counters: the kernel by its display name with its top- and bottom-level operator and
-- its counters: db, op_id, kernel, duration, top_level, bottom_level, counters (the rest, the whole
-- stack and raw names included, in rocpd_kernel_counters_full).
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_counters_full AS
SELECT db, pid, op_id, correlation_id, gpu, queue, rocpd_display_name(name) AS kernel, name,
       demangle(name) AS demangled, start, "end", "end" - start AS duration, n_counters, counters, depth, stack,
       top_level, bottom_level
FROM temp.rocpd_op_counters
WHERE rocpd_require_members('rocpd_kernel_counters');

CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_counters AS
SELECT db, op_id, kernel, duration, top_level, bottom_level, counters
FROM temp.rocpd_kernel_counters_full
WHERE rocpd_require_members('rocpd_kernel_counters');
