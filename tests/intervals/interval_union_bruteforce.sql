-- SQL-level brute force for interval_union: 4000 deterministic pseudo-random sets of 15 rows in
-- four regimes (small, negative, near INT64_MAX, near INT64_MIN) with nested, identical,
-- zero-length, reversed and NULL rows, unsorted; unclipped, clipped, and as a window function.
-- The reference cuts each set at every endpoint and sums the segments some interval covers.
CREATE TEMP TABLE iv AS
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 59999),
h AS (SELECT i, i / 15 AS set_id, i % 15 AS k,
             (i * 1103515245 + 12345) % 2147483648 AS r1, (i * 69069 + 7) % 2147483647 AS r2 FROM n),
v AS (SELECT set_id, k, r1, r2,
             CASE set_id % 4 WHEN 0 THEN 0 WHEN 1 THEN -500
                             WHEN 2 THEN 9223372036854775807 - 100 ELSE -9223372036854775808 + 10 END
             + r1 % 60 AS a FROM h)
SELECT set_id, k,
       CASE WHEN r1 % 23 = 0 THEN NULL ELSE a END AS a,
       CASE WHEN r2 % 29 = 0 THEN NULL ELSE a + (r2 % 25) - 5 END AS b
FROM v;
CREATE INDEX iv_set ON iv(set_id, k);

CREATE TEMP TABLE win AS
SELECT set_id,
       CASE WHEN set_id % 5 = 0 THEN NULL ELSE min(a) + (set_id * 7) % 50 END AS lo,
       CASE WHEN set_id % 7 = 0 THEN NULL ELSE min(a) + (set_id * 7) % 50 + (set_id * 13) % 40 END AS hi
FROM iv GROUP BY set_id;

-- Clipped intervals (the unclipped case is the same with open bounds).
CREATE TEMP TABLE civ AS
SELECT iv.set_id, k, a, b,
       CASE WHEN lo IS NOT NULL AND a < lo THEN lo ELSE a END AS ca,
       CASE WHEN hi IS NOT NULL AND b > hi THEN hi ELSE b END AS cb
FROM iv JOIN win USING (set_id);
CREATE INDEX civ_set ON civ(set_id);

CREATE TEMP VIEW brute AS
WITH pts AS (SELECT DISTINCT set_id, p, clipped FROM (
               SELECT set_id, a AS p, 0 AS clipped FROM civ WHERE b > a UNION ALL
               SELECT set_id, b, 0 FROM civ WHERE b > a UNION ALL
               SELECT set_id, ca, 1 FROM civ WHERE cb > ca UNION ALL
               SELECT set_id, cb, 1 FROM civ WHERE cb > ca)),
seg AS (SELECT set_id, clipped, p, lead(p) OVER (PARTITION BY set_id, clipped ORDER BY p) AS q FROM pts)
SELECT s.set_id, s.clipped,
       total(CASE WHEN EXISTS (SELECT 1 FROM civ c WHERE c.set_id = s.set_id AND
                                 CASE s.clipped WHEN 0 THEN c.b > c.a AND c.a <= s.p AND c.b >= s.q
                                                ELSE c.cb > c.ca AND c.ca <= s.p AND c.cb >= s.q END)
                  THEN s.q - s.p ELSE 0 END) AS len
FROM seg s WHERE q IS NOT NULL GROUP BY s.set_id, s.clipped;

CREATE TEMP TABLE got AS
SELECT set_id, interval_union(a, b) AS plain, interval_union(a, b, lo, hi) AS clipped
FROM iv JOIN win USING (set_id) GROUP BY set_id;

SELECT 'sets compared: ' || count(*) FROM got;
SELECT 'FAIL: unclipped union differs for ' || count(*) || ' sets, e.g. ' || min(g.set_id)
FROM got g LEFT JOIN brute b ON b.set_id = g.set_id AND b.clipped = 0
WHERE g.plain IS NOT coalesce(b.len, 0) HAVING count(*) > 0;
SELECT 'FAIL: clipped union differs for ' || count(*) || ' sets, e.g. ' || min(g.set_id)
FROM got g LEFT JOIN brute b ON b.set_id = g.set_id AND b.clipped = 1
WHERE g.clipped IS NOT coalesce(b.len, 0) HAVING count(*) > 0;
SELECT 'FAIL: ' || count(*) || ' sets compared, 4000 expected' FROM got HAVING count(*) IS NOT 4000;
SELECT 'FAIL: the regimes were not all exercised'
WHERE (SELECT count(DISTINCT set_id % 4) FROM got WHERE plain > 0) IS NOT 4
   OR (SELECT count(*) FROM iv WHERE b < a) = 0 OR (SELECT count(*) FROM iv WHERE b = a) = 0
   OR (SELECT count(*) FROM iv WHERE a IS NULL) = 0 OR (SELECT count(*) FROM got WHERE clipped < plain) = 0;

-- Sorted input (ORDER BY in a subquery) gives the brute force's answers too.
SELECT 'FAIL: sorted input differs from the brute force for ' || count(*) || ' sets'
FROM (SELECT set_id, interval_union(a, b) AS u FROM (SELECT * FROM iv ORDER BY set_id, a) GROUP BY set_id) s
LEFT JOIN brute b ON b.set_id = s.set_id AND b.clipped = 0
WHERE s.u IS NOT coalesce(b.len, 0) HAVING count(*) > 0;

-- Window function: running frames (incremental), sliding frames (xInverse) and the frames SQLite
-- evaluates differently (EXCLUDE, recomputed per row; GROUPS; RANGE; frames ending at UNBOUNDED
-- FOLLOWING, rows leaving from the front only), each row's result against the brute force over
-- the rows of its frame (listed by their own predicate), on the first 200 sets (3000 rows, all
-- four regimes). Every window row must find its brute-force row.
CREATE TEMP TABLE wiv AS SELECT * FROM iv WHERE set_id < 200;
CREATE TEMP TABLE wgot AS
SELECT 'running' AS form, set_id, k, interval_union(a, b) OVER (PARTITION BY set_id ORDER BY k) AS w FROM wiv
UNION ALL
SELECT 'sliding', set_id, k,
       interval_union(a, b) OVER (PARTITION BY set_id ORDER BY k ROWS BETWEEN 3 PRECEDING AND 1 FOLLOWING) FROM wiv
UNION ALL
SELECT 'exclude', set_id, k,
       interval_union(a, b) OVER (PARTITION BY set_id ORDER BY k ROWS BETWEEN 2 PRECEDING AND 2 FOLLOWING
                                  EXCLUDE CURRENT ROW) FROM wiv
UNION ALL
SELECT 'groups', set_id, k,
       interval_union(a, b) OVER (PARTITION BY set_id ORDER BY k / 4 GROUPS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM wiv
UNION ALL
SELECT 'range', set_id, k,
       interval_union(a, b) OVER (PARTITION BY set_id ORDER BY k RANGE BETWEEN 5 PRECEDING AND 1 FOLLOWING) FROM wiv
UNION ALL
SELECT 'unbounded', set_id, k,
       interval_union(a, b) OVER (PARTITION BY set_id ORDER BY k ROWS BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING) FROM wiv;
-- The rows of each frame: (form, set_id, k) -> the rows (a, b) it holds.
CREATE TEMP TABLE wframe AS
SELECT f.form, x.set_id, x.k, i2.a, i2.b
FROM (SELECT 'running' AS form UNION ALL SELECT 'sliding' UNION ALL SELECT 'exclude' UNION ALL SELECT 'groups'
      UNION ALL SELECT 'range' UNION ALL SELECT 'unbounded') f
JOIN wiv x JOIN wiv i2 ON i2.set_id = x.set_id
WHERE CASE f.form WHEN 'running' THEN i2.k <= x.k
                  WHEN 'sliding' THEN i2.k BETWEEN x.k - 3 AND x.k + 1
                  WHEN 'exclude' THEN i2.k BETWEEN x.k - 2 AND x.k + 2 AND i2.k <> x.k
                  WHEN 'groups' THEN i2.k / 4 BETWEEN x.k / 4 - 1 AND x.k / 4
                  WHEN 'range' THEN i2.k BETWEEN x.k - 5 AND x.k + 1
                  ELSE i2.k >= x.k END;
CREATE INDEX wframe_key ON wframe(form, set_id, k);
CREATE TEMP TABLE wbrute AS
WITH pts AS (SELECT DISTINCT form, set_id, k, p FROM (
               SELECT form, set_id, k, a AS p FROM wframe WHERE b > a UNION ALL
               SELECT form, set_id, k, b FROM wframe WHERE b > a)),
seg AS (SELECT form, set_id, k, p, lead(p) OVER (PARTITION BY form, set_id, k ORDER BY p) AS q FROM pts)
SELECT s.form, s.set_id, s.k,
       total(CASE WHEN EXISTS (SELECT 1 FROM wframe c WHERE c.form = s.form AND c.set_id = s.set_id AND c.k = s.k
                                 AND c.b > c.a AND c.a <= s.p AND c.b >= s.q)
                  THEN s.q - s.p ELSE 0 END) AS len
FROM seg s WHERE q IS NOT NULL GROUP BY s.form, s.set_id, s.k;
SELECT 'FAIL: ' || form || ' window differs from the brute force at ' || count(*) || ' rows, e.g. set '
       || min(g.set_id)
FROM wgot g LEFT JOIN wbrute b USING (form, set_id, k)
WHERE g.w IS NOT coalesce(b.len, 0) GROUP BY form;
SELECT 'FAIL: window rows ' || count(*) || ', 18000 expected (6 forms x 3000 rows)' FROM wgot HAVING count(*) IS NOT 18000;
SELECT 'FAIL: window frames of ' || (SELECT count(DISTINCT form) FROM wbrute) || ' forms have rows'
WHERE (SELECT count(DISTINCT form) FROM wbrute) IS NOT 6 OR (SELECT count(*) FROM wgot WHERE w > 0) < 9000;

-- Empty input and all-NULL input: the empty union.
SELECT 'FAIL: empty union is not 0' WHERE (SELECT interval_union(a, b) FROM iv WHERE 0) IS NOT 0
   OR (SELECT interval_union(NULL, NULL)) IS NOT 0;
-- The full int64 range does not fit the result: an error, tested in intervals_errors_test.py.
SELECT 'FAIL: near-limit union'
WHERE (SELECT interval_union(-9223372036854775808, 9223372036854775807, NULL, -1)) IS NOT 9223372036854775807;

-- time_bucket: floor semantics around the origin, and the limits.
WITH c(t, w, o, e) AS (VALUES (17, 5, 0, 15), (15, 5, 0, 15), (-1, 5, 0, -5), (-5, 5, 0, -5), (-6, 5, 0, -10), (17, 5, 3, 13),
             (2, 5, 3, -2), (9223372036854775807, 1, -9223372036854775808, 9223372036854775807),
             (9223372036854775807, 9223372036854775807, 0, 9223372036854775807),
             (-9223372036854775808, 9223372036854775807, -1, -9223372036854775808))
SELECT 'FAIL: time_bucket ' || t || ',' || w || ',' || o || ' = ' || time_bucket(t, w, o) || ' expected ' || e
FROM c WHERE time_bucket(t, w, o) IS NOT e;
SELECT 'FAIL: time_bucket two-argument form' WHERE time_bucket(1234, 100) IS NOT 1200;
SELECT 'FAIL: time_bucket NULL' WHERE time_bucket(NULL, 5) IS NOT NULL OR time_bucket(5, NULL) IS NOT NULL
   OR time_bucket(5, 5, NULL) IS NOT NULL;
SELECT 'FAIL: time_bucket on a real ns value' WHERE time_bucket(1e9 + 7, 1e6) IS NOT 1000000000;
