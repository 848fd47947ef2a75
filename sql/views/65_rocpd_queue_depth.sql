-- rocpd_queue_depth: per lane (db, gpu, queue, stream as rocpd_ops reports them) the number of
-- outstanding ops over time, a step function: one row per instant at which an op of the lane is
-- launched, starts or ends (HTA's queue length, get_queue_length_time_series). docs/diagnosis.md.
--   ts        the instant; the values hold from ts until the next row's ts (duration)
--   depth     ops launched (their launch call started at or before ts) and not finished (end > ts)
--   waiting   ops launched and not started (start > ts): HTA's queue_length
--   duration  next ts of the lane - ts (NULL on its last row, where both are 0)
-- Only ops with a launch (the call of their member with their correlation_id; the earliest
-- start, then the smallest api_id, when a hostile file repeats one) and with a start and end
-- count. All events at one instant apply together (one row per instant).
CREATE TEMP VIEW IF NOT EXISTS rocpd_queue_depth AS
WITH calls AS (
       SELECT db, correlation_id, start FROM (
         SELECT db, correlation_id, start,
                row_number() OVER (PARTITION BY db, correlation_id ORDER BY start, api_id) AS n
         FROM temp.rocpd_apis WHERE correlation_id IS NOT NULL AND start IS NOT NULL)
       WHERE n = 1),
     ops AS MATERIALIZED (
       SELECT o.db, o.gpu, o.queue, o.stream, c.start AS launched, o.start, o."end"
       FROM temp.rocpd_ops AS o CROSS JOIN calls AS c ON c.db = o.db AND c.correlation_id = o.correlation_id
       WHERE o.start IS NOT NULL AND o."end" IS NOT NULL),
     steps AS (
       SELECT db, gpu, queue, stream, ts, sum(d_depth) AS d_depth, sum(d_wait) AS d_wait
       FROM (SELECT db, gpu, queue, stream, launched AS ts, 1 AS d_depth, 1 AS d_wait FROM ops
             UNION ALL SELECT db, gpu, queue, stream, start, 0, -1 FROM ops
             UNION ALL SELECT db, gpu, queue, stream, "end", -1, 0 FROM ops)
       GROUP BY db, gpu, queue, stream, ts)
SELECT db, gpu, queue, stream, ts,
       sum(d_depth) OVER lane AS depth,
       sum(d_wait) OVER lane AS waiting,
       lead(ts) OVER lane - ts AS duration
FROM steps
WINDOW lane AS (PARTITION BY db, gpu, queue, stream ORDER BY ts ROWS UNBOUNDED PRECEDING);
