-- rocpd_kernel_histogram_full: the distribution of each kernel's durations in power-of-two buckets
-- (histogram_log2), one row per kernel name and bucket [lo_ns, hi_ns), ascending; empty buckets
-- between the shortest and the longest execution are listed with count 0. Ops with end < start
-- have no duration bucket and are left out (rocpd_check counts them).
--   kernel, name   rocpd_display_name(name) and the raw name
-- rocpd_kernel_histogram: the same rows with `kernel` as the only name column.
CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_histogram_full AS
SELECT rocpd_display_name(h.name) AS kernel, h.name, b.value ->> 'lo' AS lo_ns, b.value ->> 'hi' AS hi_ns,
       b.value ->> 'count' AS count
FROM (SELECT name, histogram_log2(duration) AS buckets
      FROM temp.rocpd_ops
      WHERE kind = 'kernel' AND duration >= 0
      GROUP BY name) AS h,
     json_each(h.buckets) AS b
WHERE rocpd_require_members('rocpd_kernel_histogram')
ORDER BY h.name, b.key;

CREATE TEMP VIEW IF NOT EXISTS rocpd_kernel_histogram AS
SELECT kernel, lo_ns, hi_ns, count
FROM temp.rocpd_kernel_histogram_full
WHERE rocpd_require_members('rocpd_kernel_histogram')
ORDER BY name, lo_ns;
