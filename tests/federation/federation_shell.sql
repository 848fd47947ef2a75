-- Federation through the real sqlite3 shell (run by tests/run_sql_test.sh from the fixtures
-- directory): attached and opened members together; every figure checked against the generator's
-- ground truth (sets/mixed8/truth.json, computed from the in-memory workload, never from the
-- files). Checks are NULL-safe (IS NOT) and count the rows they compare: an empty or NULL answer
-- fails.
ATTACH 'sets/mixed8/rank0.rpd' AS rank0;
ATTACH 'sets/mixed8/rank2.db' AS rank2;
CREATE TEMP TABLE truth AS
  SELECT json_extract(value, '$.db') AS db, value AS f FROM json_each(readfile('sets/mixed8/truth.json'), '$.files');
SELECT 'FAIL: truth.json of mixed8 not read' WHERE (SELECT count(*) FROM truth) IS NOT 8;

SELECT 'FAIL: rocpd_open did not add the 6 other ranks' WHERE rocpd_open('sets/mixed8') IS NOT 6;
SELECT 'FAIL: expected the 8 members of truth.json' WHERE
  (SELECT count(*) FROM rocpd_members) IS NOT (SELECT count(*) FROM truth)
  OR (SELECT count(*) FROM rocpd_members JOIN truth USING (db)) IS NOT 8;
SELECT 'FAIL: attached rank0 must keep its attach name' WHERE
  (SELECT source FROM rocpd_members WHERE db = 'rank0') IS NOT 'attached';
SELECT 'FAIL: member ' || t.db || ': format, version, ops or apis differ from truth.json'
FROM truth AS t LEFT JOIN rocpd_members AS m USING (db)
WHERE m.format IS NOT json_extract(t.f, '$.format')
   OR m.schema_version IS NOT json_extract(t.f, '$.schema_version')
   OR m.ops IS NOT json_extract(t.f, '$.ops')
   OR m.apis IS NOT json_extract(t.f, '$.apis') + json_extract(t.f, '$.markers')
   OR m.first_ns IS NOT json_extract(t.f, '$.first_ns') OR m.last_ns IS NOT json_extract(t.f, '$.last_ns');

-- The ground truth's per-member summaries, one row per (db, name).
CREATE TEMP TABLE truth_top AS
  SELECT t.db, json_extract(e.value, '$.name') AS name, json_extract(e.value, '$.kind') AS kind,
         json_extract(e.value, '$.calls') AS calls, json_extract(e.value, '$.total_ns') AS total_ns,
         json_extract(e.value, '$.min_ns') AS min_ns, json_extract(e.value, '$.max_ns') AS max_ns
  FROM truth AS t, json_each(t.f, '$.top') AS e;
CREATE TEMP TABLE truth_apis AS
  SELECT t.db, json_extract(e.value, '$.name') AS name, json_extract(e.value, '$.calls') AS calls,
         json_extract(e.value, '$.total_ns') AS total_ns
  FROM truth AS t, json_each(t.f, '$.api_top') AS e;
CREATE TEMP TABLE truth_markers AS
  SELECT t.db, json_extract(e.value, '$.name') AS name, json_extract(e.value, '$.calls') AS calls,
         json_extract(e.value, '$.total_ns') AS total_ns
  FROM truth AS t, json_each(t.f, '$.marker_top') AS e;
SELECT 'FAIL: truth summaries empty' WHERE (SELECT count(*) FROM truth_top) = 0
  OR (SELECT count(*) FROM truth_apis) = 0 OR (SELECT count(*) FROM truth_markers) = 0;

-- `got` and `want` hold the same rows (as multisets, row counts compared first).
CREATE TEMP TABLE got(what, db, name, calls, total_ns, min_ns, max_ns);
CREATE TEMP TABLE want(what, db, name, calls, total_ns, min_ns, max_ns);
INSERT INTO got SELECT 'top', db, name, calls, total_ns, min_ns, max_ns FROM rocpd_union('top');
INSERT INTO want SELECT 'top', db, name, calls, total_ns, min_ns, max_ns FROM truth_top;
INSERT INTO got SELECT 'ktop', db, name, calls, total_ns, min_ns, max_ns FROM rocpd_union('ktop');
INSERT INTO want SELECT 'ktop', db, name, calls, total_ns, min_ns, max_ns FROM truth_top WHERE kind = 'kernel';
INSERT INTO got SELECT 'copies', db, name, calls, total_ns, min_ns, max_ns FROM rocpd_union('copies');
INSERT INTO want SELECT 'copies', db, name, calls, total_ns, min_ns, max_ns FROM truth_top WHERE kind = 'copy';
INSERT INTO got SELECT 'apis', db, name, calls, total_ns, NULL, NULL FROM rocpd_union('apis');
INSERT INTO want SELECT 'apis', db, name, calls, total_ns, NULL, NULL FROM truth_apis;
INSERT INTO got SELECT 'markers', db, name, calls, total_ns, NULL, NULL FROM rocpd_union('markers');
INSERT INTO want SELECT 'markers', db, name, calls, total_ns, NULL, NULL FROM truth_markers;
-- The same figures through rocpd_ops (a GROUP BY over the canonical table, checked against truth too).
INSERT INTO got SELECT 'ops', db, name, count(*), sum(duration), min(duration), max(duration)
  FROM rocpd_ops GROUP BY db, name;
INSERT INTO want SELECT 'ops', db, name, calls, total_ns, min_ns, max_ns FROM truth_top;
SELECT 'FAIL: ' || what || ': ' || (SELECT count(*) FROM got AS g WHERE g.what = w.what) || ' rows, truth.json '
       || count(*)
FROM want AS w GROUP BY what HAVING count(*) IS NOT (SELECT count(*) FROM got AS g WHERE g.what = w.what);
SELECT 'FAIL: ' || what || ' differs from truth.json: ' || db || ' ' || name
FROM (SELECT * FROM got EXCEPT SELECT * FROM want UNION ALL SELECT * FROM want EXCEPT SELECT * FROM got);
SELECT 'FAIL: not every summary was compared' WHERE (SELECT count(DISTINCT what) FROM want) IS NOT 6;

-- Percents of a member add up to 100; a member is checked only if it has rows (counted).
SELECT 'FAIL: percents of a member add up to 100' WHERE
  (SELECT count(*) FROM (SELECT db FROM rocpd_union('top') GROUP BY db HAVING abs(sum(percent) - 100) <= 1e-6))
  IS NOT 8;
SELECT 'FAIL: percent of ' || u.db || ' ' || u.name
FROM rocpd_union('top') AS u JOIN truth_top AS t ON t.db = u.db AND t.name = u.name
WHERE abs(u.percent - 100.0 * t.total_ns / (SELECT sum(total_ns) FROM truth_top AS s WHERE s.db = t.db)) > 1e-9;
SELECT 'FAIL: db filter of the summary' WHERE
  (SELECT count(*) FROM rocpd_union('top') WHERE db = 'rank5') IS NOT (SELECT count(*) FROM truth_top WHERE db = 'rank5')
  OR (SELECT count(DISTINCT db) FROM rocpd_union('top') WHERE db = 'rank5') IS NOT 1;

-- Named form over an object present in some members only (rpd files have rocpd_op).
CREATE VIRTUAL TABLE temp.op_all USING rocpd_union(rocpd_op);
SELECT 'FAIL: named union skips members without the object' WHERE
  (SELECT count(*) FROM op_all) IS NOT
  (SELECT sum(json_extract(f, '$.ops')) FROM truth WHERE json_extract(f, '$.format') = 'rpd');
SELECT 'FAIL: named union db column' WHERE (SELECT count(DISTINCT db) FROM op_all) IS NOT
  (SELECT count(*) FROM truth WHERE json_extract(f, '$.format') = 'rpd');

-- Launch linkage: every op joins its issuing call (and there are ops to join).
SELECT 'FAIL: linked ops' WHERE
  (SELECT count(*) FROM rocpd_ops o WHERE EXISTS
     (SELECT 1 FROM rocpd_apis a WHERE a.db = o.db AND a.correlation_id = o.correlation_id))
  IS NOT (SELECT sum(json_extract(f, '$.ops')) FROM truth);
SELECT 'federation shell test done';
