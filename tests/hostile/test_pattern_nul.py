"""LIKE-pattern arguments with a NUL byte inside (issue 42): SQLite's LIKE reads a pattern as C text,
so the NUL would silently cut it (rocpd_time_breakdown(char(37, 0, 65)) read as '%'); every such
argument is an error naming it. A pattern without NUL still works, and as before NULL is the default."""
import os
import sqlite3
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import SETS, connect, main  # noqa: E402

CUT = "char(37, 0, 65)"  # '%', NUL, 'A': as C text, '%'


class PatternNul(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.con = connect()
        cls.con.execute("SELECT rocpd_open(?)", (os.path.join(SETS, "mixed8"),)).fetchall()

    def assert_refused(self, sql, fn, what):
        with self.assertRaises(sqlite3.OperationalError) as cm:
            self.con.execute(sql).fetchall()
        self.assertIn(f"{fn}: {what} holds a NUL byte (at byte 1 of '%\\x00A'): a LIKE pattern ends at its first "
                      "NUL, so it would match as '%'", str(cm.exception))

    def test_time_breakdown(self):
        self.assert_refused(f"SELECT * FROM rocpd_time_breakdown({CUT})", "rocpd_time_breakdown", "pattern")
        self.assert_refused(f"SELECT * FROM rocpd_time_breakdown WHERE pattern = {CUT}", "rocpd_time_breakdown",
                            "pattern")
        # Without the NUL: rows (here every op is in no step); NULL: the default.
        self.con.execute("SELECT count(*) FROM rocpd_time_breakdown('%A')").fetchall()
        self.con.execute("SELECT count(*) FROM rocpd_time_breakdown(NULL)").fetchall()

    def test_steps(self):
        self.assert_refused(f"SELECT * FROM rocpd_steps({CUT})", "rocpd_steps", "pattern")
        self.con.execute("SELECT count(*) FROM rocpd_steps('%A')").fetchall()

    def test_step_pattern(self):
        self.assert_refused(f"SELECT rocpd_step_pattern({CUT})", "rocpd_step_pattern", "the pattern")
        self.assertEqual(self.con.execute("SELECT rocpd_step_pattern()").fetchone()[0], "ProfilerStep#%")

    def test_critical_path(self):
        self.assert_refused(f"SELECT * FROM rocpd_critical_path({CUT})", "rocpd_critical_path", "step_pattern")
        self.assert_refused(f"SELECT * FROM rocpd_what_if({CUT}, '%', 0.5)", "rocpd_what_if", "step_pattern")
        self.assert_refused(f"SELECT * FROM rocpd_what_if(NULL, {CUT}, 0.5)", "rocpd_what_if", "name_pattern")
        self.con.execute("SELECT count(*) FROM rocpd_what_if(NULL, '%A', 0.5)").fetchall()

    def test_align(self):
        self.assert_refused(f"SELECT rocpd_align('collective', {CUT})", "rocpd_align", "the kernel name pattern")


if __name__ == "__main__":
    main()
