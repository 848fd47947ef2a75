-- rocpd_kernel_sequences: the kernel patterns each bottom-level range launches, most frequent
-- first (HTA's frequent CUDA kernel sequences, get_frequent_cuda_kernel_sequences). docs/diagnosis.md.
-- An occurrence is one range (a row of rocpd_ranges) that is the bottom_level of at least one op
-- of rocpd_kernel_stacks: the range enclosing the op's launch call that rocpd_kernel_stacks puts
-- innermost. Its pattern is the JSON array of the names of the ops (kernels and copies) whose
-- bottom-level range it is (not those of ranges nested in it), ordered by GPU start, then op_id.
--   db, operator   member, the range's name
--   kernels        ops in the pattern (HTA's min_pattern_len filters on it: WHERE kernels >= 3)
--   pattern        JSON array of op names
--   count          occurrences with this pattern
--   gpu_ns         sum of the ops' durations over the occurrences
--   range_ns       sum of the occurrences' range durations (HTA's CPU op duration)
-- Ordered per db by count, then gpu_ns, descending.
-- Cost: one read of rocpd_kernel_stacks, whose hidden columns name each op's bottom-level range
-- (bottom_level_id: its api_id; bottom_level_start/_end: its times), then one window per
-- occurrence. Ops whose launch call has no pid or tid have no thread, so no occurrence.
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_sequences AS
WITH occurrences AS (
       SELECT db, bottom_level AS operator, bottom_level_start, bottom_level_end,
              json_group_array(name) OVER occurrence AS pattern,
              sum("end" - start) OVER occurrence AS gpu_ns,
              row_number() OVER (PARTITION BY db, pid, tid, bottom_level_id ORDER BY start, op_id) AS n
       FROM temp.rocpd_kernel_stacks
       WHERE depth > 0 AND pid IS NOT NULL AND tid IS NOT NULL
       WINDOW occurrence AS (PARTITION BY db, pid, tid, bottom_level_id ORDER BY start, op_id
                             ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))
SELECT db, operator, json_array_length(pattern) AS kernels, pattern, count(*) AS count,
       sum(gpu_ns) AS gpu_ns, sum(bottom_level_end - bottom_level_start) AS range_ns
FROM occurrences
WHERE n = 1 AND rocpd_require_members('rocpd_kernel_sequences')
GROUP BY db, operator, pattern
ORDER BY db COLLATE rocpd_natural, count DESC, gpu_ns DESC, operator, pattern;
