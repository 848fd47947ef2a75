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
-- Cost: the launch calls come from rocpd_op_launches (members on every core) instead of numbering
-- every API row; each op's bottom-level range is found by one ordered pass over the ranges and
-- launch calls of each thread and range name (the last range starting at or before the call is the
-- innermost candidate), with the per-op search over the thread's ranges kept only as the fallback
-- when that candidate ended before the call ends.
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_sequences AS
WITH calls AS MATERIALIZED (
       SELECT DISTINCT db, correlation_id, launch_start AS start, launch_end AS "end" FROM rocpd_op_launches),
     ranges AS MATERIALIZED (SELECT db, pid, tid, name, start, "end", api_id FROM temp.rocpd_ranges),
     launched AS MATERIALIZED (
       SELECT s.rowid AS op_rowid, s.db, s.pid, s.tid, s.op_id, s.name, s.start, s."end", s.bottom_level,
              c.start AS call_start,
              CASE WHEN c."end" IS NULL OR c."end" < c.start THEN c.start ELSE c."end" END AS call_end
       FROM temp.rocpd_kernel_stacks AS s
       CROSS JOIN calls AS c ON c.db = s.db AND c.correlation_id = s.correlation_id
       WHERE s.depth > 0),
     -- Per thread and range name, ranges and calls in rocpd_kernel_stacks' order (start, then end
     -- descending, then api_id; a call after the ranges that start with it); k counts the ranges so
     -- far, so a call's candidate is the range with the same k.
     stream AS MATERIALIZED (
       SELECT db, pid, tid, name, is_call, e, id,
              sum(1 - is_call) OVER (PARTITION BY db, pid, tid, name ORDER BY t, is_call, e DESC, id
                                     ROWS UNBOUNDED PRECEDING) AS k
       FROM (SELECT db, pid, tid, name, start AS t, 0 AS is_call, "end" AS e, api_id AS id FROM ranges
             UNION ALL
             SELECT db, pid, tid, bottom_level, call_start, 1, call_end, op_rowid FROM launched)),
     candidates AS MATERIALIZED (SELECT id AS op_rowid, k FROM stream WHERE is_call = 1),
     range_rows AS MATERIALIZED (SELECT db, pid, tid, name, k, e, id FROM stream WHERE is_call = 0),
     -- The innermost enclosing range of the launching thread with the bottom level's name is the
     -- bottom-level range (rocpd_kernel_stacks' order: start, then end descending, then api_id).
     placed AS MATERIALIZED (
       SELECT l.*,
              CASE WHEN l.pid IS NULL OR l.tid IS NULL THEN NULL
                   WHEN r.e >= l.call_end THEN r.id
                   ELSE (SELECT r2.api_id FROM ranges AS r2
                         WHERE r2.db = l.db AND r2.pid = l.pid AND r2.tid = l.tid AND r2.name IS l.bottom_level
                           AND r2.start <= l.call_start AND l.call_end <= r2."end"
                         ORDER BY r2.start DESC, r2."end", r2.api_id DESC LIMIT 1) END AS range_id
       FROM launched AS l
       JOIN candidates AS c ON c.op_rowid = l.op_rowid
       LEFT JOIN range_rows AS r ON r.db = l.db AND r.pid = l.pid AND r.tid = l.tid AND r.name IS l.bottom_level
                                AND r.k = c.k),
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
