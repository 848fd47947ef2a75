"""rocpd_query(sql) (docs/pushdown.md): one SELECT, answered through the GROUP BY rewrite, returned
as one text table.

- The table holds exactly the query's rows: a pushed GROUP BY against the generator's planted truth
  (sets/mixed8/truth.json), queries the rewrite leaves alone against the same SQL run as typed on a
  plain copy of the rows in a connection without the extension (and brute force); the header holds
  the column names; the layout (columns, alignment, rule) read back from the rule line.
- Values shown by the documented rules (NULL empty, blobs hex, reals as SQLite prints them, control
  characters escaped, cells over 60 characters cut), an empty result, the row cap.
- Every bad argument or statement, a view without members, a view of a database (direct-only) and an
  interrupt end with a clear error.
"""
import math
import os
import re
import sqlite3
import sys
import threading
import time
import unittest
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import SETS, connect, main, truth  # noqa: E402

MIXED8 = os.path.join(SETS, "mixed8")
TIMING_SCALE = float(os.environ.get("ROCPD_TIMING_SCALE", "1"))
MAX_ROWS = 1000
MAX_WIDTH = 60


def literal(sql):
    return "'" + sql.replace("'", "''") + "'"


def query(con, sql):
    return con.execute("SELECT rocpd_query(?)", (sql,)).fetchone()[0]


def parse(text):
    """(header cells, rows of cells, footer line, right-aligned flags) of a rocpd_query table. The
    columns are where the rule's dashes are; a cell never spills over its column's width."""
    lines = text.split("\n")
    assert len(lines) >= 3, text
    head, rule, body, footer = lines[0], lines[1], lines[2:-1], lines[-1]
    assert re.fullmatch(r"-+(  -+)*", rule), rule
    spans = [m.span() for m in re.finditer(r"-+", rule)]

    def cells(line):
        out = []
        for i, (a, b) in enumerate(spans):
            out.append(line[a:] if i + 1 == len(spans) else line[a:b])
            if i + 1 < len(spans):
                assert line[b:b + 2] == "  ", (line, spans)
        return out

    raw = [cells(line) for line in body]
    right = [bool(raw) and all(not r[i].strip() or r[i][-1] != " " for r in raw) and
             any(r[i].strip() and r[i][0] == " " for r in raw) for i in range(len(spans))]
    return [c.strip() for c in cells(head)], [[c.strip() for c in r] for r in raw], footer, right


def shown(v):
    """A value as the documented rules show it (reals are compared as numbers, not text)."""
    if v is None:
        return ""
    if isinstance(v, float):
        return v
    s = v.hex() if isinstance(v, bytes) else str(v)
    s = "".join(" " if c in "\n\r\t" else "\\x%02x" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7F else c for c in s)
    return s if len(s) <= MAX_WIDTH else s[:MAX_WIDTH - 3] + "..."


def same_cell(got, want):
    if isinstance(want, float):
        return math.isclose(float(got), want, rel_tol=1e-12, abs_tol=1e-9)
    return got == want


def plain_copy(con, columns):
    """rocpd_ops's rows (these columns) in a connection that has no extension: the queries as typed
    run there on a plain table."""
    plain = sqlite3.connect(":memory:")
    plain.execute("CREATE TABLE rocpd_ops(%s)" % ", ".join('"%s"' % c for c in columns))
    rows = con.execute("SELECT %s FROM rocpd_ops" % ", ".join('"%s"' % c for c in columns)).fetchall()
    plain.executemany("INSERT INTO rocpd_ops VALUES (%s)" % ", ".join("?" * len(columns)), rows)
    return plain, rows


def pushed(con, sql):
    return con.execute("SELECT rocpd_sql_pushdown(?)", (sql,)).fetchone()[0].startswith("pushed: ")


def scanned_ops(con, sql):
    """rocpd_query's answer to `sql`, and whether it scanned rocpd_ops (rocpd_last_scan() changed
    after a marker scan); a pushed query reads rocpd_op_groups instead."""
    con.execute("SELECT count(*) FROM rocpd_ops WHERE db = 'rank3' AND gpu IS NOT NULL").fetchall()
    before = con.execute("SELECT rocpd_last_scan()").fetchone()[0]
    text = query(con, sql)
    return text, con.execute("SELECT rocpd_last_scan()").fetchone()[0] != before


class Rows(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (MIXED8,)).fetchall()

    def assertTable(self, text, header, want, ordered, key=None):
        got_header, got, footer, _ = parse(text)
        self.assertEqual(got_header, header)
        self.assertEqual(footer, "(%d rows)" % len(want) if len(want) != 1 else "(1 row)")
        want = [[shown(v) for v in r] for r in want]
        if not ordered:
            got, want = sorted(got, key=key), sorted(want, key=key)
        self.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            self.assertTrue(len(g) == len(w) and all(same_cell(x, y) for x, y in zip(g, w)), (g, w))

    def test_pushed_group_by_against_the_planted_truth(self):
        sql = ("SELECT name, count(*) AS calls, sum(duration) AS total_ns, min(duration), max(duration), "
               "avg(duration) AS mean FROM rocpd_ops GROUP BY name")
        self.assertTrue(pushed(self.con, sql))
        text, scanned = scanned_ops(self.con, sql)
        self.assertFalse(scanned, "rocpd_query did not run the rewrite")
        by_name = defaultdict(lambda: [0, 0, None, None])
        for f in truth("mixed8")["files"]:
            for t in f["top"]:
                g = by_name[t["name"]]
                g[0] += t["calls"]
                g[1] += t["total_ns"]
                g[2] = t["min_ns"] if g[2] is None else min(g[2], t["min_ns"])
                g[3] = t["max_ns"] if g[3] is None else max(g[3], t["max_ns"])
        want = [[n, c, s, lo, hi, s / c] for n, (c, s, lo, hi) in by_name.items()]
        self.assertGreater(len(want), 20)
        # A cut name may repeat: rows sorted by every cell shown but the real.
        self.assertTable(text, ["name", "calls", "total_ns", "min(duration)", "max(duration)", "mean"], want, False,
                         key=lambda r: r[:5])
        # Numbers right-aligned, text left.
        self.assertEqual(parse(text)[3], [False, True, True, True, True, True])

    def test_queries_not_pushed_against_a_plain_copy(self):
        plain, rows = plain_copy(self.con, ["db", "gpu", "kind", "name", "duration"])
        cases = [
            ("SELECT db, gpu, count(*) AS n, sum(duration) FROM rocpd_ops WHERE duration > 20000 GROUP BY db, gpu",
             False),
            ("SELECT db, name, duration FROM rocpd_ops WHERE kind = 'copy' ORDER BY duration DESC, db, name LIMIT 40",
             True),
            ("SELECT lower(kind) AS k, count(*) AS n, max(name) FROM rocpd_ops GROUP BY lower(kind)", False),
        ]
        for sql, ordered in cases:
            self.assertFalse(pushed(self.con, sql), sql)
            text, scanned = scanned_ops(self.con, sql)
            self.assertTrue(scanned, sql)
            cur = plain.execute(sql)
            header = [d[0] for d in cur.description]
            want = cur.fetchall()
            self.assertGreater(len(want), 1, sql)
            self.assertTable(text, header, want, ordered, key=lambda r: [str(c) for c in r])
        # The first case by brute force too, from the same rows.
        groups = defaultdict(lambda: [0, 0])
        for db, gpu, _, _, duration in rows:
            if duration > 20000:
                groups[(db, gpu)][0] += 1
                groups[(db, gpu)][1] += duration
        want = [[db, gpu, n, s] for (db, gpu), (n, s) in groups.items()]
        self.assertTable(query(self.con, cases[0][0]), ["db", "gpu", "n", "sum(duration)"], want, False,
                         key=lambda r: [str(c) for c in r])


class Values(unittest.TestCase):
    def test_each_kind_of_value(self):
        con = connect()
        long_text = "k" * 59 + "é" * 5
        text = query(con, "SELECT 1 AS i, 2.5 AS r, -0.1 AS neg, 'x' AS t, x'00ff10' AS b, NULL AS n, "
                          "'a' || char(10) || 'b' || char(9) || 'c' || char(27) || '[31m' AS ctl, "
                          "'%s' AS long, 1e300 * 10 AS big, 9223372036854775807 AS imax" % long_text)
        header, rows, footer, right = parse(text)
        self.assertEqual(header, ["i", "r", "neg", "t", "b", "n", "ctl", "long", "big", "imax"])
        self.assertEqual(footer, "(1 row)")
        self.assertEqual(rows[0][:8], ["1", "2.5", "-0.1", "x", "00ff10", "", "a b c\\x1b[31m",
                                       "k" * 57 + "..."])
        self.assertEqual(float(rows[0][8]), 1e301)
        self.assertEqual(rows[0][9], "9223372036854775807")
        # Widths count characters, not bytes: a 60-character text of 2-byte characters is kept whole.
        self.assertEqual(parse(query(con, "SELECT '%s' AS w" % ("é" * 60)))[1], [["é" * 60]])
        self.assertEqual(parse(query(con, "SELECT '%s' AS w" % ("é" * 61)))[1], [["é" * 57 + "..."]])
        # A column of numbers and NULLs is right-aligned; one holding text is not.
        _, _, _, right = parse(query(con, "SELECT column1 AS a, column2 AS bb FROM (VALUES (1000, 'x'), (NULL, 2), (7, 'y'))"))
        self.assertEqual(right, [True, False])

    def test_empty_result_and_row_cap(self):
        con = connect()
        con.execute("CREATE TABLE t(x)")
        self.assertEqual(query(con, "SELECT x AS value, x + 1 FROM t"), "value  x + 1\n-----  -----\n(0 rows)")
        con.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2500) "
                    "INSERT INTO t SELECT i FROM n")
        for n in (1, 999, 1000):
            header, rows, footer, _ = parse(query(con, "SELECT x FROM t ORDER BY x LIMIT %d" % n))
            self.assertEqual([r[0] for r in rows], [str(i) for i in range(1, n + 1)])
            self.assertEqual(footer, "(1 row)" if n == 1 else "(%d rows)" % n)
        header, rows, footer, _ = parse(query(con, "SELECT x FROM t ORDER BY x DESC"))
        self.assertEqual([r[0] for r in rows], [str(i) for i in range(2500, 2500 - MAX_ROWS, -1)])
        self.assertEqual(footer, "(1000 of 2500 rows shown: rocpd_query shows the first 1000; LIMIT and OFFSET "
                                 "show the others, a rocpd_sql table has them all)")


class Errors(unittest.TestCase):
    def assertError(self, con, sql, *parts, args=()):
        with self.assertRaises(sqlite3.Error) as cm:
            con.execute(sql, args).fetchall()
        for part in parts:
            self.assertIn(part, str(cm.exception), sql)
        return str(cm.exception)

    def test_bad_arguments_and_statements(self):
        con = connect()
        con.execute("CREATE TABLE t(x)")
        con.execute("CREATE TABLE big(x INTEGER)")
        con.execute("INSERT INTO big VALUES (1), (-9223372036854775808)")
        for arg, got in ((None, "NULL"), (3, "an integer"), (2.5, "a real"), (b"SELECT 1", "a blob")):
            self.assertEqual(self.assertError(con, "SELECT rocpd_query(?)", args=(arg,)),
                             "rocpd_query(sql): sql must be the text of a query, got " + got)
        cases = [
            ("", "rocpd_query: the argument holds no SQL statement"),
            ("-- a comment", "rocpd_query: the argument holds no SQL statement"),
            ("SELECT 1; SELECT 2", "rocpd_query: the argument holds more than one SQL statement", "SELECT 1;"),
            ("SELECT 1; DELETE FROM t", "rocpd_query: the argument holds more than one SQL statement"),
            ("DELETE FROM t", "rocpd_query: the statement changes the database; rocpd_query reads only: DELETE"),
            ("CREATE TABLE u(x)", "rocpd_query: the statement changes the database"),
            ("SELECT * FROM nope", "rocpd_query: no such table: nope"),
            ("SELEC 1", 'rocpd_query: near "SELEC": syntax error'),
            ("SELECT ?1", "rocpd_query: the statement has parameters"),
            ("SELECT abs(x) FROM big", "rocpd_query: integer overflow"),
        ]
        for sql, *parts in cases:
            self.assertError(con, "SELECT rocpd_query(?)", *parts, args=(sql,))
        # Nothing changed; a comment and empty statements after the query are fine.
        self.assertEqual(con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0], 2)
        self.assertEqual(parse(query(con, "SELECT 'a''b' AS x -- c\n ; ;"))[1], [["a'b"]])

    def test_without_members(self):
        con = connect()
        # A view says no trace is open; a table has no rows, and the footer says why.
        self.assertError(con, "SELECT rocpd_query('SELECT * FROM rocpd_kernel_summary')",
                         "rocpd_query: rocpd_kernel_summary: no trace is open on this connection")
        text = query(con, "SELECT name, count(*) FROM rocpd_ops GROUP BY name")
        header, rows, footer, _ = parse(text)
        self.assertEqual((header, rows), (["name", "count(*)"], []))
        self.assertEqual(footer, "(0 rows; no trace is open, so rocpd_ops and the other tables over the members "
                                 "have none: rocpd_open('path') or ATTACH first)")
        # A query naming none of them has no such footer.
        self.assertEqual(parse(query(con, "SELECT 1 AS x WHERE 0"))[2], "(0 rows)")

    def test_direct_only(self):
        con = connect()
        con.execute("CREATE VIEW v AS SELECT rocpd_query('SELECT 1') AS t")
        self.assertError(con, "SELECT * FROM v", "unsafe use of rocpd_query()")

    def test_interrupt_stops_the_statement(self):
        times = []
        for _ in range(3):
            con = connect()
            timer = threading.Timer(0.2, con.interrupt)
            started = time.monotonic()
            timer.start()
            try:
                with self.assertRaises(sqlite3.OperationalError) as cm:
                    query(con, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n")
            finally:
                timer.cancel()
            times.append(time.monotonic() - started - 0.2)
            self.assertEqual(str(cm.exception), "interrupted")
            self.assertEqual(con.execute("SELECT 1").fetchone(), (1,))
            if times[-1] < 0.5 * TIMING_SCALE:
                return
        self.fail("stopped %s s after the interrupt" % times)


if __name__ == "__main__":
    main()
