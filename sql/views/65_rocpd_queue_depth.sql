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
-- The rows are computed per member on every core by the rocpd_queue_steps table
-- (ext/diagnosis/rocpd_queue_steps.cpp); a `db =` filter reads only that member.
CREATE TEMP VIEW IF NOT EXISTS rocpd_queue_depth AS
SELECT db, gpu, queue, stream, ts, depth, waiting, duration FROM temp.rocpd_queue_steps
WHERE rocpd_require_members('rocpd_queue_depth');
