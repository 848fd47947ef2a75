-- rocpd_kernel_histogram: the distribution of each kernel's durations in power-of-two buckets
-- (histogram_log2), one row per kernel name and bucket [lo_ns, hi_ns), ascending; empty buckets
-- between the shortest and the longest execution are listed with count 0. Ops with end < start
-- have no duration bucket and are left out (rocpd_check counts them).
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_histogram AS
SELECT h.name, b.value ->> 'lo' AS lo_ns, b.value ->> 'hi' AS hi_ns, b.value ->> 'count' AS count
FROM (SELECT name, histogram_log2(duration) AS buckets
      FROM temp.rocpd_ops
      WHERE kind = 'kernel' AND duration >= 0
      GROUP BY name) AS h,
     json_each(h.buckets) AS b
ORDER BY h.name, b.key;
