-- Federation through the real sqlite3 shell (run by tests/run_sql_test.sh from the fixtures
-- directory): attached and opened members together, union summaries consistent with rocpd_ops.
ATTACH 'sets/mixed8/rank0.rpd' AS rank0;
ATTACH 'sets/mixed8/rank2.db' AS rank2;
SELECT 'FAIL: rocpd_open did not add the 6 other ranks' WHERE rocpd_open('sets/mixed8') <> 6;
SELECT 'FAIL: expected 8 members' WHERE (SELECT count(*) FROM rocpd_members) <> 8;
SELECT 'FAIL: attached rank0 must keep its attach name' WHERE
  (SELECT source FROM rocpd_members WHERE db = 'rank0') IS NOT 'attached';
SELECT 'FAIL: every rank has ops and apis' WHERE EXISTS (SELECT 1 FROM rocpd_members WHERE ops = 0 OR apis = 0);
SELECT 'FAIL: formats of the mixed job' WHERE
  (SELECT group_concat(format || schema_version, ',') FROM (SELECT * FROM rocpd_members ORDER BY db))
  <> 'rpd2,rpd3,rocpd3,rpd2,rpd3,rocpd3,rpd2,rpd3';

-- rocpd_union('top') per member equals a GROUP BY over rocpd_ops.
CREATE TEMP TABLE top_by_union AS SELECT db, name, calls, total_ns, min_ns, max_ns FROM rocpd_union('top');
CREATE TEMP TABLE top_by_sql AS
  SELECT db, name, count(*) AS calls, sum(duration) AS total_ns, min(duration) AS min_ns, max(duration) AS max_ns
  FROM rocpd_ops GROUP BY db, name;
SELECT 'FAIL: rocpd_union(top) differs from rocpd_ops: ' || db || ' ' || name
FROM (SELECT * FROM top_by_union EXCEPT SELECT * FROM top_by_sql
      UNION ALL SELECT * FROM top_by_sql EXCEPT SELECT * FROM top_by_union);
SELECT 'FAIL: percents of a member add up to 100' WHERE EXISTS
  (SELECT 1 FROM rocpd_union('top') GROUP BY db HAVING abs(sum(percent) - 100) > 1e-6);
SELECT 'FAIL: ktop + copies = top' WHERE
  (SELECT sum(total_ns) FROM rocpd_union('ktop')) + (SELECT sum(total_ns) FROM rocpd_union('copies'))
  <> (SELECT sum(total_ns) FROM rocpd_union('top'));
SELECT 'FAIL: apis + markers = rocpd_apis' WHERE
  (SELECT sum(calls) FROM rocpd_union('apis')) + (SELECT sum(calls) FROM rocpd_union('markers'))
  <> (SELECT count(*) FROM rocpd_apis);
SELECT 'FAIL: db filter of the summary' WHERE
  (SELECT count(DISTINCT db) FROM rocpd_union('top') WHERE db = 'rank5') <> 1;

-- Named form over an object present in some members only (rpd files have rocpd_op).
CREATE VIRTUAL TABLE temp.op_all USING rocpd_union(rocpd_op);
SELECT 'FAIL: named union skips members without the object' WHERE
  (SELECT count(*) FROM op_all) <> (SELECT count(*) FROM rocpd_ops WHERE db IN
     (SELECT db FROM rocpd_members WHERE format = 'rpd'));
SELECT 'FAIL: named union db column' WHERE (SELECT count(DISTINCT db) FROM op_all) <> 6;

-- Launch linkage: every op joins its issuing call.
SELECT 'FAIL: unlinked ops' WHERE EXISTS
  (SELECT 1 FROM rocpd_ops o WHERE NOT EXISTS
     (SELECT 1 FROM rocpd_apis a WHERE a.db = o.db AND a.correlation_id = o.correlation_id));
SELECT 'federation shell test done';
