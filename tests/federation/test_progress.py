"""rocpd_progress(1): a long scan writes a line about once a second to stderr (members read, rows,
elapsed time); nothing is written while it is off (the default). Each case runs a child process
whose nested-loop query runs until a timer interrupts it after 2.6 s, so the duration does not
depend on the machine's speed."""
import os
import re
import subprocess
import sys
import unittest

from rocpd_testlib import EXT, SETS, connect, main

CHILD = r"""
import sqlite3, sys, threading
con = sqlite3.connect(":memory:")
con.enable_load_extension(True)
con.load_extension(sys.argv[1])
print(con.execute("SELECT rocpd_progress(?)", (int(sys.argv[3]),)).fetchone()[0], flush=True)
con.execute("SELECT rocpd_open(?)", (sys.argv[2],))
threading.Timer(2.6, con.interrupt).start()
try:
    con.execute("SELECT count(*) FROM rocpd_ops a, rocpd_apis b WHERE b.name = a.name || 'x'").fetchall()
    print("finished", flush=True)
except sqlite3.OperationalError as e:
    print(e, flush=True)
"""


def run(on):
    return subprocess.run([sys.executable, "-c", CHILD, EXT, os.path.join(SETS, "mixed8"), str(on)],
                          capture_output=True, text=True, timeout=120)


class Progress(unittest.TestCase):
    def test_lines_while_on(self):
        p = run(1)
        self.assertEqual(p.stdout.split(), ["1", "interrupted"], p.stderr)
        lines = [l for l in p.stderr.splitlines() if l.startswith("rocpd: ")]
        self.assertGreaterEqual(len(lines), 2, p.stderr)
        # ext/members/progress.h: "<what>: <done>/<total> members done[, now <member>][, <rows> rows]
        # [, <detail>], <seconds> s"
        pattern = re.compile(r"rocpd: rocpd_(ops|apis): \d+/\d+ members done(, now \w+)?(, \d+ rows)?"
                             r"(, inner side of a join: \d+ lookups)?, \d+\.\d s$")
        for l in lines:
            self.assertRegex(l, pattern)
        seconds = [float(l.rsplit(", ", 1)[1][:-2]) for l in lines]
        self.assertEqual(seconds, sorted(seconds))

    def test_quiet_by_default_and_when_off(self):
        p = run(0)
        self.assertEqual(p.stdout.split(), ["0", "interrupted"], p.stderr)
        self.assertNotIn("rocpd: ", p.stderr)
        self.assertEqual(connect().execute("SELECT rocpd_progress()").fetchone(), (0,))

    def test_bad_argument(self):
        import sqlite3
        for bad in ("'yes'", "2", "NULL", "1.0"):
            with self.subTest(arg=bad):
                with self.assertRaises(sqlite3.OperationalError) as cm:
                    connect().execute(f"SELECT rocpd_progress({bad})")
                self.assertIn("rocpd_progress(on): on must be 1 (report) or 0 (quiet)", str(cm.exception))

    def test_direct_only(self):
        import sqlite3
        con = connect()
        con.execute("CREATE VIEW main.v AS SELECT rocpd_progress(1)")
        with self.assertRaises(sqlite3.OperationalError) as cm:
            con.execute("SELECT * FROM v").fetchall()
        self.assertIn("unsafe use of rocpd_progress()", str(cm.exception))


if __name__ == "__main__":
    main()
