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
        # Neither run has steps: every row is ranked by its change per call.
        self.assertEqual(con.execute("SELECT count(*) FROM rocpd_run_steps").fetchone()[0], 0)
        rows = rows_of(con, "SELECT * FROM rocpd_run_compare_full WHERE run_a = 'baseline' AND run_b = 'candidate'")
        self.assertEqual(rows, brute_compare(con, durations, {}, "baseline", "candidate"))
        self.assertEqual({r["ranked_by"] for r in rows}, {"call"})
        # The other direction is the mirror image.
        back = {r["name"]: r for r in rows_of(con, "SELECT * FROM rocpd_run_compare_full WHERE run_a = 'candidate'")}
        for r in rows:
            self.assertEqual(back[r["name"]]["diff_total_ns"], -r["diff_total_ns"])
            self.assertEqual(back[r["name"]]["change_ns"], -r["change_ns"])
        # The short view: the same rows and order, `kernel` in place of the raw name, the per-call and
        # per-step figures (run_a, run_b, kernel, calls_a, calls_b, med_a_ns, med_b_ns, med_ratio, step_ratio).
        short = rows_of(con, "SELECT * FROM rocpd_run_compare WHERE run_a = 'baseline' AND run_b = 'candidate'")
        cols = ("run_a", "run_b", "kernel", "calls_a", "calls_b", "med_a_ns", "med_b_ns", "med_ratio", "step_ratio")
        self.assertEqual(short, [{c: r[c] for c in cols} for r in rows])
        kernels = con.execute("SELECT * FROM rocpd_run_kernels ORDER BY run, kernel, calls").fetchall()
        full = con.execute("SELECT run, kernel, calls, total_ns, med_ns FROM rocpd_run_kernels_full "
                           "ORDER BY run, kernel, calls").fetchall()
        self.assertEqual(kernels, full)


def rows_of(con, sql, args=()):
    cur = con.execute(sql, args)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur]


def brute_compare(con, durations, steps, a, b):
    """rocpd_run_compare_full's rows for (a, b) from the definitions (docs/diagnosis.md): `durations`
    (run, name) -> kernel durations, `steps` run -> its ProfilerStep#k ranges; SQLite's round()."""
    def rnd(x, n):
        return None if x is None else con.execute("SELECT round(?, ?)", (x, n)).fetchone()[0]

    def ratio(x, y):
        return None if x is None or y is None or y == 0 else rnd(float(x) / y, 4)

    out = []
    for name in sorted({n for (r, n) in durations if r in (a, b)}):
        da, db_ = durations.get((a, name), []), durations.get((b, name), [])
        ma = statistics.median(da) if da else None
        mb = statistics.median(db_) if db_ else None
        sa, sb = steps.get(a), steps.get(b)
        pa = float(sum(da)) / sa if sa else None
        pb = float(sum(db_)) / sb if sb else None
        both = sa is not None and sb is not None
        change = pb - pa if both else (mb or 0) - (ma or 0)
        out.append(dict(run_a=a, run_b=b, name=name, calls_a=len(da), total_a_ns=sum(da), med_a_ns=ma,
                        calls_b=len(db_), total_b_ns=sum(db_), med_b_ns=mb, diff_total_ns=sum(db_) - sum(da),
                        diff_med_ns=mb - ma if da and db_ else None, med_ratio=ratio(mb, ma), steps_a=sa,
                        steps_b=sb, step_a_ns=rnd(pa, 1), step_b_ns=rnd(pb, 1),
                        diff_step_ns=rnd(pb - pa, 1) if both else None, step_ratio=ratio(pb, pa),
                        change_ns=rnd(change, 1) if both else change, ranked_by="step" if both else "call",
                        kernel=con.execute("SELECT rocpd_display_name(?)", (name,)).fetchone()[0], _key=abs(change)))
    out.sort(key=lambda r: -r.pop("_key"))  # stable: ties keep the name order
    return out


class StepsCompare(unittest.TestCase):
    """A run that captured fewer iterations, with one kernel planted 2x slower per call: ranked by time
    per step it comes first, where raw totals hide it (half the iterations at twice the time)."""

    @classmethod
    def setUpClass(cls):
        cls.full = os.path.join(TMP, "six_steps")
        cls.short = os.path.join(TMP, "three_steps_slowed")
        subprocess.run([GEN, "--out", cls.full, "--procs", "2", "--format", "rpd3", "--ops", "1200", "--seed", "7",
                        "--steps", "6", "--gpus", "1"], check=True, stdout=subprocess.DEVNULL)
        con = connect()
        con.execute("SELECT rocpd_open(?)", (cls.full,))
        # The slowed kernel: the one with the most time (half the iterations at twice the time: the
        # same total).
        cls.slowed = con.execute("SELECT name FROM rocpd_ops WHERE kind = 'kernel' GROUP BY name "
                                 "ORDER BY sum(duration) DESC LIMIT 1").fetchone()[0]
        # Each rank's cut: the start of its ProfilerStep#3 (as rocpd_apis reads it: raw ns, no offset).
        cuts = dict(con.execute("SELECT m.path, a.start FROM rocpd_apis AS a JOIN rocpd_members AS m ON m.db = a.db "
                                "WHERE a.domain = 'marker' AND a.name = 'ProfilerStep#3'"))
        con.close()
        shutil.copytree(cls.full, cls.short)
        for path, cut in cuts.items():
            w = sqlite3.connect(os.path.join(cls.short, os.path.basename(path)))
            w.execute("DELETE FROM rocpd_op WHERE start >= ?", (cut,))
            w.execute("DELETE FROM rocpd_api WHERE start >= ?", (cut,))
            for t, col in (("rocpd_api_ops", "api_id"), ("rocpd_kernelapi", "api_ptr_id"), ("rocpd_copyapi", "api_ptr_id")):
                w.execute("DELETE FROM %s WHERE %s NOT IN (SELECT id FROM rocpd_api)" % (t, col))
            w.execute("DELETE FROM rocpd_api_ops WHERE op_id NOT IN (SELECT id FROM rocpd_op)")
            w.execute('UPDATE rocpd_op SET "end" = start + 2 * ("end" - start) '
                      "WHERE description_id IN (SELECT id FROM rocpd_string WHERE string = ?)", (cls.slowed,))
            w.commit()
            w.close()
        cls.cuts = len(cuts)

    def test_slowed_kernel_ranks_first(self):
        con = connect()
        con.execute("SELECT rocpd_open(?, 'before'), rocpd_open(?, 'after')", (self.full, self.short))
        runs = dict(con.execute("SELECT db, run FROM rocpd_runs"))
        durations = defaultdict(list)
        for db, name, d in con.execute("SELECT db, name, duration FROM rocpd_ops WHERE kind = 'kernel'"):
            durations[(runs[db], name)].append(d)
        steps = defaultdict(int)
        for db, name in con.execute("SELECT db, name FROM rocpd_apis WHERE domain = 'marker' AND \"end\" > start"):
            if isinstance(name, str) and name.lower().startswith("profilerstep#"):
                steps[runs[db]] += 1
        self.assertEqual(self.cuts, 2)
        self.assertEqual(dict(steps), {"before": 12, "after": 6})  # 2 ranks x 6 and x 3 iterations
        self.assertEqual(rows_of(con, "SELECT * FROM rocpd_run_steps ORDER BY run"),
                         [dict(run="after", steps=6), dict(run="before", steps=12)])
        rows = rows_of(con, "SELECT * FROM rocpd_run_compare_full WHERE run_a = 'before' AND run_b = 'after'")
        self.assertEqual(rows, brute_compare(con, durations, steps, "before", "after"))
        first = rows[0]
        self.assertEqual((first["name"], first["ranked_by"]), (self.slowed, "step"))
        self.assertTrue(1.8 < first["med_ratio"] < 2.2 and 1.8 < first["step_ratio"] < 2.2, first)
        # Raw totals hide it: half the iterations at twice the time.
        by_total = sorted(rows, key=lambda r: -abs(r["diff_total_ns"]))
        self.assertNotEqual(by_total[0]["name"], self.slowed)
        self.assertLess(abs(first["diff_total_ns"]), 0.2 * first["total_a_ns"])
        # Every other kernel's time per step changed by less than half the slowed one's change (the
        # first three iterations against all six: the natural spread between iterations).
        self.assertTrue(all(abs(r["change_ns"]) < 0.5 * first["change_ns"] for r in rows[1:]))
        # A pair where one run has no steps is ranked per call.
        con.execute("SELECT rocpd_open(?, 'unstepped')", (os.path.join(TMP, "baseline"),))
        mixed = rows_of(con, "SELECT DISTINCT ranked_by, steps_b FROM rocpd_run_compare_full "
                             "WHERE run_a = 'before' AND run_b = 'unstepped'")
        self.assertEqual(mixed, [dict(ranked_by="call", steps_b=None)])


if __name__ == "__main__":
    unittest.main()
