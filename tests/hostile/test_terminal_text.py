"""Text from a trace or an argument that reaches a terminal is escaped (issue 42): an error message
of the extension quoting a value (a time column holding an escape sequence that would set the
terminal's title and clear its screen, a pattern argument), through Python, the sqlite3 shell and
rocpd-ext alike, and the command's own lines (errors, warnings, the compare headline's labels)."""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "federation"))
from rocpd_testlib import EXT, SETS, connect, main  # noqa: E402

HOSTILE = "\x1b]0;PWNED\x07\x1b[2J\x9b6n"  # OSC title, BEL, clear screen, C1 CSI (a cursor report)
ESCAPED = "\\x1b]0;PWNED\\x07\\x1b[2J\\u009b6n"
CLI = os.path.join(os.path.dirname(os.environ.get("ROCPD_EXT_LIBRARY", "")), "rocpd-ext")
SHELL = os.environ.get("ROCPD_SQLITE3", "sqlite3")


def raw_controls(text):
    return [c for c in text if (ord(c) < 0x20 and c not in "\n") or 0x7F <= ord(c) < 0xA0]


class TerminalText(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="rocpd_terminal_")
        cls.job = os.path.join(cls.tmp, "job")
        os.mkdir(cls.job)
        for f in ("rank0.rpd", "rank1.rpd"):
            shutil.copy(os.path.join(SETS, "mixed8", f), os.path.join(cls.job, f))
        con = sqlite3.connect(os.path.join(cls.job, "rank1.rpd"))
        con.execute("UPDATE rocpd_op SET start = ? WHERE id = (SELECT min(id) FROM rocpd_op)", (HOSTILE,))
        con.commit()
        con.close()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def error_of(self, sql, *args):
        con = connect()
        con.execute("SELECT rocpd_open(?)", (self.job,))
        with self.assertRaises(sqlite3.Error) as cm:
            con.execute(sql, args).fetchall()
        return str(cm.exception)

    def assert_escaped(self, message):
        self.assertIn(ESCAPED, message)
        self.assertEqual(raw_controls(message), [], message)

    def test_messages_quoting_trace_values(self):
        for sql in ("SELECT * FROM rocpd_time_breakdown", "SELECT * FROM rocpd_critical_path",
                    "SELECT interval_union(start, \"end\") FROM rocpd_ops"):
            with self.subTest(sql=sql):
                msg = self.error_of(sql)
                self.assertIn("got text", msg)
                self.assert_escaped(msg)

    def test_messages_quoting_arguments(self):
        for sql in ("SELECT percentile(1, ?)", "SELECT time_bucket(?, 5)", "SELECT rocpd_stats_get(x'00', ?)"):
            with self.subTest(sql=sql):
                self.assert_escaped(self.error_of(sql, HOSTILE))

    def test_sqlite3_shell(self):
        out = subprocess.run([SHELL, ":memory:", ".load " + EXT, f"SELECT rocpd_open('{self.job}');",
                              "SELECT count(*) FROM rocpd_time_breakdown;"], capture_output=True)
        err = out.stderr.decode("utf-8", "replace")
        self.assertIn("got text", err)
        self.assertIn(ESCAPED, err)
        self.assertNotIn(b"\x1b", out.stderr)

    @unittest.skipUnless(os.path.exists(CLI), "rocpd-ext not built")
    def test_cli_lines(self):
        run = subprocess.run([CLI, "query", self.job, "SELECT * FROM rocpd_time_breakdown"], capture_output=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn(ESCAPED.encode(), run.stderr)
        self.assertNotIn(b"\x1b", run.stderr)
        # SQLite's own message quoting the query's text
        run = subprocess.run([CLI, "query", self.job, f'SELECT * FROM "{HOSTILE}"'], capture_output=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertNotIn(b"\x1b", run.stderr)
        self.assertIn(b"no such table", run.stderr)
        # Labels: the compare headline (table and Markdown) and its errors.
        other = os.path.join(self.tmp, "other")
        os.makedirs(other, exist_ok=True)
        shutil.copy(os.path.join(SETS, "mixed8", "rank3.rpd"), other)
        for fmt in ("table", "md"):
            run = subprocess.run([CLI, "compare", os.path.join(SETS, "mixed8", "rank0.rpd"), other, "--label",
                                  "a" + HOSTILE, "--label", "b", "--format", fmt], capture_output=True)
            self.assertEqual(run.returncode, 0, run.stderr)
            self.assertIn(("a = a" + ESCAPED).encode(), run.stdout)
            self.assertNotIn(b"\x1b", run.stdout + run.stderr)
        run = subprocess.run([CLI, "compare", self.job, other, "--label", HOSTILE, "--label", HOSTILE],
                             capture_output=True)
        self.assertNotEqual(run.returncode, 0)
        self.assertIn(ESCAPED.encode(), run.stderr)
        self.assertNotIn(b"\x1b", run.stderr)


if __name__ == "__main__":
    main()
