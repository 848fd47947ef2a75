-- rocpd_query through the real sqlite3 shell (run by tests/run_sql_test.sh from the fixtures
-- directory), in the shell's default list mode: the quick path of docs/pushdown.md. The table it
-- prints is checked against the same text built here from the generator's ground truth
-- (sets/mixed8/truth.json: each member's calls and total per op name and kind).
SELECT 'FAIL: rocpd_open did not open the 8 ranks of mixed8' WHERE rocpd_open('sets/mixed8') IS NOT 8;
SELECT 'FAIL: the GROUP BY of this script is not pushed: ' || v
FROM (SELECT rocpd_sql_pushdown('SELECT kind, count(*) AS n, sum(duration) AS total_ns FROM rocpd_ops GROUP BY kind ORDER BY kind') AS v)
WHERE v NOT LIKE 'pushed: %';

-- What a user types, and what the shell prints.
SELECT rocpd_query('SELECT kind, count(*) AS n, sum(duration) AS total_ns FROM rocpd_ops GROUP BY kind ORDER BY kind');

CREATE TEMP TABLE truth_kinds AS
  SELECT json_extract(e.value, '$.kind') AS kind, sum(json_extract(e.value, '$.calls')) AS n,
         sum(json_extract(e.value, '$.total_ns')) AS total_ns
  FROM json_each(readfile('sets/mixed8/truth.json'), '$.files') AS f, json_each(f.value, '$.top') AS e
  GROUP BY 1;
SELECT 'FAIL: truth.json of mixed8 not read' WHERE (SELECT count(*) FROM truth_kinds) < 2;
-- The documented layout: a header, a rule of dashes, one line per row, two spaces between
-- columns, text left-aligned, numbers right-aligned, then the row count.
CREATE TEMP TABLE w AS
  SELECT max(4, max(length(kind))) AS k, max(1, max(length(n))) AS n, max(8, max(length(total_ns))) AS t
  FROM truth_kinds;
CREATE TEMP TABLE want_lines(ord, line);
INSERT INTO want_lines SELECT 0, printf('%-*s  %*s  %*s', k, 'kind', n, 'n', t, 'total_ns') FROM w;
INSERT INTO want_lines SELECT 1, printf('%.*c  %.*c  %.*c', k, '-', n, '-', t, '-') FROM w;
INSERT INTO want_lines SELECT 2, printf('%-*s  %*d  %*d', k, kind, w.n, truth_kinds.n, t, total_ns)
  FROM truth_kinds, w ORDER BY kind;
INSERT INTO want_lines SELECT 3, printf('(%d rows)', count(*)) FROM truth_kinds;
SELECT 'FAIL: rocpd_query printed' || char(10) || got || char(10) || 'expected' || char(10) || want
FROM (SELECT rocpd_query('SELECT kind, count(*) AS n, sum(duration) AS total_ns FROM rocpd_ops GROUP BY kind ORDER BY kind') AS got,
             (SELECT group_concat(line, char(10)) FROM (SELECT line FROM want_lines ORDER BY ord, rowid)) AS want)
WHERE got IS NOT want;

