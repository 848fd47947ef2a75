-- Edge cases of rocpd_busy_intervals, rocpd_gaps, rocpd_utilization, rocpd_busy and rocpd_check on
-- hand-made ops: two in-memory rpd members (a minimal schema 2 layout) holding NULL gpus, NULL
-- bounds, zero-length, reversed, touching and nested ops, then values at both int64 limits.
-- Expected values are worked out by hand in the comments.
ATTACH ':memory:' AS a;
ATTACH ':memory:' AS b;
CREATE TABLE a.rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT, value TEXT);
CREATE TABLE a.rocpd_string(id INTEGER PRIMARY KEY, string TEXT);
CREATE TABLE a.rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, start INTEGER, "end" INTEGER,
                         apiName_id INTEGER, args_id INTEGER);
CREATE TABLE a.rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER, queueId INTEGER, sequenceId INTEGER, start INTEGER,
                        "end" INTEGER, description_id INTEGER, opType_id INTEGER);
CREATE TABLE b.rocpd_metadata AS SELECT * FROM a.rocpd_metadata;
CREATE TABLE b.rocpd_string(id INTEGER PRIMARY KEY, string TEXT);
CREATE TABLE b.rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, start INTEGER, "end" INTEGER,
                         apiName_id INTEGER, args_id INTEGER);
CREATE TABLE b.rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER, queueId INTEGER, sequenceId INTEGER, start INTEGER,
                        "end" INTEGER, description_id INTEGER, opType_id INTEGER);
INSERT INTO a.rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO b.rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO a.rocpd_op(gpuId, start, "end") VALUES
  (NULL, 0, 10), (NULL, 10, 15), (NULL, NULL, 5), (NULL, 5, NULL), (NULL, 30, 30),
  (NULL, -50, -40), (NULL, 20, 12), (NULL, 2, 3),
  (0, 0, 0), (0, 40, 60), (0, 40, 60), (0, 0, 20);
INSERT INTO b.rocpd_op(gpuId, start, "end") VALUES (1, 50, 60), (1, 0, 10), (1, 5, 7);

-- a, NULL gpu: [-50,-40) and [0,10)+[10,15)+[2,3) touching -> [0,15); gpu 0: [0,20), [40,60).
SELECT 'FAIL: busy intervals ' || group_concat(quote(db) || ',' || quote(gpu) || ',' || start || ',' || "end" || ',' || duration, ' ')
FROM (SELECT * FROM rocpd_busy_intervals ORDER BY db, gpu IS NOT NULL, gpu, start)
HAVING group_concat(quote(db) || ',' || quote(gpu) || ',' || start || ',' || "end" || ',' || duration, ' ') IS NOT
  '''a'',NULL,-50,-40,10 ''a'',NULL,0,15,15 ''a'',0,0,20,20 ''a'',0,40,60,20 ''b'',1,0,10,10 ''b'',1,50,60,10';
SELECT 'FAIL: gaps ' || group_concat(quote(gpu) || ',' || start || ',' || "end", ' ')
FROM (SELECT * FROM rocpd_gaps ORDER BY db, gpu IS NOT NULL, gpu, start)
HAVING group_concat(quote(gpu) || ',' || start || ',' || "end", ' ') IS NOT 'NULL,-40,0 0,20,40 1,10,50';
SELECT 'FAIL: NULL gpu is not selectable by gpu IS NULL'
WHERE (SELECT count(*) FROM rocpd_busy_intervals WHERE gpu IS NULL) <> 2;
SELECT 'FAIL: rowids are not unique' WHERE (SELECT count(DISTINCT rowid) FROM rocpd_busy_intervals) <> 6;
SELECT 'FAIL: an OR of two constraints loses rows'
WHERE (SELECT count(*) FROM rocpd_busy_intervals WHERE db = 'b' OR gpu IS NULL) <> 4;

-- rocpd_busy / rocpd_check on the same rows. NULL gpu: span -50..30 over the rows with end >= start,
-- sum 10+5+0+10+1 (the reversed op counts 0), 8 ops.
SELECT 'FAIL: rocpd_busy ' || group_concat(quote(gpu) || ':' || busy_ns || '/' || span_ns || '/' || sum_ns || '/' || overlap_ns || '/' || ops, ' ')
FROM (SELECT * FROM rocpd_busy ORDER BY db, gpu IS NOT NULL, gpu)
HAVING group_concat(quote(gpu) || ':' || busy_ns || '/' || span_ns || '/' || sum_ns || '/' || overlap_ns || '/' || ops, ' ')
  IS NOT 'NULL:25/80/26/1/8 0:40/60/60/20/4 1:20/60/22/2/3';
SELECT 'FAIL: rocpd_check ' || group_concat(db || ':' || ops || '/' || null_bounds || '/' || negative || '/' || zero_length, ' ')
FROM rocpd_check HAVING group_concat(db || ':' || ops || '/' || null_bounds || '/' || negative || '/' || zero_length, ' ')
  IS NOT 'a:12/2/1/2 b:3/0/0/0';
SELECT 'FAIL: a reversed op lasts 0 ns in rocpd_ops' WHERE (SELECT duration FROM rocpd_ops WHERE start = 20 AND "end" = 12) IS NOT 0;

-- Constraints on start/end filter like on a plain table: nothing is cut.
SELECT 'FAIL: filters ' || group_concat(start || '-' || "end", ' ')
FROM rocpd_busy_intervals WHERE db = 'a' AND gpu = 0 AND "end" > 5 AND start < 45
HAVING group_concat(start || '-' || "end", ' ') IS NOT '0-20 40-60';
-- start >= 10 keeps [40,60) only: [0,20) starts at 0, although an op of it ends after 10.
SELECT 'FAIL: lower bound on start ' || group_concat(start || '-' || "end", ' ')
FROM rocpd_busy_intervals WHERE db = 'a' AND gpu = 0 AND start >= 10
HAVING group_concat(start || '-' || "end", ' ') IS NOT '40-60';
SELECT 'FAIL: upper bound on end ' || group_concat(start || '-' || "end", ' ')
FROM rocpd_busy_intervals WHERE db = 'a' AND gpu = 0 AND "end" <= 20
HAVING group_concat(start || '-' || "end", ' ') IS NOT '0-20';
SELECT 'FAIL: gap bounds' WHERE (SELECT group_concat(start || '-' || "end") FROM rocpd_gaps
                                 WHERE db = 'a' AND start >= -40 AND "end" <= 40) IS NOT '-40-0,20-40';
SELECT 'FAIL: empty window' WHERE (SELECT count(*) FROM rocpd_busy_intervals WHERE start > 10 AND "end" < 10) <> 0;

-- The hidden arguments clip: [5, 45) on gpu 0 of a.
SELECT 'FAIL: clip ' || group_concat(start || '-' || "end", ' ')
FROM rocpd_busy_intervals(5, 45) WHERE db = 'a' AND gpu = 0
HAVING group_concat(start || '-' || "end", ' ') IS NOT '5-20 40-45';
SELECT 'FAIL: clipped gaps' WHERE (SELECT group_concat(start || '-' || "end") FROM rocpd_gaps(5, 45)
                                   WHERE db = 'a' AND gpu = 0) IS NOT '20-40';
SELECT 'FAIL: clip arguments are reported' WHERE (SELECT lo || '/' || hi FROM rocpd_busy_intervals(5, 45) LIMIT 1) IS NOT '5/45';

-- Utilization: the job spans [-50, 60) (110 ns); 4 buckets divide it at floor(k*110/4):
-- [-50,-23) [-23,5) [5,32) [32,60). NULL gpu of a: 10, [0,5) = 5, [5,15) = 10, 0.
SELECT 'FAIL: utilization ' || group_concat(quote(gpu) || ':' || bucket || ':' || bucket_start || ':' || busy_ns, ' ')
FROM (SELECT * FROM rocpd_utilization WHERE buckets = 4 AND db = 'a' ORDER BY gpu IS NOT NULL, gpu, bucket)
HAVING group_concat(quote(gpu) || ':' || bucket || ':' || bucket_start || ':' || busy_ns, ' ') IS NOT
  'NULL:0:-50:10 NULL:1:-23:5 NULL:2:5:10 NULL:3:32:0 0:0:-50:0 0:1:-23:5 0:2:5:15 0:3:32:20';
-- Six buckets over 10 ns are six: [0,1) [1,3) [3,5) [5,6) [6,8) [8,10), and the table says 6.
SELECT 'FAIL: buckets = 6 over 10 ns ' || group_concat(bucket_start || '-' || bucket_end, ' ')
FROM rocpd_utilization(NULL, 0, 10) WHERE buckets = 6 AND db = 'b'
HAVING group_concat(bucket_start || '-' || bucket_end, ' ') IS NOT '0-1 1-3 3-5 5-6 6-8 8-10';
SELECT 'FAIL: buckets reported' WHERE (SELECT DISTINCT buckets || '/' || quote(bucket_ns) FROM rocpd_utilization(NULL, 0, 10)
                                       WHERE buckets = 6) IS NOT '6/NULL';
SELECT 'FAIL: a bucket width that does not divide the span cuts the last bucket at hi'
WHERE (SELECT group_concat(bucket_start || '-' || bucket_end || '=' || busy_ns, ' ') FROM rocpd_utilization(25, 30, 80)
       WHERE db = 'a' AND gpu = 0) IS NOT '30-55=15 55-80=5';
SELECT 'FAIL: utilization fraction' WHERE (SELECT utilization FROM rocpd_utilization(25, 30, 80)
       WHERE db = 'a' AND gpu = 0 AND bucket = 1) IS NOT 0.2;
SELECT 'FAIL: lo given, hi from the job' WHERE (SELECT group_concat(bucket_start || '-' || bucket_end, ' ') FROM rocpd_utilization(40, 0)
       WHERE db = 'b') IS NOT '0-40 40-60';

-- Values at both int64 limits: one op covering everything except the last ns.
DETACH a;
DETACH b;
ATTACH ':memory:' AS x;
CREATE TABLE x.rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT, value TEXT);
CREATE TABLE x.rocpd_string(id INTEGER PRIMARY KEY, string TEXT);
CREATE TABLE x.rocpd_api(id INTEGER PRIMARY KEY, pid INTEGER, tid INTEGER, start INTEGER, "end" INTEGER,
                         apiName_id INTEGER, args_id INTEGER);
CREATE TABLE x.rocpd_op(id INTEGER PRIMARY KEY, gpuId INTEGER, queueId INTEGER, sequenceId INTEGER, start INTEGER,
                        "end" INTEGER, description_id INTEGER, opType_id INTEGER);
INSERT INTO x.rocpd_metadata(tag, value) VALUES ('schema_version', '2');
INSERT INTO x.rocpd_op(gpuId, start, "end") VALUES (0, -9223372036854775808, 9223372036854775807),
  (1, 9223372036854775800, 9223372036854775807), (1, -9223372036854775808, -9223372036854775800);
SELECT 'FAIL: interval longer than INT64_MAX reports its duration as real'
WHERE (SELECT duration FROM rocpd_busy_intervals WHERE gpu = 0) IS NOT 18446744073709551615.0;
SELECT 'FAIL: limit gaps' WHERE (SELECT start || '-' || "end" FROM rocpd_gaps WHERE gpu = 1)
  IS NOT '-9223372036854775800-9223372036854775800';
-- 4 buckets over a span of 2^64 - 1 ns: boundaries at floor(k * (2^64 - 1) / 4) from INT64_MIN.
SELECT 'FAIL: 4 buckets over the whole int64 range ' || group_concat(bucket_start || '/' || busy_ns, ' ')
FROM rocpd_utilization WHERE buckets = 4 AND gpu = 0
HAVING group_concat(bucket_start || '/' || busy_ns, ' ') IS NOT
  '-9223372036854775808/4611686018427387903 -4611686018427387905/4611686018427387904 -1/4611686018427387904 4611686018427387903/4611686018427387904';
SELECT 'FAIL: near-limit buckets of gpu 1' WHERE (SELECT sum(busy_ns) FROM rocpd_utilization WHERE buckets = 4 AND gpu = 1) IS NOT 15;
SELECT 'FAIL: near-limit interval_union' WHERE (SELECT interval_union(start, "end") FROM rocpd_ops WHERE gpu = 1) IS NOT 15;
