#!/usr/bin/python3
"""The differential tester's check of the host SQLite (docs/differential.md, "Comparison"): a
difference is set aside only when the plain copy contradicts itself without automatic indexes and
then agrees with the virtual table; a difference that stays must still fail. Plain tables only."""
import os
import sqlite3
import sys
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import differential_test as dt  # noqa: E402

# SQLite 3.40's automatic index ignores the comparison's RTRIM collation: the join finds nothing.
SETUP = """CREATE TEMP TABLE a(db TEXT, w INT); CREATE TEMP TABLE b(db TEXT, source TEXT);
           INSERT INTO a VALUES ('m', 5); INSERT INTO b VALUES ('m', 'attached');"""
JOIN = ("SELECT a.db FROM temp.a JOIN temp.b ON a.db = b.db "
        "WHERE a.w = 5 AND b.source = 'attached ' COLLATE RTRIM")


class HostCheck(unittest.TestCase):
    def setUp(self):
        self.con = sqlite3.connect(":memory:")
        self.con.executescript(SETUP)
        self.runner = dt.Runner(self.con, timeout=10)

    def vt_rows(self, rows):
        """What the virtual-table side returned, in r_vt as outcome() leaves it."""
        self.runner.run_into("r_vt", "SELECT * FROM (VALUES %s)" % ", ".join("(?)" for _ in rows), 1, rows) \
            if rows else self.runner.run_into("r_vt", "SELECT 1 WHERE 0", 1)

    def test_a_stable_difference_still_fails(self):
        self.vt_rows(["m", "m"])  # one row too many on the virtual-table side
        self.assertFalse(dt.Tester.copy_disagrees_with_itself(self.runner, JOIN, 1, False))
        self.vt_rows([])  # one row too few
        self.assertFalse(dt.Tester.copy_disagrees_with_itself(self.runner, JOIN, 1, False))

    def test_the_automatic_index_stays_on(self):
        self.vt_rows(["m"])
        dt.Tester.copy_disagrees_with_itself(self.runner, JOIN, 1, False)
        self.assertEqual(self.con.execute("PRAGMA automatic_index").fetchone()[0], 1)

    def test_a_host_contradiction_is_recognized(self):
        with_index = self.con.execute(JOIN).fetchall()
        if with_index == [("m",)]:
            self.skipTest("SQLite %s answers the RTRIM join right with its automatic index"
                          % sqlite3.sqlite_version)
        self.assertEqual(with_index, [])
        self.vt_rows(["m"])
        self.assertTrue(dt.Tester.copy_disagrees_with_itself(self.runner, JOIN, 1, False))


if __name__ == "__main__":
    unittest.main(verbosity=2)
