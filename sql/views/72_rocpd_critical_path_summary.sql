-- rocpd_critical_path_summary: per job step (rocpd_critical_path with its default pattern
-- 'ProfilerStep#%'), what its time is made of (docs/critical_path.md):
--   step, step_ns         the step, and its time (the path's segments summed: the step's span)
--   cpu_op_pct .. idle_gap_pct, gpu_wait_pct, stream_wait_pct   the share of the step on the path per
--                         kind (the nine add up to 100)
--   members               members (db) the path runs through
--   by_member             JSON object: per member, its share of the step in percent
--   top                   the three largest items of the path, one (kind, name) each, largest
--                         first: "41.0 % rank5 cpu_op DataLoader.__next__; 30.2 % 8 ranks kernel
--                         Cijk_..; ..." (a member's name when one member holds it all, else how many)
CREATE TEMP VIEW IF NOT EXISTS rocpd_critical_path_summary AS
WITH per_kind AS (
  SELECT step, kind, db, name, sum(duration) AS ns FROM rocpd_critical_path GROUP BY step, kind, db, name
), steps AS (
  SELECT step, sum(ns) AS step_ns FROM per_kind GROUP BY step
), items AS (
  SELECT step, kind, name, sum(ns) AS ns, count(DISTINCT db) AS dbs, min(db) AS db,
         row_number() OVER (PARTITION BY step ORDER BY sum(ns) DESC, kind, name) AS rank
  FROM per_kind GROUP BY step, kind, name
), members AS (
  SELECT step, db, sum(ns) AS ns FROM per_kind GROUP BY step, db
)
SELECT s.step, s.step_ns,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.step = s.step AND kind = 'cpu_op') / s.step_ns, 1) AS cpu_op_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.step = s.step AND kind = 'launch') / s.step_ns, 1) AS launch_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.step = s.step AND kind = 'kernel') / s.step_ns, 1) AS kernel_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.step = s.step AND kind = 'copy') / s.step_ns, 1) AS copy_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.step = s.step AND kind = 'sync_wait') / s.step_ns, 1) AS sync_wait_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.step = s.step AND kind = 'collective_wait') / s.step_ns, 1) AS collective_wait_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.step = s.step AND kind = 'idle_gap') / s.step_ns, 1) AS idle_gap_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.step = s.step AND kind = 'gpu_wait') / s.step_ns, 1) AS gpu_wait_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.step = s.step AND kind = 'stream_wait') / s.step_ns, 1) AS stream_wait_pct,
       (SELECT count(*) FROM members m WHERE m.step = s.step) AS members,
       (SELECT json_group_object(db, round(100.0 * ns / s.step_ns, 1))
          FROM (SELECT db, ns FROM members m WHERE m.step = s.step ORDER BY ns DESC, db)) AS by_member,
       (SELECT group_concat(item, '; ')
          FROM (SELECT printf('%.1f %% %s%s%s', 100.0 * ns / s.step_ns,
                              CASE WHEN dbs = 1 THEN db || ' ' ELSE dbs || ' ranks ' END, kind,
                              CASE WHEN name IS NULL THEN '' ELSE ' ' || name END) AS item
                FROM items i WHERE i.step = s.step AND rank <= 3 ORDER BY rank)) AS top
FROM steps s
ORDER BY s.step;
