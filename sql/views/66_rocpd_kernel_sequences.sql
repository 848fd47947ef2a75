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
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_sequences AS
WITH calls AS (
       SELECT db, correlation_id, start, "end" FROM (
         SELECT db, correlation_id, start, "end",
                row_number() OVER (PARTITION BY db, correlation_id ORDER BY start, api_id) AS n
         FROM temp.rocpd_apis WHERE correlation_id IS NOT NULL AND start IS NOT NULL)
       WHERE n = 1),
     ranges AS MATERIALIZED (SELECT db, pid, tid, name, start, "end", api_id FROM temp.rocpd_ranges),
     launched AS MATERIALIZED (
       SELECT s.db, s.pid, s.tid, s.op_id, s.name, s.start, s."end", s.bottom_level, c.start AS call_start,
              CASE WHEN c."end" IS NULL OR c."end" < c.start THEN c.start ELSE c."end" END AS call_end
       FROM temp.rocpd_kernel_stacks AS s
       CROSS JOIN calls AS c ON c.db = s.db AND c.correlation_id = s.correlation_id
       WHERE s.depth > 0),
     -- The innermost enclosing range of the launching thread with the bottom level's name is the
     -- bottom-level range (rocpd_kernel_stacks' order: start, then end descending, then api_id).
     placed AS MATERIALIZED (
       SELECT l.*, (SELECT r.api_id FROM ranges AS r
                    WHERE r.db = l.db AND r.pid = l.pid AND r.tid = l.tid AND r.name IS l.bottom_level
                      AND r.start <= l.call_start AND l.call_end <= r."end"
                    ORDER BY r.start DESC, r."end", r.api_id DESC LIMIT 1) AS range_id
       FROM launched AS l),
     occurrences AS (
       SELECT db, pid, tid, range_id, bottom_level AS operator,
              json_group_array(name) OVER occurrence AS pattern,
              sum("end" - start) OVER occurrence AS gpu_ns,
              row_number() OVER (PARTITION BY db, pid, tid, range_id ORDER BY start, op_id) AS n
       FROM placed
       WHERE range_id IS NOT NULL
       WINDOW occurrence AS (PARTITION BY db, pid, tid, range_id ORDER BY start, op_id
                             ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))
SELECT o.db, o.operator, json_array_length(o.pattern) AS kernels, o.pattern, count(*) AS count,
       sum(o.gpu_ns) AS gpu_ns, sum(r."end" - r.start) AS range_ns
FROM occurrences AS o
JOIN ranges AS r ON r.db = o.db AND r.pid = o.pid AND r.tid = o.tid AND r.api_id = o.range_id
WHERE o.n = 1
GROUP BY o.db, o.operator, o.pattern
ORDER BY o.db, count DESC, gpu_ns DESC, o.operator, o.pattern;
