"""python3 -m rocpd_ext.dask on a LocalCluster of two workers: its CSV holds the rows of the
matching view over the same files (the view over one connection is the independent answer)."""
import csv
import io
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE_DIR = os.path.normpath(os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, PACKAGE_DIR)

from rocpd_ext import recipes  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "federation"))
sys.path.insert(0, HERE)
from compare import same_rows  # noqa: E402
from rocpd_testlib import GEN, SETS, main  # noqa: E402

try:
    import distributed  # noqa: F401
except ImportError:
    print("python3-distributed is not installed: the Dask recipe is not tested")
    sys.exit(77)


def run(*args):
    env = dict(os.environ)
    env["PYTHONPATH"] = PACKAGE_DIR + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run([sys.executable, "-m", "rocpd_ext.dask", *args], capture_output=True, text=True,
                          timeout=300, env=env)


def typed(text):
    if text == "":
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


class DaskRecipe(unittest.TestCase):
    def csv_rows(self, out, query):
        rows = list(csv.reader(io.StringIO(out)))
        self.assertEqual(rows[0], recipes.COLUMNS[query])
        return [tuple(typed(v) for v in r) for r in rows[1:]]

    def test_every_query_equals_its_view(self):
        d = os.path.join(SETS, "mixed8")
        files = recipes.expand(d)
        for query in recipes.QUERIES:
            with self.subTest(query=query):
                extra = ["--bucket-ns", "1000000"] if query == "utilization" else []
                p = run("--local", "2", "--files-per-task", "3", "--query", query, *extra, d)
                self.assertEqual(p.returncode, 0, p.stderr[-3000:])
                got = self.csv_rows(p.stdout, query)
                want = recipes.view_rows(query, files, 1000000)
                # The CSV round trip keeps text as text: names that look like numbers would not, and
                # the fixtures have none.
                same_rows(self, got, want, recipes.COLUMNS[query])

    def test_stragglers_of_single_participant_collectives(self):
        # One rank alone on one gpu: every family has one participant, last at every instance but
        # holding nobody back (times_last 0, as the view says).
        tmp = tempfile.mkdtemp(prefix="rocpd_dask_single_")
        try:
            subprocess.run([GEN, "--out", tmp, "--procs", "1", "--gpus", "1", "--format", "rpd3", "--ops", "400",
                            "--seed", "5"], check=True, stdout=subprocess.DEVNULL)
            p = run("--local", "2", "--query", "stragglers", tmp)
            self.assertEqual(p.returncode, 0, p.stderr[-3000:])
            got = self.csv_rows(p.stdout, "stragglers")
            want = recipes.view_rows("stragglers", recipes.expand(tmp), 1000000)
            same_rows(self, got, want, recipes.COLUMNS["stragglers"])
            self.assertEqual(dict(zip(recipes.COLUMNS["stragglers"], got[0]))["times_last"], 0)
        finally:
            shutil.rmtree(tmp)

    def test_usage_errors(self):
        p = run("--local", "2", "--query", "utilization", os.path.join(SETS, "mixed8"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("--query utilization needs --bucket-ns", p.stderr)
        p = run("--local", "2", "--query", "kernel_summary", os.path.join(SETS, "mixed8", "none*.db"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("rocpd_open: no file matches", p.stderr)
        p = run("--query", "top", os.path.join(SETS, "mixed8"))
        self.assertEqual(p.returncode, 2)
        self.assertIn("invalid choice: 'top'", p.stderr)


class BadInputs(unittest.TestCase):
    def test_bad_input_is_one_line(self):
        # A directory holding only a non-trace SQLite file (issue 23): one line, no worker traceback.
        tmp = tempfile.mkdtemp(prefix="rocpd_dask_")
        try:
            sqlite3.connect(os.path.join(tmp, "notes.db")).execute("CREATE TABLE t(x)").connection.commit()
            p = run("--local", "2", "--query", "busy", tmp)
            self.assertEqual(p.returncode, 2)
            self.assertEqual(p.stderr.strip().splitlines(),
                             [f"rocpd_ext.dask: rocpd_open: '{tmp}' holds no trace file: skipped "
                              f"'{tmp}/notes.db' (an SQLite database that holds no rpd or rocpd trace)"])
            self.assertEqual(p.stdout, "")
        finally:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
