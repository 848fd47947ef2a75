"""The kind argument of rocpd_busy_intervals and rocpd_gaps (docs/intervals.md): only the ops whose
kind or name is one of the comma-separated items are busy time. Every row against a brute-force
merge in Python of the same ops, with and without a window, as an argument and as the hidden
column; NULL is every op (run by /usr/bin/python3)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import SETS, connect, main  # noqa: E402


def merged(intervals):
    out = []
    for s, e in sorted(intervals):
        if e <= s:
            continue
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return [tuple(iv) for iv in out]


class Kind(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "mixed8"),))
        cls.ops = cls.con.execute("SELECT db, gpu, kind, name, start, \"end\" FROM rocpd_ops").fetchall()

    def expected(self, items, lo=None, hi=None, gaps=False):
        by = {}
        for db, gpu, kind, name, s, e in self.ops:
            if s is None or e is None or (items is not None and kind not in items and name not in items):
                continue
            if lo is not None:
                s = max(s, lo)
            if hi is not None:
                e = min(e, hi)
            by.setdefault((db, gpu), []).append((s, e))
        rows = []
        for (db, gpu), ivs in sorted(by.items()):
            m = merged(ivs)
            if gaps:
                m = [(a[1], b[0]) for a, b in zip(m, m[1:])]
            rows += [(db, gpu, s, e, e - s) for s, e in m]
        return rows

    def check(self, sql, args, want):
        got = self.con.execute(sql, args).fetchall()
        self.assertEqual(sorted(got), sorted(want))
        return got

    def test_kinds_and_names(self):
        for kind, items in (("kernel", {"kernel"}), ("copy", {"copy"}),
                            ("kernel, CopyDeviceToDevice", {"kernel", "CopyDeviceToDevice"}),
                            ("CopyHostToDevice,CopyDeviceToHost", {"CopyHostToDevice", "CopyDeviceToHost"}),
                            ("no such kind", {"no such kind"})):
            for table, gaps in (("rocpd_busy_intervals", False), ("rocpd_gaps", True)):
                with self.subTest(kind=kind, table=table):
                    want = self.expected(items, gaps=gaps)
                    if kind != "no such kind":
                        self.assertGreater(len(want), 100)
                    self.check(f"SELECT db, gpu, start, \"end\", duration FROM {table}(NULL, NULL, ?)", (kind,), want)
                    self.check(f"SELECT db, gpu, start, \"end\", duration FROM {table} WHERE kind = ?", (kind,), want)

    def test_raptor_idle_without_host_copies(self):
        all_gaps = self.check("SELECT db, gpu, start, \"end\", duration FROM rocpd_gaps", (),
                              self.expected(None, gaps=True))
        device = self.check("SELECT db, gpu, start, \"end\", duration FROM rocpd_gaps(NULL, NULL, "
                            "'kernel,CopyDeviceToDevice')", (), self.expected({"kernel", "CopyDeviceToDevice"}, gaps=True))
        self.assertNotEqual(sorted(all_gaps), sorted(device))

    def test_window_null_and_hidden_column(self):
        lo, hi = self.con.execute("SELECT min(start) + 5000000, min(start) + 25000000 FROM rocpd_ops").fetchone()
        self.check("SELECT db, gpu, start, \"end\", duration FROM rocpd_busy_intervals(?, ?, 'kernel') WHERE db = 'rank3'",
                   (lo, hi), [r for r in self.expected({"kernel"}, lo, hi) if r[0] == "rank3"])
        self.check("SELECT db, gpu, start, \"end\", duration FROM rocpd_gaps(NULL, NULL, NULL)", (),
                   self.expected(None, gaps=True))
        kinds = {r[0] for r in self.con.execute("SELECT kind FROM rocpd_busy_intervals(NULL, NULL, 'copy')")}
        self.assertEqual(kinds, {"copy"})
        self.assertEqual(self.con.execute("SELECT count(*) FROM rocpd_gaps WHERE kind = 'kernel' AND kind = 'copy'")
                         .fetchone()[0], 0)
        rowids = [r[0] for r in self.con.execute("SELECT rowid FROM rocpd_gaps(NULL, NULL, 'kernel')")]
        self.assertEqual(len(set(rowids)), len(rowids))


if __name__ == "__main__":
    main()
