"""Run labels and run comparison (docs/diagnosis.md, "Comparing runs"): rocpd_open(pattern, run),
rocpd_set_run, rocpd_runs and rocpd_run_compare against a brute force in Python over rocpd_ops rows
and the generator's truth (run by /usr/bin/python3)."""
import json
import os
import shutil
import sqlite3
import statistics
import subprocess
import tempfile
import unittest
from collections import defaultdict

EXT = os.environ.get("ROCPD_EXT", "")
GEN = os.environ.get("ROCPD_GEN", "")
TMP = None


def setUpModule():
    global TMP
    TMP = tempfile.mkdtemp(prefix="rocpd_runs_")
    # Two runs of the same model: the candidate differs by seed (other durations and launch mix).
    for name, seed, fmt in (("baseline", 3, "rpd3"), ("candidate", 4, "mixed"), ("third", 5, "rpd3")):
        subprocess.run([GEN, "--out", os.path.join(TMP, name), "--procs", "2", "--format", fmt, "--ops", "1500",
                        "--seed", str(seed)], check=True)


def tearDownModule():
    shutil.rmtree(TMP, ignore_errors=True)


def connect():
    con = sqlite3.connect(":memory:")
    con.enable_load_extension(True)
    con.load_extension(EXT)
    con.enable_load_extension(False)
    return con


def truth(run):
    with open(os.path.join(TMP, run, "truth.json")) as f:
        return json.load(f)


class Runs(unittest.TestCase):
    def open_both(self):
        con = connect()
        self.assertEqual(con.execute("SELECT rocpd_open(?, 'baseline')", (os.path.join(TMP, "baseline"),)).fetchone()[0], 2)
        self.assertEqual(con.execute("SELECT rocpd_open(?, 'candidate')", (os.path.join(TMP, "candidate"),)).fetchone()[0], 2)
        return con

    def test_labels(self):
        con = self.open_both()
        rows = con.execute("SELECT db, run FROM rocpd_runs ORDER BY db").fetchall()
        self.assertEqual(rows, [("rank0", "baseline"), ("rank0_2", "candidate"), ("rank1", "baseline"),
                                ("rank1_2", "candidate")])
        # Opening again adds nothing and relabels nothing.
        self.assertEqual(con.execute("SELECT rocpd_open(?, 'other')", (os.path.join(TMP, "baseline"),)).fetchone()[0], 0)
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_runs WHERE run = 'other'").fetchone()[0], 0)
        con.execute("SELECT rocpd_set_run('rank1', 'other')")
        self.assertEqual(con.execute("SELECT run FROM rocpd_runs WHERE db = 'rank1'").fetchone()[0], "other")
        con.execute("SELECT rocpd_set_run('rank1', NULL)")
        self.assertIsNone(con.execute("SELECT run FROM rocpd_runs WHERE db = 'rank1'").fetchone()[0])
        # A closed member's name reused by another file does not inherit its label.
        con.execute("SELECT rocpd_close('rank0_2')")
        con.execute("SELECT rocpd_open(?)", (os.path.join(TMP, "third", "rank0.rpd"),))
        self.assertEqual(con.execute("SELECT db, run FROM rocpd_runs WHERE db = 'rank0_2'").fetchall(), [("rank0_2", None)])
        for sql, msg in (("SELECT rocpd_set_run('nope', 'x')", "rocpd_set_run: no member is named 'nope'"),
                         ("SELECT rocpd_open('x', 3)", "rocpd_open: the run label (argument 2) must be text"),
                         ("SELECT rocpd_open('x', '')", "rocpd_open: the run label (argument 2) must not be empty")):
            with self.assertRaises(sqlite3.Error) as e:
                con.execute(sql).fetchall()
            self.assertEqual(str(e.exception), msg)

    def test_compare_matches_brute_force_and_truth(self):
        con = self.open_both()
        runs = dict(con.execute("SELECT db, run FROM rocpd_runs"))
        durations = defaultdict(list)
        for db, name, d in con.execute("SELECT db, name, duration FROM rocpd_ops WHERE kind = 'kernel'"):
            durations[(runs[db], name)].append(d)
        # Calls and totals per run also from the generator's truth (the files' "top" lists).
        for run in ("baseline", "candidate"):
            want = defaultdict(lambda: [0, 0])
            for f in truth(run)["files"]:
                for t in f["top"]:
                    if t["kind"] == "kernel":
                        want[t["name"]][0] += t["calls"]
                        want[t["name"]][1] += t["total_ns"]
            got = {n: [len(v), sum(v)] for (r, n), v in durations.items() if r == run}
            self.assertEqual(got, dict(want))
        rows = con.execute("SELECT * FROM rocpd_run_compare_full WHERE run_a = 'baseline' AND run_b = 'candidate'"
                           ).fetchall()
        names = {n for (_, n) in durations}
        self.assertEqual(len(rows), len(names))
        impact = []
        for run_a, run_b, name, ca, ta, ma, cb, tb, mb, diff, dmed, kernel in rows:
            self.assertEqual(kernel, con.execute("SELECT rocpd_display_name(?)", (name,)).fetchone()[0])
            a, b = durations.get(("baseline", name), []), durations.get(("candidate", name), [])
            self.assertEqual((ca, ta, cb, tb), (len(a), sum(a), len(b), sum(b)), name)
            self.assertEqual(ma, statistics.median(a) if a else None)
            self.assertEqual(mb, statistics.median(b) if b else None)
            self.assertEqual(diff, sum(b) - sum(a))
            self.assertEqual(dmed, None if not a or not b else statistics.median(b) - statistics.median(a))
            impact.append(abs(diff))
        self.assertEqual(impact, sorted(impact, reverse=True))
        # The other direction is the mirror image.
        back = {r[2]: r for r in con.execute("SELECT * FROM rocpd_run_compare_full WHERE run_a = 'candidate'")}
        for r in rows:
            self.assertEqual(back[r[2]][9], -r[9])
        # The short view: the same rows and order, `kernel` in place of the raw name, without the medians
        # (run_a, run_b, kernel, calls_a, total_a_ns, calls_b, total_b_ns, diff_total_ns: 160 columns).
        short = con.execute("SELECT * FROM rocpd_run_compare WHERE run_a = 'baseline' AND run_b = 'candidate'").fetchall()
        self.assertEqual(short, [r[:2] + (r[11], r[3], r[4], r[6], r[7], r[9]) for r in rows])
        kernels = con.execute("SELECT * FROM rocpd_run_kernels ORDER BY run, kernel, calls").fetchall()
        full = con.execute("SELECT run, kernel, calls, total_ns, med_ns FROM rocpd_run_kernels_full "
                           "ORDER BY run, kernel, calls").fetchall()
        self.assertEqual(kernels, full)


if __name__ == "__main__":
    unittest.main()
