"""rocpd_sql_rewrite / rocpd_sql_pushdown (docs/pushdown.md): which queries are pushed to the
per-member engine, and that every answer equals SQLite's own answer to the query as written over a
native table holding the same rows (the independent computation: SQLite's GROUP BY and aggregates
over a plain table). Column names and value types must match too."""
import math
import os
import shutil
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import SETS, connect, main  # noqa: E402

K = "WHERE kind = 'kernel'"
PUSHED = [
    f"SELECT name, count(*), sum(duration), median(duration) FROM rocpd_ops {K} GROUP BY name",
    "SELECT db, gpu, kind, count(*), sum(duration) FROM rocpd_ops GROUP BY db, gpu, kind",
    "select KIND, Count(*) AS n, TOTAL(Duration) t, avg(\"duration\") FROM temp.rocpd_ops group by Kind;",
    "SELECT gpu, min(duration), max(duration), count(duration), stddev(duration) FROM rocpd_ops GROUP BY gpu",
    "SELECT name, sum(duration) / 1e3 AS us, round(avg(duration), 2) FROM rocpd_ops GROUP BY name ORDER BY us DESC, name LIMIT 5",
    "SELECT db, count(*) AS n FROM rocpd_ops GROUP BY db HAVING n > 100 ORDER BY 2 DESC, 1",
    "SELECT db, name, count(*) FROM rocpd_ops WHERE db = 'rank3' AND kind = 'copy' GROUP BY name, db",
    "SELECT gpu, count(*) FROM rocpd_ops WHERE gpu BETWEEN 1 AND 2 AND kind = 'kernel' GROUP BY gpu",
    "SELECT name, count(*) FROM rocpd_ops WHERE name LIKE '%gemm%' OR name IN ('a', 'b') GROUP BY name",
    "SELECT DISTINCT kind, count(*) > 1000 FROM rocpd_ops GROUP BY kind, db",
    "SELECT upper(kind) || ':' || gpu, max(gpu, 1), count(*) FROM rocpd_ops GROUP BY gpu, kind",  # max(a, b): scalar
    "SELECT kind, CASE WHEN sum(duration) > 1e8 THEN 'big' ELSE 'small' END AS size FROM rocpd_ops GROUP BY kind",
    # An aggregate has no affinity: compared with a text, it is smaller whatever its value.
    "SELECT kind, sum(duration) FROM rocpd_ops GROUP BY kind HAVING sum(duration) > '5'",
    "SELECT kind, count(*) FROM rocpd_ops WHERE kind = 'no such kind' GROUP BY kind",
    # AND binds tighter than OR: one term (found by the differential tester: split at AND, it lost rows).
    "SELECT gpu, count(*) FROM rocpd_ops WHERE kind = 'kernel' AND gpu = 1 OR gpu = 2 GROUP BY gpu, kind",
    "SELECT db, gpu, count(*) FROM rocpd_ops WHERE db = 'rank1' AND gpu = 0 OR gpu = 2 GROUP BY db, gpu",
    "SELECT gpu, count(*) FROM rocpd_ops WHERE CASE WHEN gpu > 0 AND gpu < 3 THEN 1 ELSE 0 END AND kind = 'copy' GROUP BY gpu",
    # ORDER BY a name looks up the result aliases first.
    "SELECT sum(duration) AS duration, gpu FROM rocpd_ops GROUP BY gpu ORDER BY duration DESC, 2",
    # Aggregates over each group's durations: SQLite's own functions over the same values.
    f"SELECT name, percentile(duration, 90) AS p90, percentile(duration, 99.5), median(duration) FROM rocpd_ops {K} "
    "GROUP BY name ORDER BY p90 DESC, name LIMIT 10",
    "SELECT gpu, count(DISTINCT duration), sum(DISTINCT duration), min(DISTINCT duration), median(DISTINCT duration) "
    "FROM rocpd_ops GROUP BY gpu",
    "SELECT kind, histogram(duration, 50000), histogram(duration, 1e5, -7), histogram_log2(duration) FROM rocpd_ops "
    "GROUP BY kind",
    "SELECT db, percentile(duration, 0), percentile(duration, 100) AS top FROM rocpd_ops GROUP BY db "
    "HAVING percentile(duration, 50) > 1000 ORDER BY top",
    # Another groupable column in an aggregate or in WHERE: the engine groups by it too, SQL regroups.
    f"SELECT name, count(*), sum(duration), count(DISTINCT db) AS ranks, min(gpu), max(DISTINCT db) FROM rocpd_ops {K} "
    "GROUP BY name ORDER BY ranks DESC, name",
    "SELECT name, count(*), avg(duration), total(duration), min(duration), max(duration), count(duration) "
    "FROM rocpd_ops WHERE gpu = 0 GROUP BY name",
    "SELECT db, count(DISTINCT name), length(group_concat(DISTINCT kind)), count(gpu), sum(DISTINCT gpu), "
    "avg(DISTINCT gpu), total(DISTINCT gpu) FROM rocpd_ops GROUP BY db HAVING count(DISTINCT name) > 3 ORDER BY 2 DESC, db",
    f"SELECT name, count(*), median(duration), percentile(duration, 90), stddev(duration) FROM rocpd_ops {K} "
    "AND gpu = 1 GROUP BY name",
    "SELECT kind, median(duration), histogram_log2(duration), count(DISTINCT duration) FROM rocpd_ops "
    "WHERE db <> 'rank2' AND gpu > 0 GROUP BY kind",
    "SELECT gpu, count(*) FROM rocpd_ops WHERE kind = 'kernel' AND gpu = 1 OR gpu = 2 GROUP BY gpu",
    # spans: count, min and max of start and end, one level and regrouped
    'SELECT db, gpu, kind, count(*), sum(duration), min(start), max("end") FROM rocpd_ops GROUP BY db, gpu, kind',
    'SELECT gpu, min(START), max([end]) - min(start) AS span, count(start), count("end"), max(start), min("end") '
    "FROM rocpd_ops WHERE kind = 'kernel' GROUP BY gpu HAVING min(start) > 0 ORDER BY span DESC",
    'SELECT name, min(start), max("end"), count(DISTINCT gpu) FROM rocpd_ops GROUP BY name ORDER BY 2, 1',
    'SELECT kind, max("end") AS last FROM rocpd_ops WHERE gpu = 0 GROUP BY kind',
]
# The same over rocpd_apis (rocpd_api_groups: grouped by db, pid, tid, domain, name; no kind argument).
PUSHED_APIS = [
    "SELECT name, count(*), sum(duration), median(duration) FROM rocpd_apis GROUP BY name",
    "SELECT db, pid, tid, count(*), avg(duration), stddev(duration) FROM temp.rocpd_apis GROUP BY db, pid, tid",
    "SELECT domain, name, min(duration), max(duration), total(duration) FROM rocpd_apis GROUP BY name, domain",
    "SELECT tid, count(duration) AS n FROM rocpd_apis WHERE tid > 0 GROUP BY tid HAVING n > 10 ORDER BY n DESC, tid",
    "SELECT db, name, sum(duration) FROM rocpd_apis WHERE db = 'rank2' AND name LIKE 'hip%' GROUP BY db, name "
    "ORDER BY 3 DESC LIMIT 5",
    "SELECT domain, count(*) FROM rocpd_apis WHERE domain = 'no such domain' GROUP BY domain",
    # From the groups' durations (the hidden durations column of rocpd_api_groups).
    "SELECT name, percentile(duration, 90), count(DISTINCT duration), histogram_log2(duration) FROM rocpd_apis "
    "GROUP BY name",
    # spans: count, min and max of start and end
    'SELECT tid, min(start), max("end"), count("end"), count(start) FROM rocpd_apis GROUP BY tid',
    "SELECT name, min(start), max(start) FROM rocpd_apis WHERE domain IS NOT NULL GROUP BY name",
    # Another groupable column in WHERE or in an aggregate: rocpd_api_groups groups by it too, SQL regroups.
    "SELECT name, count(*), median(duration), count(DISTINCT tid) AS threads FROM rocpd_apis WHERE domain = 'hip' "
    "GROUP BY name",
]
NOT_PUSHED_APIS = [
    ("SELECT name, count(*) FROM rocpd_apis WHERE category = 'x' GROUP BY name", "WHERE: column category"),
    ("SELECT name, args, count(*) FROM rocpd_apis GROUP BY name", "column args is not grouped"),
    ("SELECT args, count(*) FROM rocpd_apis GROUP BY args",
     "GROUP BY args: the engine groups rocpd_apis by db, pid, tid, domain, name only"),
    ("SELECT name, total(start) FROM rocpd_apis GROUP BY name", "total(start)"),
    ("SELECT db, count(*) FROM rocpd_apis, rocpd_members USING (db) GROUP BY db", "',' where the query should end"),
]
NOT_PUSHED = [
    ("SELECT lower(name), count(*) FROM rocpd_ops GROUP BY lower(name)", "GROUP BY lower"),
    ("SELECT name, sum(start) FROM rocpd_ops GROUP BY name", "sum(start)"),
    ("SELECT name, avg(\"end\") FROM rocpd_ops GROUP BY name", "avg(\"end\")"),
    ("SELECT name, count(DISTINCT start) FROM rocpd_ops GROUP BY name", "count(DISTINCT start)"),
    ("SELECT name, group_concat(db) FROM rocpd_ops GROUP BY name", "group_concat"),
    ("SELECT name, gpu, count(*) FROM rocpd_ops GROUP BY name", "column gpu is not grouped"),
    ("SELECT name, count(*) FROM rocpd_ops WHERE duration > 5 GROUP BY name", "WHERE: column duration"),
    ("SELECT name, count(*) FROM rocpd_ops GROUP BY 1", "GROUP BY 1"),
    ("SELECT count(*), sum(duration) FROM rocpd_ops", "no GROUP BY"),
    ("SELECT o.name, count(*) FROM rocpd_ops o GROUP BY o.name", "a qualified name"),
    ("SELECT name, count(*) FROM rocpd_ops o GROUP BY name", "'o' where the query should end"),
    ("SELECT name, max(duration, 0) FROM rocpd_ops GROUP BY name", "column duration is not grouped"),
    ("SELECT name, count(*) FROM rocpd_ops JOIN rocpd_members m USING (db) GROUP BY name", "JOIN"),
    ("SELECT name, count(*) FROM rocpd_ops WHERE db IN (SELECT db FROM rocpd_members) GROUP BY name", "SELECT"),
    ("SELECT name, count(*) OVER () FROM rocpd_ops GROUP BY name", "OVER"),
    ("SELECT name, count(*) FROM rocpd_ops WHERE kind = ? GROUP BY name", "parameters"),
    ("SELECT name, percentile(duration, 150) FROM rocpd_ops GROUP BY name", "percentile(duration, 150)"),
    ("SELECT name, percentile(duration, gpu) FROM rocpd_ops GROUP BY name, gpu", "percentile(duration, gpu)"),
    ("SELECT name, histogram(duration, 0) FROM rocpd_ops GROUP BY name", "histogram(duration, 0)"),
    ("SELECT name, group_concat(duration, gpu) FROM rocpd_ops GROUP BY name, gpu", "group_concat(duration, gpu)"),
    ("SELECT name, count(DISTINCT start) FROM rocpd_ops GROUP BY name", "count(DISTINCT start)"),
    ("SELECT name, sum(duration) FROM rocpd_ops GROUP BY name COLLATE NOCASE", "GROUP BY name COLLATE"),
    # As written, "count(*)" is a string here (no column has that name); the rewrite names a column so.
    ("SELECT name, count(*) FROM rocpd_ops GROUP BY name ORDER BY \"count(*)\"", "would mean something else"),
    ("SELECT name, count(*) FROM rocpd_kernels GROUP BY name", "FROM is not rocpd_ops or rocpd_apis alone"),
    ("SELECT name, gpu, count(DISTINCT db) FROM rocpd_ops GROUP BY name", "column gpu is not grouped"),
    ("SELECT name, group_concat(db) FROM rocpd_ops GROUP BY name", "group_concat(db)"),
    ("SELECT name, count(DISTINCT pid) FROM rocpd_ops GROUP BY name", "count(DISTINCT pid)"),
    ("SELECT sum(duration) AS d, gpu FROM rocpd_ops GROUP BY gpu ORDER BY duration + 0", "column duration"),
    ("SELECT name, count(*) FROM nosuch GROUP BY name", "SQLite refuses the query: no such table: nosuch"),
    ("SELECT name, count(*) FROM rocpd_ops GROUP BY name; SELECT 1", "more than one statement"),
]


def typed(v):
    return (type(v).__name__, v)


class AsWritten:
    """Each query both ways: through the rewrite on the federated tables, as written on native copies."""

    def as_written(self, sql):
        native = sql.replace("temp.rocpd_ops", "native_ops").replace("rocpd_ops", "native_ops")
        native = native.replace("temp.rocpd_apis", "native_apis").replace("rocpd_apis", "native_apis")
        cur = self.con.execute(native)
        return [d[0] for d in cur.description], cur.fetchall()

    def through_rewrite(self, sql):
        text = self.con.execute("SELECT rocpd_sql_rewrite(?)", (sql,)).fetchone()[0]
        cur = self.con.execute(text)
        return text, [d[0] for d in cur.description], cur.fetchall()

    def assert_same_rows(self, sql, got, want):
        ordered = " ORDER BY " in sql.upper()
        if not ordered:
            got, want = sorted(got, key=repr), sorted(want, key=repr)
        self.assertEqual(len(got), len(want), sql)
        for g, w in zip(got, want):
            self.assertEqual(len(g), len(w))
            for a, b in zip(g, w):
                if isinstance(a, float) and isinstance(b, float) and "stddev" in sql:
                    # stddev: the engine's from exact integer sums (docs/summaries.md)
                    self.assertTrue(math.isclose(a, b, rel_tol=1e-9), (sql, a, b))
                else:
                    self.assertEqual(typed(a), typed(b), sql)



class Rewrite(AsWritten, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "mixed8"),)).fetchall()
        # The native copy: a plain table of the same rows (CREATE TABLE AS keeps each column's affinity).
        cls.con.execute("CREATE TEMP TABLE native_ops AS SELECT * FROM rocpd_ops")
        cls.con.execute("CREATE TEMP TABLE native_apis AS SELECT * FROM rocpd_apis")

    def check_pushed(self, queries, engine):
        for sql in queries:
            with self.subTest(sql=sql):
                verdict = self.con.execute("SELECT rocpd_sql_pushdown(?)", (sql,)).fetchone()[0]
                self.assertTrue(verdict.startswith(f"pushed: {engine}("), verdict)
                text, names, rows = self.through_rewrite(sql)
                self.assertIn(engine, text)
                want_names, want = self.as_written(sql)
                self.assertEqual(names, want_names)
                self.assertEqual(len(rows) > 0, len(want) > 0)
                self.assert_same_rows(sql, rows, want)

    def test_pushed_queries_answer_as_written(self):
        self.check_pushed(PUSHED, "rocpd_op_groups")
        # the cases are not vacuous: most have rows
        self.assertGreater(sum(1 for q in PUSHED if self.as_written(q)[1]), len(PUSHED) - 4)

    def test_group_concat_distinct_has_the_elements_as_written(self):
        # Without ORDER BY in the aggregate, SQL leaves the order of group_concat's elements open.
        sql = "SELECT name, group_concat(DISTINCT db), group_concat(DISTINCT gpu) FROM rocpd_ops GROUP BY name"
        verdict = self.con.execute("SELECT rocpd_sql_pushdown(?)", (sql,)).fetchone()[0]
        self.assertEqual(verdict, "pushed: rocpd_op_groups('db,gpu,name') regrouped by name")
        _, names, rows = self.through_rewrite(sql)
        want_names, want = self.as_written(sql)
        self.assertEqual(names, want_names)

        def elements(rows):
            return sorted((r[0], *(None if v is None else sorted(v.split(",")) for v in r[1:])) for r in rows)
        self.assertEqual(elements(rows), elements(want))
        self.assertTrue(any(len(r[1].split(",")) > 2 for r in want))  # not vacuous

    def test_pushed_api_queries_answer_as_written(self):
        self.check_pushed(PUSHED_APIS, "rocpd_api_groups")
        self.assertEqual(sum(1 for q in PUSHED_APIS if self.as_written(q)[1]), len(PUSHED_APIS) - 1)
        verdict = self.con.execute("SELECT rocpd_sql_pushdown(?)", (PUSHED_APIS[2],)).fetchone()[0]
        self.assertEqual(verdict, "pushed: rocpd_api_groups('domain,name')")
        verdict = self.con.execute("SELECT rocpd_sql_pushdown(?)", (PUSHED_APIS[-1],)).fetchone()[0]
        self.assertEqual(verdict, "pushed: rocpd_api_groups('tid,domain,name') regrouped by name")

    def test_percentiles_read_the_sorted_durations(self):
        # One level: percentile(duration, p) is read from the engine's sorted durations
        # (duration_values) at two ranks, never through their JSON; the answer is the query's as
        # written, and a group without durations gives NULL as percentile() does.
        sql = ("SELECT name, percentile(duration, 0), percentile(duration, 37.5), percentile(duration, 90), "
               "percentile(duration, 100) FROM rocpd_ops GROUP BY name")
        rewritten = self.con.execute("SELECT rocpd_sql_rewrite(?)", (sql,)).fetchone()[0]
        self.assertIn("rocpd_values_percentile(duration_values, 37.5)", rewritten)
        _, names, rows = self.through_rewrite(sql)
        want_names, want = self.as_written(sql)
        self.assertEqual(names, want_names)
        self.assertEqual(sorted(rows, key=repr), sorted(want, key=repr))
        self.assertTrue(any(isinstance(r[2], float) for r in want))  # interpolated values are compared too
        # The engine's durations column is the group's durations, ascending (an independent count).
        blobs = dict(self.con.execute("SELECT name, duration_values FROM rocpd_op_groups('name')"))
        for name, blob in list(blobs.items())[:20]:
            values = [int.from_bytes(blob[i:i + 8], "little", signed=True) for i in range(0, len(blob), 8)]
            raw = sorted(d for (d,) in self.con.execute(
                "SELECT duration FROM rocpd_ops WHERE name IS ? AND duration IS NOT NULL", (name,)))
            self.assertEqual(values, raw, name)

    def test_values_percentile_function(self):
        def blob(values):
            return b"".join(int(v).to_bytes(8, "little", signed=True) for v in values)

        def reference(values, p):  # numpy's "linear" on the sorted values
            h = (len(values) - 1) * p / 100
            k = int(h)
            return values[k] if k + 1 >= len(values) else values[k] + (h - k) * (values[k + 1] - values[k])
        f = lambda b, p: self.con.execute("SELECT rocpd_values_percentile(?, ?)", (b, p)).fetchone()[0]
        values = [-7, 3, 3, 10, 2 ** 40, 2 ** 62]
        for p in (0, 12.5, 50, 90, 99.9, 100):
            self.assertAlmostEqual(f(blob(values), p), reference(values, p), delta=abs(reference(values, p)) * 1e-15)
        self.assertEqual(f(blob([5, 7]), 50), 6)
        self.assertIsInstance(f(blob([5, 7]), 50), int)
        self.assertIsNone(f(b"", 50))
        self.assertIsNone(f(None, 50))
        for bad, message in ((blob([3, 1]), "ascending order; value 2 (1) is below value 1 (3)"),
                             (b"1234567", "7 bytes is not a multiple of 8"),
                             ("[1,2]", "values must be a BLOB of 64-bit integers (the duration_values column")):
            with self.assertRaises(sqlite3.Error) as e:
                f(bad, 50)
            self.assertIn(message, str(e.exception))
        for p in (-1, 100.5, "x", None):
            with self.assertRaises(sqlite3.Error) as e:
                f(blob([1]), p)
            self.assertIn("rocpd_values_percentile(): p must be a number between 0 and 100", str(e.exception))

    def test_group_concat_of_durations_ascending(self):
        # The group's durations, ascending (SQL leaves group_concat's order open): the same text every run.
        sql = "SELECT kind, gpu, group_concat(duration, ';') AS d FROM rocpd_ops GROUP BY kind, gpu"
        verdict = self.con.execute("SELECT rocpd_sql_pushdown(?)", (sql,)).fetchone()[0]
        self.assertEqual(verdict, "pushed: rocpd_op_groups('gpu,kind')")
        _, names, rows = self.through_rewrite(sql)
        want_names, want = self.as_written(sql)
        self.assertEqual(names, want_names)
        ascending = sorted((k, g, ";".join(str(v) for v in sorted(int(x) for x in d.split(";")))) for k, g, d in want)
        self.assertEqual(sorted(rows), ascending)
        self.assertEqual(self.through_rewrite(sql)[2], rows)

    def test_where_names_resolve_as_written(self):
        # A name in WHERE that is no column of the table is, as written, a result alias or (double
        # quoted) a string; in the groups' subquery the same name would be a column of
        # rocpd_op_groups / rocpd_api_groups (instances, total_ns, med_ns, of_kind, timed, ...).
        queries = [
            "SELECT name, 1 AS instances FROM rocpd_ops WHERE instances = 1 GROUP BY name",
            "SELECT name, count(*) FROM rocpd_ops WHERE \"instances\" = 'instances' GROUP BY name",
            "SELECT name, count(*) FROM rocpd_ops WHERE \"med_ns\" IS 'med_ns' GROUP BY name",
            "SELECT name, 1000 AS total_ns FROM rocpd_ops WHERE total_ns > 5000000 GROUP BY name",
            "SELECT name, 1000 AS total_ns FROM rocpd_ops WHERE total_ns < 5000000 GROUP BY name",
            "SELECT name, 'x' AS of_kind, count(*) FROM rocpd_ops WHERE of_kind = 'x' GROUP BY name",
            "SELECT name, 0 AS durations FROM rocpd_ops WHERE durations IS 0 AND kind = 'kernel' GROUP BY name",
            "SELECT gpu, 5 AS min_ns, count(*) FROM rocpd_ops WHERE min_ns = 5 GROUP BY gpu",
            "SELECT kind, count(*) FROM rocpd_ops WHERE \"group_by\" = 'group_by' GROUP BY kind",
            "SELECT name, median(duration), 2 AS timed FROM rocpd_ops WHERE timed = 2 GROUP BY name",
            "SELECT name, count(*) FROM rocpd_ops WHERE gpu = 0 AND \"stddev_ns\" = 'stddev_ns' GROUP BY name",
            "SELECT name, 1 AS timed FROM rocpd_apis WHERE timed = 1 GROUP BY name",
            "SELECT name, count(*), 'y' AS first_start FROM rocpd_apis WHERE first_start = 'y' GROUP BY name",
            "SELECT domain, count(*) FROM rocpd_apis WHERE \"avg_ns\" = 'avg_ns' GROUP BY domain",
            # An alias of a double-quoted string named like itself: the string, as written.
            "SELECT name, \"timed\" AS timed, count(*) FROM rocpd_ops WHERE timed = 'timed' GROUP BY name",
            "SELECT name, count(*), length(name) AS n FROM rocpd_ops GROUP BY name HAVING n > 30 AND count(*) > 1",
        ]
        for sql in queries:
            with self.subTest(sql=sql):
                text, names, rows = self.through_rewrite(sql)
                want_names, want = self.as_written(sql)
                self.assertEqual(names, want_names)
                self.assert_same_rows(sql, rows, want)
        self.assertGreater(sum(1 for q in queries if self.as_written(q)[1]), len(queries) - 2)  # not vacuous
        # The names the query's table has resolve alike in both: still pushed.
        sql = "SELECT name, 1 AS gpu, count(*) FROM rocpd_ops WHERE \"gpu\" = 0 AND name = 'x' COLLATE NOCASE " \
              "AND CAST(gpu AS TEXT) = '0' GROUP BY name"
        verdict = self.con.execute("SELECT rocpd_sql_pushdown(?)", (sql,)).fetchone()[0]
        self.assertEqual(verdict, "pushed: rocpd_op_groups('gpu,name') WHERE of_gpu = 0 regrouped by name")
        verdict = self.con.execute("SELECT rocpd_sql_pushdown(?)", (queries[1],)).fetchone()[0]
        self.assertIn('not pushed: WHERE: "instances" is not a column of rocpd_ops', verdict)
        # An alias stands for its expression, as SQLite resolves it.
        verdict = self.con.execute("SELECT rocpd_sql_pushdown(?)", (queries[0],)).fetchone()[0]
        self.assertEqual(verdict, "pushed: rocpd_op_groups('name')")

    def test_engine_call_names_grouping_and_kind(self):
        verdict = self.con.execute("SELECT rocpd_sql_pushdown(?)", (PUSHED[0],)).fetchone()[0]
        self.assertEqual(verdict, "pushed: rocpd_op_groups('name', 'kernel')")
        verdict = self.con.execute("SELECT rocpd_sql_pushdown(?)", (PUSHED[6],)).fetchone()[0]
        self.assertEqual(verdict, "pushed: rocpd_op_groups('db,name', 'copy')")

    def test_spans_and_gpu_filter_verdicts(self):
        # issue 47: the span of each GPU's work one level; `gpu = 0` an argument of the engine's read
        # (its members read that gpu only), not a regrouping of every gpu's groups.
        for sql, want in [
                ('SELECT db, gpu, kind, count(*), sum(duration), min(start), max("end") FROM rocpd_ops '
                 'GROUP BY db, gpu, kind', "pushed: rocpd_op_groups('db,gpu,kind')"),
                ("SELECT name, count(*), median(duration) FROM rocpd_ops WHERE gpu = 0 AND kind = 'kernel' "
                 "GROUP BY name", "pushed: rocpd_op_groups('name', 'kernel') WHERE of_gpu = 0"),
                ("SELECT name, count(*) FROM rocpd_ops WHERE 1 == gpu GROUP BY name",
                 "pushed: rocpd_op_groups('name') WHERE of_gpu = 1"),
                ("SELECT name, count(*) FROM rocpd_ops WHERE gpu = 0.0 GROUP BY name",
                 "pushed: rocpd_op_groups('gpu,name') regrouped by name")]:
            with self.subTest(sql=sql):
                self.assertEqual(self.con.execute("SELECT rocpd_sql_pushdown(?)", (sql,)).fetchone()[0], want)
                _, names, rows = self.through_rewrite(sql)
                want_names, want_rows = self.as_written(sql)
                self.assertEqual(names, want_names)
                self.assertEqual(sorted(map(repr, rows)), sorted(map(repr, want_rows)))
                self.assertTrue(want_rows)

    def test_of_gpu_argument(self):
        # rocpd_op_groups' of_gpu against SQL over rocpd_ops; NULL matches no row, text is an error.
        got = self.con.execute("SELECT kind, instances, n_end, max_end FROM rocpd_op_groups('kind', NULL) "
                               "WHERE of_gpu = 1").fetchall()
        self.assertEqual(got, [])
        got = self.con.execute("SELECT kind, instances, n_end, max_end, of_gpu FROM rocpd_op_groups('kind') "
                               "WHERE of_gpu = 1").fetchall()
        want = self.con.execute('SELECT kind, count(*), count("end"), max("end"), 1 FROM rocpd_ops WHERE gpu = 1 '
                                "GROUP BY kind").fetchall()
        self.assertEqual(got, want)
        self.assertTrue(want)
        self.assertEqual(self.con.execute("SELECT count(*) FROM rocpd_op_groups('kind') WHERE of_gpu = NULL")
                         .fetchone()[0], 0)
        with self.assertRaisesRegex(sqlite3.OperationalError, "of_gpu must be an integer"):
            self.con.execute("SELECT * FROM rocpd_op_groups('kind') WHERE of_gpu = 'x'").fetchall()

    def test_other_queries_run_unchanged(self):
        for sql, reason in NOT_PUSHED + NOT_PUSHED_APIS:
            with self.subTest(sql=sql):
                verdict = self.con.execute("SELECT rocpd_sql_pushdown(?)", (sql,)).fetchone()[0]
                self.assertTrue(verdict.startswith("not pushed: "), verdict)
                self.assertIn(reason, verdict)
                self.assertEqual(self.con.execute("SELECT rocpd_sql_rewrite(?)", (sql,)).fetchone()[0], sql)

    def test_switched_off(self):
        os.environ["ROCPD_PUSHDOWN"] = "0"
        try:
            self.assertEqual(self.con.execute("SELECT rocpd_sql_rewrite(?)", (PUSHED[0],)).fetchone()[0], PUSHED[0])
            self.assertEqual(self.con.execute("SELECT rocpd_sql_pushdown(?)", (PUSHED[0],)).fetchone()[0],
                             "not pushed: ROCPD_PUSHDOWN=0")
        finally:
            del os.environ["ROCPD_PUSHDOWN"]

    def test_argument_errors(self):
        for fn in ("rocpd_sql_rewrite", "rocpd_sql_pushdown"):
            with self.assertRaisesRegex(sqlite3.OperationalError, fn + r"\(sql\): sql must be the text of a query"):
                self.con.execute(f"SELECT {fn}(NULL)").fetchall()
            with self.assertRaisesRegex(sqlite3.OperationalError, "wrong number of arguments"):
                self.con.execute(f"SELECT {fn}()").fetchall()

    def test_direct_only(self):
        # It prepares the SQL it is given: not from a view (or trigger) an untrusted database holds.
        con = connect()
        con.execute("CREATE VIEW v AS SELECT rocpd_sql_rewrite('SELECT 1') AS x")
        with self.assertRaisesRegex(sqlite3.OperationalError, "unsafe use of rocpd_sql_rewrite"):
            con.execute("SELECT * FROM v").fetchall()

    def test_no_members_open(self):
        con = connect()
        text = con.execute("SELECT rocpd_sql_rewrite(?)", (PUSHED[0],)).fetchone()[0]
        self.assertIn("rocpd_op_groups", text)
        self.assertEqual(con.execute(text).fetchall(), con.execute(PUSHED[0]).fetchall())
        self.assertEqual(con.execute(text).fetchall(), [])


def overflowing_member(directory):
    """A copy of mixed8's rank1 (rpd v3) in which every op of two kernel names lasts a multiple of
    5e17 ns: each duration fits an integer, the sum of either group does not (sum() fails), and every
    partial sum in any order is a double exactly (so avg() and total() have one answer)."""
    path = os.path.join(directory, "rank1.rpd")
    shutil.copy(os.path.join(SETS, "mixed8", "rank1.rpd"), path)
    con = sqlite3.connect(path)
    names = con.execute("SELECT s.string, o.description_id FROM rocpd_op o JOIN rocpd_string s ON s.id = o.description_id "
                        "GROUP BY o.description_id HAVING count(*) BETWEEN 3 AND 6 ORDER BY count(*), s.string "
                        "LIMIT 2").fetchall()
    assert len(names) == 2, names
    for (_, desc), steps in zip(names, ([8], [8, 6, 5, 4, 3, 2])):
        ids = [r[0] for r in con.execute("SELECT id FROM rocpd_op WHERE description_id = ? ORDER BY id", (desc,))]
        for i, op in enumerate(ids):
            con.execute('UPDATE rocpd_op SET "end" = start + ? WHERE id = ?', (steps[i % len(steps)] * 500_000_000_000_000_000, op))
    con.commit()
    con.close()
    return [n for n, _ in names]


class OverflowingGroups(AsWritten, unittest.TestCase):
    """Groups whose sum(duration) overflows: sum() fails, as written, and only sum(); avg() and
    total() are doubles; min, max, median, stddev, count answer. Both ways the same."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="rocpd_overflow_")
        cls.big = overflowing_member(cls.tmp.name)
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (cls.tmp.name,)).fetchall()
        cls.con.execute("ATTACH ? AS r4", ("file:%s?mode=ro" % os.path.join(SETS, "mixed8", "rank4.rpd"),))
        cls.con.execute("CREATE TEMP TABLE native_ops AS SELECT * FROM rocpd_ops")
        cls.con.execute("CREATE TEMP TABLE native_apis AS SELECT * FROM rocpd_apis")

    @classmethod
    def tearDownClass(cls):
        cls.con.close()
        cls.tmp.cleanup()

    def both(self, sql):
        """(rewrite's names, rows) and (as written), each an exception's text when it fails."""
        try:
            got = self.through_rewrite(sql)[1:]
        except sqlite3.Error as e:
            got = "error: " + str(e)
        try:
            want = self.as_written(sql)
        except sqlite3.Error as e:
            want = "error: " + str(e)
        return got, want

    def test_the_fixture_overflows(self):
        totals = dict(self.con.execute("SELECT name, total(duration) FROM native_ops GROUP BY name"))
        for name in self.big:
            self.assertGreater(totals[name], 2.0 ** 63)
            with self.assertRaisesRegex(sqlite3.OperationalError, "integer overflow"):
                self.con.execute("SELECT sum(duration) FROM native_ops WHERE name = ?", (name,)).fetchall()

    def test_other_aggregates_answer(self):
        big = "'%s'" % self.big[0].replace("'", "''")
        queries = [
            "SELECT name, count(*), min(duration), max(duration), avg(duration), median(duration), total(duration), "
            "count(duration) FROM rocpd_ops GROUP BY name",
            "SELECT name, stddev(duration) FROM rocpd_ops GROUP BY name",
            "SELECT db, kind, avg(duration), total(duration), max(duration) FROM rocpd_ops GROUP BY db, kind",
            "SELECT name, avg(duration), total(duration), min(duration) FROM rocpd_ops WHERE gpu >= 0 GROUP BY name",
            "SELECT kind, avg(duration), total(duration), median(duration), count(DISTINCT gpu) FROM rocpd_ops GROUP BY kind",
            "SELECT name, percentile(duration, 90), avg(DISTINCT duration) FROM rocpd_ops GROUP BY name",
            f"SELECT name, sum(duration) FROM rocpd_ops WHERE name <> {big} AND name <> '{self.big[1]}' GROUP BY name",
        ]
        for sql in queries:
            with self.subTest(sql=sql):
                verdict = self.con.execute("SELECT rocpd_sql_pushdown(?)", (sql,)).fetchone()[0]
                self.assertTrue(verdict.startswith("pushed: "), verdict)
                got, want = self.both(sql)
                self.assertIsInstance(want, tuple, want)
                self.assertIsInstance(got, tuple, got)
                self.assertEqual(got[0], want[0])
                self.assert_same_rows(sql, got[1], want[1])

    def test_errors_as_written(self):
        # sum() fails for the group that overflows. As written SQLite computes the aggregates of every
        # group WHERE keeps; a HAVING term without an aggregate it moves to WHERE (unless it is a
        # literal false): the groups it drops are never computed. (query, whether it fails as written)
        big0 = "'%s'" % self.big[0].replace("'", "''")
        big1 = "'%s'" % self.big[1].replace("'", "''")
        queries = [
            ("SELECT name, sum(duration) FROM rocpd_ops GROUP BY name", True),
            ("SELECT kind, sum(duration) FROM rocpd_ops GROUP BY kind", True),
            ("SELECT name, sum(duration), count(DISTINCT gpu) FROM rocpd_ops GROUP BY name", True),
            ("SELECT name, avg(duration) FROM rocpd_ops GROUP BY name HAVING sum(duration) > 0", True),
            (f"SELECT name, count(*) FROM rocpd_ops GROUP BY name HAVING name <> {big0} AND sum(duration) >= 0", True),
            (f"SELECT name, sum(duration) FROM rocpd_ops GROUP BY name HAVING name NOT IN ({big0}, {big1})", False),
            (f"SELECT name, sum(duration) FROM rocpd_ops GROUP BY name HAVING (count(*) > 0 AND (name <> {big0} AND "
             f"{big1} <> name))", False),
            (f"SELECT name, sum(DISTINCT duration) FROM rocpd_ops GROUP BY name HAVING name <> {big1}", False),
            (f"SELECT name, sum(DISTINCT duration) FROM rocpd_ops GROUP BY name HAVING name <> {big0}", True),
            ("SELECT name, percentile(duration, 50), sum(DISTINCT duration) FROM rocpd_ops GROUP BY name HAVING 0", True),
            ("SELECT name, percentile(duration, 50), sum(DISTINCT duration) FROM rocpd_ops GROUP BY name "
             "HAVING count(*) < 0", True),
            ("SELECT name, sum(DISTINCT duration) FROM rocpd_ops GROUP BY name HAVING count(*) > 1 AND 0", True),
            ("SELECT name, sum(DISTINCT duration) FROM rocpd_ops GROUP BY name HAVING 0 = 1", False),
            ("SELECT name, sum(duration) AS s FROM rocpd_ops GROUP BY name HAVING s IS NULL", True),
            (f"SELECT name, sum(duration), gpu + 0 AS g FROM rocpd_ops WHERE name <> {big0} GROUP BY gpu, name "
             f"HAVING name <> {big1}", False),
            (f"SELECT gpu, sum(duration) FROM rocpd_ops WHERE name NOT IN ({big0}, {big1}) GROUP BY gpu", False),
        ]
        for sql, fails in queries:
            with self.subTest(sql=sql):
                verdict = self.con.execute("SELECT rocpd_sql_pushdown(?)", (sql,)).fetchone()[0]
                self.assertTrue(verdict.startswith("pushed: "), verdict)
                got, want = self.both(sql)
                if fails:
                    self.assertEqual(want, "error: integer overflow")
                    self.assertIsInstance(got, str, got)
                    self.assertIn("integer overflow", got)
                else:
                    self.assertIsInstance(want, tuple, want)
                    self.assertIsInstance(got, tuple, got)
                    self.assertEqual(got[0], want[0])
                    self.assert_same_rows(sql, got[1], want[1])

if __name__ == "__main__":
    main()
