-- rocpd_run_kernels_full: per run label and kernel name, over the labelled members' kernels:
--   calls, total_ns (summed durations), med_ns (median duration); kernel = rocpd_display_name(name).
-- rocpd_run_kernels: the same rows with `kernel` as the only name column (docs/views.md).
CREATE TEMP VIEW IF NOT EXISTS rocpd_run_kernels_full AS
SELECT r.run, o.name, count(*) AS calls, sum(o.duration) AS total_ns, median(o.duration) AS med_ns,
       rocpd_display_name(o.name) AS kernel
FROM temp.rocpd_runs AS r
JOIN temp.rocpd_ops AS o ON o.db = r.db
WHERE r.run IS NOT NULL AND o.kind = 'kernel' AND rocpd_require_members('rocpd_run_kernels')
GROUP BY r.run, o.name;

CREATE TEMP VIEW IF NOT EXISTS rocpd_run_kernels AS
SELECT run, kernel, calls, total_ns, med_ns FROM temp.rocpd_run_kernels_full
WHERE rocpd_require_members('rocpd_run_kernels');

-- rocpd_run_compare_full: every ordered pair of runs (run_a, run_b) and every kernel name either
--   ran: calls_a, total_a_ns, med_a_ns, calls_b, total_b_ns, med_b_ns (0 calls, 0 ns and NULL
--   median for a kernel a run did not execute), diff_total_ns = total_b_ns - total_a_ns,
--   diff_med_ns = med_b_ns - med_a_ns, kernel = rocpd_display_name(name); ordered by impact
--   (|diff_total_ns|, largest first) within each pair. Select one direction:
--   WHERE run_a = 'baseline' AND run_b = 'candidate'.
-- rocpd_run_compare: the same rows and order with `kernel` as the only name column and the columns
-- that fit a 160-column terminal: run_a, run_b, kernel, calls_a, total_a_ns, calls_b, total_b_ns,
-- diff_total_ns (the medians and their difference are in rocpd_run_compare_full).
CREATE TEMP VIEW IF NOT EXISTS rocpd_run_compare_full AS
WITH k AS MATERIALIZED (SELECT * FROM temp.rocpd_run_kernels_full),
     runs AS (SELECT DISTINCT run FROM k),
     names AS (SELECT DISTINCT name FROM k)
SELECT a.run AS run_a, b.run AS run_b, n.name,
       coalesce(ka.calls, 0) AS calls_a, coalesce(ka.total_ns, 0) AS total_a_ns, ka.med_ns AS med_a_ns,
       coalesce(kb.calls, 0) AS calls_b, coalesce(kb.total_ns, 0) AS total_b_ns, kb.med_ns AS med_b_ns,
       coalesce(kb.total_ns, 0) - coalesce(ka.total_ns, 0) AS diff_total_ns,
       kb.med_ns - ka.med_ns AS diff_med_ns,
       rocpd_display_name(n.name) AS kernel
FROM runs AS a
JOIN runs AS b ON b.run <> a.run
JOIN names AS n
LEFT JOIN k AS ka ON ka.run = a.run AND ka.name IS n.name
LEFT JOIN k AS kb ON kb.run = b.run AND kb.name IS n.name
WHERE (ka.run IS NOT NULL OR kb.run IS NOT NULL) AND rocpd_require_members('rocpd_run_compare')
ORDER BY run_a, run_b, abs(coalesce(kb.total_ns, 0) - coalesce(ka.total_ns, 0)) DESC, n.name;

CREATE TEMP VIEW IF NOT EXISTS rocpd_run_compare AS
SELECT run_a, run_b, kernel, calls_a, total_a_ns, calls_b, total_b_ns, diff_total_ns
FROM temp.rocpd_run_compare_full
WHERE rocpd_require_members('rocpd_run_compare');
