-- rocpd_step_summary: per step (the n-th step range of every member process, rocpd_steps with its
-- default pattern 'ProfilerStep#%'), how evenly the ranks ran it (docs/ranks.md). Ranks that wait
-- for each other inside collectives end a step together, so the slowest rank is the one that
-- worked longest: work_ns = duration - wait_ns (the step's time not spent waiting for other ranks).
--   name                  the step range's name (the smallest, should the ranks name it differently)
--   ranks                 member processes with this step
--   slowest_db, slowest_pid, slowest_work_ns   the rank with the largest work_ns (ties: db, pid order)
--   fastest_work_ns       the smallest work_ns
--   spread_ns             slowest_work_ns - fastest_work_ns
--   min_duration_ns, max_duration_ns   the step's shortest and longest duration over the ranks
--   wait_ns               the ranks' wait inside collectives during the step, summed
-- It refuses to answer while no trace is open (rocpd_require_members, docs/views.md).
CREATE TEMP VIEW IF NOT EXISTS rocpd_step_summary AS
SELECT step, min(name) AS name, count(*) AS ranks,
       max(CASE WHEN slowest = 1 THEN db END) AS slowest_db,
       max(CASE WHEN slowest = 1 THEN pid END) AS slowest_pid,
       max(work_ns) AS slowest_work_ns,
       min(work_ns) AS fastest_work_ns,
       max(work_ns) - min(work_ns) AS spread_ns,
       min(duration) AS min_duration_ns,
       max(duration) AS max_duration_ns,
       sum(wait_ns) AS wait_ns
FROM (SELECT step, name, db, pid, duration, wait_ns, duration - wait_ns AS work_ns,
             row_number() OVER (PARTITION BY step ORDER BY duration - wait_ns DESC, db, pid) AS slowest
      FROM rocpd_steps)
WHERE rocpd_require_members('rocpd_step_summary')
GROUP BY step
ORDER BY step;
