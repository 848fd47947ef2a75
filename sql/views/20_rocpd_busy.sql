-- rocpd_busy: true GPU busy time per member (db) and gpu, next to the upstream-style sum.
--   busy_ns    length of the union of the op intervals (interval_union): concurrent ops count once
--   span_ns    first op start to last op end on that gpu (ops with end < start left out)
--   busy       busy_ns / span_ns, never above 1 (NULL when the span is 0)
--   sum_ns     the upstream `busy` view's GpuTime: the sum of op durations (end < start counts 0)
--   overlap_ns sum_ns - busy_ns: how much the upstream view over-counts
--   ops        number of op rows of that gpu
CREATE TEMP VIEW IF NOT EXISTS rocpd_busy AS
SELECT db, gpu, busy_ns, span_ns,
       CASE WHEN span_ns > 0 THEN CAST(busy_ns AS REAL) / span_ns END AS busy,
       sum_ns, sum_ns - busy_ns AS overlap_ns, ops
FROM (SELECT db, gpu,
             interval_union(start, "end") AS busy_ns,
             max("end") FILTER (WHERE "end" >= start) - min(start) FILTER (WHERE "end" >= start) AS span_ns,
             sum(CASE WHEN "end" > start THEN "end" - start ELSE 0 END) AS sum_ns,
             count(*) AS ops
      FROM temp.rocpd_ops
      GROUP BY db, gpu);
