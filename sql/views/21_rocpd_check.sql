-- rocpd_check: op rows per member (db) that cover no time, so interval results can be trusted, and
-- kernels whose times contradict their queue:
--   null_bounds     start or end is NULL (skipped by interval_union and the busy tables)
--   negative        end < start (counted as empty, and as 0 in rocpd_busy.sum_ns)
--   zero_length     end = start (empty: adds no busy time)
--   queue_overlaps  kernels that start before an earlier kernel of the same gpu and queue ends: a
--                   queue runs its kernels in order, so such overlaps are timestamp error (busy
--                   time stays exact: the union counts the overlap once). "Earlier" orders by
--                   start, then the longer first; an op with end < start ends at its start.
CREATE TEMP VIEW IF NOT EXISTS rocpd_check AS
SELECT db,
       count(*) AS ops,
       count(*) FILTER (WHERE start IS NULL OR "end" IS NULL) AS null_bounds,
       count(*) FILTER (WHERE "end" < start) AS negative,
       count(*) FILTER (WHERE "end" = start) AS zero_length,
       count(*) FILTER (WHERE on_queue AND start < earlier_end) AS queue_overlaps
FROM (SELECT db, start, "end", on_queue,
             max(CASE WHEN on_queue THEN stop END)
               OVER (PARTITION BY db, on_queue, gpu, queue ORDER BY start, stop DESC
                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_end
      FROM (SELECT db, gpu, queue, start, "end",
                   CASE WHEN "end" < start THEN start ELSE "end" END AS stop,
                   kind = 'kernel' AND gpu IS NOT NULL AND queue IS NOT NULL AND start IS NOT NULL
                     AND "end" IS NOT NULL AS on_queue
            FROM temp.rocpd_ops))
GROUP BY db;
