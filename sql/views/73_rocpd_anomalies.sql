-- rocpd_anomalies: what stands apart from its peers (docs/anomalies.md). One robust test for every
-- kind: per group, the median and the median absolute deviation (MAD) of the values, and
--   score = (value - median) / (1.4826 * max(MAD, 10 % of |median|, floor))
-- (1.4826 * MAD estimates a standard deviation without letting the outliers themselves widen it;
-- the floor keeps a group of near-identical values from scoring noise as an outlier). Only values
-- above the median count (slower, idler, later). A row is kept when score >= 5.
--   kind      'kernel'    a kernel instance: group (db, gpu, name), 5 or more instances, floor 1000 ns
--             'rank_step' a step of one rank: group (db, pid), its steps' durations, floor 1000 ns
--             'job_step'  a step of the job (its longest rank): group the job's steps, floor 1000 ns
--             'gpu_idle'  a gpu's idle share of its span (rocpd_time_breakdown's, rocpd_busy's figures:
--                         span minus busy, the same figures in one grouped pass): group the job's
--                         gpus, 2 or more, floor 1 percentage point
--             'straggler' a rank's count of collectives it arrived last at (rocpd_stragglers): group
--                         the job's ranks, 2 or more, floor 1 collective; only ranks whose
--                         collectives all matched (unmatched = 0: otherwise who came last is not known)
--             'launch_delay' a kernel's launch delay (rocpd_launch_stats.launch_delay_ns: its launch
--                         call's end to its start): group (db, gpu), 20 or more kernels, floor 10 us
--             'idle_gap'  a gap between a gpu's busy intervals (rocpd_gaps): group (db, gpu), 20 or
--                         more gaps, floor 1000 ns; only gaps of 1 ms or more. A gpu with 3 or more
--                         such long gaps (the host's pause between steps recurs on a healthy run)
--                         also scores the gap against its long gaps alone (median, MAD, floor 10 %
--                         of that median and 1000 ns, no tail term): score is the lower of the two
--   The last two are heavy-tailed (queueing, host stalls): their spread is also at least the
--   group's 99th percentile minus its median, so that a value must lie five times as far above the
--   median as the group's own tail reaches: score = (value - median) / max(1.4826 * max(MAD, 10 %
--   of |median|, floor), p99 - median) (1.0 * below: a real division where the median and p99
--   are integers).
--   db, gpu, step, name   where (NULL where it does not apply; name: the kernel, the step range, or
--                         the rank's pid for a straggler)
--   value, typical        the figure and its group's median (ns, percent or count, per kind)
--   score                 as above, rounded to 0.1
--   evidence              a query that shows the rows behind the figure
-- Worst first within each kind.
CREATE TEMP VIEW IF NOT EXISTS rocpd_anomalies AS
WITH screen AS MATERIALIZED (  -- per member and gpu, from one visit of each member on every core
  -- (rocpd_gpu_screen): busy and span, the figures of the idle gaps and launch delays, and how many
  -- kernel groups can hold an outlier; each later step reads only the members it names. With the
  -- step pattern, the same visit reads the members' steps and collectives for rocpd_steps and
  -- rocpd_stragglers below (which then visit no member again)
  SELECT * FROM temp.rocpd_gpu_screen(rocpd_step_pattern())
), k_all AS MATERIALIZED (  -- the kernels of the members that can hold a kernel outlier (the
  -- screen's kernel_candidates; a member it could not read exactly too): `db IN` reads them in one
  -- scan on every core, none when no member can
  SELECT db, gpu, name, op_id, duration FROM rocpd_ops
  WHERE db IN (SELECT db FROM screen WHERE kernel_candidates > 0 OR kernel_inexact > 0) AND kind = 'kernel'
), k_cand AS MATERIALIZED (  -- per (db, gpu, name) with 5 or more timed instances: only a group whose
  -- longest instance lies this far above its median can hold a score of 5 (the MAD only widens the
  -- spread)
  SELECT * FROM (SELECT db, gpu, name, percentile(duration, 50) AS med, max(duration) AS max_ns
                 FROM k_all GROUP BY db, gpu, name HAVING count(duration) >= 5)
  WHERE max_ns - med >= 0.999 * 5 * 1.4826 * max(0.1 * abs(med), 1000)
), k_inst AS MATERIALIZED (  -- those groups' instances
  SELECT o.db, o.gpu, o.name, o.op_id, o.duration, c.med
  FROM k_all o JOIN k_cand c ON c.db = o.db AND c.gpu IS o.gpu AND c.name = o.name
), k_hit AS MATERIALIZED (  -- their MADs
  SELECT db, gpu, name, med, 1.4826 * max(percentile(abs(duration - med), 50), 0.1 * abs(med), 1000) AS spread
  FROM k_inst GROUP BY db, gpu, name
), kernels AS (
  SELECT 'kernel' AS kind, i.db, i.gpu, NULL AS step, i.name, i.duration AS value, h.med AS typical,
         (i.duration - h.med) / h.spread AS score,
         printf('SELECT * FROM rocpd_ops WHERE db = %Q AND kind = ''kernel'' AND op_id = %d', i.db, i.op_id) AS evidence
  FROM k_inst i JOIN k_hit h ON h.db = i.db AND h.gpu IS i.gpu AND h.name = i.name
  WHERE i.duration - h.med >= 0.999 * 5 * h.spread
), s AS MATERIALIZED (
  SELECT db, pid, step, name, duration AS v FROM rocpd_steps WHERE duration IS NOT NULL
), s_med AS (
  SELECT db, pid, percentile(v, 50) AS med FROM s GROUP BY db, pid HAVING count(*) >= 3
), s_mad AS (
  SELECT m.db, m.pid, m.med, percentile(abs(s.v - m.med), 50) AS mad
  FROM s JOIN s_med m ON m.db = s.db AND m.pid IS s.pid GROUP BY m.db, m.pid
), rank_steps AS (
  SELECT 'rank_step' AS kind, s.db, NULL AS gpu, s.step, s.name, s.v AS value, m.med AS typical,
         (s.v - m.med) / (1.4826 * max(m.mad, 0.1 * abs(m.med), 1000)) AS score,
         printf('SELECT * FROM rocpd_steps WHERE db = %Q AND pid = %d AND step = %d', s.db, s.pid, s.step) AS evidence
  FROM s JOIN s_mad m ON m.db = s.db AND m.pid IS s.pid
  WHERE s.v > m.med
), j AS (
  SELECT step, min(name) AS name, max(v) AS v FROM s GROUP BY step
), j_med AS (
  SELECT percentile(v, 50) AS med FROM j HAVING count(*) >= 3
), j_mad AS (
  SELECT m.med, percentile(abs(j.v - m.med), 50) AS mad FROM j, j_med m
), job_steps AS (
  SELECT 'job_step' AS kind, NULL AS db, NULL AS gpu, j.step, j.name, j.v AS value, m.med AS typical,
         (j.v - m.med) / (1.4826 * max(m.mad, 0.1 * abs(m.med), 1000)) AS score,
         printf('SELECT * FROM rocpd_step_summary WHERE step = %d', j.step) AS evidence
  FROM j, j_mad m
  WHERE j.v > m.med
), g AS (  -- rocpd_busy's figures: the screen's, rocpd_busy's own for a member it could not read
  SELECT db, gpu, 100.0 * (span_ns - busy_ns) / span_ns AS v FROM screen WHERE busy_inexact = 0 AND span_ns > 0
  UNION ALL
  SELECT b.db, b.gpu, 100.0 * (b.span_ns - b.busy_ns) / b.span_ns
  FROM (SELECT 1 WHERE EXISTS (SELECT 1 FROM screen WHERE busy_inexact > 0)) CROSS JOIN rocpd_busy b
  WHERE b.span_ns > 0 AND b.db IN (SELECT db FROM screen WHERE busy_inexact > 0)
), g_med AS (
  SELECT percentile(v, 50) AS med FROM g HAVING count(*) >= 2
), g_mad AS (
  SELECT m.med, percentile(abs(g.v - m.med), 50) AS mad FROM g, g_med m
), gpus AS (
  SELECT 'gpu_idle' AS kind, g.db, g.gpu, NULL AS step, NULL AS name, round(g.v, 2) AS value, round(m.med, 2) AS typical,
         (g.v - m.med) / (1.4826 * max(m.mad, 0.1 * abs(m.med), 1)) AS score,
         printf('SELECT * FROM rocpd_time_breakdown WHERE db = %Q AND gpu = %d AND step IS NULL', g.db, g.gpu) AS evidence
  FROM g, g_mad m
  WHERE g.v > m.med
), r AS (
  SELECT db, pid, gpu, times_last AS v FROM rocpd_stragglers WHERE collectives > 0 AND unmatched = 0
), r_med AS (
  SELECT percentile(v, 50) AS med FROM r HAVING count(*) >= 2
), r_mad AS (
  SELECT m.med, percentile(abs(r.v - m.med), 50) AS mad FROM r, r_med m
), ranks AS (
  SELECT 'straggler' AS kind, r.db, r.gpu, NULL AS step, 'pid ' || r.pid AS name, r.v AS value, m.med AS typical,
         (r.v - m.med) / (1.4826 * max(m.mad, 0.1 * abs(m.med), 1)) AS score,
         printf('SELECT * FROM rocpd_collectives WHERE db = %Q AND pid = %d AND wait_ns = 0 AND participants > 1', r.db, r.pid) AS evidence
  FROM r, r_mad m
  WHERE r.v > m.med
), ld_m AS MATERIALIZED (  -- the members that can hold a candidate: per member and gpu the delays'
  -- median, 99th percentile and largest (the screen's, the figures ld_q computes); a group whose
  -- largest delay is short of the threshold has none (0.9: a margin over ld_cand's 0.999), and a
  -- member whose figures are not the SQL's is read whole
  SELECT DISTINCT db FROM screen
  WHERE delay_inexact > 0 OR (delays >= 20 AND delay_max_ns - delay_med_ns >= 0.9 * 5 * max(1.4826 * max(0.1 * abs(delay_med_ns), 10000), delay_p99_ns - delay_med_ns))
), ld AS MATERIALIZED (  -- their launch delays: each kernel's launch call end to its start
  -- (rocpd_launch_stats' launch_delay_ns, read from rocpd_op_launches, one member at a time)
  SELECT l.db, l.gpu, l.op_id, l.start - l.launch_end AS v FROM ld_m m CROSS JOIN rocpd_op_launches l
  WHERE l.db = m.db AND l.kind = 'kernel' AND l.start IS NOT NULL AND l.launch_end IS NOT NULL
), ld_q AS MATERIALIZED (  -- only a group whose longest delay reaches the threshold has candidates
  SELECT * FROM (SELECT db, gpu, percentile(v, 50) AS med, percentile(v, 99) AS p99, max(v) AS top
                 FROM ld GROUP BY db, gpu HAVING count(*) >= 20)
  WHERE top - med >= 0.999 * 5 * max(1.4826 * max(0.1 * abs(med), 10000), p99 - med)
), ld_cand AS MATERIALIZED (  -- (no read of the delays when no group has: the guard is empty)
  SELECT ld.*, q.med, q.p99
  FROM (SELECT 1 WHERE EXISTS (SELECT 1 FROM ld_q)) CROSS JOIN ld JOIN ld_q q ON q.db = ld.db AND q.gpu IS ld.gpu
  WHERE ld.v - q.med >= 0.999 * 5 * max(1.4826 * max(0.1 * abs(q.med), 10000), q.p99 - q.med)
), ld_mad AS MATERIALIZED (
  SELECT g.db, g.gpu, percentile(abs(ld.v - g.med), 50) AS mad
  FROM (SELECT DISTINCT db, gpu, med FROM ld_cand) g JOIN ld ON ld.db = g.db AND ld.gpu IS g.gpu
  GROUP BY g.db, g.gpu
), launches AS (
  SELECT 'launch_delay' AS kind, c.db, c.gpu, NULL AS step, NULL AS name, c.v AS value, c.med AS typical,
         (c.v - c.med) / max(1.4826 * max(m.mad, 0.1 * abs(c.med), 10000), 1.0 * (c.p99 - c.med)) AS score,
         printf('SELECT * FROM rocpd_launch_stats WHERE db = %Q AND op_id = %d', c.db, c.op_id) AS evidence
  FROM ld_cand c JOIN ld_mad m ON m.db = c.db AND m.gpu IS c.gpu
), gp_m AS MATERIALIZED (  -- the members that can hold a candidate, as ld_m: per member and gpu
  -- the gaps' median, 99th percentile and largest and the long gaps' count and median (the
  -- screen's); a member whose figures are not the SQL's is read whole
  SELECT DISTINCT db FROM screen
  WHERE busy_inexact > 0 OR (gaps >= 20 AND gap_max_ns >= 1000000
    AND gap_max_ns - gap_med_ns >= 0.9 * 5 * max(1.4826 * max(0.1 * abs(gap_med_ns), 1000), gap_p99_ns - gap_med_ns)
    AND (long_gaps < 3 OR gap_max_ns - long_gap_med_ns >= 0.9 * 5 * 1.4826 * max(0.1 * long_gap_med_ns, 1000)))
), gp AS MATERIALIZED (  -- their idle gaps between a gpu's busy intervals (rocpd_gaps)
  SELECT g.db, g.gpu, g.start, g.duration AS v FROM gp_m m CROSS JOIN rocpd_gaps g WHERE g.db = m.db
), gp_q AS MATERIALIZED (  -- as ld_q, with the long gaps' median and count
  SELECT * FROM (SELECT db, gpu, percentile(v, 50) AS med, percentile(v, 99) AS p99, max(v) AS top,
                        count(*) FILTER (WHERE v >= 1000000) AS longs,
                        percentile(v, 50) FILTER (WHERE v >= 1000000) AS long_med
                 FROM gp GROUP BY db, gpu HAVING count(*) >= 20)
  WHERE top >= 1000000 AND top - med >= 0.999 * 5 * max(1.4826 * max(0.1 * abs(med), 1000), p99 - med)
), gp_cand AS MATERIALIZED (
  SELECT gp.*, q.med, q.p99, q.longs, q.long_med
  FROM (SELECT 1 WHERE EXISTS (SELECT 1 FROM gp_q)) CROSS JOIN gp JOIN gp_q q ON q.db = gp.db AND q.gpu IS gp.gpu
  WHERE gp.v >= 1000000 AND gp.v - q.med >= 0.999 * 5 * max(1.4826 * max(0.1 * abs(q.med), 1000), q.p99 - q.med)
), gp_mad AS MATERIALIZED (  -- the MAD of all the gpu's gaps and of its long gaps
  SELECT g.db, g.gpu, percentile(abs(gp.v - g.med), 50) AS mad,
         percentile(abs(gp.v - g.long_med), 50) FILTER (WHERE gp.v >= 1000000) AS long_mad
  FROM (SELECT DISTINCT db, gpu, med, long_med FROM gp_cand) g JOIN gp ON gp.db = g.db AND gp.gpu IS g.gpu
  GROUP BY g.db, g.gpu
), gp_scored AS (  -- a gpu with 3 or more long gaps: the gap must also stand apart from them
  SELECT c.*, (c.v - c.med) / max(1.4826 * max(m.mad, 0.1 * abs(c.med), 1000), 1.0 * (c.p99 - c.med)) AS all_score,
         CASE WHEN c.longs >= 3 THEN (c.v - c.long_med) / (1.4826 * max(m.long_mad, 0.1 * c.long_med, 1000)) END AS long_score
  FROM gp_cand c JOIN gp_mad m ON m.db = c.db AND m.gpu IS c.gpu
), gaps AS (
  SELECT 'idle_gap' AS kind, db, gpu, NULL AS step, NULL AS name, v AS value, med AS typical,
         min(all_score, coalesce(long_score, all_score)) AS score,
         printf('SELECT * FROM rocpd_gaps WHERE db = %Q AND gpu = %d AND start = %d', db, gpu, start) AS evidence
  FROM gp_scored
), all_rows AS (
  SELECT * FROM kernels UNION ALL SELECT * FROM rank_steps UNION ALL SELECT * FROM job_steps
  UNION ALL SELECT * FROM gpus UNION ALL SELECT * FROM ranks UNION ALL SELECT * FROM launches
  UNION ALL SELECT * FROM gaps
)
SELECT kind, db, gpu, step, name, value, typical, round(score, 1) AS score, evidence
FROM all_rows
WHERE score >= 5 AND rocpd_require_members('rocpd_anomalies')
ORDER BY CASE kind WHEN 'job_step' THEN 1 WHEN 'straggler' THEN 2 WHEN 'gpu_idle' THEN 3 WHEN 'idle_gap' THEN 4
                   WHEN 'rank_step' THEN 5 WHEN 'launch_delay' THEN 6 ELSE 7 END,
         score DESC, db COLLATE rocpd_natural, gpu, step, name;
