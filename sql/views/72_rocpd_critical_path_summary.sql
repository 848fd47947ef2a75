-- rocpd_critical_path_summary: per job step (rocpd_critical_path with its default pattern
-- 'ProfilerStep#%'), what its time is made of (docs/critical_path.md):
--   step, step_ns         the step (in its run), and its time (the path's segments summed: the step's span)
--   cpu_op_pct .. idle_gap_pct, gpu_wait_pct, stream_wait_pct   the share of the step on the path per
--                         kind (the nine add up to 100)
--   members               members (db) the path runs through
--   by_member             JSON object: per member, its share of the step in percent
--   top                   the three largest items of the path, one (kind, name) each, largest
--                         first: "41.0 % rank5 cpu_op DataLoader.__next__; 30.2 % 8 ranks kernel
--                         Cijk_..; ..." (a member's name when one member holds it all, else how many)
--   run                   the run label of the step's members (rocpd_runs; NULL: unlabelled)
--   inferred_edges        edges inferred from the timing in the step (rocpd_critical_path.step_inferred_edges)
--   bound_by              what bounds the step, from the path: "GPU-bound: kernels 85.0 % of the path
--                         (volta_sgemm 25.0 %)", "CPU-bound: CPU 96.1 % of the path (cpu_op
--                         DataLoader.__next__ 78.7 %)" or "collective-bound: ...", prefixed with
--                         "waiting for rank5 (97.3 % of the path): " when most of the path runs on
--                         another member than the one whose step ends last
CREATE TEMP VIEW IF NOT EXISTS rocpd_critical_path_summary AS
WITH per_kind AS (  -- one pass over the path: the rest reads these groups
  SELECT run, step, kind, db, name,
         CASE WHEN kind IN ('kernel', 'copy', 'stream_wait') OR (kind = 'idle_gap' AND tid IS NULL AND gpu IS NOT NULL)
              THEN 'gpu' WHEN kind = 'collective_wait' THEN 'collective' ELSE 'cpu' END AS side,
         sum(duration) AS ns, max("end") AS last_end, max(step_inferred_edges) AS inferred
  -- rocpd-ext summary runs this statement over its copy of the segments: one line ends with
  -- "FROM rocpd_critical_path" (tools/rocpd-ext/critical_path_section.cpp).
  FROM rocpd_critical_path
  GROUP BY run, step, kind, db, name, side
), last AS (  -- the member whose step ends last (SQLite: the bare column of the one max() row)
  SELECT run, step, db AS last_db, max(last_end) FROM per_kind GROUP BY run, step
), steps AS (
  SELECT p.run, p.step, sum(p.ns) AS step_ns, max(p.inferred) AS inferred_edges, l.last_db
  FROM per_kind p JOIN last l ON l.run IS p.run AND l.step = p.step GROUP BY p.run, p.step
), items AS (
  SELECT run, step, kind, name, sum(ns) AS ns, count(DISTINCT db) AS dbs, min(db) AS db,
         row_number() OVER (PARTITION BY run, step ORDER BY sum(ns) DESC, kind, name) AS rank
  FROM per_kind GROUP BY run, step, kind, name
), members AS (
  SELECT run, step, db, sum(ns) AS ns FROM per_kind GROUP BY run, step, db
), sides AS (
  SELECT run, step, side, sum(ns) AS ns,
         row_number() OVER (PARTITION BY run, step ORDER BY sum(ns) DESC, side) AS rank
  FROM per_kind GROUP BY run, step, side
), kinds AS (  -- per side, its largest kind and that kind's largest name
  SELECT run, step, side, kind, sum(ns) AS ns,
         row_number() OVER (PARTITION BY run, step, side ORDER BY sum(ns) DESC, kind) AS rank
  FROM per_kind GROUP BY run, step, side, kind
), names AS (
  SELECT run, step, kind, name, sum(ns) AS ns,
         row_number() OVER (PARTITION BY run, step, kind ORDER BY sum(ns) DESC, name) AS rank
  FROM per_kind WHERE name IS NOT NULL GROUP BY run, step, kind, name
), bound AS (
  SELECT s.run, s.step,
         (SELECT printf('waiting for %s (%.1f %% of the path): ', m.db, 100.0 * m.ns / s.step_ns)
            FROM members m WHERE m.run IS s.run AND m.step = s.step AND m.db <> s.last_db
             AND m.ns > (SELECT ns FROM members l WHERE l.run IS s.run AND l.step = s.step AND l.db = s.last_db)
           ORDER BY m.ns DESC, m.db LIMIT 1) AS waiting,
         (SELECT printf('%s-bound: %s %.1f %% of the path (%s%s %.1f %%)',
                        CASE d.side WHEN 'gpu' THEN 'GPU' WHEN 'cpu' THEN 'CPU' ELSE 'collective' END,
                        CASE d.side WHEN 'gpu' THEN CASE k.kind WHEN 'kernel' THEN 'kernels' WHEN 'copy' THEN 'copies'
                                                    ELSE 'GPU' END
                                    WHEN 'cpu' THEN 'CPU' ELSE 'collectives' END,
                        100.0 * CASE WHEN d.side = 'gpu' AND k.kind IN ('kernel', 'copy') THEN k.ns ELSE d.ns END / s.step_ns,
                        CASE WHEN d.side = 'cpu' THEN k.kind || ' ' ELSE '' END,
                        CASE WHEN d.side = 'cpu' THEN n.name ELSE rocpd_display_name(n.name) END, 100.0 * n.ns / s.step_ns)
            FROM sides d
            JOIN kinds k ON k.run IS d.run AND k.step = d.step AND k.side = d.side AND k.rank = 1
            LEFT JOIN names n ON n.run IS d.run AND n.step = d.step AND n.kind = k.kind AND n.rank = 1
           WHERE d.run IS s.run AND d.step = s.step AND d.rank = 1) AS what
  FROM steps s
)
SELECT s.step, s.step_ns,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.run IS s.run AND p.step = s.step AND kind = 'cpu_op') / s.step_ns, 1) AS cpu_op_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.run IS s.run AND p.step = s.step AND kind = 'launch') / s.step_ns, 1) AS launch_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.run IS s.run AND p.step = s.step AND kind = 'kernel') / s.step_ns, 1) AS kernel_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.run IS s.run AND p.step = s.step AND kind = 'copy') / s.step_ns, 1) AS copy_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.run IS s.run AND p.step = s.step AND kind = 'sync_wait') / s.step_ns, 1) AS sync_wait_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.run IS s.run AND p.step = s.step AND kind = 'collective_wait') / s.step_ns, 1) AS collective_wait_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.run IS s.run AND p.step = s.step AND kind = 'idle_gap') / s.step_ns, 1) AS idle_gap_pct,
       (SELECT count(*) FROM members m WHERE m.run IS s.run AND m.step = s.step) AS members,
       (SELECT json_group_object(db, round(100.0 * ns / s.step_ns, 1))
          FROM (SELECT db, ns FROM members m WHERE m.run IS s.run AND m.step = s.step ORDER BY ns DESC, db)) AS by_member,
       (SELECT group_concat(item, '; ')
          FROM (SELECT printf('%.1f %% %s%s%s', 100.0 * ns / s.step_ns,
                              CASE WHEN dbs = 1 THEN db || ' ' ELSE dbs || ' ranks ' END, kind,
                              CASE WHEN name IS NULL THEN '' ELSE ' ' || name END) AS item
                FROM items i WHERE i.run IS s.run AND i.step = s.step AND rank <= 3 ORDER BY rank)) AS top,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.run IS s.run AND p.step = s.step AND kind = 'gpu_wait') / s.step_ns, 1) AS gpu_wait_pct,
       round(100.0 * (SELECT total(ns) FROM per_kind p WHERE p.run IS s.run AND p.step = s.step AND kind = 'stream_wait') / s.step_ns, 1) AS stream_wait_pct,
       s.run, s.inferred_edges,
       coalesce(b.waiting, '') || b.what AS bound_by
FROM steps s JOIN bound b ON b.run IS s.run AND b.step = s.step
ORDER BY s.run, s.step;
