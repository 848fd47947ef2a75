-- Edge cases of rocpd_busy_intervals, rocpd_gaps, rocpd_utilization, rocpd_busy and rocpd_check on
-- hand-made ops: the tables read `rocpd_ops` and `rocpd_members` by name on the connection, so
-- TEMP tables of those names (which shadow the federation's) feed them exact rows: NULL gpu,
-- NULL bounds, zero-length, reversed, touching, nested ops, values at both int64 limits.
CREATE TEMP TABLE rocpd_members(db TEXT, first_ns INTEGER, last_ns INTEGER);
CREATE TEMP TABLE rocpd_ops(db TEXT, gpu INTEGER, start INTEGER, "end" INTEGER);
INSERT INTO rocpd_members VALUES ('a', -100, 100), ('b', 0, 60);
INSERT INTO rocpd_ops VALUES
  ('a', NULL, 0, 10), ('a', NULL, 10, 15), ('a', NULL, NULL, 5), ('a', NULL, 5, NULL), ('a', NULL, 30, 30),
  ('a', NULL, -50, -40), ('a', NULL, 20, 12), ('a', NULL, 2, 3),
  ('a', 0, 0, 0), ('a', 0, 40, 60), ('a', 0, 40, 60), ('a', 0, 0, 20),
  ('b', 1, 50, 60), ('b', 1, 0, 10), ('b', 1, 5, 7);

SELECT 'FAIL: busy intervals ' || group_concat(quote(db) || ',' || quote(gpu) || ',' || start || ',' || "end" || ',' || duration, ' ')
FROM (SELECT * FROM rocpd_busy_intervals ORDER BY db, gpu IS NOT NULL, gpu, start)
HAVING group_concat(quote(db) || ',' || quote(gpu) || ',' || start || ',' || "end" || ',' || duration, ' ') IS NOT
  '''a'',NULL,-50,-40,10 ''a'',NULL,0,15,15 ''a'',0,0,20,20 ''a'',0,40,60,20 ''b'',1,0,10,10 ''b'',1,50,60,10';
SELECT 'FAIL: gaps ' || group_concat(quote(gpu) || ',' || start || ',' || "end", ' ')
FROM (SELECT * FROM rocpd_gaps ORDER BY db, gpu IS NOT NULL, gpu, start)
HAVING group_concat(quote(gpu) || ',' || start || ',' || "end", ' ') IS NOT 'NULL,-40,0 0,20,40 1,10,50';
SELECT 'FAIL: NULL gpu is not selectable by gpu IS NULL'
WHERE (SELECT count(*) FROM rocpd_busy_intervals WHERE gpu IS NULL) <> 2;

-- rocpd_busy / rocpd_check on the same rows.
SELECT 'FAIL: rocpd_busy ' || group_concat(quote(gpu) || ':' || busy_ns || '/' || span_ns || '/' || sum_ns || '/' || overlap_ns || '/' || ops, ' ')
FROM (SELECT * FROM rocpd_busy ORDER BY db, gpu IS NOT NULL, gpu)
HAVING group_concat(quote(gpu) || ':' || busy_ns || '/' || span_ns || '/' || sum_ns || '/' || overlap_ns || '/' || ops, ' ')
  IS NOT 'NULL:25/80/26/1/8 0:40/60/60/20/4 1:20/60/22/2/3';
SELECT 'FAIL: rocpd_check ' || group_concat(db || ':' || ops || '/' || null_bounds || '/' || negative || '/' || zero_length, ' ')
FROM rocpd_check HAVING group_concat(db || ':' || ops || '/' || null_bounds || '/' || negative || '/' || zero_length, ' ')
  IS NOT 'a:12/2/1/2 b:3/0/0/0';

-- Windows clip: [5, 45) on gpu 0 of a.
SELECT 'FAIL: window ' || group_concat(start || '-' || "end", ' ')
FROM rocpd_busy_intervals WHERE db = 'a' AND gpu = 0 AND "end" > 5 AND start < 45
HAVING group_concat(start || '-' || "end", ' ') IS NOT '5-20 40-45';
SELECT 'FAIL: strict bounds ' || group_concat(start || '-' || "end", ' ')
FROM rocpd_busy_intervals WHERE db = 'a' AND gpu = 0 AND start > 5 AND "end" < 45
HAVING group_concat(start || '-' || "end", ' ') IS NOT '6-20 40-44';
SELECT 'FAIL: window gaps' WHERE (SELECT group_concat(start || '-' || "end") FROM rocpd_gaps
                                  WHERE db = 'a' AND gpu = 0 AND "end" > 5 AND start < 45) IS NOT '20-40';
SELECT 'FAIL: empty window' WHERE (SELECT count(*) FROM rocpd_busy_intervals WHERE start > 10 AND "end" < 10) <> 0;

-- Utilization: grid from the job range [-100, 100) in 4 buckets of 50; NULL gpu included.
SELECT 'FAIL: utilization ' || group_concat(quote(gpu) || ':' || bucket || ':' || bucket_start || ':' || busy_ns, ' ')
FROM (SELECT * FROM rocpd_utilization WHERE buckets = 4 AND db = 'a' ORDER BY gpu IS NOT NULL, gpu, bucket)
HAVING group_concat(quote(gpu) || ':' || bucket || ':' || bucket_start || ':' || busy_ns, ' ') IS NOT
  'NULL:0:-100:0 NULL:1:-50:10 NULL:2:0:15 NULL:3:50:0 0:0:-100:0 0:1:-50:0 0:2:0:30 0:3:50:10';
SELECT 'FAIL: a bucket width that does not divide the span cuts the last bucket at hi'
WHERE (SELECT group_concat(bucket_start || '-' || bucket_end || '=' || busy_ns, ' ') FROM rocpd_utilization(25, 30, 80)
       WHERE db = 'a' AND gpu = 0) IS NOT '30-55=15 55-80=5';
SELECT 'FAIL: utilization fraction' WHERE (SELECT utilization FROM rocpd_utilization(25, 30, 80)
       WHERE db = 'a' AND gpu = 0 AND bucket = 1) IS NOT 0.2;
SELECT 'FAIL: lo given, hi from the job' WHERE (SELECT group_concat(bucket_start || '-' || bucket_end, ' ') FROM rocpd_utilization(40, 0)
       WHERE db = 'b') IS NOT '0-40 40-80 80-100';

-- Values at both int64 limits: one op covering everything except the last ns.
DELETE FROM rocpd_ops; DELETE FROM rocpd_members;
INSERT INTO rocpd_members VALUES ('x', -9223372036854775808, 9223372036854775807);
INSERT INTO rocpd_ops VALUES ('x', 0, -9223372036854775808, 9223372036854775807),
                             ('x', 1, 9223372036854775800, 9223372036854775807), ('x', 1, -9223372036854775808, -9223372036854775800);
SELECT 'FAIL: interval longer than INT64_MAX reports its duration as real'
WHERE (SELECT duration FROM rocpd_busy_intervals WHERE gpu = 0) IS NOT 18446744073709551615.0;
SELECT 'FAIL: limit gaps' WHERE (SELECT start || '-' || "end" FROM rocpd_gaps WHERE gpu = 1)
  IS NOT '-9223372036854775800-9223372036854775800';
SELECT 'FAIL: 4 buckets over the whole int64 range ' || group_concat(bucket_start || '/' || busy_ns, ' ')
FROM rocpd_utilization WHERE buckets = 4 AND gpu = 0
HAVING group_concat(bucket_start || '/' || busy_ns, ' ') IS NOT
  '-9223372036854775808/4611686018427387904 -4611686018427387904/4611686018427387904 0/4611686018427387904 4611686018427387904/4611686018427387903';
SELECT 'FAIL: near-limit buckets of gpu 1' WHERE (SELECT sum(busy_ns) FROM rocpd_utilization WHERE buckets = 4 AND gpu = 1) IS NOT 15;
SELECT 'FAIL: near-limit interval_union' WHERE (SELECT interval_union(start, "end") FROM rocpd_ops WHERE gpu = 1) IS NOT 15;
