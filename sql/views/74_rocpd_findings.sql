-- rocpd_user_findings: a user's own rules (docs/anomalies.md). Empty here; to add rules, replace it
-- after loading with a TEMP view of the same columns:
--   DROP VIEW rocpd_user_findings; CREATE TEMP VIEW rocpd_user_findings AS SELECT ... ;
-- rocpd_findings lists its rows next to the built-in ones.
CREATE TEMP VIEW IF NOT EXISTS rocpd_user_findings AS
SELECT NULL AS rule, NULL AS severity, NULL AS figures, NULL AS at_stake_ns, NULL AS at_stake_pct,
       NULL AS next, NULL AS evidence
WHERE 0;

-- rocpd_findings: what is wrong, worst first (docs/anomalies.md). Every rule is one arm of the
-- `rules` union below, with its threshold; each row:
--   rule          the rule's name
--   severity      'high' (at stake >= 25 % of the time it is a share of), 'medium' (>= 10 %), 'low';
--                 'info' for a description that is not a defect (gpu_bound)
--   figures       the figures that triggered it
--   at_stake_ns   the time the finding holds; at_stake_pct its share of the job's steps (step
--                 rules) or of the GPUs' summed spans (the others), rounded to 0.1
--   next          what to look at next; evidence: a query that shows the rows behind it
CREATE TEMP VIEW IF NOT EXISTS rocpd_findings AS
WITH gpu AS MATERIALIZED (  -- the GPUs' time: every gpu's first op start to its last op end, summed
  SELECT sum(span_ns) AS span_ns, sum(copy_ns) AS copy_ns, sum(comm_ns) AS comm_ns,
         sum(comm_ns - overlap_ns) AS exposed_ns, sum(idle_ns) AS idle_ns
  FROM rocpd_time_breakdown WHERE step IS NULL
), cp AS MATERIALIZED (
  SELECT step, step_ns, cpu_op_pct + launch_pct AS cpu_pct, kernel_pct, collective_wait_pct, bound_by,
         CASE WHEN bound_by LIKE '%CPU-bound%' THEN 'cpu' WHEN bound_by LIKE '%GPU-bound%' THEN 'gpu'
              WHEN bound_by LIKE '%collective-bound%' THEN 'collective' END AS bound
  FROM rocpd_critical_path_summary
), steps AS (
  SELECT sum(step_ns) AS ns, count(*) AS n FROM cp
), anomalies AS MATERIALIZED (
  SELECT * FROM rocpd_anomalies
), sync_fast AS MATERIALIZED (  -- per member and gpu, on every core: the gaps a synchronize call was
  -- blocked in when they began and returned within (rocpd_gap_groups.sync_gaps, sync_ns)
  SELECT db, sync_gaps, sync_ns, inexact FROM temp.rocpd_gap_groups
), sync AS MATERIALIZED (  -- the synchronize calls (stream, event, device, context) of the members
  -- rocpd_gap_groups could not read exactly (their rows read here by SQL, the same test)
  SELECT db, start, "end" FROM rocpd_apis
  WHERE db IN (SELECT db FROM sync_fast WHERE inexact > 0) AND name LIKE '%Synchronize%' AND start < "end"
), gaps AS MATERIALIZED (  -- the idle gaps of the gpus of those members with such calls (rocpd_gaps:
  -- between the union of a gpu's ops)
  SELECT db, gpu, start, "end", duration FROM rocpd_gaps WHERE db IN (SELECT db FROM sync)
), sync_gaps AS MATERIALIZED (  -- as rocpd_gap_groups: each call placed in its member's gpus' gaps by
  -- one sort (the last gap start at or before its end)
  SELECT DISTINCT g.db, g.gpu, g.start, g.duration
  FROM (SELECT db, gpu, s_start, s_end,
               max(CASE WHEN k = 0 THEN t END) OVER (PARTITION BY db, gpu ORDER BY t, k ROWS UNBOUNDED PRECEDING) AS gap_start
        FROM (SELECT db, gpu, start AS t, 0 AS k, NULL AS s_start, NULL AS s_end FROM gaps
              UNION ALL
              SELECT s.db, m.gpu, s."end", 1, s.start, s."end"
              FROM sync s JOIN (SELECT DISTINCT db, gpu FROM gaps) m ON m.db = s.db)) e
  JOIN gaps g ON g.db = e.db AND g.gpu IS e.gpu AND g.start = e.gap_start
  WHERE e.s_start < e.gap_start AND e.s_end <= g."end"
), idle AS MATERIALIZED (
  SELECT (SELECT idle_ns FROM gpu) AS idle_ns,
         CAST((SELECT count(*) FROM sync_gaps) + (SELECT total(sync_gaps) FROM sync_fast WHERE inexact = 0) AS INTEGER) AS n,
         (SELECT total(duration) FROM sync_gaps) + (SELECT total(sync_ns) FROM sync_fast WHERE inexact = 0) AS sync_ns
), counted AS MATERIALIZED (  -- per member, its kernels with counters (no member's ops read without counters)
  SELECT db, count(*) AS n, total(duration) AS ns FROM temp.rocpd_kernel_counters_full GROUP BY db
), counted_of AS MATERIALIZED (  -- all the kernels of those members alone (each read by its db)
  SELECT c.db, c.n, c.ns, g.instances AS kernels, g.total_ns AS kernel_ns
  FROM counted c CROSS JOIN temp.rocpd_op_groups('db', 'kernel') g WHERE g.db = c.db
), roof AS MATERIALIZED (  -- kernels placed on their roof (none without counters: counted is empty)
  SELECT kernel, device_name, duration, pct_of_roof
  FROM (SELECT 1 WHERE EXISTS (SELECT 1 FROM counted)) CROSS JOIN rocpd_kernel_roofline_by_kernel
  WHERE pct_of_roof IS NOT NULL AND duration > 0
), low_roof AS (  -- those under 30 % of their roof that hold 5 % or more of the placed kernels' time
  SELECT *, duration * (1 - min(pct_of_roof, 100) / 100.0) AS beyond_ns FROM roof
  WHERE pct_of_roof < 30 AND duration >= 0.05 * (SELECT sum(duration) FROM roof)
), rules AS (
  -- cpu_bound: steps whose critical path is mostly CPU work and launches (any such step)
  SELECT 'cpu_bound' AS rule,
         printf('%d of %d steps CPU-bound; CPU and launches %.1f %% of their path', count(*), (SELECT n FROM steps),
                100.0 * sum(step_ns * cpu_pct / 100.0) / sum(step_ns)) AS figures,
         CAST(sum(step_ns * cpu_pct / 100.0) AS INTEGER) AS at_stake_ns, (SELECT ns FROM steps) AS of_ns,
         'the CPU items of the path: rocpd_critical_path_summary.top, then rocpd_critical_path rows of kind cpu_op and launch' AS next,
         'SELECT step, bound_by, top FROM rocpd_critical_path_summary WHERE bound_by LIKE ''%CPU-bound%''' AS evidence
  FROM cp WHERE bound = 'cpu' HAVING count(*) > 0
  UNION ALL  -- collective_bound: steps whose path mostly waits in collectives
  SELECT 'collective_bound',
         printf('%d of %d steps collective-bound; collective wait %.1f %% of their path', count(*), (SELECT n FROM steps),
                100.0 * sum(step_ns * collective_wait_pct / 100.0) / sum(step_ns)),
         CAST(sum(step_ns * collective_wait_pct / 100.0) AS INTEGER), (SELECT ns FROM steps),
         'who arrives last: rocpd_stragglers, then rocpd_step_summary',
         'SELECT step, bound_by FROM rocpd_critical_path_summary WHERE bound_by LIKE ''%collective-bound%'''
  FROM cp WHERE bound = 'collective' HAVING count(*) > 0
  UNION ALL  -- gpu_bound: steps whose path is mostly kernels (a description: severity info)
  SELECT 'gpu_bound',
         printf('%d of %d steps GPU-bound; kernels %.1f %% of their path', count(*), (SELECT n FROM steps),
                100.0 * sum(step_ns * kernel_pct / 100.0) / sum(step_ns)),
         CAST(sum(step_ns * kernel_pct / 100.0) AS INTEGER), (SELECT ns FROM steps),
         'the largest kernels: rocpd_kernel_summary',
         'SELECT step, bound_by FROM rocpd_critical_path_summary WHERE bound_by LIKE ''%GPU-bound%'''
  FROM cp WHERE bound = 'gpu' HAVING count(*) > 0
  UNION ALL  -- copy_bound: copies and fills 10 % or more of the GPUs' time
  SELECT 'copy_bound', printf('copies %.1f %% of the GPUs'' time', 100.0 * copy_ns / span_ns),
         copy_ns, span_ns, 'the copies by direction and size: rocpd_copy_summary',
         'SELECT db, gpu, copy_ns, span_ns FROM rocpd_time_breakdown WHERE step IS NULL ORDER BY copy_ns DESC'
  FROM gpu WHERE span_ns > 0 AND copy_ns >= 0.1 * span_ns
  UNION ALL  -- comm_exposed: communication not overlapped by compute, 10 % or more of the GPUs' time
  SELECT 'comm_exposed',
         printf('communication %.1f %% of the GPUs'' time, %.1f %% of it not overlapped by compute',
                100.0 * comm_ns / span_ns, 100.0 * exposed_ns / comm_ns),
         exposed_ns, span_ns, 'overlap per collective: rocpd_comm_overlap',
         'SELECT db, gpu, comm_ns, overlap_ns, comm_ns - overlap_ns AS exposed_ns FROM rocpd_time_breakdown WHERE step IS NULL ORDER BY exposed_ns DESC'
  FROM gpu WHERE span_ns > 0 AND exposed_ns >= 0.1 * span_ns
  UNION ALL  -- tiny_kernels: 1000 or more kernels under 10 us, half or more of all kernels
  SELECT 'tiny_kernels',
         printf('%d of %d kernels run under 10 us (%.1f %%)', tiny, kernels, 100.0 * tiny / kernels),
         CAST(tiny_ns AS INTEGER), (SELECT span_ns FROM gpu), 'fuse them or capture them in a graph: rocpd_kernel_summary ORDER BY med_ns',
         'SELECT name, count(*) AS n, sum(duration) AS ns FROM rocpd_ops WHERE kind = ''kernel'' AND duration < 10000 GROUP BY name ORDER BY n DESC'
  FROM (SELECT count(*) AS kernels, count(*) FILTER (WHERE duration < 10000) AS tiny,
               total(duration) FILTER (WHERE duration < 10000) AS tiny_ns
        FROM rocpd_ops WHERE kind = 'kernel')
  WHERE tiny >= 1000 AND 2 * tiny >= kernels
  UNION ALL  -- slow_steps: job steps with an anomaly (rocpd_anomalies kind job_step)
  SELECT 'slow_steps',
         printf('%d steps slower than the typical %s (worst: %s)', count(*), rocpd_duration_text(max(typical)),
                (SELECT printf('step %d, %s, score %.1f', step, rocpd_duration_text(value), score)
                   FROM anomalies WHERE kind = 'job_step' ORDER BY score DESC LIMIT 1)),
         sum(value - typical), (SELECT ns FROM steps), 'what the slow step spent its time on: rocpd_critical_path_summary',
         'SELECT * FROM rocpd_anomalies WHERE kind = ''job_step'''
  FROM anomalies WHERE kind = 'job_step' HAVING count(*) > 0
  UNION ALL  -- straggler: ranks that arrive last at collectives far more often than the others
  SELECT 'straggler',
         printf('%s (gpu %d) arrived last at %d collectives (typical %g), made the others wait %s', a.db, a.gpu,
                a.value, a.typical, rocpd_duration_text(s.caused_wait_ns)),
         s.caused_wait_ns, (SELECT span_ns FROM gpu), 'why it is late: rocpd_step_summary and its critical path',
         a.evidence
  FROM anomalies a JOIN rocpd_stragglers s ON s.db = a.db AND 'pid ' || s.pid = a.name AND s.gpu IS a.gpu
  WHERE a.kind = 'straggler'
  UNION ALL  -- idle_gpu: gpus idle far more than the others
  SELECT 'idle_gpu',
         printf('%s gpu %d idle %.1f %% of its span (typical %.1f %%)', a.db, a.gpu, a.value, a.typical),
         CAST((a.value - a.typical) / 100.0 * t.span_ns AS INTEGER), (SELECT span_ns FROM gpu),
         'its idle gaps and their causes: rocpd_idle_breakdown', a.evidence
  FROM anomalies a JOIN rocpd_time_breakdown t ON t.db = a.db AND t.gpu IS a.gpu AND t.step IS NULL
  WHERE a.kind = 'gpu_idle'
  UNION ALL  -- kernel_outliers: kernel instances far slower than their name's others
  SELECT 'kernel_outliers',
         printf('%d kernel instances far slower than their peers (worst %s)', count(*),
                (SELECT printf('%s, %s, typical %s', rocpd_display_name(name), rocpd_duration_text(value), rocpd_duration_text(typical))
                   FROM anomalies WHERE kind = 'kernel' ORDER BY score DESC LIMIT 1)),
         sum(value - typical), (SELECT span_ns FROM gpu), 'what ran next to them: rocpd_ops around their start',
         'SELECT * FROM rocpd_anomalies WHERE kind = ''kernel'''
  FROM anomalies WHERE kind = 'kernel' HAVING count(*) > 0
  UNION ALL  -- launch_delays: kernels that started far later after their launch than their gpu's others
  SELECT 'launch_delays',
         printf('%d kernels started far later after their launch than their gpu''s others (worst %s)', count(*),
                (SELECT printf('%s gpu %d, %s, typical %s', db, gpu, rocpd_duration_text(value), rocpd_duration_text(typical))
                   FROM anomalies WHERE kind = 'launch_delay' ORDER BY score DESC LIMIT 1)),
         sum(value - typical), (SELECT span_ns FROM gpu),
         'queueing or something else: their rocpd_launch_stats rows (queue_delay_ns, other_delay_ns)',
         'SELECT * FROM rocpd_anomalies WHERE kind = ''launch_delay'''
  FROM anomalies WHERE kind = 'launch_delay' HAVING count(*) > 0
  UNION ALL  -- idle_gaps: gaps between a gpu's ops far longer than its other gaps (and 1 ms or more)
  SELECT 'idle_gaps',
         printf('%d idle gaps far longer than their gpu''s others (worst %s)', count(*),
                (SELECT printf('%s gpu %d, %s, typical %s', db, gpu, rocpd_duration_text(value), rocpd_duration_text(typical))
                   FROM anomalies WHERE kind = 'idle_gap' ORDER BY score DESC LIMIT 1)),
         sum(value - typical), (SELECT span_ns FROM gpu),
         'what the host did meanwhile: rocpd_idle_breakdown, rocpd_apis around the gap',
         'SELECT * FROM rocpd_anomalies WHERE kind = ''idle_gap'''
  FROM anomalies WHERE kind = 'idle_gap' HAVING count(*) > 0
  UNION ALL  -- sync_idle: idle gaps a synchronize call was blocked in when they began and returned
  -- within hold half or more of the GPUs' idle time (nsys-ai: synchronisation over 50 % of idle time)
  SELECT 'sync_idle',
         printf('%d idle gaps began while the host was blocked in a synchronize call: %.1f %% of the GPUs'' idle time (idle %.1f %% of their time)',
                n, 100.0 * sync_ns / idle_ns, 100.0 * idle_ns / (SELECT span_ns FROM gpu)),
         CAST(sync_ns AS INTEGER), (SELECT span_ns FROM gpu),
         'the synchronize calls and what the host did after them: the sync_wait rows of rocpd_critical_path, rocpd_idle_breakdown',
         'SELECT db, name, count(*) AS calls, sum(duration) AS ns FROM rocpd_apis WHERE name LIKE ''%Synchronize%'' GROUP BY db, name ORDER BY ns DESC'
  FROM idle WHERE idle_ns > 0 AND sync_ns >= 0.5 * idle_ns
  UNION ALL  -- low_roof: kernels under 30 % of their roof holding 5 % or more of the placed kernels' time
  SELECT 'low_roof',
         printf('%d kernels under 30 %% of their roof hold %.1f %% of the time of the kernels placed on a roof (worst %s)',
                count(*), 100.0 * sum(duration) / (SELECT sum(duration) FROM roof),
                (SELECT printf('%s on %s, %s at %.1f %% of its roof', kernel, device_name, rocpd_duration_text(duration), pct_of_roof)
                   FROM low_roof ORDER BY beyond_ns DESC, kernel LIMIT 1)),
         CAST(sum(beyond_ns) AS INTEGER), (SELECT span_ns FROM gpu),
         'the bound and intensity of each: rocpd_kernel_roofline_by_kernel, then its instances in rocpd_kernel_roofline',
         'SELECT kernel, device_name, duration, pct_of_roof, bound FROM rocpd_kernel_roofline_by_kernel WHERE pct_of_roof < 30 ORDER BY duration DESC'
  FROM low_roof HAVING count(*) > 0
  UNION ALL  -- counter_replay: kernels with counters were serialised and replayed: their times are not the run's
  SELECT 'counter_replay',
         printf('counters on %d of %d kernels of %d member%s (%.1f %% of their kernel time): the profiler serialised and replayed them, so their times and overlap are not those of a run without counters',
                sum(n), sum(kernels), count(*), CASE WHEN count(*) = 1 THEN '' ELSE 's' END, 100.0 * sum(ns) / sum(kernel_ns)),
         CAST(sum(ns) AS INTEGER), sum(kernel_ns),
         'compare against a run without counters: rocpd_run_compare',
         'SELECT db, count(*) AS kernels, sum(duration) AS ns FROM rocpd_kernel_counters GROUP BY db'
  FROM counted_of HAVING count(*) > 0 AND sum(kernel_ns) > 0
), shaped AS (
  SELECT rule,
         CASE WHEN rule = 'gpu_bound' THEN 'info' WHEN at_stake_ns >= 0.25 * of_ns THEN 'high'
              WHEN at_stake_ns >= 0.1 * of_ns THEN 'medium' ELSE 'low' END AS severity,
         figures, at_stake_ns, CASE WHEN of_ns > 0 THEN round(100.0 * at_stake_ns / of_ns, 1) END AS at_stake_pct,
         next, evidence
  FROM rules
  UNION ALL
  SELECT rule, severity, figures, at_stake_ns, at_stake_pct, next, evidence FROM temp.rocpd_user_findings
)
SELECT * FROM shaped
WHERE rocpd_require_members('rocpd_findings')
ORDER BY CASE severity WHEN 'high' THEN 1 WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END, at_stake_ns DESC, rule;
