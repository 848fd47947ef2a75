-- median, percentile, stddev, histogram, histogram_log2 through the real sqlite3 shell.
-- Exact registration: names, arities, aggregate ('a') or window ('w') kind.
SELECT 'FAIL: registration ' || group_concat(name || '/' || narg || type)
  FROM (SELECT name, narg, type FROM pragma_function_list
        WHERE name IN ('median', 'percentile', 'stddev', 'histogram', 'histogram_log2') ORDER BY 1, 2)
HAVING group_concat(name || '/' || narg || type) IS NOT
       'histogram/2a,histogram/3a,histogram_log2/1a,median/1w,percentile/2w,stddev/1w';

CREATE TEMP TABLE v(g INTEGER, x);
INSERT INTO v VALUES (1, 1), (1, 2), (1, 3), (1, 4), (2, 5), (2, NULL), (3, 2.5), (3, 1), (4, NULL);

-- median: middle value (INTEGER for integers when whole), mean of the two middle ones otherwise.
SELECT 'FAIL: median g=' || g || ' got ' || quote(m)
  FROM (SELECT g, median(x) AS m FROM v GROUP BY g)
 WHERE quote(m) IS NOT CASE g WHEN 1 THEN '2.5' WHEN 2 THEN '5' WHEN 3 THEN '1.75' WHEN 4 THEN 'NULL' END;
SELECT 'FAIL: median of odd integers is INTEGER' WHERE typeof((SELECT median(value) FROM generate_series(1, 9))) IS NOT 'integer';
SELECT 'FAIL: median(1..9) = 5' WHERE (SELECT median(value) FROM generate_series(1, 9)) IS NOT 5;
SELECT 'FAIL: empty median is NULL' WHERE (SELECT median(x) FROM v WHERE 0) IS NOT NULL;

-- Every comparison below is NULL-safe (IS NOT, or a NULL counted as a failure) and every loop
-- checks its number of rows: a result that is empty or NULL fails.
-- percentile: linear interpolation at (n-1)*p/100 (numpy 'linear', PERCENTILE.INC).
SELECT 'FAIL: percentile p=' || p || ' got ' || quote(got) || ' want ' || want
  FROM (SELECT p, (SELECT percentile(value, p) FROM generate_series(1, 10)) AS got, want
          FROM (SELECT 0 AS p, 1 AS want UNION ALL SELECT 25, 3.25 UNION ALL SELECT 50, 5.5
                UNION ALL SELECT 90, 9.1 UNION ALL SELECT 95, 9.55 UNION ALL SELECT 100, 10))
 WHERE got IS NULL OR abs(got - want) > 1e-9;
-- percentile(x, 50) per group against the medians worked out by hand above (not against median()).
SELECT 'FAIL: percentile(x, 50) g=' || g || ' got ' || quote(p)
  FROM (SELECT g, percentile(x, 50) AS p FROM v GROUP BY g)
 WHERE quote(p) IS NOT CASE g WHEN 1 THEN '2.5' WHEN 2 THEN '5' WHEN 3 THEN '1.75' WHEN 4 THEN 'NULL' END;
SELECT 'FAIL: percentile(x, 50) groups' WHERE (SELECT count(*) FROM (SELECT g, percentile(x, 50) FROM v GROUP BY g)) IS NOT 4;
SELECT 'FAIL: p as numeric text' WHERE (SELECT percentile(value, '50') FROM generate_series(1, 3)) IS NOT 2;

-- Against a sort in plain SQL on 10001 pseudo-random integers with ties.
CREATE TEMP TABLE r AS SELECT (value * 7919) % 1000 AS x FROM generate_series(1, 10001);
SELECT 'FAIL: median vs ORDER BY/OFFSET'
 WHERE (SELECT median(x) FROM r) IS NOT (SELECT x FROM r ORDER BY x LIMIT 1 OFFSET 5000);
SELECT 'FAIL: p90 vs ORDER BY/OFFSET'
 WHERE (SELECT percentile(x, 90) FROM r) IS NOT (SELECT x FROM r ORDER BY x LIMIT 1 OFFSET 9000);

-- int64 extremes stay exact (a double would round them).
SELECT 'FAIL: int64 max' WHERE (SELECT median(x) FROM (SELECT 9223372036854775807 AS x UNION ALL SELECT 9223372036854775805))
                              IS NOT 9223372036854775806;
SELECT 'FAIL: int64 min/max' WHERE (SELECT median(x) FROM (SELECT -9223372036854775808 AS x UNION ALL SELECT 9223372036854775807))
                                  IS NOT -0.5;

-- Window forms: sliding frame of 3 rows.
SELECT 'FAIL: median window at ' || value || ' got ' || quote(m)
  FROM (SELECT value, median(value * value) OVER (ORDER BY value ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS m
          FROM generate_series(1, 50))
 WHERE m IS NOT CASE value WHEN 1 THEN 2.5 WHEN 50 THEN (49 * 49 + 2500) / 2.0 ELSE value * value END;
SELECT 'FAIL: percentile window'
  FROM (SELECT value, percentile(value, 100) OVER (ORDER BY value ROWS 4 PRECEDING) AS p FROM generate_series(1, 30))
 WHERE p IS NOT value;

-- A frame spanning the whole partition equals the median by sort (xValue answers from a cache
-- until the values change; here 20000 rows per partition, so the mean of the two middle values).
CREATE TEMP TABLE w AS SELECT value % 5 AS g, (value * 7919) % 10007 AS x FROM generate_series(1, 100000);
CREATE TEMP TABLE w_sorted AS SELECT g, x, row_number() OVER (PARTITION BY g ORDER BY x) AS k FROM w;
SELECT 'FAIL: median over whole partition, g=' || g || ' got ' || quote(win.m) || ' want ' || quote(bf.m)
  FROM (SELECT DISTINCT g, median(x) OVER (PARTITION BY g) AS m FROM w) AS win
  LEFT JOIN (SELECT g, avg(x) AS m FROM w_sorted WHERE k IN (10000, 10001) GROUP BY g) AS bf USING (g)
 WHERE win.m IS NOT bf.m;
SELECT 'FAIL: whole-partition medians' WHERE (SELECT count(DISTINCT g) FROM (SELECT g, median(x) OVER (PARTITION BY g) FROM w)) IS NOT 5;
SELECT 'FAIL: percentile over growing frames'
  FROM (SELECT value, percentile(value, 50) OVER (ORDER BY value) AS p FROM generate_series(1, 200))
 WHERE p IS NOT (1 + value) / 2.0;

-- stddev: sample standard deviation; NULL for fewer than two values.
SELECT 'FAIL: stddev g=' || g || ' got ' || quote(s)
  FROM (SELECT g, stddev(x) AS s FROM v GROUP BY g)
 WHERE NOT coalesce(CASE g WHEN 1 THEN abs(s - 1.2909944487358056) < 1e-12 WHEN 3 THEN abs(s - 1.0606601717798212) < 1e-12
                           ELSE s IS NULL END, 0);
SELECT 'FAIL: stddev groups' WHERE (SELECT count(*) FROM (SELECT g, stddev(x) FROM v GROUP BY g)) IS NOT 4;
SELECT 'FAIL: stddev vs two-pass SQL'
  FROM (SELECT (SELECT stddev(x) FROM r) AS s,
               (SELECT sqrt(sum((x - m) * (x - m)) / (count(*) - 1)) FROM r, (SELECT avg(x) AS m FROM r)) AS t)
 WHERE s IS NULL OR t IS NULL OR abs(s - t) > 1e-9 * t;
SELECT 'FAIL: stddev of constant is 0' WHERE (SELECT stddev(7) FROM generate_series(1, 100)) IS NOT 0;
SELECT 'FAIL: stddev near 1.7e18 (ns timestamps)'
 WHERE coalesce(abs((SELECT stddev(1700000000000000000 + value % 2) FROM generate_series(1, 1000)) - 0.50025), 1) > 1e-5;
SELECT 'FAIL: stddev window'
  FROM (SELECT value, stddev(value) OVER (ORDER BY value ROWS 1 PRECEDING) AS s FROM generate_series(1, 20))
 WHERE NOT coalesce(CASE WHEN value = 1 THEN s IS NULL ELSE abs(s - sqrt(0.5)) < 1e-12 END, 0);

-- histogram: contiguous fixed-width buckets as JSON, expanded with json_each.
SELECT 'FAIL: histogram json ' || h
  FROM (SELECT histogram(x, 2) AS h FROM v)
 WHERE h IS NOT '[{"lo":0,"hi":2,"count":2},{"lo":2,"hi":4,"count":3},{"lo":4,"hi":6,"count":2}]';
SELECT 'FAIL: histogram origin'
 WHERE (SELECT histogram(value, 10, 5) FROM generate_series(1, 20))
       IS NOT '[{"lo":-5,"hi":5,"count":4},{"lo":5,"hi":15,"count":10},{"lo":15,"hi":25,"count":6}]';
SELECT 'FAIL: histogram counts sum to count(*)'
 WHERE (SELECT sum(b.value ->> 'count') FROM json_each((SELECT histogram(x, 37) FROM r)) AS b) IS NOT 10001;
SELECT 'FAIL: histogram per group'
 WHERE (SELECT h FROM (SELECT g, histogram(x, 1) AS h FROM v GROUP BY g) WHERE g = 2) IS NOT '[{"lo":5,"hi":6,"count":1}]';
SELECT 'FAIL: empty histogram is []' WHERE (SELECT histogram(x, 1) FROM v WHERE 0) IS NOT '[]';
SELECT 'FAIL: histogram result is JSON for json functions'
 WHERE (SELECT json_array(histogram(value, 5)) FROM generate_series(1, 3)) IS NOT '[[{"lo":0,"hi":5,"count":3}]]';

-- histogram at the INTEGER edges (issue 21, defect 12): integer-mode bounds are INTEGERs, or null
-- where the bucket passes the range (never a REAL), lo < hi, and each bucket counts exactly the
-- values that lie in it (counted here by comparison, not by our bucketing).
CREATE TEMP TABLE edge(g TEXT, x INTEGER, w INTEGER);
INSERT INTO edge VALUES ('hi', 9223372036854775807, 10), ('hi', 9223372036854775800, 10), ('hi', 9223372036854775799, 10),
  ('hi1', 9223372036854775807, 1), ('lo', -9223372036854775808, 10), ('lo', -9223372036854775801, 10),
  ('lo', -9223372036854775800, 10), ('lo1', -9223372036854775808, 1), ('lo1', -9223372036854775807, 1);
CREATE TEMP TABLE edge_buckets AS
  SELECT g, b.value ->> 'lo' AS lo, b.value ->> 'hi' AS hi, b.value ->> 'count' AS n,
         json_type(b.value, '$.lo') AS tlo, json_type(b.value, '$.hi') AS thi
    FROM (SELECT g, histogram(x, w) AS h FROM edge GROUP BY g), json_each(h) AS b;
SELECT 'FAIL: histogram edge buckets ' || (SELECT count(*) FROM edge_buckets) WHERE (SELECT count(*) FROM edge_buckets) IS NOT 7;
SELECT 'FAIL: histogram bound not INTEGER at the edge: ' || g || ' ' || tlo || ' ' || thi
  FROM edge_buckets WHERE tlo NOT IN ('integer', 'null') OR thi NOT IN ('integer', 'null');
SELECT 'FAIL: histogram bucket with lo >= hi: ' || g FROM edge_buckets WHERE lo IS NOT NULL AND hi IS NOT NULL AND lo >= hi;
SELECT 'FAIL: histogram edge count ' || g || ' [' || quote(lo) || ', ' || quote(hi) || ') ' || n
  FROM edge_buckets AS b
 WHERE n IS NOT (SELECT count(*) FROM edge AS e
                  WHERE e.g = b.g AND (b.lo IS NULL OR e.x >= b.lo) AND (b.hi IS NULL OR e.x < b.hi));
SELECT 'FAIL: histogram edge totals' WHERE (SELECT sum(n) FROM edge_buckets) IS NOT (SELECT count(*) FROM edge);
-- Reals: every bucket holding values has lo < hi and holds them (far from the origin the doubles'
-- spacing is 2 here: width 3 still separates them).
CREATE TEMP TABLE far(x REAL);
INSERT INTO far VALUES (1e16), (1e16 + 2), (1e16 + 6), (1e16 + 8);
CREATE TEMP TABLE far_buckets AS
  SELECT b.value ->> 'lo' AS lo, b.value ->> 'hi' AS hi, b.value ->> 'count' AS n
    FROM json_each((SELECT histogram(x, 3.0) FROM far)) AS b;
SELECT 'FAIL: real histogram bucket lo >= hi' FROM far_buckets WHERE NOT (lo < hi);
SELECT 'FAIL: real histogram count [' || lo || ', ' || hi || ') ' || n
  FROM far_buckets AS b WHERE n IS NOT (SELECT count(*) FROM far WHERE x >= b.lo AND x < b.hi);
SELECT 'FAIL: real histogram totals' WHERE (SELECT sum(n) FROM far_buckets) IS NOT 4;

-- histogram_log2: [0,1), [1,2), [2,4), ...
SELECT 'FAIL: histogram_log2 ' || h
  FROM (SELECT histogram_log2(value - 1) AS h FROM generate_series(1, 9))
 WHERE h IS NOT '[{"lo":0,"hi":1,"count":1},{"lo":1,"hi":2,"count":1},{"lo":2,"hi":4,"count":2},{"lo":4,"hi":8,"count":4},{"lo":8,"hi":16,"count":1}]';
SELECT 'FAIL: histogram_log2 rows'
 WHERE (SELECT group_concat((b.value ->> 'lo') || ':' || (b.value ->> 'count'), ' ')
          FROM json_each((SELECT histogram_log2(x) FROM v)) AS b) IS NOT '1:2 2:3 4:2';
SELECT 'ok: stats functions';
