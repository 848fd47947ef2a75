"""interval_union_state / interval_union_merge / interval_union_length against brute force in Python
(run by /usr/bin/python3): per-group states merged give the union of all rows (a Python union of
the intervals, and the generator's ground truth on the fixture sets), the same rules as
interval_union() for NULLs, reversed and non-integer bounds, the documented byte layout, and exact
error texts."""
import os
import random
import sqlite3
import struct
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import SETS, connect, main, truth  # noqa: E402

I64_MIN, I64_MAX = -2**63, 2**63 - 1


def python_union(rows):
    """Maximal busy intervals of the non-empty [s, e) rows: sorted, disjoint, touching ones joined."""
    runs = []
    for s, e in sorted((s, e) for s, e in rows if s is not None and e is not None and e > s):
        if runs and s <= runs[-1][1]:
            runs[-1][1] = max(runs[-1][1], e)
        else:
            runs.append([s, e])
    return [tuple(r) for r in runs]


def decode(blob):
    """docs/states.md: 'rpIU', version 1, 3 reserved bytes, u64 count, then (i64 start, i64 end) pairs."""
    assert blob[:5] == b"rpIU\x01" and blob[5:8] == b"\x00\x00\x00", blob[:8]
    n, = struct.unpack_from("<Q", blob, 8)
    assert len(blob) == 16 + 16 * n
    return [struct.unpack_from("<2q", blob, 16 + 16 * i) for i in range(n)]


class IntervalStates(unittest.TestCase):
    def setUp(self):
        self.con = connect()
        self.con.execute("CREATE TABLE t(g, s, e)")
        self.rng = random.Random(77)

    def load(self, rows):
        self.con.execute("DELETE FROM t")
        self.con.executemany("INSERT INTO t VALUES (?, ?, ?)", rows)

    def error(self, sql, *args):
        with self.assertRaises(sqlite3.OperationalError) as caught:
            self.con.execute(sql, args).fetchall()
        return str(caught.exception)

    def random_rows(self, n, groups, scale):
        rows = []
        for _ in range(n):
            s = self.rng.randrange(-scale, scale)
            e = s + self.rng.randrange(-scale // 50, scale // 20)  # some reversed, some empty
            if self.rng.random() < 0.03:
                s = None
            if self.rng.random() < 0.03:
                e = None
            rows.append((self.rng.randrange(groups), s, e))
        return rows

    def test_merged_group_states_are_the_union_of_all_rows(self):
        for n, groups, scale in [(0, 1, 100), (1, 1, 100), (50, 3, 100), (3000, 8, 10**6), (20000, 16, 10**9),
                                 (5000, 5, 2**61)]:
            rows = self.random_rows(n, groups, scale)
            self.load(rows)
            want = python_union([(s, e) for _, s, e in rows])
            length = sum(e - s for s, e in want)
            blob, got, direct = self.con.execute(
                "SELECT m, interval_union_length(m), (SELECT interval_union(s, e) FROM t) FROM "
                "(SELECT interval_union_merge(st) AS m FROM (SELECT g, interval_union_state(s, e) AS st FROM t GROUP BY g))"
            ).fetchone()
            with self.subTest(n=n, scale=scale):
                self.assertEqual(decode(blob), want)
                self.assertEqual(got, length)
                self.assertEqual(direct, length)
                # The merged state is the state of all rows, byte for byte.
                self.assertEqual(blob, self.con.execute("SELECT interval_union_state(s, e) FROM t").fetchone()[0])

    def test_rules_of_interval_union(self):
        rows = [(0, 0, 10), (0, 5, 20), (0, 30, 40), (0, 35, 36), (0, 50, 50), (0, 60, 55), (0, None, 3), (0, 3, None),
                (0, 40, 45), (0, 1e9, 1000000005.0)]
        self.load(rows)
        blob = self.con.execute("SELECT interval_union_state(s, e) FROM t").fetchone()[0]
        self.assertEqual(decode(blob), [(0, 20), (30, 45), (10**9, 10**9 + 5)])
        self.assertEqual(self.con.execute("SELECT interval_union_length(?), interval_union(s, e) FROM t", (blob,)).fetchone(),
                         (40, 40))

    def test_nulls_and_empty(self):
        self.assertEqual(self.con.execute(
            "SELECT interval_union_length(interval_union_state(s, e)), length(interval_union_state(s, e)) FROM t").fetchone(),
            (0, 16))
        self.assertEqual(self.con.execute(
            "SELECT interval_union_length(NULL), interval_union_length(interval_union_merge(NULL))").fetchone(), (None, 0))
        self.assertEqual(self.con.execute(
            "SELECT interval_union_length(interval_union_merge(x)) FROM (SELECT interval_union_state(0, 5) AS x "
            "UNION ALL SELECT NULL UNION ALL SELECT interval_union_state(3, 9))").fetchone(), (9,))

    def test_int64_extremes(self):
        self.load([(0, I64_MIN, 0), (1, 0, I64_MAX)])
        merged = ("SELECT interval_union_length(interval_union_merge(x)) FROM "
                  "(SELECT interval_union_state(s, e) AS x FROM t GROUP BY g)")
        self.assertEqual(self.error(merged),
                         "interval_union_length: the union is 18446744073709551615 ns long, more than an integer holds "
                         "(INT64_MAX = 9223372036854775807)")
        self.load([(0, I64_MIN + 1, 0), (1, 0, 0)])
        self.assertEqual(self.con.execute(merged).fetchone(), (I64_MAX,))

    def test_errors(self):
        for sql, text in [
            ("SELECT interval_union_state('a', 1)", "interval_union_state: start must be an integer (ns), got text 'a'"),
            ("SELECT interval_union_state(1, x'00')", "interval_union_state: end must be an integer (ns), got a blob"),
            ("SELECT interval_union_state(1, 2.5)", "interval_union_state: end must be an integer (ns), got real 2.5"),
            ("SELECT interval_union_state(1)", "wrong number of arguments to function interval_union_state()"),
            ("SELECT interval_union_length('x')",
             "interval_union_length: argument 1 must be an interval_union state (a BLOB from interval_union_state or "
             "interval_union_merge), got text 'x'"),
            ("SELECT interval_union_merge(2.5)",
             "interval_union_merge: argument 1 must be an interval_union state (a BLOB from interval_union_state or "
             "interval_union_merge), got real 2.5"),
            ("SELECT interval_union_length(7)",
             "interval_union_length: argument 1 must be an interval_union state (a BLOB from interval_union_state or "
             "interval_union_merge), got integer 7"),
            ("SELECT interval_union_state(s, e) OVER () FROM t",
             "interval_union_state() may not be used as a window function"),
        ]:
            self.assertEqual(self.error(sql), text)
        good = self.con.execute("SELECT interval_union_state(v, v + 1) FROM (SELECT 1 AS v UNION ALL SELECT 5)").fetchone()[0]
        stats = self.con.execute("SELECT rocpd_stats_state(1)").fetchone()[0]
        for bad, text in [(b"", "is not an interval_union state (bad magic)"),
                          (b"rpIU", "is truncated (4 bytes)"),
                          (good[:-1], f"is truncated ({len(good) - 1} bytes)"),
                          (good + b"\x00", "is corrupt (1 bytes after the last field)"),
                          (good[:4] + b"\x07" + good[5:], "is an interval_union state of version 7; this build reads version 1"),
                          (good[:16] + good[32:] + good[16:32], "is corrupt (intervals not sorted and disjoint)"),
                          (stats, "is a rocpd_stats state, not an interval_union state")]:
            for fn in ["interval_union_length", "interval_union_merge"]:
                self.assertEqual(self.error(f"SELECT {fn}(?)", bad), f"{fn}: argument 1 {text}")


class FixtureSets(unittest.TestCase):
    """Per-member states on the generated sets: busy time of each (db, gpu) against the generator's
    ground truth, and the job-wide union against a Python union of every op."""

    def test_sets(self):
        if not os.path.isdir(SETS):
            self.skipTest("fixtures not generated")
        for name in ["mixed8", "same_rocpd"]:
            con = connect()
            con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, name),))
            want = {(f["db"], g["gpu"]): g["busy_ns"] for f in truth(name)["files"] for g in f["gpus"]}
            # Each (db, gpu) split into parts by op id parity, merged back.
            got = dict(((db, gpu), n) for db, gpu, n in con.execute(
                "SELECT db, gpu, interval_union_length(interval_union_merge(st)) FROM "
                "(SELECT db, gpu, interval_union_state(start, \"end\") AS st FROM rocpd_ops GROUP BY db, gpu, start % 2) "
                "GROUP BY db, gpu"))
            self.assertEqual(got, want, name)
            rows = con.execute("SELECT start, \"end\" FROM rocpd_ops").fetchall()
            blob = con.execute(
                "SELECT interval_union_merge(st) FROM (SELECT db, interval_union_state(start, \"end\") AS st FROM rocpd_ops "
                "GROUP BY db)").fetchone()[0]
            self.assertEqual(decode(blob), python_union(rows), name)


if __name__ == "__main__":
    main()
