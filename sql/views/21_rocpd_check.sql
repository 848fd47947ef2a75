-- rocpd_check: op rows per member (db) that cover no time, so interval results can be trusted:
--   null_bounds  start or end is NULL (skipped by interval_union and the busy tables)
--   negative     end < start (counted as empty, and as 0 in rocpd_busy.sum_ns)
--   zero_length  end = start (empty: adds no busy time)
CREATE TEMP VIEW IF NOT EXISTS rocpd_check AS
SELECT db,
       count(*) AS ops,
       count(*) FILTER (WHERE start IS NULL OR "end" IS NULL) AS null_bounds,
       count(*) FILTER (WHERE "end" < start) AS negative,
       count(*) FILTER (WHERE "end" = start) AS zero_length
FROM temp.rocpd_ops
GROUP BY db;
