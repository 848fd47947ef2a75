"""rocpd_sql (docs/pushdown.md): CREATE VIRTUAL TABLE temp.k USING rocpd_sql('SELECT ...').

- Its rows equal the same SQL run directly (the plain path, which nothing rewrites), for queries the
  rewrite pushes down and for queries it leaves alone, also when the table was created before
  rocpd_open; constraints, joins and rowids behave as on a plain table.
- Its columns are named and typed as SQLite names and types a view's (PRAGMA table_info of a TEMP
  VIEW with the same SQL), declared types with quotes and parentheses included.
- Every bad argument, a schema other than temp, a table reading itself, an error of the statement
  and an interrupt end with a clear error, never a crash.
"""
import math
import os
import sqlite3
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import SETS, connect, main  # noqa: E402

MIXED8 = os.path.join(SETS, "mixed8")
TIMING_SCALE = float(os.environ.get("ROCPD_TIMING_SCALE", "1"))
USAGE = "CREATE VIRTUAL TABLE temp.<name> USING rocpd_sql('SELECT ...')"

# Queries over the federation: the first ones have the shapes the rewrite pushes down (GROUP BY of
# db, gpu, kind, name with count/sum/min/max/avg/total of the duration), the others not.
QUERIES = [
    "SELECT name, count(*), sum(duration), min(duration), max(duration) FROM rocpd_ops WHERE kind = 'kernel' "
    "GROUP BY name",
    "SELECT db, gpu, kind, count(*) AS n, total(duration) AS t, avg(duration) FROM rocpd_ops GROUP BY db, gpu, kind",
    "SELECT kind, count(*), count(*) FROM rocpd_ops GROUP BY kind",
    "SELECT name, count(DISTINCT db), min(gpu) FROM rocpd_ops WHERE kind = 'copy' GROUP BY name",
    "SELECT name, group_concat(db) FROM rocpd_ops WHERE kind = 'copy' GROUP BY name",
    "SELECT db, name, duration FROM rocpd_ops WHERE duration > 20000 ORDER BY duration DESC, db, name LIMIT 50",
    "SELECT m.db, count(o.name) FROM rocpd_members m LEFT JOIN rocpd_ops o ON o.db = m.db AND o.kind = 'kernel' "
    "GROUP BY m.db",
]


def literal(sql):
    return "'" + sql.replace("'", "''") + "'"


def create(con, name, sql):
    con.execute("CREATE VIRTUAL TABLE temp.%s USING rocpd_sql(%s)" % (name, literal(sql)))


def scan(con, sql):
    """The rows of `sql`, and whether it scanned rocpd_ops (rocpd_last_scan() changed after a marker
    scan); the rewrite reads rocpd_op_groups instead."""
    marker = "SELECT count(*) FROM rocpd_ops WHERE db = 'rank3' AND gpu IS NOT NULL"
    con.execute(marker).fetchall()
    before = con.execute("SELECT rocpd_last_scan()").fetchone()[0]
    rows = con.execute(sql).fetchall()
    return rows, con.execute("SELECT rocpd_last_scan()").fetchone()[0] != before


def pushed(con, sql):
    return con.execute("SELECT rocpd_sql_pushdown(?)", (sql,)).fetchone()[0].startswith("pushed: ")


def same_value(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return type(a) is type(b) and a == b


def canonical(rows):
    return sorted(rows, key=lambda r: [(type(v).__name__, v if v is not None else 0) for v in r])


class RowsTest(unittest.TestCase):
    def assertSameRows(self, got, want, ordered, what):
        if not ordered:
            got, want = canonical(got), canonical(want)
        self.assertEqual(len(got), len(want), what)
        for g, w in zip(got, want):
            self.assertTrue(len(g) == len(w) and all(same_value(x, y) for x, y in zip(g, w)),
                            "%s: %r != %r" % (what, g, w))


class Rows(RowsTest):
    def test_rows_equal_the_sql_run_directly(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (MIXED8,)).fetchall()
        verdicts = [pushed(con, sql) for sql in QUERIES]
        self.assertEqual(verdicts, [True] * 4 + [False] * 3)
        for i, sql in enumerate(QUERIES):
            create(con, "q%d" % i, sql)
            want = con.execute(sql).fetchall()
            self.assertGreater(len(want), 0, sql)
            got, scanned_ops = scan(con, "SELECT * FROM q%d" % i)
            self.assertSameRows(got, want, "ORDER BY" in sql, sql)
            self.assertEqual(scanned_ops, not verdicts[i], sql)
            # Rowids 1..n, the same row's the same in every scan, also for a scan inside another's rows.
            with_rowids = con.execute("SELECT rowid, * FROM q%d" % i).fetchall()
            self.assertEqual(sorted(r[0] for r in with_rowids), list(range(1, len(want) + 1)), sql)
            self.assertEqual(con.execute("SELECT rowid, * FROM q%d" % i).fetchall(), with_rowids, sql)
            n = con.execute("SELECT count(*) FROM q%d a, q%d b WHERE a.rowid <= 2 AND a.rowid = b.rowid" % (i, i))
            self.assertEqual(n.fetchone()[0], min(2, len(want)), sql)

    def test_created_before_rocpd_open(self):
        con = connect()
        sql = QUERIES[0]
        create(con, "early", sql)
        self.assertEqual(con.execute("SELECT * FROM early").fetchall(), [])
        con.execute("SELECT rocpd_open(?)", (MIXED8,)).fetchall()
        got, scanned_ops = scan(con, "SELECT * FROM early")
        self.assertSameRows(got, con.execute(sql).fetchall(), False, sql)
        self.assertFalse(scanned_ops)

    def test_pushdown_switched_off(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (MIXED8,)).fetchall()
        sql = QUERIES[1]
        create(con, "g", sql)
        pushed_rows, scanned_ops = scan(con, "SELECT * FROM g")
        self.assertFalse(scanned_ops)
        os.environ["ROCPD_PUSHDOWN"] = "0"  # read by the rewrite at every scan
        try:
            plain_rows, scanned_ops = scan(con, "SELECT * FROM g")
        finally:
            del os.environ["ROCPD_PUSHDOWN"]
        self.assertTrue(scanned_ops)
        self.assertSameRows(pushed_rows, plain_rows, False, sql)

    def test_constraints_and_joins_as_on_a_plain_table(self):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (MIXED8,)).fetchall()
        sql = QUERIES[1]
        create(con, "g", sql)
        con.execute("CREATE TEMP TABLE plain AS " + sql)
        for where in ("kind = 'kernel'", "n > 100", "gpu IS NULL OR db = 'rank3'", "t BETWEEN 1e6 AND 1e8",
                      "db IN (SELECT db FROM rocpd_members WHERE db > 'rank4')", "kind = 'KERNEL' COLLATE NOCASE",
                      "n = '5'"):
            self.assertSameRows(con.execute("SELECT * FROM g WHERE " + where).fetchall(),
                                con.execute("SELECT * FROM plain WHERE " + where).fetchall(), False, where)
        join = "SELECT m.db, x.kind, x.n FROM rocpd_members m LEFT JOIN %s x ON x.db = m.db AND x.kind = 'kernel'"
        self.assertSameRows(con.execute(join % "g").fetchall(), con.execute(join % "plain").fetchall(), False, join)
        self.assertSameRows(con.execute("SELECT * FROM g ORDER BY t DESC, db, gpu, kind").fetchall(),
                            con.execute("SELECT * FROM plain ORDER BY t DESC, db, gpu, kind").fetchall(), True,
                            "ORDER BY")

    def test_values_pass_through_unchanged(self):
        con = connect()
        create(con, "v", "SELECT 1 AS i, 2.5 AS r, 'x' AS t, x'00ff' AS b, NULL AS n, 9223372036854775807 AS big")
        self.assertEqual(con.execute("SELECT typeof(i), typeof(r), typeof(t), typeof(b), typeof(n), * FROM v")
                         .fetchall(), [("integer", "real", "text", "blob", "null", 1, 2.5, "x", b"\x00\xff", None,
                                        9223372036854775807)])


class Columns(unittest.TestCase):
    def test_names_and_types_as_a_view(self):
        con = connect()
        con.execute('CREATE TABLE t(a INTEGER, "b""q" "VARCHAR(3)", c "INT), x (", d)')
        con.execute("INSERT INTO t VALUES (1, '5', 2, x'01'), (2, '6', 3, NULL)")
        for sql in ('SELECT a, count(*), count(*), Count(*), a AS "count(*):1", count(*) FROM t GROUP BY a',
                    'SELECT * FROM t', 'SELECT "b""q", c, d, a AS "it\'s", a + 1, a AS "" FROM t',
                    "SELECT t.a, u.a, u.a AS A FROM t, t AS u"):
            con.execute("DROP TABLE IF EXISTS temp.k")
            con.execute("DROP VIEW IF EXISTS temp.v")
            create(con, "k", sql)
            con.execute("CREATE TEMP VIEW v AS " + sql)
            want = [r[1:3] for r in con.execute("PRAGMA temp.table_info(v)")]
            got = [r[1:3] for r in con.execute("PRAGMA temp.table_info(k)")]
            # A table column declared without a type: our type is its declared type (none); SQLite
            # 3.52 shows a view's such column as BLOB (3.40: none), the same affinity.
            self.assertEqual([n for n, _ in got], [n for n, _ in want], sql)
            for (name, ours), (_, view) in zip(got, want):
                self.assertIn(ours, (view, "") if view == "BLOB" else (view,), (sql, name))
            # The declared types give the view's affinities: comparisons agree.
            for col in range(len(want)):
                q = 'SELECT count(*) FROM %s WHERE "%s" = \'5\'' % ("%s", want[col][0].replace('"', '""'))
                self.assertEqual(con.execute(q % "k").fetchone(), con.execute(q % "v").fetchone(), (sql, col))


class Errors(unittest.TestCase):
    def assertError(self, con, sql, *parts):
        with self.assertRaises(sqlite3.Error) as cm:
            con.execute(sql).fetchall()
        for part in parts:
            self.assertIn(part, str(cm.exception), sql)
        return str(cm.exception)

    def test_bad_arguments(self):
        con = connect()
        con.execute("CREATE TABLE t(x)")
        schema = "SELECT type, name FROM sqlite_master UNION ALL SELECT type, name FROM sqlite_temp_master"
        before = con.execute(schema).fetchall()
        cases = [
            ("rocpd_sql", "takes exactly one argument, got 0", USAGE),
            ("rocpd_sql('SELECT 1', 'SELECT 2')", "takes exactly one argument, got 2", USAGE),
            ("rocpd_sql(SELECT 1)", "one SQL string literal in single quotes", USAGE),
            ("rocpd_sql(\"SELECT 1\")", "one SQL string literal in single quotes", USAGE),
            ("rocpd_sql('SELECT 1' || 'x')", "one SQL string literal in single quotes", USAGE),
            ("rocpd_sql('')", "holds no SQL statement", USAGE),
            ("rocpd_sql('  -- only a comment')", "holds no SQL statement", USAGE),
            ("rocpd_sql('SELECT 1; SELECT 2')", "more than one SQL statement", "SELECT 1;"),
            ("rocpd_sql('SELECT 1; DROP TABLE t')", "more than one SQL statement"),
            ("rocpd_sql('SELECT 1;; ; DROP TABLE t')", "more than one SQL statement"),
            ("rocpd_sql('SELECT * FROM nope')", "rocpd_sql: no such table: nope"),
            ("rocpd_sql('SELEC 1')", "rocpd_sql: near \"SELEC\": syntax error"),
            ("rocpd_sql('DELETE FROM t')", "changes the database", "DELETE FROM t"),
            ("rocpd_sql('CREATE TABLE u(x)')", "changes the database"),
            ("rocpd_sql('PRAGMA user_version = 3')", "changes the database"),
            ("rocpd_sql('SELECT ?1')", "has parameters", "SELECT ?1"),
        ]
        for arg, *parts in cases:
            msg = self.assertError(con, "CREATE VIRTUAL TABLE temp.k USING " + arg, *parts)
            self.assertTrue(msg.startswith("rocpd_sql: "), msg)
        # Nothing was created or changed; comments and blanks after the statement are fine.
        self.assertEqual(con.execute(schema).fetchall(), before)
        create(con, "k", "SELECT 'a''b' AS x -- a comment\n /* another */ ; ;  ")
        self.assertEqual(con.execute("SELECT x FROM k").fetchall(), [("a'b",)])

    def test_temp_schema_only(self):
        con = connect()
        con.execute("ATTACH ':memory:' AS aux")
        for schema in ("main", "aux"):
            self.assertError(con, "CREATE VIRTUAL TABLE %s.k USING rocpd_sql('SELECT 1')" % schema,
                             "rocpd_sql: %s.k: a rocpd_sql table lives in the temp schema only" % schema, USAGE)
        # An unqualified name goes to main: refused the same way. No table named rocpd_sql exists.
        self.assertError(con, "CREATE VIRTUAL TABLE k USING rocpd_sql('SELECT 1')", "temp schema only")
        self.assertError(con, "SELECT * FROM rocpd_sql", "no such table: rocpd_sql")
        con.execute("CREATE VIRTUAL TABLE temp.k USING rocpd_sql('SELECT 1')")
        self.assertEqual(con.execute("SELECT * FROM k").fetchall(), [(1,)])
        con.execute("DROP TABLE k")
        self.assertError(con, "SELECT * FROM k", "no such table: k")

    def test_a_table_reading_itself(self):
        con = connect()
        con.execute("CREATE TABLE c2(x)")
        create(con, "c1", "SELECT * FROM c2")
        con.execute("DROP TABLE c2")
        create(con, "c2", "SELECT * FROM c1")
        self.assertError(con, "SELECT * FROM c1", "rocpd_sql: temp.c1 reads itself",
                         "temp.c1 -> temp.c2 -> temp.c1")
        self.assertError(con, "SELECT count(*) FROM c2 WHERE x > 0", "rocpd_sql: temp.c2 reads itself")
        # Through a TEMP view; itself directly is refused by SQLite at CREATE.
        con.execute("CREATE TEMP VIEW v AS SELECT 1 AS x")
        create(con, "s", "SELECT * FROM v")
        con.execute("DROP VIEW v")
        con.execute("CREATE TEMP VIEW v AS SELECT * FROM s")
        self.assertError(con, "SELECT * FROM s", "rocpd_sql: temp.s reads itself", "temp.s -> temp.s")
        con.execute("CREATE TABLE r(x)")
        self.assertError(con, "CREATE VIRTUAL TABLE temp.r USING rocpd_sql('SELECT * FROM r')",
                         "rocpd_sql: vtable constructor called recursively: r")
        # A chain without a cycle deeper than the bound.
        create(con, "d0", "SELECT 7 AS x")
        for i in range(1, 40):
            create(con, "d%d" % i, "SELECT x FROM d%d" % (i - 1))
        self.assertEqual(con.execute("SELECT * FROM d20").fetchall(), [(7,)])
        self.assertError(con, "SELECT * FROM d39", "nested deeper than 32")
        # The connection is still usable.
        self.assertEqual(con.execute("SELECT * FROM d3").fetchall(), [(7,)])

    def test_errors_of_the_statement(self):
        con = connect()
        con.execute("CREATE TABLE big(x INTEGER)")
        con.execute("INSERT INTO big VALUES (1), (-9223372036854775808)")
        create(con, "a", "SELECT abs(x) FROM big")
        self.assertError(con, "SELECT * FROM a", "rocpd_sql: temp.a: integer overflow")
        # The tables read changed after CREATE: gone, then back with other columns.
        create(con, "w", "SELECT * FROM big")
        con.execute("DROP TABLE big")
        self.assertError(con, "SELECT * FROM w", "rocpd_sql: temp.w: no such table: big")
        con.execute("CREATE TABLE big(x, y)")
        self.assertError(con, "SELECT * FROM w", "rocpd_sql: temp.w: the statement now returns 2 columns, the table "
                         "has 1", "create the table again")
        # SQLite connects TEMP tables again when ALTER TABLE reloads the schema: a statement that no
        # longer prepares leaves the table as created (its scans fail), the connection usable.
        con.execute("DROP TABLE big")
        con.execute("CREATE TABLE other(x)")
        con.execute("ALTER TABLE other ADD COLUMN y")
        self.assertEqual(con.execute("SELECT * FROM other").fetchall(), [])
        self.assertError(con, "SELECT * FROM w", "rocpd_sql: temp.w: no such table: big")
        con.execute("DROP TABLE w")
        # Renamed first: the same.
        con.execute("CREATE TABLE big(x)")
        create(con, "w", "SELECT * FROM big")
        con.execute("ALTER TABLE temp.w RENAME TO w2")
        con.execute("DROP TABLE big")
        con.execute("ALTER TABLE other ADD COLUMN z")
        self.assertError(con, "SELECT * FROM w2", "rocpd_sql: temp.w2: no such table: big")
        con.execute("DROP TABLE w2")
        # A table whose statement prepares again follows its tables' columns, as a view does.
        con.execute("CREATE TABLE big(x)")
        create(con, "w", "SELECT * FROM big")
        con.execute("ALTER TABLE big ADD COLUMN y")
        self.assertEqual([r[1] for r in con.execute("PRAGMA temp.table_info(w)")], ["x", "y"])

    def test_interrupt_stops_the_statement(self):
        times = []
        for _ in range(3):
            con = connect()
            create(con, "slow", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                                "SELECT count(*) FROM n")
            timer = threading.Timer(0.2, con.interrupt)
            started = time.monotonic()
            timer.start()
            try:
                with self.assertRaises(sqlite3.OperationalError) as cm:
                    con.execute("SELECT * FROM slow").fetchall()
            finally:
                timer.cancel()
            times.append(time.monotonic() - started - 0.2)
            self.assertEqual(str(cm.exception), "interrupted")
            if times[-1] < 0.5 * TIMING_SCALE:
                return
        self.fail("stopped %s s after the interrupt" % times)


if __name__ == "__main__":
    main()
