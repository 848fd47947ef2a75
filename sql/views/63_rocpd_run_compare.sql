-- rocpd_run_kernels_full: per run label and kernel name, over the labelled members' kernels:
--   calls, total_ns (summed durations), med_ns (median duration); kernel = rocpd_display_name(name).
-- rocpd_run_kernels: the same rows with `kernel` as the only name column (docs/views.md).
-- The labelled members are read once into `r`: joined with the view rocpd_runs itself, the ops
-- would look the member list up again for every op (8x slower on 160,000 ops).
CREATE TEMP VIEW IF NOT EXISTS rocpd_run_kernels_full AS
WITH r AS MATERIALIZED (SELECT db, run FROM temp.rocpd_runs WHERE run IS NOT NULL)
SELECT r.run, o.name, count(*) AS calls, sum(o.duration) AS total_ns, median(o.duration) AS med_ns,
       rocpd_display_name(o.name) AS kernel
FROM r
JOIN temp.rocpd_ops AS o ON o.db = r.db
WHERE o.kind = 'kernel' AND rocpd_require_members('rocpd_run_kernels')
GROUP BY r.run, o.name;

CREATE TEMP VIEW IF NOT EXISTS rocpd_run_kernels AS
SELECT run, kernel, calls, total_ns, med_ns FROM temp.rocpd_run_kernels_full
WHERE rocpd_require_members('rocpd_run_kernels');

-- rocpd_run_steps: per run label, its steps: the ranges rocpd_steps finds (marker ranges with
-- end > start named LIKE rocpd_step_pattern(), 'ProfilerStep#%' unless set), counted over the run's members and
-- processes (a rank's step counts once per rank: 2 ranks x 10 iterations are 20 steps). Runs
-- without steps have no row.
CREATE TEMP VIEW IF NOT EXISTS rocpd_run_steps AS
SELECT r.run, count(*) AS steps
FROM temp.rocpd_runs AS r
JOIN temp.rocpd_apis AS a ON a.db = r.db
WHERE r.run IS NOT NULL AND a.domain = 'marker' AND a."end" > a.start AND a.name LIKE rocpd_step_pattern()
  AND rocpd_require_members('rocpd_run_steps')
GROUP BY r.run;

-- rocpd_run_compare_full: every ordered pair of runs (run_a, run_b) and every kernel name either
--   ran: calls_a, total_a_ns, med_a_ns, calls_b, total_b_ns, med_b_ns (0 calls, 0 ns and NULL
--   median for a kernel a run did not execute), diff_total_ns = total_b_ns - total_a_ns,
--   diff_med_ns = med_b_ns - med_a_ns, and
--   med_ratio        med_b_ns / med_a_ns, rounded to 4 decimals: the change per call (1.5 = 50 % slower)
--   steps_a, steps_b each run's steps (rocpd_run_steps; NULL for a run without steps)
--   step_a_ns, step_b_ns   time per step: total / steps, rounded to 0.1 ns (NULL without steps)
--   diff_step_ns     step_b_ns - step_a_ns; step_ratio = step_b_ns / step_a_ns (4 decimals)
--   change_ns        what the pair is ranked by: diff_step_ns when both runs have steps, else the
--                    change per call, coalesce(med_b_ns, 0) - coalesce(med_a_ns, 0)
--   ranked_by        'step' or 'call', which of the two change_ns is
--   kernel = rocpd_display_name(name); ordered by |change_ns|, largest first, within each pair.
--   Raw totals are not comparable when the runs captured different numbers of iterations: a
--   run that captured fewer looks faster. Select one direction:
--   WHERE run_a = 'baseline' AND run_b = 'candidate'.
-- rocpd_run_compare: the same rows and order with `kernel` as the only name column and the columns
-- that fit a 160-column terminal: run_a, run_b, kernel, calls_a, calls_b, med_a_ns, med_b_ns,
-- med_ratio, step_ratio (the totals, steps and changes are in rocpd_run_compare_full).
CREATE TEMP VIEW IF NOT EXISTS rocpd_run_compare_full AS
WITH k AS MATERIALIZED (SELECT * FROM temp.rocpd_run_kernels_full),
     runs AS (SELECT DISTINCT run FROM k),
     names AS (SELECT DISTINCT name FROM k),
     steps AS MATERIALIZED (SELECT * FROM temp.rocpd_run_steps),
     pairs AS (
       SELECT a.run AS run_a, b.run AS run_b, n.name,
              coalesce(ka.calls, 0) AS calls_a, coalesce(ka.total_ns, 0) AS total_a_ns, ka.med_ns AS med_a_ns,
              coalesce(kb.calls, 0) AS calls_b, coalesce(kb.total_ns, 0) AS total_b_ns, kb.med_ns AS med_b_ns,
              sa.steps AS steps_a, sb.steps AS steps_b
       FROM runs AS a
       JOIN runs AS b ON b.run <> a.run
       JOIN names AS n
       LEFT JOIN k AS ka ON ka.run = a.run AND ka.name IS n.name
       LEFT JOIN k AS kb ON kb.run = b.run AND kb.name IS n.name
       LEFT JOIN steps AS sa ON sa.run = a.run
       LEFT JOIN steps AS sb ON sb.run = b.run
       WHERE ka.run IS NOT NULL OR kb.run IS NOT NULL),
     per_step AS (
       SELECT *, CAST(total_a_ns AS REAL) / steps_a AS step_a, CAST(total_b_ns AS REAL) / steps_b AS step_b
       FROM pairs)
SELECT run_a, run_b, name, calls_a, total_a_ns, med_a_ns, calls_b, total_b_ns, med_b_ns,
       total_b_ns - total_a_ns AS diff_total_ns,
       med_b_ns - med_a_ns AS diff_med_ns,
       CASE WHEN med_a_ns <> 0 THEN round(CAST(med_b_ns AS REAL) / med_a_ns, 4) END AS med_ratio,
       steps_a, steps_b,
       round(step_a, 1) AS step_a_ns, round(step_b, 1) AS step_b_ns,
       round(step_b - step_a, 1) AS diff_step_ns,
       CASE WHEN step_a <> 0 THEN round(step_b / step_a, 4) END AS step_ratio,
       CASE WHEN steps_a IS NOT NULL AND steps_b IS NOT NULL THEN round(step_b - step_a, 1)
            ELSE coalesce(med_b_ns, 0) - coalesce(med_a_ns, 0) END AS change_ns,
       CASE WHEN steps_a IS NOT NULL AND steps_b IS NOT NULL THEN 'step' ELSE 'call' END AS ranked_by,
       rocpd_display_name(name) AS kernel
FROM per_step
WHERE rocpd_require_members('rocpd_run_compare')
ORDER BY run_a, run_b,
         abs(CASE WHEN steps_a IS NOT NULL AND steps_b IS NOT NULL THEN step_b - step_a
                  ELSE coalesce(med_b_ns, 0) - coalesce(med_a_ns, 0) END) DESC,
         name;

CREATE TEMP VIEW IF NOT EXISTS rocpd_run_compare AS
SELECT run_a, run_b, kernel, calls_a, calls_b, med_a_ns, med_b_ns, med_ratio, step_ratio
FROM temp.rocpd_run_compare_full
WHERE rocpd_require_members('rocpd_run_compare');
